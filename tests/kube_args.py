"""kube-scheduler plugin args as the oracle writes them, defaulted as the scheduler does.

Only the oracle tests need args from plain dicts: the product reads them from a decoded
``KubeSchedulerConfiguration`` (:mod:`policytest.kube.resources`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from policytest.scoring.kube_args import DEFAULT_RESOURCES, BalancedArgs, FitScoring


def fit_args_from_dict(args: Mapping[str, Any] | None) -> FitScoring:
    """``SetDefaults_NodeResourcesFitArgs`` applied to ``pluginConfig[].args`` as written."""
    strategy = (args or {}).get("scoringStrategy")
    if strategy is None:
        return FitScoring()
    kind = strategy.get("type")
    ratio = strategy.get("requestedToCapacityRatio") or {}
    shape = tuple(
        (int(p.get("utilization") or 0), int(p.get("score") or 0)) for p in ratio.get("shape") or ()
    )
    return FitScoring(kind, _resources_from_dict(strategy.get("resources")), shape)


def balanced_args_from_dict(args: Mapping[str, Any] | None) -> BalancedArgs:
    """``SetDefaults_NodeResourcesBalancedAllocationArgs`` applied to raw ``args``."""
    return BalancedArgs(_resources_from_dict((args or {}).get("resources")))


def _resources_from_dict(items: Sequence[Mapping[str, Any]] | None) -> tuple[tuple[str, int], ...]:
    """No resources -> cpu 1 / memory 1; a weight of 0 or null -> 1."""
    if not items:
        return DEFAULT_RESOURCES
    return tuple((str(item.get("name") or ""), int(item.get("weight") or 0) or 1) for item in items)
