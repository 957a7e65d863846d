"""The worked examples the project started from, and Volcano's own binpack test table."""

from __future__ import annotations

from typing import Any

import pytest

from policytest.scoring.accounting import kube_node_info, volcano_node_info
from policytest.scoring.cluster import Pod
from policytest.scoring.kube import FitScoring, fit_score
from policytest.scoring.specs import node_from_dict
from policytest.scoring.volcano import binpack_score
from policytest.scoring.weights import BinpackWeights
from tests.conftest import requesting


def binpack_scores(weights: BinpackWeights, pod: Pod, nodes: list[dict[str, Any]]) -> list[float]:
    return [
        binpack_score(
            weights, pod, volcano_node_info(node_from_dict(n, default_requests_from_limits=True))
        )
        for n in nodes
    ]


# --- Volcano's binpack_test.go TestNode -----------------------------------------------------

TEST_NODES = [
    {
        "name": "n1",
        "allocatable": {"cpu": "2", "memory": "4Gi", "pods": "10"},
        "used": {"cpu": "1", "memory": "1Gi"},
    },
    {
        "name": "n2",
        "allocatable": {"cpu": "4", "memory": "16Gi", "pods": "10", "nvidia.com/gpu": "4"},
    },
    {
        "name": "n3",
        "allocatable": {"cpu": "2", "memory": "4Gi", "pods": "10", "example.com/foo": "16"},
        "used": {"cpu": "1.5"},
    },
]
TEST_TASKS = {
    "p1": {"cpu": "1", "memory": "1Gi"},
    "p2": {"cpu": "1.5", "memory": "0"},
    "p3": {"cpu": "2", "memory": "10Gi", "nvidia.com/gpu": "2"},
    "p4": {"cpu": "3", "memory": "4Gi", "example.com/foo": "3"},
}
ARGS_A = BinpackWeights(
    weight=10,
    cpu=2,
    memory=3,
    resources={"cpu": 2, "memory": 3, "nvidia.com/gpu": 7, "example.com/foo": 8},
)
ARGS_B = BinpackWeights(resources={"cpu": 1, "memory": 1, "nvidia.com/gpu": 23})


@pytest.mark.parametrize(
    ("weights", "name", "expected"),
    [
        pytest.param(ARGS_A, "p1", [700, 137.5, 0], id="A-p1"),
        pytest.param(ARGS_A, "p2", [0, 375, 0], id="A-p2"),
        pytest.param(ARGS_A, "p3", [0, 531.25, 0], id="A-p3"),
        pytest.param(ARGS_A, "p4", [0, 173.076923076, 0], id="A-p4"),
        pytest.param(ARGS_B, "p1", [75, 15.625, 0], id="B-p1"),
        pytest.param(ARGS_B, "p2", [0, 37.5, 0], id="B-p2"),
        pytest.param(ARGS_B, "p3", [0, 50.5, 0], id="B-p3"),
        pytest.param(ARGS_B, "p4", [0, 50, 0], id="B-p4"),
    ],
)
def test_volcano_binpack_test_table(
    weights: BinpackWeights, name: str, expected: list[float]
) -> None:
    scores = binpack_scores(weights, requesting(TEST_TASKS[name]), TEST_NODES)
    assert scores == pytest.approx(expected, abs=1e-8)


# --- Volcano binpack deep-dive (seed 000): three nodes, one task of 1 cpu / 2Gi -------------

THREE_NODES = [
    {
        "name": f"Node-{name}",
        "allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"},
        "used": {"cpu": cpu, "memory": memory},
    }
    for name, cpu, memory in (("A", "6", "4Gi"), ("B", "2", "8Gi"), ("C", "4", "10Gi"))
]


@pytest.mark.parametrize(
    ("cpu", "memory", "expected"),
    [
        pytest.param(5, 1, [79.17, 41.67, 64.58], id="cpu5-memory1"),
        pytest.param(1, 5, [45.83, 58.33, 72.92], id="cpu1-memory5"),
    ],
)
def test_three_node_example(cpu: int, memory: int, expected: list[float]) -> None:
    weights = BinpackWeights(cpu=cpu, memory=memory, resources={"cpu": cpu, "memory": memory})
    scores = binpack_scores(weights, requesting({"cpu": "1", "memory": "2Gi"}), THREE_NODES)
    assert scores == pytest.approx(expected, abs=0.005)


def test_three_node_example_is_bit_exact() -> None:
    """The float64 values Volcano's own code prints for the first table."""
    weights = BinpackWeights(cpu=5, memory=1, resources={"cpu": 5, "memory": 1})
    scores = binpack_scores(weights, requesting({"cpu": "1", "memory": "2Gi"}), THREE_NODES)
    assert [repr(s) for s in scores] == [
        "79.16666666666666",
        "41.66666666666667",
        "64.58333333333334",
    ]


# --- DCE 5.0 Volcano guide (seed 002): two GPU nodes, binpack.weight 5 -----------------------


def test_gpu_example() -> None:
    """The page prints ``-`` where ``*`` is meant; its numbers (437.5, 468.75) are right."""
    nodes = [
        {
            "name": name,
            "allocatable": {"cpu": "8", "memory": "16Gi", "nvidia.com/gpu": "8"},
            "used": {"cpu": cpu, "memory": "8Gi", "nvidia.com/gpu": "4"},
        }
        for name, cpu in (("Node1", "4"), ("Node2", "6"))
    ]
    weights = BinpackWeights(weight=5, resources={"cpu": 1, "memory": 1, "nvidia.com/gpu": 2})
    pod = requesting({"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": "4"})
    assert binpack_scores(weights, pod, nodes) == [437.5, 468.75]


# --- kube-scheduler resource bin packing page (seed 004) -------------------------------------


def test_requested_to_capacity_ratio_example_on_todays_scale() -> None:
    """The page's node scores 5 and 7 are on the legacy 0-10 scale, where each resource
    scored ``floor(utilization / 10)`` before the weighted mean. Today's scheduler scales
    the shape's scores by 10 and interpolates utilization 0-100 in integers, so the same
    cluster scores 60 and 69 (mean of 75x5 + 50x1 + 37x3 over 9, rounded; and of
    50x5 + 75x1 + 100x3). Memory is read as the page computes it: 1 GB = 1024 MB.
    """
    args = FitScoring(
        "RequestedToCapacityRatio",
        (("intel.com/foo", 5), ("memory", 1), ("cpu", 3)),
        ((0, 0), (100, 10)),
    )
    pod = requesting({"intel.com/foo": "2", "memory": "256Mi", "cpu": "2"})
    nodes = [
        {
            "name": "node-1",
            "allocatable": {"intel.com/foo": "4", "memory": "1Gi", "cpu": "8"},
            "used": {"intel.com/foo": "1", "memory": "256Mi", "cpu": "1"},
        },
        {
            "name": "node-2",
            "allocatable": {"intel.com/foo": "8", "memory": "1Gi", "cpu": "8"},
            "used": {"intel.com/foo": "2", "memory": "512Mi", "cpu": "6"},
        },
    ]
    infos = [kube_node_info(node_from_dict(n, default_requests_from_limits=True)) for n in nodes]
    assert [fit_score(args, pod, info) for info in infos] == [60, 69]
