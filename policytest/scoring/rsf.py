"""resource-strategy-fit's node score and its proportional filter, exact to upstream.

``Score`` (float64, Go's order of operations): over the resources the task requests
(``Resource.ResourceNames``: cpu, memory, then the scalars; ``pods`` is one of them),
each resource with a strategy (the exact name, else the longest matching ``prefix*``)
adds ``(used + request) x weight / allocatable`` (MostAllocated) or
``(allocatable - used - request) x weight / allocatable`` (LeastAllocated); allocatable
0 or weight 0 add 0 (the weight still joins the sum); ``used + request > allocatable`` on
any of them makes the whole strategy part 0. The sum is divided by the weight sum when
that is > 0 and multiplied by ``100.0 x resourceStrategyFitWeight``.

A task annotated ``volcano.sh/resource-strategy-scoring-type`` scores with that type and
the JSON weights of ``volcano.sh/resource-strategy-weight`` instead (exact names only, no
corrections); a missing or empty weight annotation, or one that is not a JSON object of
integers, makes the strategy part 0.

``sraScore``: 0 when the node lacks (allocatable 0) any resource the task requests; else
``1 - (weights of the sra resources the node has) / weight sum`` (when the sum is > 0)
times ``float64(100 x sra.weight)``. The node score is the strategy part (when the
plugin weight is > 0) plus the sra part (when the sra weight is > 0).

Go visits scalar resources in map order; this scorer fixes it to cpu, memory, then the
other names sorted (one of the orders a real run takes).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

from policytest.scoring.accounting import CPU, MEMORY, VolcanoNodeInfo
from policytest.scoring.kube import wrap_int64
from policytest.scoring.volcano import resource_names
from policytest.scoring.weights import (
    LEAST,
    MOST,
    TYPE_ANNOTATION,
    WEIGHT_ANNOTATION,
    ResourceStrategyFitArgs,
    Strategy,
)


def find_strategy(resource: str, resources: Mapping[str, Strategy]) -> tuple[str, Strategy] | None:
    """``findResourceConfigWithPrefix``: the exact name, else the longest matching prefix."""
    if resource in resources:
        return resource, resources[resource]
    best: tuple[str, Strategy] | None = None
    best_length = 0
    for name, strategy in resources.items():
        if "*" in name:
            prefix = name[:-1]
            if resource.startswith(prefix) and len(prefix) > best_length:
                best, best_length = (name, strategy), len(prefix)
    return best


__all__ = [
    "PodStrategy",
    "RsfResource",
    "RsfScore",
    "find_strategy",
    "pod_strategy",
    "proportional_filter",
    "rsf_scorer",
]

MAX_NODE_SCORE: Final = 100
_INT64 = (-(2**63), 2**63 - 1)


@dataclass(frozen=True)
class PodStrategy:
    """What the task's annotations make of its scoring: ``type`` None means the plugin's
    own ``resources`` apply; ``weights`` None with a type means the strategy part is 0
    (``problem`` says why, as upstream's error log does)."""

    type: str | None = None
    weights: Mapping[str, int] | None = None
    problem: str | None = None


def _go_int_map(text: str) -> dict[str, int] | None:
    """``json.Unmarshal`` into ``map[v1.ResourceName]int``; None when it fails."""

    def integer(literal: str) -> int:
        value = int(literal)  # Go parses the literal itself: 1.0 or 1e2 is an error
        if not _INT64[0] <= value <= _INT64[1]:
            raise ValueError(literal)
        return value

    def no_float(literal: str) -> float:
        raise ValueError(literal)

    try:
        value = json.loads(text, parse_int=integer, parse_float=no_float)
    except (ValueError, RecursionError):
        return None
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value.values()
    ):
        return None
    return value


def pod_strategy(annotations: Mapping[str, str]) -> PodStrategy:
    """The per-pod override of ``Score``."""
    kind = annotations.get(TYPE_ANNOTATION, "")
    if kind == "":
        return PodStrategy()
    text = annotations.get(WEIGHT_ANNOTATION, "")
    if text == "":
        return PodStrategy(kind, None, f"`{TYPE_ANNOTATION}` without `{WEIGHT_ANNOTATION}`")
    weights = _go_int_map(text)
    if weights is None:
        return PodStrategy(
            kind, None, f"`{WEIGHT_ANNOTATION}` is not a JSON object of integer weights"
        )
    return PodStrategy(kind, weights)


@dataclass(frozen=True)
class RsfResource:
    """One resource's share of the strategy score (``score`` is weight-scaled)."""

    name: str
    rule: str
    type: str
    weight: int
    requested: float
    used: float
    allocatable: float
    score: float
    overflow: bool


