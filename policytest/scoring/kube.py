"""kube-scheduler's NodeResourcesFit and NodeResourcesBalancedAllocation, exact to upstream.

Integer arithmetic as in Go: int64 products wrap, division truncates toward zero (a
falling RequestedToCapacityRatio segment differs from Python's ``//``), ``math.Round``
rounds half away from zero, and BalancedAllocation's float64 result is truncated.
Reproduces Kubernetes v1.35 and v1.36 (``noderesources/{fit,least_allocated,
most_allocated,requested_to_capacity_ratio,balanced_allocation,resource_allocation}.go``):
only BalancedAllocation's formula differs (``formula``), and the PodLevelResources gate
(``pod_level``, off in 1.33) decides whether pod-level requests count. Fit's *score*
ignores the incoming pod's pod-level requests in every release (an upstream quirk).

Inputs are the defaulted plugin args (``FitScoring``, ``BalancedArgs``), the incoming pod
and a node as ``accounting.kube_node_info`` counts it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Protocol, overload

from policytest.scoring.accounting import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    KubeNodeInfo,
    is_extended_resource_name,
    is_scalar_resource_name,
    kube_pod_non_zero_requests,
    kube_pod_requests,
)
from policytest.scoring.cluster import Pod
from policytest.scoring.goint import add64, go_round, mul64, quo64, wrap_int64
from policytest.scoring.kube_args import (
    MAX_CUSTOM_PRIORITY_SCORE,
    MAX_NODE_SCORE,
    MAX_UTILIZATION,
    STRATEGIES,
    BalancedArgs,
    FitScoring,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policytest.core.releases import BalancedFormula

__all__ = [
    "MAX_NODE_SCORE",
    "STRATEGIES",
    "BalancedArgs",
    "FitScoring",
    "NodeScorer",
    "balanced_allocation_score",
    "balanced_allocation_scorer",
    "balanced_allocation_skips",
    "balanced_allocation_terms",
    "fit_filter",
    "fit_resources",
    "fit_score",
    "fit_scorer",
    "go_round",
    "quo64",
    "wrap_int64",
]

# --- Score ---------------------------------------------------------------------------------

NodeScorer = Callable[[KubeNodeInfo], int]


def fit_score(args: FitScoring, pod: Pod, node: KubeNodeInfo) -> int:
    """``Fit.Score``: requests with the 100m / 200Mi non-zero defaults."""
    return fit_scorer(args, pod)(node)


def fit_scorer(args: FitScoring, pod: Pod) -> NodeScorer:
    """``fit_score`` with the pod's side done once, for scoring many nodes."""
    weights = [weight for _, weight in args.resources]
    lookup = _allocatable_requested(args.resources, kube_pod_non_zero_requests(pod), False)
    score = _resource_scorer(args)
    if args.strategy == "RequestedToCapacityRatio":
        return lambda node: _requested_to_capacity_ratio(score, *lookup(node), weights)
    return lambda node: _weighted_mean(score, *lookup(node), weights)


FitResource = tuple[str, int, int, int, "int | None"]
"""(name, requested, allocatable, weight, resource score) as ``Fit.Score`` sees them."""


def fit_resources(args: FitScoring, pod: Pod) -> Callable[[KubeNodeInfo], list[FitResource]]:
    """Per configured resource, what ``fit_scorer`` averages: requested (with the pod and
    the non-zero defaults) and allocatable as the scorer reads them, and the resource's
    own score (0-100), ``None`` where the resource is left out of the mean (allocatable
    0; a shape score of 0 for RequestedToCapacityRatio). For ``explain``."""
    lookup = _allocatable_requested(args.resources, kube_pod_non_zero_requests(pod), False)
    score = _resource_scorer(args)
    shaped = args.strategy == "RequestedToCapacityRatio"

    def resources(node: KubeNodeInfo) -> list[FitResource]:
        rows: list[FitResource] = []
        for (name, weight), alloc, req in zip(args.resources, *lookup(node), strict=True):
            own = score(req, alloc) if alloc else None
            rows.append((name, req, alloc, weight, None if shaped and own == 0 else own))
        return rows

    return resources


def _resource_scorer(args: FitScoring) -> Callable[[int, int], int]:
    """One resource's score from (requested, allocatable), per scoring strategy."""
    if args.strategy == "LeastAllocated":
        return _least_requested
    if args.strategy == "MostAllocated":
        return _most_requested
    points = [(u, mul64(s, MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE)) for u, s in args.shape]
    return lambda requested, capacity: _shape_score(points, requested, capacity)


def balanced_allocation_skips(args: BalancedArgs, pod: Pod, pod_level: bool = True) -> bool:
    """``BalancedAllocation.PreScore`` returns Skip: the pod requests none of the resources
    (best effort), so the plugin does not score at all."""
    requests = kube_pod_requests(pod, pod_level)
    return all(requests.get(name, 0) == 0 for name, _ in args.resources)


