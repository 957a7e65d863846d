"""A sequence outcome the runner calls certain despite ties holds under every tie-break.

The runner breaks ties by fixture node order; the real schedulers pick at random. Listing
the nodes in another order breaks the ties differently, so an outcome that the runner
says no tie can change must come out the same for every order.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from policytest.harness.model import Expectation
from policytest.harness.runner import Placement, deciding_ties, place_sequence
from policytest.scoring.cluster import Node, Pod
from policytest.scoring.kube import BalancedArgs, FitScoring
from policytest.scoring.protocol import Scheduler
from policytest.scoring.schedulers import KubeScheduler, NodeOrderEntry, VolcanoScheduler
from policytest.scoring.specs import node_from_dict, pod_from_dict
from policytest.scoring.weights import BinpackWeights, NodeOrderWeights

SCHEDULERS: list[Scheduler] = [
    KubeScheduler(FitScoring("MostAllocated", (("cpu", 1), ("memory", 1))), 1, BalancedArgs(), 1),
    VolcanoScheduler(
        (
            NodeOrderEntry("binpack", binpack=BinpackWeights(weight=1)),
            NodeOrderEntry("nodeorder", nodeorder=NodeOrderWeights()),
        )
    ),
]

# few shapes, so that identical nodes (and ties between them) are common
SHAPES = [
    {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}},
    {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}, "used": {"cpu": "1"}},
]
PODS = [
    pod_from_dict({"requests": {"cpu": cpu, "memory": "1Gi"}}, default_requests_from_limits=True)
    for cpu in ("1", "2", "3")
]


def _placed(scheduler: Scheduler, nodes: list[Node], pods: list[Pod]) -> Placement:
    return place_sequence(scheduler.cluster(nodes), nodes, pods)[0]


@settings(max_examples=150)
@given(
    scheduler=st.sampled_from(SCHEDULERS),
    shapes=st.lists(st.sampled_from(SHAPES), min_size=2, max_size=5),
    pods=st.lists(st.sampled_from(PODS), min_size=1, max_size=10),
    data=st.data(),
)
def test_certain_outcomes_hold_in_every_node_order(
    scheduler: Scheduler, shapes: list[dict[str, Any]], pods: list[Pod], data: st.DataObject
) -> None:
    nodes = [
        node_from_dict({"name": f"n{i}", **shape}, default_requests_from_limits=True)
        for i, shape in enumerate(shapes)
    ]
    actual = _placed(scheduler, nodes, pods)
    other = _placed(scheduler, list(data.draw(st.permutations(nodes))), pods)
    placements, steps = actual.placements, actual.steps
    if not deciding_ties(Expectation(nodes_used=actual.nodes_used), placements, steps):
        assert (other.nodes_used, other.pending) == (actual.nodes_used, actual.pending)
    if not deciding_ties(Expectation(placements=placements), placements, steps):
        assert other.placements == placements
