"""Volcano's binpack score against Volcano's own code.

``data/oracle/volcano_binpack_score_cases.jsonl.gz`` holds 1567 cases scored by the
upstream binpack code (see its README). The scorer takes the effective weights as the
oracle recorded them (``result.weights``; turning ``arguments_yaml`` into weights is the
Volcano model's job). Every node's score must be one of ``possible_scores`` (Go sums
scalar resources in random map order) and, with our fixed order, exactly ``score``;
task requests, node allocatable and used must match Volcano's units. ``invalid_input``
must raise QuantityError. Groups other than ``random`` are one test per case; the random
cases run in chunks of 100.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from policytest.cluster import node_from_dict, pod_from_dict
from policytest.quantity import QuantityError
from policytest.scoring.accounting import volcano_node_info, volcano_pod_request
from policytest.scoring.volcano import binpack_score
from policytest.volcano.weights import BinpackWeights

DATA = Path(__file__).parent / "data" / "oracle" / "volcano_binpack_score_cases.jsonl.gz"
CHUNK = 100

with gzip.open(DATA, "rt", encoding="utf-8") as _lines:
    CASES: list[dict[str, Any]] = [json.loads(line) for line in _lines]
SINGLE = [case for case in CASES if case["group"] not in ("random", "invalid_input")]
INVALID = [case for case in CASES if case["group"] == "invalid_input"]
RANDOM = [case for case in CASES if case["group"] == "random"]
CHUNKS = [RANDOM[i : i + CHUNK] for i in range(0, len(RANDOM), CHUNK)]


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
    assert sum(len(case["result"].get("nodes", ())) for case in CASES) == 10_000


@pytest.mark.parametrize("case", SINGLE, ids=[f"{c['group']}-{c['id']}" for c in SINGLE])
def test_named_case(case: dict[str, Any]) -> None:
    problems = list(mismatches(case))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("chunk", CHUNKS, ids=[f"{c[0]['id']}..{c[-1]['id']}" for c in CHUNKS])
def test_random_cases(chunk: list[dict[str, Any]]) -> None:
    problems = [problem for case in chunk for problem in mismatches(case)]
    assert not problems, f"{len(problems)} mismatches; first:\n" + "\n".join(problems[:10])


@pytest.mark.parametrize("case", INVALID, ids=[case["id"] for case in INVALID])
def test_invalid_input_raises_quantity_error(case: dict[str, Any]) -> None:
    with pytest.raises(QuantityError) as caught:
        for spec in case["input"]["nodes"]:
            node_from_dict(spec, default_requests_from_limits=False)
        pod_from_dict(case["input"]["task"], default_requests_from_limits=False)
    assert caught.value.reason == case["result"]["input_error"]
