"""NodeResourcesFit / NodeResourcesBalancedAllocation against the real kube-scheduler.

``data/oracle/kube_score_cases.jsonl.gz`` holds 3035 cases the upstream v1.35.4 plugins
scored (see its README), judged as 1.35. Every node's score, BalancedAllocation's PreScore skip, the
defaulted args and the accounting (pod requests with and without non-zero defaults,
each node's allocatable / requested / non-zero requested) must match exactly. The 35
hand-written ``edge-*`` cases are one test each; generated cases run in chunks of 100.
The corpus has no Filter verdicts: the last tests pin the Fit filter by hand.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from policytest.core.releases import kube_release
from policytest.scoring.accounting import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    KubeNodeInfo,
    is_scalar_resource_name,
    kube_node_info,
    kube_pod_non_zero_requests,
    kube_pod_requests,
)
from policytest.scoring.kube import (
    BalancedArgs,
    FitScoring,
    balanced_allocation_score,
    balanced_allocation_skips,
    fit_filter,
    fit_score,
)
from policytest.scoring.specs import node_from_dict, pod_from_dict
from tests.conftest import requesting
from tests.corpus import Corpus
from tests.kube_args import balanced_args_from_dict, fit_args_from_dict

DATA = Path(__file__).parent.parent / "data" / "oracle" / "kube_score_cases.jsonl.gz"
RELEASE = kube_release("1.35")  # the corpus is v1.35.4's; the default judges the newest
CHUNK = 100

CASES = Corpus.read(DATA)
EDGE, EDGE_IDS = CASES.select(lambda case: case["id"].startswith("edge-"))
GENERATED, _ = CASES.select(lambda case: not case["id"].startswith("edge-"))
CHUNKS, CHUNK_IDS = CASES.chunks(GENERATED, CHUNK)


def oracle_units(values: Mapping[str, int]) -> dict[str, int]:
    """Either side in one spelling: ``cpu_milli``; absent and zero are the same."""
    spelled = {("cpu_milli" if name == CPU else name): value for name, value in values.items()}
    return {name: value for name, value in spelled.items() if value}


def mismatches(case: dict[str, Any]) -> Iterator[str]:
    """Every way our scorer and accounting disagree with the recorded result."""
    result = case["result"]
    pod = pod_from_dict(case["pod"], default_requests_from_limits=False)
    # The oracle lists what a NodeInfo keeps of the pod's requests.
    requests = {
        name: value
        for name, value in kube_pod_requests(pod).items()
        if name in (CPU, MEMORY, EPHEMERAL_STORAGE) or is_scalar_resource_name(name)
    }
    if oracle_units(requests) != oracle_units(result["pod_requests"]):
        yield f"{case['id']}: pod requests {requests} != {result['pod_requests']}"
    non_zero = {name: kube_pod_non_zero_requests(pod).get(name, 0) for name in (CPU, MEMORY)}
    if oracle_units(non_zero) != oracle_units(result["pod_non0"]):
        yield f"{case['id']}: pod non-zero requests {non_zero} != {result['pod_non0']}"
    if case["plugin"] == "NodeResourcesFit":
        args = fit_args_from_dict(case["args"])
        effective = result["effective_args"]["scoringStrategy"]
        shape = effective.get("requestedToCapacityRatio", {}).get("shape", [])
        if (
            args.strategy != effective["type"]
            or [list(r) for r in args.resources]
            != [[r["name"], r["weight"]] for r in effective["resources"]]
            or [list(p) for p in args.shape] != [[p["utilization"], p["score"]] for p in shape]
        ):
            yield f"{case['id']}: defaulted args {args} != {effective}"
    else:
        balanced = balanced_args_from_dict(case["args"])
        expected = [[r["name"], r["weight"]] for r in result["effective_args"]["resources"]]
        if [list(r) for r in balanced.resources] != expected:
            yield f"{case['id']}: defaulted args {balanced} != {expected}"
        if balanced_allocation_skips(balanced, pod) != result["skipped"]:
            yield f"{case['id']}: PreScore skip should be {result['skipped']}"
    for spec, recorded in zip(case["nodes"], result["scores"], strict=True):
        info = kube_node_info(node_from_dict(spec, default_requests_from_limits=False))
        where = f"{case['id']} {spec['name']}"
        for field in ("allocatable", "requested"):
            if oracle_units(getattr(info, field)) != oracle_units(recorded[field]):
                yield f"{where}: {field} {dict(getattr(info, field))} != {recorded[field]}"
        if oracle_units(info.non_zero_requested) != oracle_units(recorded["nonzero_requested"]):
            yield f"{where}: non-zero requested differs from {recorded['nonzero_requested']}"
        if case["plugin"] == "NodeResourcesFit":
            score = fit_score(args, pod, info)
        elif result["skipped"]:
            continue
        else:
            score = balanced_allocation_score(balanced, pod, info, RELEASE.balanced_allocation)
        if score != recorded["score"]:
            yield f"{where}: score {score} != {recorded['score']}"


def test_the_whole_corpus_is_here() -> None:
    assert len(CASES) == 3035 and len(EDGE) == 35
    assert {case["plugin"] for case in CASES.cases()} == {
        "NodeResourcesFit",
        "NodeResourcesBalancedAllocation",
    }


@pytest.mark.parametrize("index", EDGE, ids=EDGE_IDS)
def test_edge_case(index: int) -> None:
    problems = list(mismatches(CASES.case(index)))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("chunk", CHUNKS, ids=CHUNK_IDS)
def test_generated_cases(chunk: list[int]) -> None:
    problems = [problem for case in CASES.cases(chunk) for problem in mismatches(case)]
    assert not problems, f"{len(problems)} mismatches; first:\n" + "\n".join(problems[:10])


# --- beyond the corpus: the filter and the args the scorer refuses ---------------------------


def kube_node(data: dict[str, Any]) -> KubeNodeInfo:
    return kube_node_info(node_from_dict(data, default_requests_from_limits=True))


@pytest.mark.parametrize(
    ("requests", "reason"),
    [
        pytest.param({"cpu": "1"}, None, id="fits"),
        pytest.param({"cpu": "3"}, "Insufficient cpu", id="cpu"),
        pytest.param(
            {"memory": "5Gi", "nvidia.com/gpu": "2"},
            "Insufficient memory, Insufficient nvidia.com/gpu",
            id="all-reasons",
        ),
        pytest.param({"example.com/foo": "1"}, "Insufficient example.com/foo", id="absent"),
        pytest.param({"foo": "1"}, None, id="unqualified-name-is-invisible"),
        pytest.param({}, None, id="best-effort"),
    ],
)
def test_fit_filter_reasons(requests: dict[str, str], reason: str | None) -> None:
    node = kube_node(
        {
            "name": "n",
            "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "2", "nvidia.com/gpu": "2"},
            "used": {"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": "1"},
        }
    )
    assert fit_filter(requesting(requests), node) == reason


def test_fit_filter_counts_pods_and_honours_ignored_resources() -> None:
    full = kube_node({"name": "n", "allocatable": {"cpu": "4", "pods": "1"}, "used": {}})
    assert fit_filter(requesting({"cpu": "1"}), full) == "Too many pods"
    gpu = requesting({"nvidia.com/gpu": "1"})
    bare = kube_node({"name": "n", "allocatable": {"pods": "10"}})
    assert fit_filter(gpu, bare) == "Insufficient nvidia.com/gpu"
    assert fit_filter(gpu, bare, ignored_resources=frozenset({"nvidia.com/gpu"})) is None
    assert fit_filter(gpu, bare, ignored_resource_groups=frozenset({"nvidia.com"})) is None


@pytest.mark.parametrize(
    "kwargs",
    [
        pytest.param({"strategy": "MostAllocatedd"}, id="unknown-strategy"),
        pytest.param({"strategy": "RequestedToCapacityRatio"}, id="ratio-without-shape"),
        pytest.param(
            {"strategy": "RequestedToCapacityRatio", "shape": ((50, 1), (50, 2))},
            id="shape-not-increasing",
        ),
    ],
)
def test_fit_scoring_refuses_what_the_scheduler_refuses(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        FitScoring(**kwargs)


def test_args_defaulting() -> None:
    assert fit_args_from_dict(None) == FitScoring()
    assert fit_args_from_dict(
        {"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 0}]}}
    ) == FitScoring("MostAllocated", (("cpu", 1),))
    assert balanced_args_from_dict({"resources": []}) == BalancedArgs()