@dataclass(frozen=True)
class RsfScore:
    """The plugin's node-order value and its parts (None: that part is not added)."""

    total: float
    strategy: float | None
    sra: float | None
    resources: tuple[RsfResource, ...] = ()


def _resource_score(
    kind: str, requested: float, used: float, capacity: float, weight: int
) -> tuple[float, bool]:
    """``mostRequestedScore`` / ``leastRequestedScore``: (score, overflowed)."""
    if kind not in (MOST, LEAST) or weight == 0 or capacity == 0:
        return 0.0, False
    used_finally = requested + used
    if used_finally > capacity:
        return 0.0, True
    if kind == MOST:
        return used_finally * float(weight) / capacity, False
    return (capacity - used_finally) * float(weight) / capacity, False


def rsf_scorer(
    args: ResourceStrategyFitArgs,
    request: Mapping[str, float],
    annotations: Mapping[str, str],
) -> Callable[[VolcanoNodeInfo], RsfScore]:
    """The plugin's node-order function for one task, for scoring many nodes."""
    names = resource_names(request)
    override = pod_strategy(annotations)
    plan: list[tuple[str, str, str, int]] = []  # name, rule, type, weight
    if override.type is not None:
        for name in names:
            if override.weights is not None and name in override.weights:
                plan.append((name, "annotation", override.type, override.weights[name]))
    else:
        for name in names:
            found = find_strategy(name, args.resources)
            if found is not None:
                plan.append((name, found[0], found[1].type, found[1].weight))
    strategy_off = override.type is not None and override.weights is None
    scale = float(MAX_NODE_SCORE) * float(args.weight)
    sra = args.sra
    sra_scale = float(wrap_int64(MAX_NODE_SCORE * sra.weight))

    def strategy(node: VolcanoNodeInfo) -> tuple[float, tuple[RsfResource, ...]]:
        if strategy_off:
            return 0.0, ()
        total = 0.0
        weight_sum = 0
        parts: list[RsfResource] = []
        for name, rule, kind, weight in plan:
            requested = request[name]
            capacity = node.allocatable.get(name, 0.0)
            used = node.used.get(name, 0.0)
            score, overflow = _resource_score(kind, requested, used, capacity, weight)
            parts.append(
                RsfResource(name, rule, kind, weight, requested, used, capacity, score, overflow)
            )
            if overflow:
                return 0.0, tuple(parts)
            total += score
            weight_sum = wrap_int64(weight_sum + weight)
        if weight_sum > 0:
            total /= float(weight_sum)
        return total * scale, tuple(parts)

    def sra_score(node: VolcanoNodeInfo) -> float:
        for name in names:
            if node.allocatable.get(name, 0.0) == 0:
                return 0.0
        score = 0.0
        for name, weight in sra.resources.items():
            if node.allocatable.get(name, 0.0) > 0:
                score += float(weight)
        if sra.weight_sum > 0:
            score /= float(sra.weight_sum)
            score = 1.0 - score
        return score * sra_scale

    def score(node: VolcanoNodeInfo) -> RsfScore:
        total = 0.0
        strategy_part: float | None = None
        sra_part: float | None = None
        parts: tuple[RsfResource, ...] = ()
        if args.weight > 0:
            strategy_part, parts = strategy(node)
            total += strategy_part
        if sra.weight > 0:
            sra_part = sra_score(node)
            total += sra_part
        return RsfScore(total, strategy_part, sra_part, parts)

    return score


def proportional_filter(
    args: ResourceStrategyFitArgs, request: Mapping[str, float], node: VolcanoNodeInfo
) -> str | None:
    """``checkNodeResourceIsProportional``: None when the node passes, else the reason.

    Passes when the task requests any of the resources; else every resource the node
    has must leave, after the task's cpu and memory, ``idle x rate`` cpu and
    ``idle x rate x 10^6`` bytes of memory (checked against Idle, not FutureIdle).
    """
    proportional = args.proportional
    if not proportional:
        return None
    if any(request.get(name, 0.0) > 0 for name in proportional):
        return None
    idle_cpu = node.allocatable.get(CPU, 0.0) - node.used.get(CPU, 0.0)
    idle_memory = node.allocatable.get(MEMORY, 0.0) - node.used.get(MEMORY, 0.0)
    for name in sorted(proportional):
        if name not in node.allocatable and name not in node.used:
            continue  # Idle gains a (negative) entry for what bound pods request
        rates = proportional[name]
        value = node.allocatable.get(name, 0.0) - node.used.get(name, 0.0)
        cpu_reserved = value * rates.cpu
        memory_reserved = value * rates.memory * 1000 * 1000
        if (
            idle_cpu - request.get(CPU, 0.0) < cpu_reserved
            or idle_memory - request.get(MEMORY, 0.0) < memory_reserved
        ):
            return f"proportional of resource {name} check failed"
    return None
