"""Volcano's binpack score against Volcano's own code.

``data/oracle/volcano_binpack_score_cases.jsonl.gz`` holds 1567 cases scored by the
upstream binpack code (see its README). The scorer takes the effective weights as the
oracle recorded them (``result.weights``; turning ``arguments_yaml`` into weights is the
Volcano model's job). Every node's score must be one of ``possible_scores`` (Go sums
scalar resources in random map order) and, with our fixed order, exactly ``score``;
task requests, node allocatable and used must match Volcano's units. ``invalid_input``
must raise QuantityError. Groups other than ``random`` are one test per case; the random
cases run in chunks of 100. The corpus covers binpack only: nodeorder and the fit check
are pinned by hand at the end.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from policytest.scoring.accounting import kube_node_info, volcano_node_info, volcano_pod_request
from policytest.scoring.quantity import QuantityError
from policytest.scoring.specs import node_from_dict, pod_from_dict
from policytest.scoring.volcano import (
    POD_NUMBER_EXCEEDED,
    binpack_score,
    nodeorder_scores,
    predicates_filter,
)
from policytest.scoring.weights import BinpackWeights, NodeOrderWeights
from tests.conftest import requesting
from tests.corpus import Corpus

DATA = Path(__file__).parent.parent / "data" / "oracle" / "volcano_binpack_score_cases.jsonl.gz"
CHUNK = 100

CASES = Corpus.read(DATA)
SINGLE, SINGLE_IDS = CASES.select(
    lambda case: case["group"] not in ("random", "invalid_input"),
    lambda case: f"{case['group']}-{case['id']}",
)
INVALID, INVALID_IDS = CASES.select(lambda case: case["group"] == "invalid_input")
RANDOM, _ = CASES.select(lambda case: case["group"] == "random")
CHUNKS, CHUNK_IDS = CASES.chunks(RANDOM, CHUNK)


def weights_of(recorded: Mapping[str, Any]) -> BinpackWeights:
    return BinpackWeights(
        weight=recorded["BinPackingWeight"],
        cpu=recorded["BinPackingCPU"],
        memory=recorded["BinPackingMemory"],
        resources=recorded["BinPackingResources"],
    )


def as_floats(values: Mapping[str, Any]) -> dict[str, float]:
    return {name: float(value) for name, value in values.items()}


def mismatches(case: dict[str, Any]) -> Iterator[str]:
    """Every way our accounting and binpack score disagree with the recorded result."""
    result = case["result"]
    weights = weights_of(result["weights"])
    if result["registered"] != (weights.weight != 0):
        yield f"{case['id']}: registered should be {result['registered']}"
    task = pod_from_dict(case["input"]["task"], default_requests_from_limits=False)
    if dict(volcano_pod_request(task)) != as_floats(result["task_resreq"]):
        yield f"{case['id']}: task request {dict(volcano_pod_request(task))}"
    for spec, recorded in zip(case["input"]["nodes"], result["nodes"], strict=True):
        info = volcano_node_info(node_from_dict(spec, default_requests_from_limits=False))
        where = f"{case['id']} {spec['name']}"
        if dict(info.allocatable) != as_floats(recorded["allocatable"]):
            yield f"{where}: allocatable {dict(info.allocatable)} != {recorded['allocatable']}"
        if dict(info.used) != as_floats(recorded["used"]):
            yield f"{where}: used {dict(info.used)} != {recorded['used']}"
        score = binpack_score(weights, task, info) if result["registered"] else 0.0
        if score not in [float(text) for text in recorded["possible_scores"]]:
            yield f"{where}: score {score!r} not in {recorded['possible_scores']}"
        elif score != float(recorded["score"]):
            yield f"{where}: score {score!r} is possible but not the cpu-memory-name order"


def test_the_whole_corpus_is_here() -> None:
    assert len(CASES) == 1567
    assert sum(len(case["result"].get("nodes", ())) for case in CASES.cases()) == 10_000


@pytest.mark.parametrize("index", SINGLE, ids=SINGLE_IDS)
def test_named_case(index: int) -> None:
    problems = list(mismatches(CASES.case(index)))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("chunk", CHUNKS, ids=CHUNK_IDS)
def test_random_cases(chunk: list[int]) -> None:
    problems = [problem for case in CASES.cases(chunk) for problem in mismatches(case)]
    assert not problems, f"{len(problems)} mismatches; first:\n" + "\n".join(problems[:10])


@pytest.mark.parametrize("index", INVALID, ids=INVALID_IDS)
def test_invalid_input_raises_quantity_error(index: int) -> None:
    case = CASES.case(index)
    with pytest.raises(QuantityError) as caught:
        for spec in case["input"]["nodes"]:
            node_from_dict(spec, default_requests_from_limits=False)
        pod_from_dict(case["input"]["task"], default_requests_from_limits=False)
    assert caught.value.reason == case["result"]["input_error"]


# --- beyond the corpus: nodeorder and the fit check, by hand -------------------------------

GPU = "nvidia.com/gpu"
USED = {"cpu": "1", "memory": "2Gi"}
NODE = {"name": "n", "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}, "used": USED}


@pytest.mark.parametrize(
    ("requests", "weights", "expected"),
    [
        # least: 50 (cpu and memory half used); balanced: both fractions 0.5 -> 100.
        pytest.param({"cpu": "1", "memory": "2Gi"}, NodeOrderWeights(), (50, 0, 100), id="default"),
        pytest.param(
            {"cpu": "1", "memory": "2Gi"},
            NodeOrderWeights(leastrequested=0, mostrequested=2, balancedresource=3),
            (0, 100, 300),
            id="weighted",
        ),
        # A best-effort task: least counts 100m / 200Mi for it (72); balancedresource is
        # called without PreScore, so it scores instead of skipping.
        pytest.param({}, NodeOrderWeights(), (72, 0, 100), id="best-effort-not-skipped"),
    ],
)
def test_nodeorder_scores(
    requests: dict[str, str], weights: NodeOrderWeights, expected: tuple[float, ...]
) -> None:
    info = kube_node_info(node_from_dict(NODE, default_requests_from_limits=True))
    scores = nodeorder_scores(weights, requesting(requests), info)
    parts = (scores.leastrequested, scores.mostrequested, scores.balancedresource)
    assert parts == expected and scores.total == sum(expected)


@pytest.mark.parametrize(
    ("allocatable", "requests", "reason"),
    [
        pytest.param({"pods": "2"}, {"cpu": "3"}, None, id="fits"),
        pytest.param({"pods": "2"}, {"cpu": "3001m"}, "Insufficient cpu", id="cpu"),
        pytest.param({"pods": "2"}, {GPU: "1"}, f"Insufficient {GPU}", id="gpu"),
        pytest.param({"pods": "1"}, {"cpu": "1"}, "Insufficient pods", id="pods-resource"),
        pytest.param({}, {"cpu": "1"}, "Insufficient pods", id="no-pods-allocatable"),
    ],
)
def test_predicates_filter(
    allocatable: dict[str, str], requests: dict[str, str], reason: str | None
) -> None:
    spec = {"name": "n", "allocatable": {"cpu": "4", "memory": "8Gi", **allocatable}, "used": USED}
    info = volcano_node_info(node_from_dict(spec, default_requests_from_limits=True))
    assert predicates_filter(requesting(requests), info) == reason


def test_pod_number_check_follows_the_resource_check() -> None:
    info = volcano_node_info(node_from_dict(NODE, default_requests_from_limits=True))
    crowded = replace(info, max_task_num=1, allocatable={**info.allocatable, "pods": 5.0})
    assert predicates_filter(requesting({"cpu": "1"}), crowded) == POD_NUMBER_EXCEEDED


def test_binpack_weight_wraps_like_go_int64() -> None:
    """``100 * binpack.weight`` is int64: a weight near 2^63/100 turns the score negative."""
    weights = BinpackWeights(weight=(1 << 63) // 100 + 1)
    info = volcano_node_info(node_from_dict(NODE, default_requests_from_limits=True))
    assert binpack_score(weights, requesting({"cpu": "1", "memory": "2Gi"}), info) < 0
