"""Volcano's node scores: ``binpack`` and ``nodeorder``, plus the fit check, exact to upstream.

binpack (``plugins/binpack/binpack.go``) is float64 arithmetic in Go's order of operations:
over the resources the task requests, in the order ``Resource.ResourceNames`` yields
them, each weighted resource adds ``weight x (request + used) / allocatable``; the sum is
divided by the weights and multiplied by ``float64(100 x binpack.weight)``, where the
product is int64 and wraps. Go visits scalar resources in random map order; that can
change the last bit of the sum, so this scorer fixes the order to cpu, memory, then the
other resources by name (one of the values a real run produces).

nodeorder (``plugins/nodeorder/nodeorder.go``) calls kube-scheduler's plugins directly:
``leastrequested`` is NodeResourcesFit LeastAllocated with cpu 50 / memory 50,
``mostrequested`` is MostAllocated with cpu 1 / memory 1, ``balancedresource`` is
BalancedAllocation over cpu, memory and nvidia.com/gpu. Up to 1.14 each ``Score`` is
called per node without PreScore (so BalancedAllocation never skips); from 1.15 they run
in nodeorder's batch function after their PreScore. Each is multiplied by its weight as
float64 and summed, skipping weights of 0. Its other terms (taints, affinities,
spreading, images) are :mod:`policytest.scoring.plugins.nodeorder`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

from policytest.scoring.accounting import (
    CPU,
    MEMORY,
    PODS,
    KubeNodeInfo,
    VolcanoNodeInfo,
    volcano_pod_request,
)
from policytest.scoring.cluster import Pod
from policytest.scoring.kube import (
    BalancedArgs,
    FitScoring,
    balanced_allocation_scorer,
    balanced_allocation_skips,
    fit_scorer,
    wrap_int64,
)
from policytest.scoring.weights import BinpackWeights, NodeOrderWeights

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policytest.core.releases import BalancedFormula

__all__ = [
    "BALANCED_RESOURCE_ARGS",
    "LEAST_REQUESTED_ARGS",
    "MOST_REQUESTED_ARGS",
    "NodeOrderScores",
    "binpack_score",
    "binpack_scorer",
    "nodeorder_scorer",
    "nodeorder_scores",
    "predicates_checker",
    "predicates_filter",
]

MAX_NODE_SCORE: Final = 100
MIN_RESOURCE: Final = 0.1  # api.minResource: below this a request counts as none
POD_NUMBER_EXCEEDED: Final = "node(s) pod number exceeded"

LEAST_REQUESTED_ARGS: Final = FitScoring("LeastAllocated", (("cpu", 50), ("memory", 50)))
MOST_REQUESTED_ARGS: Final = FitScoring("MostAllocated", (("cpu", 1), ("memory", 1)))
BALANCED_RESOURCE_ARGS: Final = BalancedArgs((("cpu", 1), ("memory", 1), ("nvidia.com/gpu", 1)))

VolcanoScorer = Callable[[VolcanoNodeInfo], float]


# --- binpack -------------------------------------------------------------------------------


def binpack_score(weights: BinpackWeights, pod: Pod, node: VolcanoNodeInfo) -> float:
    """``BinPackingScore`` of the pod (task) on the node; 0 when it does not fit a weighted
    resource. Callers skip the plugin when ``weights.weight`` is 0 (not registered)."""
    return binpack_scorer(weights, pod)(node)


def binpack_scorer(
    weights: BinpackWeights, pod: Pod, overhead_first: bool = False
) -> VolcanoScorer:
    """``binpack_score`` with the task's side done once, for scoring many nodes
    (``overhead_first``: the release's accounting, see ``volcano_pod_request``)."""
    request = volcano_pod_request(pod, overhead_first)
    plan = [
        (name, request[name], weights.resources[name])
        for name in resource_names(request)
        if name in weights.resources
    ]
    scale = float(wrap_int64(MAX_NODE_SCORE * weights.weight))

    def score(node: VolcanoNodeInfo) -> float:
        total = 0.0
        weight_sum = 0
        for name, requested, weight in plan:
            capacity = node.allocatable.get(name, 0.0)
            if capacity != 0 and weight != 0:
                used_finally = requested + node.used.get(name, 0.0)
                if used_finally > capacity:
                    return 0.0
                total += used_finally * float(weight) / capacity
            weight_sum += weight
        weight_sum = wrap_int64(weight_sum)
        if weight_sum > 0:
            total /= float(weight_sum)
        return total * scale

    return score


def resource_names(request: Mapping[str, float]) -> list[str]:
    """``Resource.ResourceNames``: cpu, memory, then scalars (sorted here), each only if
    at least ``minResource``."""
    names = [name for name in (CPU, MEMORY) if request.get(name, 0.0) >= MIN_RESOURCE]
    names += sorted(
        name
        for name, value in request.items()
        if name not in (CPU, MEMORY) and value >= MIN_RESOURCE
    )
    return names


# --- nodeorder -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NodeOrderScores:
    """nodeorder's modelled contributions (score x weight) and their float64 sum."""

    leastrequested: float = 0.0
    mostrequested: float = 0.0
    balancedresource: float = 0.0

    @property
    def total(self) -> float:
        """Summed in nodeorder's own order (the unmodelled functions add 0 here)."""
        return self.leastrequested + self.mostrequested + self.balancedresource


def nodeorder_scores(
    weights: NodeOrderWeights, pod: Pod, node: KubeNodeInfo, formula: BalancedFormula = "with-pod"
) -> NodeOrderScores:
    """nodeorder's node-order function for one node (the kube view of the same node)."""
    return nodeorder_scorer(weights, pod, formula)(node)


def nodeorder_scorer(
    weights: NodeOrderWeights,
    pod: Pod,
    formula: BalancedFormula = "with-pod",
    prescore: bool = False,
) -> Callable[[KubeNodeInfo], NodeOrderScores]:
    """``nodeorder_scores`` with the task's side done once. ``formula``: the
    BalancedAllocation of the Kubernetes library the Volcano release builds on
    (``balance-change`` from Volcano 1.16, built on Kubernetes 1.36). ``prescore``:
    the release runs the plugins' PreScore first (its batch function, from 1.15), so
    BalancedAllocation skips a pod that requests none of its resources (scores 0)."""
    least = fit_scorer(LEAST_REQUESTED_ARGS, pod) if weights.leastrequested else None
    most = fit_scorer(MOST_REQUESTED_ARGS, pod) if weights.mostrequested else None
    skips = prescore and balanced_allocation_skips(BALANCED_RESOURCE_ARGS, pod)
    balanced = (
        balanced_allocation_scorer(BALANCED_RESOURCE_ARGS, pod, formula)
        if weights.balancedresource and not skips
        else None
    )

    def score(node: KubeNodeInfo) -> NodeOrderScores:
        return NodeOrderScores(
            float(least(node)) * float(weights.leastrequested) if least else 0.0,
            float(most(node)) * float(weights.mostrequested) if most else 0.0,
            float(balanced(node)) * float(weights.balancedresource) if balanced else 0.0,
        )

    return score


# --- fit -----------------------------------------------------------------------------------


def predicates_filter(pod: Pod, node: VolcanoNodeInfo, overhead_first: bool = False) -> str | None:
    """None if the task fits the node, else the reason Volcano reports.

    First the allocate action's resource check (every requested dimension, ``pods: 1``
    included, against allocatable minus used, within ``minResource``; only the first
    short resource is named), then the predicates plugin's pod-count check. A
    best-effort task (nothing requested but its pod) is left to backfill, which runs
    the predicates only: an overcommitted node stays a candidate.
    """
    return predicates_checker(pod, overhead_first)(node)


def predicates_checker(
    pod: Pod, overhead_first: bool = False
) -> Callable[[VolcanoNodeInfo], str | None]:
    """``predicates_filter`` with the task's side done once, for checking many nodes."""
    request = volcano_pod_request(pod, overhead_first)
    names = [CPU, MEMORY, *sorted(name for name in request if name not in (CPU, MEMORY))]
    best_effort = all(v < MIN_RESOURCE for name, v in request.items() if name != PODS)
    plan = [] if best_effort else [(name, request.get(name, 0.0)) for name in names]

    def check(node: VolcanoNodeInfo) -> str | None:
        for name, wanted in plan:
            idle = node.allocatable.get(name, 0.0) - node.used.get(name, 0.0)
            if not (wanted < idle or abs(wanted - idle) < MIN_RESOURCE):
                return f"Insufficient {name}"
        if node.max_task_num <= node.pod_count:
            return POD_NUMBER_EXCEEDED
        return None

    return check