def balanced_allocation_score(
    args: BalancedArgs,
    pod: Pod,
    node: KubeNodeInfo,
    formula: BalancedFormula = "with-pod",
    pod_level: bool = True,
) -> int:
    """``BalancedAllocation.Score``. Up to 1.35 (``with-pod``): S(with the pod), where
    S = (1 - std of the requested fractions) x 100, truncated. From 1.36
    (``balance-change``, kubernetes PR #135573): ``50 + (50 + S(with) - S(without)) / 2``
    in int64, S(without) over the same resources with the node's current usage.

    Callers running the full framework check ``balanced_allocation_skips`` first; Volcano's
    nodeorder calls Score directly and never skips.
    """
    return balanced_allocation_scorer(args, pod, formula, pod_level)(node)


def balanced_allocation_scorer(
    args: BalancedArgs, pod: Pod, formula: BalancedFormula = "with-pod", pod_level: bool = True
) -> NodeScorer:
    """``balanced_allocation_score`` with the pod's side done once."""
    if formula == "with-pod":
        lookup = _allocatable_requested(args.resources, kube_pod_requests(pod, pod_level), True)
        return lambda node: _balanced(*lookup(node))
    terms = balanced_allocation_terms(args, pod, formula, pod_level)
    return lambda node: terms(node)[2]


BalanceTerms = tuple[int, int, int]
"""(S with the pod, S without the pod, the plugin's score)."""


def balanced_allocation_terms(
    args: BalancedArgs, pod: Pod, formula: BalancedFormula = "with-pod", pod_level: bool = True
) -> Callable[[KubeNodeInfo], BalanceTerms]:
    """Both S terms and the score, per node (what ``explain`` shows)."""
    lookup = _allocatable_requested(args.resources, kube_pod_requests(pod, pod_level), True)
    if formula == "with-pod":

        def old(node: KubeNodeInfo) -> BalanceTerms:
            allocatable, requested, allocated = lookup(node, with_allocated=True)
            with_pod = _balanced(allocatable, requested)
            return with_pod, _balanced(allocatable, allocated), with_pod

        return old

    def new(node: KubeNodeInfo) -> BalanceTerms:
        allocatable, requested, allocated = lookup(node, with_allocated=True)
        with_pod = _balanced(allocatable, requested)
        without_pod = _balanced(allocatable, allocated)
        half = MAX_NODE_SCORE // 2  # S terms lie in 50..100: the numerator is never negative
        return with_pod, without_pod, half + quo64(half + with_pod - without_pod, 2)

    return new


def _balanced(allocatable: Sequence[int], requested: Sequence[int]) -> int:
    fractions: list[float] = []
    total = 0.0
    for alloc, req in zip(allocatable, requested, strict=True):
        if alloc == 0:
            continue
        fraction = float(req) / float(alloc)
        if fraction > 1:
            fraction = 1.0
        total += fraction
        fractions.append(fraction)
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total / len(fractions)
        spread = 0.0
        for fraction in fractions:
            spread = spread + (fraction - mean) * (fraction - mean)
        std = math.sqrt(spread / len(fractions))
    return math.trunc((1 - std) * float(MAX_NODE_SCORE))  # Go int64(float64): truncation


def _allocatable_requested(
    resources: Sequence[tuple[str, int]], pod_requests: Mapping[str, int], use_requested: bool
) -> _Lookup:
    """``calculateResourceAllocatableRequest`` per configured resource, as (allocatable,
    requested) lists; a resource the scheduler drops has allocatable 0.

    cpu and memory count bound pods with non-zero defaults unless ``use_requested``; an
    extended resource the pod does not request and a name the NodeInfo does not keep
    (``foo``, ``pods``) are dropped.
    """
    plan: list[tuple[str, int, bool]] = []  # (name, pod request, counts non-zero requested)
    for name, _ in resources:
        pod_request = pod_requests.get(name, 0)
        if name in (CPU, MEMORY):
            plan.append((name, pod_request, not use_requested))
        elif name == EPHEMERAL_STORAGE or (is_scalar_resource_name(name) and pod_request != 0):
            plan.append((name, pod_request, False))
        else:
            plan.append(("", 0, False))

    def lookup(node: KubeNodeInfo, with_allocated: bool = False) -> Any:
        allocatable: list[int] = []
        requested: list[int] = []
        allocated: list[int] = []  # the node's usage without the pod (1.36's S(without))
        for name, pod_request, non_zero in plan:
            alloc = node.allocatable.get(name, 0) if name else 0
            if alloc == 0:
                allocatable.append(0)
                requested.append(0)
                allocated.append(0)
                continue
            bound = node.non_zero_requested if non_zero else node.requested
            allocatable.append(alloc)
            requested.append(add64(bound.get(name, 0), pod_request))
            allocated.append(bound.get(name, 0))
        if with_allocated:
            return allocatable, requested, allocated
        return allocatable, requested

    return lookup


