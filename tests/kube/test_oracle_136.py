"""kube-scheduler 1.36's own verdicts on 40 configurations, each beside 1.35's.

``data/kube/validate_cases_136.jsonl.gz`` (from the real v1.36.3 code and binary; see the
shared oracle's README): placement extension points, DynamicResources timeouts, the
default plugin set (NodeDeclaredFeatures), the requestedToCapacityRatio block rules and
1.37's ``podGroupPostFilter``. Every verdict must match with ``--kubernetes-version 1.36``
and, for the same documents, the v1.35.4 verdicts with ``1.35``; every error message
must have an error finding inside the node it names; accepted configs must build the
profiles kube-scheduler built (score, filter and placement plugins).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from policytest.core.limits import DEFAULT_LIMITS
from policytest.core.options import CheckOptions
from policytest.kube.check import load
from tests.conftest import RunLine
from tests.kube.helpers import documents, errors, findings_for, inside
from tests.kube.test_oracle import _as_oracle, _expected, _messages

DATA = Path(__file__).parent.parent / "data" / "kube" / "validate_cases_136.jsonl.gz"
with gzip.open(DATA, "rt", encoding="utf-8") as _lines:
    CASES: list[dict[str, Any]] = [json.loads(line) for line in _lines]
V136 = CheckOptions(kubernetes_version="1.36", limits=DEFAULT_LIMITS)
V135 = CheckOptions(kubernetes_version="1.35", limits=DEFAULT_LIMITS)
IDS = [case["id"] for case in CASES]


def test_the_whole_set_is_here() -> None:
    assert len(CASES) == 40
    assert sum(case["accepted"] for case in CASES) == 17
    assert sum(case["changed_from_1_35"]["verdict"] for case in CASES) == 5


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_verdict_as_1_36(case: dict[str, Any]) -> None:
    found = errors(findings_for(case["yaml"], V136))
    assert bool(found) != case["accepted"], [f"{f.rule} {f.message}" for f in found]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_verdict_as_1_35(case: dict[str, Any]) -> None:
    found = errors(findings_for(case["yaml"], V135))
    assert bool(found) != case["result_1_35"]["accepted"], [f"{f.rule} {f.message}" for f in found]


@pytest.mark.parametrize("case", [c for c in CASES if not c["accepted"]], ids=lambda c: c["id"])
def test_findings_point_at_the_node_kube_scheduler_names(case: dict[str, Any]) -> None:
    found = errors(findings_for(case["yaml"], V136))
    docs, _ = documents(case["yaml"])
    for message in _messages(case):
        where = _expected(message, docs[0])
        if where is not None:
            shown = [f"{f.line}:{f.column} {f.rule}" for f in found]
            assert any(inside(f, s) for f in found for s in where), (message, where, shown)


@pytest.mark.parametrize("case", [c for c in CASES if not c["accepted"]], ids=lambda c: c["id"])
def test_messages_quote_what_1_36_says(case: dict[str, Any]) -> None:
    """The upstream words that differ from 1.35 appear in the finding."""
    found = " ".join(f.message for f in errors(findings_for(case["yaml"], V136)))
    for message in case["errors"]:
        for words in (
            "must be at least 1 second",
            "must be nil when type is not RequestedToCapacityRatio",
            "must be specified when type is RequestedToCapacityRatio",
            "placement score plugins: total score of Score plugins could overflow",
            "does not extend PlacementScorePlugin",
            'already registered as "PlacementGeneratePlugin"',
            'PlacementScorePlugin "',
            'PlacementGeneratePlugin "',
        ):
            if words in message:
                assert words.split('"')[0] in found, (words, found)


@pytest.mark.parametrize("case", [c for c in CASES if c["accepted"]], ids=lambda c: c["id"])
def test_model_matches_the_profiles_1_36_built(case: dict[str, Any]) -> None:
    docs, _ = documents(case["yaml"])
    config, _ = load(docs[0], V136)
    assert config is not None
    for ours, theirs in zip(config.profiles, case["profiles"], strict=True):
        shown = _as_oracle(ours)
        for key in ("scorePlugins", "NodeResourcesFitArgs", "NodeResourcesBalancedAllocationArgs"):
            assert shown[key] == theirs[key], key
        assert [{"name": n} for n in ours.filter_plugins] == theirs["filterPlugins"]
        placement = [{"name": n, "weight": w} for n, w in ours.placement_score_plugins]
        assert placement == theirs["placementScorePlugins"]
        generate = [{"name": n} for n in ours.placement_generate_plugins]
        assert generate == theirs["placementGeneratePlugins"]


def test_node_declared_features_joins_the_default_filters_only_from_1_36() -> None:
    case = next(c for c in CASES if c["id"] == "k136-cfg-038")
    docs, _ = documents(case["yaml"])
    filters = {
        release: load(docs[0], CheckOptions(kubernetes_version=release))[0]
        .profiles[0]
        .filter_plugins  # type: ignore[union-attr]
        for release in ("1.34", "1.35", "1.36", "1.37")
    }
    assert "NodeDeclaredFeatures" in filters["1.36"] and "NodeDeclaredFeatures" in filters["1.37"]
    assert "NodeDeclaredFeatures" not in filters["1.35"] + filters["1.34"]


def test_every_verdict_through_validate(run_line: RunLine, tmp_path: Path) -> None:
    for case in CASES:
        (tmp_path / f"{case['id']}.yaml").write_text(case["yaml"], encoding="utf-8")
    for release, key in (("1.36", "result"), ("1.35", "result_1_35")):
        result = run_line(
            ["validate", str(tmp_path), "--format", "json", "--kubernetes-version", release]
        )
        failing = {
            Path(f["path"]).stem
            for f in json.loads(result.stdout)["findings"]
            if f["severity"] == "error"
        }
        wrong = [c["id"] for c in CASES if (c["id"] in failing) == c[key]["accepted"]]
        assert not wrong, (release, wrong)
