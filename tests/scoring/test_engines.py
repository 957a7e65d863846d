"""The engines wire the scorers as the schedulers do: seed examples end to end."""

from __future__ import annotations

import pytest

from policytest.harness.runner import rank
from policytest.scoring.kube import BalancedArgs, FitScoring
from policytest.scoring.protocol import LazyDetails, ResourceDetail
from policytest.scoring.schedulers import KubeScheduler, NodeOrderEntry, VolcanoScheduler
from policytest.scoring.specs import node_from_dict
from policytest.scoring.weights import BinpackWeights, NodeOrderWeights
from tests.conftest import requesting

THREE_NODES = [
    {
        "name": "node-a",
        "allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"},
        "used": {"cpu": "6", "memory": "4Gi"},
    },
    {
        "name": "node-b",
        "allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"},
        "used": {"cpu": "2", "memory": "8Gi"},
    },
    {
        "name": "node-c",
        "allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"},
        "used": {"cpu": "4", "memory": "10Gi"},
    },
]


def nodes(specs: list[dict[str, object]]) -> list:  # type: ignore[type-arg]
    return [node_from_dict(spec, default_requests_from_limits=True) for spec in specs]


@pytest.mark.parametrize(
    ("cpu", "memory", "expected"),
    [
        (5, 1, {"node-a": 79.17, "node-b": 41.67, "node-c": 64.58}),
        (1, 5, {"node-a": 45.83, "node-b": 58.33, "node-c": 72.92}),
    ],
)
def test_volcano_seed_three_nodes(cpu: int, memory: int, expected: dict[str, float]) -> None:
    weights = BinpackWeights(1, cpu, memory, {"cpu": cpu, "memory": memory})
    scheduler = VolcanoScheduler((NodeOrderEntry("binpack", binpack=weights),))
    scores = scheduler.cluster(nodes(THREE_NODES)).score(requesting({"cpu": "1", "memory": "2Gi"}))
    assert {s.name: round(s.total, 2) for s in scores} == expected
    assert all(s.plugins == {"binpack": s.total} for s in scores)


def test_volcano_nodeorder_adds_to_binpack_and_duplicates_count_twice() -> None:
    binpack = NodeOrderEntry("binpack", binpack=BinpackWeights())
    nodeorder = NodeOrderEntry("nodeorder", nodeorder=NodeOrderWeights())
    task = requesting({"cpu": "1", "memory": "2Gi"})
    single = VolcanoScheduler((binpack, nodeorder)).cluster(nodes(THREE_NODES)).score(task)
    double = VolcanoScheduler((binpack, binpack, nodeorder)).cluster(nodes(THREE_NODES)).score(task)
    for one, two in zip(single, double, strict=True):
        assert one.total == one.plugins["binpack"] + one.plugins["nodeorder"]
        assert two.plugins["binpack"] == 2 * one.plugins["binpack"]
    # leastrequested (cpu 50/memory 50) spreads: the emptiest node gets the most from it
    assert max(single, key=lambda s: s.plugins["nodeorder"]).name == "node-b"


def test_volcano_nodeorder_parts_add_up_to_its_score() -> None:
    """explain's breakdown: the weighted parts that have a weight, summing to nodeorder."""
    weights = NodeOrderWeights(leastrequested=2, mostrequested=0, balancedresource=3)
    entry = NodeOrderEntry("nodeorder", nodeorder=weights)
    task = requesting({"cpu": "1", "memory": "2Gi"})
    for score in VolcanoScheduler((entry, entry)).cluster(nodes(THREE_NODES)).score(task):
        parts = score.parts["nodeorder"]
        assert set(parts) == {"leastrequested", "balancedresource"}
        assert sum(parts.values()) == score.plugins["nodeorder"]
        assert parts["leastrequested"] % 4 == 0 and parts["balancedresource"] % 6 == 0


def test_kube_requested_to_capacity_ratio_seed_on_todays_scale() -> None:
    fit = FitScoring(
        "RequestedToCapacityRatio",
        (("intel.com/foo", 5), ("memory", 1), ("cpu", 3)),
        ((0, 0), (100, 10)),
    )
    scheduler = KubeScheduler(fit, 1, BalancedArgs(), 1)
    cluster = scheduler.cluster(
        nodes(
            [
                {
                    "name": "node-1",
                    "allocatable": {
                        "intel.com/foo": "4",
                        "memory": "1Gi",
                        "cpu": "8",
                        "pods": "110",
                    },
                    "used": {"intel.com/foo": "1", "memory": "256Mi", "cpu": "1"},
                },
                {
                    "name": "node-2",
                    "allocatable": {
                        "intel.com/foo": "8",
                        "memory": "1Gi",
                        "cpu": "8",
                        "pods": "110",
                    },
                    "used": {"intel.com/foo": "2", "memory": "512Mi", "cpu": "6"},
                },
            ]
        )
    )
    scores = cluster.score(requesting({"intel.com/foo": "2", "memory": "256Mi", "cpu": "2"}))
    assert {s.name: s.plugins["NodeResourcesFit"] for s in scores} == {"node-1": 60, "node-2": 69}


def test_kube_weights_multiply_and_binding_fills_nodes() -> None:
    fit = FitScoring("MostAllocated", (("cpu", 1), ("memory", 1)))
    scheduler = KubeScheduler(fit, 5, None, 1)
    cluster = scheduler.cluster(
        nodes(
            [
                {"name": "a", "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}},
                {"name": "b", "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}},
            ]
        )
    )
    task = requesting({"cpu": "2", "memory": "4Gi"})
    first = cluster.score(task)
    assert [s.total for s in first] == [250, 250]  # (50 + 50) / 2 = 50, weight 5
    cluster.bind("a", task)
    assert rank(cluster.score(task)) == (("a",), ("b",))
    cluster.bind("a", task)
    after = {s.name: s for s in cluster.score(task)}
    assert not after["a"].feasible and "Insufficient cpu" in (after["a"].reason or "")


def test_resource_details_are_computed_once_and_only_when_read() -> None:
    calls: list[int] = []

    def compute() -> dict[str, tuple[ResourceDetail, ...]]:
        calls.append(1)
        return {"binpack": (ResourceDetail("cpu", 1, 2, 1, True, 0.5),)}

    details = LazyDetails(compute)
    assert calls == []
    assert list(details) == ["binpack"] and details["binpack"][0].score == 0.5
    assert details == {"binpack": (ResourceDetail("cpu", 1, 2, 1, True, 0.5),)}
    assert calls == [1]