class _Lookup(Protocol):
    """(allocatable, requested[, allocated]) per configured resource of a node."""

    @overload
    def __call__(self, node: KubeNodeInfo) -> tuple[list[int], list[int]]: ...
    @overload
    def __call__(
        self, node: KubeNodeInfo, with_allocated: Literal[True]
    ) -> tuple[list[int], list[int], list[int]]: ...


def _weighted_mean(
    score: Callable[[int, int], int],
    allocatable: Sequence[int],
    requested: Sequence[int],
    weights: Sequence[int],
) -> int:
    """least/mostResourceScorer: sum(score x weight) / sum(weight) over resources kept."""
    node_score, weight_sum = _weighted_sum(score, allocatable, requested, weights, True)
    return quo64(node_score, weight_sum) if weight_sum else 0


def _weighted_sum(
    score: Callable[[int, int], int],
    allocatable: Sequence[int],
    requested: Sequence[int],
    weights: Sequence[int],
    zero_counts: bool,
) -> tuple[int, int]:
    """sum(score x weight) and sum(weight), in int64, over the resources that count: those
    with allocatable, and (unless ``zero_counts``) a score above 0."""
    node_score = weight_sum = 0
    for alloc, req, weight in zip(allocatable, requested, weights, strict=True):
        if alloc == 0:
            continue
        resource_score = score(req, alloc)
        if zero_counts or resource_score > 0:
            node_score = add64(node_score, mul64(resource_score, weight))
            weight_sum = add64(weight_sum, weight)
    return node_score, weight_sum


def _least_requested(requested: int, capacity: int) -> int:
    if capacity == 0 or requested > capacity:
        return 0
    return quo64(mul64(capacity - requested, MAX_NODE_SCORE), capacity)


def _most_requested(requested: int, capacity: int) -> int:
    if capacity == 0:
        return 0
    if requested > capacity:  # pods without requests get minimum values
        requested = capacity
    return quo64(mul64(requested, MAX_NODE_SCORE), capacity)


def _requested_to_capacity_ratio(
    score: Callable[[int, int], int],
    allocatable: Sequence[int],
    requested: Sequence[int],
    weights: Sequence[int],
) -> int:
    """Resources scoring 0 leave the mean; the mean is rounded with math.Round."""
    node_score, weight_sum = _weighted_sum(score, allocatable, requested, weights, False)
    return go_round(float(node_score) / float(weight_sum)) if weight_sum else 0


def _shape_score(points: Sequence[tuple[int, int]], requested: int, capacity: int) -> int:
    """The broken-linear shape (scores already x 10) at the utilization percentage."""
    if requested > capacity:
        utilization = MAX_UTILIZATION
    else:
        utilization = quo64(mul64(requested, MAX_UTILIZATION), capacity)
    return _broken_linear(points, utilization)


def _broken_linear(points: Sequence[tuple[int, int]], p: int) -> int:
    """``helper.BuildBrokenLinearFunction``."""
    for i, (utilization, score) in enumerate(points):
        if p <= utilization:
            if i == 0:
                return score
            u0, s0 = points[i - 1]
            return s0 + quo64(mul64(score - s0, p - u0), utilization - u0)
    return points[-1][1]


# --- Filter --------------------------------------------------------------------------------


def fit_filter(
    pod: Pod,
    node: KubeNodeInfo,
    *,
    ignored_resources: frozenset[str] = frozenset(),
    ignored_resource_groups: frozenset[str] = frozenset(),
    pod_level: bool = True,
) -> str | None:
    """``Fit.Filter`` (``fitsRequest``): None if the pod fits, else the reasons, joined.

    Actual requests (no defaults) against allocatable minus what bound pods request,
    plus the pod count. ``ignored_*`` are the Fit args that skip extended resources.
    """
    reasons: list[str] = []
    if node.pod_count + 1 > node.allowed_pod_number:
        reasons.append("Too many pods")
    requests = kube_pod_requests(pod, pod_level)
    for name in (CPU, MEMORY, EPHEMERAL_STORAGE):
        want = requests.get(name, 0)
        if want > 0 and want > node.allocatable[name] - node.requested[name]:
            reasons.append(f"Insufficient {name}")
    for name in sorted(requests):
        want = requests[name]
        if name in (CPU, MEMORY, EPHEMERAL_STORAGE) or want == 0:
            continue
        if not is_scalar_resource_name(name):
            continue
        if is_extended_resource_name(name) and (
            name in ignored_resources or name.split("/")[0] in ignored_resource_groups
        ):
            continue
        if want > node.allocatable.get(name, 0) - node.requested.get(name, 0):
            reasons.append(f"Insufficient {name}")
    return ", ".join(reasons) if reasons else None
