"""The model against Volcano's own code: verdicts, decoded argument types, flags, weights.

``conf_cases.jsonl.gz`` (385 confs) was produced by a harness built from Volcano 1.16's
``UnmarshalSchedulerConf``, ``calculateWeight`` and the real yaml.v2. Every conf must
match 100 %: an error finding (VC001/VC002/VC003) if and only if Volcano rejected the
file (after the scheduler's ``strings.TrimSpace``), the same actions, plugins, flags and
Go-typed arguments, the same effective binpack weights, the same ``GetInt`` warnings
(VB001 errors) and the same node-order calls.
"""

from __future__ import annotations

import gzip
import json
import math
from typing import Any

import pytest

from policytest.core.findings import Finding, Severity
from policytest.read.goyaml import go_type
from policytest.scoring.weights import BinpackWeights
from policytest.volcano.check import load
from policytest.volcano.conf import VolcanoConf
from tests.volcano.helpers import DATA, OPTIONS, conf_document

with gzip.open(DATA / "conf_cases.jsonl.gz", "rt") as _lines:
    CASES = [json.loads(line) for line in _lines]
CHUNK = 55
REJECTING_RULES = ("VC001", "VC002", "VC003")


def _load(text: str) -> tuple[VolcanoConf | None, list[Finding]]:
    document = conf_document(text)
    if isinstance(document, Finding):
        return None, [document]
    return load(document, OPTIONS)


def _same(mine: Any, theirs: dict[str, Any]) -> bool:
    """A decoded value against the oracle's ``{"type", "value"}`` (floats as Go prints them)."""
    kind, value = theirs["type"], theirs["value"]
    if go_type(mine) != kind:
        return False
    if kind == "float64":
        expected = float(value)
        return (math.isnan(expected) and math.isnan(mine)) or expected == mine
    if kind.startswith("[]"):
        return len(mine) == len(value) and all(map(_same, mine, value))
    if kind.startswith("map"):
        keys = {(float(k["value"]) if k["type"] == "float64" else k["value"]): v for k, v in value}
        return len(keys) == len(mine) and all(
            key in mine and _same(mine[key], v) for key, v in keys.items()
        )
    return bool(mine == value)


def _differences(case: dict[str, Any]) -> list[str]:
    result = case["conf_result"]
    scheduler = result["scheduler_load"]
    truth = scheduler.get("result") or result
    conf, findings = _load(case["conf"])
    rejecting = [f for f in findings if f.rule in REJECTING_RULES and f.severity is Severity.ERROR]
    problems = []
    if bool(rejecting) == scheduler["accepted"] or (conf is not None) != scheduler["accepted"]:
        problems.append(
            f"verdict: Volcano accepted={scheduler['accepted']} ({scheduler['error']!r}); "
            f"model {'built' if conf else 'None'}, findings {[f.rule for f in rejecting]}"
        )
    if conf is None or not scheduler["accepted"]:
        return problems
    if list(conf.actions) != truth["actions"]:
        problems.append(f"actions {conf.actions} != {truth['actions']}")
    mine = [entry for tier in conf.tiers for entry in tier.plugins]
    theirs = [plugin for tier in truth["tiers"] or [] for plugin in tier["plugins"]]
    if [len(t.plugins) for t in conf.tiers] != [len(t["plugins"]) for t in truth["tiers"] or []]:
        return [*problems, "tiers differ"]
    for entry, plugin in zip(mine, theirs, strict=True):
        if (entry.name, entry.registered) != (plugin["name"], plugin["info_registered_plugin"]):
            problems.append(f"plugin {entry.name!r} != {plugin['name']!r}")
        if dict(entry.flags) != plugin["flags"]:
            problems.append(f"{entry.name} flags differ")
        arguments = plugin["arguments"]
        if (entry.arguments is None) != (arguments is None):
            problems.append(f"{entry.name} arguments {entry.arguments} != {arguments}")
        elif arguments is not None and entry.arguments is not None:
            if set(entry.arguments) != set(arguments):
                problems.append(f"{entry.name} keys {sorted(entry.arguments)}")
            problems += [
                f"{entry.name} {key}: {entry.arguments.get(key)!r} != {arguments[key]}"
                for key in arguments
                if key not in entry.arguments or not _same(entry.arguments[key], arguments[key])
            ]
    if scheduler["same_result"]:  # binpack_args_result describes the untrimmed parse
        problems += _binpack_differences(conf, findings, case["binpack_args_result"])
    return problems


def _binpack_differences(
    conf: VolcanoConf, findings: list[Finding], oracle: dict[str, Any]
) -> list[str]:
    problems = []
    entries = conf.entries("binpack")
    if len(entries) != len(oracle["entries"]):
        return [f"{len(entries)} binpack entries != {len(oracle['entries'])}"]
    for entry, expected in zip(entries, oracle["entries"], strict=True):
        w = expected["weights"]
        weights = entry.weights
        assert isinstance(weights, BinpackWeights)
        got = (weights.weight, weights.cpu, weights.memory, dict(weights.resources))
        want = (
            w["BinPackingWeight"],
            w["BinPackingCPU"],
            w["BinPackingMemory"],
            w["BinPackingResources"],
        )
        if got != want:
            problems.append(f"weights {got} != {want}")
    warned = {w["key"] for e in oracle["entries"] for w in e["warnings"]}
    reported = {
        f.message.split("`")[1]
        for f in findings
        if f.rule == "VB001" and f.severity is Severity.ERROR
    }
    if warned != reported:
        problems.append(f"GetInt warnings {sorted(warned)} != VB001 {sorted(reported)}")
    calls = [entries.index(call.source) for call in conf.calls("binpack")]
    if calls != oracle["node_order_calls"]:
        problems.append(f"node-order calls {calls} != {oracle['node_order_calls']}")
    if conf.binpack_calls and conf.binpack is not entries[calls[0]].weights:
        problems.append("VolcanoConf.binpack is not the weights the calls use")
    return problems


def test_the_oracle_covers_the_issue() -> None:
    assert len(CASES) == 385
    assert sum(not c["conf_result"]["scheduler_load"]["accepted"] for c in CASES) == 72


@pytest.mark.parametrize(
    "start", range(0, len(CASES), CHUNK), ids=lambda s: f"cases-{s + 1}-{s + CHUNK}"
)
def test_the_model_matches_volcano(start: int) -> None:
    failures = {
        case["id"]: problems
        for case in CASES[start : start + CHUNK]
        if (problems := _differences(case))
    }
    assert not failures, json.dumps(failures, indent=1, ensure_ascii=False)
