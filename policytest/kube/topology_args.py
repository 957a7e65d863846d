"""The topology plugins' args as the scorer holds them, from a validated profile's
written args (``Profile.topology_args``): PodTopologySpread's defaulting,
InterPodAffinity's weights, NodeAffinity's added preferred terms (v1 defaulting: System
defaulting, ``hardPodAffinityWeight`` 1). Imported when scoring only."""

from __future__ import annotations

from policytest.kube.model import Profile
from policytest.kube.values import integer, items, mapping, text
from policytest.scoring.plugins.interpod import InterPodArgs
from policytest.scoring.plugins.spread import SpreadArgs
from policytest.scoring.workload import PreferredNodeTerm, SpreadConstraint
from policytest.scoring.workload_specs import WorkloadSpecError, pod_workload_from_dict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["added_preferred_terms", "inter_pod_args", "spread_args"]


def _args(profile: Profile, plugin: str) -> dict[str, Any]:
    return mapping(profile.topology_args.get(plugin))


def spread_args(profile: Profile) -> SpreadArgs:
    """``PodTopologySpreadArgs``: ``List`` keeps the written default constraints."""
    args = _args(profile, "PodTopologySpread")
    if (text(args.get("defaultingType")) or "System") != "List":
        return SpreadArgs()
    constraints = []
    for entry in items(args.get("defaultConstraints")):
        constraint = mapping(entry)
        constraints.append(
            SpreadConstraint(
                integer(constraint.get("maxSkew")) or 0,
                text(constraint.get("topologyKey")),
                text(constraint.get("whenUnsatisfiable")),
                min_domains=integer(constraint.get("minDomains")),
                node_affinity_policy=text(constraint.get("nodeAffinityPolicy")) or None,
                node_taints_policy=text(constraint.get("nodeTaintsPolicy")) or None,
            )
        )
    return SpreadArgs("List", tuple(constraints))


def inter_pod_args(profile: Profile) -> InterPodArgs:
    args = _args(profile, "InterPodAffinity")
    weight = integer(args.get("hardPodAffinityWeight"))
    return InterPodArgs(
        1 if weight is None else weight,
        args.get("ignorePreferredTermsOfExistingPods") is True,
    )


def added_preferred_terms(profile: Profile) -> tuple[PreferredNodeTerm, ...]:
    """``addedAffinity.preferredDuringSchedulingIgnoredDuringExecution``."""
    added = mapping(_args(profile, "NodeAffinity").get("addedAffinity"))
    if not added.get("preferredDuringSchedulingIgnoredDuringExecution"):
        return ()
    try:
        workload = pod_workload_from_dict(
            {}, {"affinity": {"nodeAffinity": added}}, "addedAffinity"
        )
    except WorkloadSpecError:
        return ()  # validation reports it; the scheduler never starts
    return workload.preferred_node_terms or ()
