"""The real kube-scheduler's full default profile (1.33.13, 1.34.9, 1.35.4, 1.36.3):
per-node filter verdicts, per-plugin scores, totals, best nodes and sequence placements
on clusters of Deployments, Services, StatefulSets, spread constraints, affinity,
images, PreferNoSchedule taints and host ports (tests/data/oracle/README.md).

Every record goes through ``policytest run --format json``: its objects become a
kubectl ``List`` snapshot, its config a file, and a fixture states what the real
scheduler did (the incoming pod written in the case; a sequence takes the snapshot's
pending pods). The run must pass, and its JSON must show each node's reason or each
plugin's weighted score as the scheduler computed them.
"""

from __future__ import annotations

import gzip
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RunLine

DATA = Path(__file__).parents[1] / "data" / "oracle"
UNSCORED = frozenset({"DynamicResources", "VolumeBinding"})
"""Score plugins that add 0 on these clusters (no volumes, no resource claims)."""
BALANCED = "NodeResourcesBalancedAllocation"


@cache
def _records(name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    with gzip.open(DATA / f"{name}.jsonl.gz", "rt") as handle:
        header, *records = (json.loads(line) for line in handle)
    return header, records


def _release(full: str) -> str:
    return full.rsplit(".", 1)[0]


def _plugin_scores(header: dict[str, Any], row: list[Any]) -> dict[str, int]:
    return dict(zip(header["plugins"], row[:-1], strict=True))


def _write_case(
    root: Path, record: dict[str, Any], case: dict[str, Any], pending: list[Any]
) -> None:
    name = record["id"]
    (root / f"{name}.config.json").write_text(json.dumps(record["config"]))
    items = [*record["items"], *pending]
    (root / f"{name}.cluster.json").write_text(json.dumps({"kind": "List", "items": items}))
    fixture = {
        "apiVersion": "policytest/v1",
        "kind": "PolicyTest",
        "metadata": {"name": name},
        "scheduler": {"config": f"{name}.config.json"},
        "cluster": {"snapshot": f"{name}.cluster.json"},
        "cases": [{"name": name, "ties": "allow", **case}],
    }
    (root / f"{name}.policytest.yaml").write_text(json.dumps(fixture))  # JSON is YAML


def _scenario_expectation(header: dict[str, Any], expected: dict[str, Any]) -> dict[str, Any]:
    """What the fixture asserts: every feasible node's total and modelled plugins, the
    infeasible nodes, the best set as a top node."""
    scores: dict[str, int] = {}
    plugins: dict[str, dict[str, int]] = {}
    unschedulable = []
    for node, row in expected["nodes"].items():
        if isinstance(row[0], str):
            unschedulable.append(node)
            continue
        scores[node] = row[-1]
        plugins[node] = {
            p: v
            for p, v in _plugin_scores(header, row).items()
            if p not in UNSCORED and not (p == BALANCED and v == 0)  # 0: skipped (best effort)
        }
    expect: dict[str, Any] = {"unschedulable": unschedulable}
    if scores:
        expect |= {"scores": scores, "plugins": plugins, "top": expected["best"][0]}
    return expect


def _same_reason(reason: str, row: list[Any]) -> bool:
    _, _, reasons = row
    return reason in (", ".join(reasons), *reasons)


def _run(run_line: RunLine, root: Path, release: str) -> dict[str, Any]:
    result = run_line(
        ["run", str(root), "--format", "json", "--kubernetes-version", _release(release)]
    )
    assert result.exit_code in (0, 1), result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


@pytest.mark.parametrize("release", ["1.33.13", "1.34.9", "1.35.4", "1.36.3"])
def test_every_scenario_scores_as_the_real_scheduler(
    release: str, run_line: RunLine, tmp_path: Path
) -> None:
    header, records = _records("kube_full_profile")
    by_id = {}
    for record in records:
        expected = record["expected"][release]
        case = {"pod": record["incoming"], "expect": _scenario_expectation(header, expected)}
        _write_case(tmp_path, record, case, [])
        by_id[record["id"]] = (record, expected)
    report = _run(run_line, tmp_path, release)
    wrong = []
    for result in report["results"]:
        record, expected = by_id[result["case"]]
        if result["status"] != "passed":
            wrong.append(f"{record['id']} ({record['desc']}): {result['message']}")
            continue
        for node in result["nodes"]:
            row = expected["nodes"][node["name"]]
            if isinstance(row[0], str):
                if node["feasible"] or not _same_reason(node["reason"], row):
                    wrong.append(f"{record['id']} {node['name']}: {node['reason']!r} vs {row}")
                continue
            scores = _plugin_scores(header, row)
            mine = {p: node["plugins"].get(p, 0) for p in scores}
            if mine != scores or node["total"] != row[-1]:
                wrong.append(f"{record['id']} {node['name']}: {mine} vs {scores}")
            best = {name for group in result["ranking"][:1] for name in group}
            if best != set(expected["best"]):
                wrong.append(f"{record['id']}: best {sorted(best)} vs {expected['best']}")
                break
    assert len(report["results"]) == len(records) == 165
    assert not wrong, "\n".join(wrong[:20])


@pytest.mark.parametrize("release", ["1.33.13", "1.34.9", "1.35.4", "1.36.3"])
def test_every_sequence_places_as_the_real_scheduler(
    release: str, run_line: RunLine, tmp_path: Path
) -> None:
    """Pods bound one by one to the first of the best nodes (as the harness did); every
    step updates what spreading, affinity and ports read."""
    _, records = _records("kube_full_profile_sequences")
    for record in records:
        steps = record["expected"][release]
        placements: dict[str, int] = {}
        for step in steps:
            if step["boundTo"]:
                placements[step["boundTo"]] = placements.get(step["boundTo"], 0) + 1
        pending = sum(1 for step in steps if not step["boundTo"])
        expect = {"placements": placements, "pending": pending}
        _write_case(
            tmp_path,
            record,
            {"pods": {"fromSnapshot": "pending"}, "expect": expect},
            record["pending"],
        )
    report = _run(run_line, tmp_path, release)
    assert len(report["results"]) == len(records) == 7
    failed = [f"{r['case']}: {r['message']}" for r in report["results"] if r["status"] != "passed"]
    assert not failed, "\n".join(failed)
