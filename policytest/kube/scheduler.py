"""One profile of a loaded KubeSchedulerConfiguration as an executable scheduler."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from policytest.core.errors import PolicytestError
from policytest.core.releases import kube_release
from policytest.kube.corrections import kube_corrections
from policytest.kube.model import KubeSchedulerConfig, Profile
from policytest.kube.registry import PRIORITY_SORT
from policytest.kube.topology_args import added_preferred_terms, inter_pod_args, spread_args
from policytest.scoring.plugins.profile import PROFILE_FILTERS, PROFILE_SCORES, ProfilePlugins
from policytest.scoring.protocol import NotSimulated
from policytest.scoring.schedulers import BALANCED, FIT, NODE_FILTERS, KubeScheduler

SCORED = frozenset({FIT, BALANCED, *PROFILE_SCORES})
"""The score plugins policytest computes (the others need volumes or resource claims)."""


class UnknownProfile(PolicytestError, LookupError):
    """The fixture names a kube-scheduler profile the config does not have."""

    def __init__(self, name: str, available: Sequence[str]) -> None:
        super().__init__(
            f"no profile with schedulerName `{name}` "
            f"(the config has: {', '.join(available) or 'none'})"
        )


def kube_scheduler(config: KubeSchedulerConfig, name: str | None) -> KubeScheduler:
    """The profile called ``name`` (default: the first) as an executable scheduler."""
    profiles = {profile.scheduler_name: profile for profile in config.profiles}
    if name is not None and name not in profiles:
        raise UnknownProfile(name, list(profiles))
    profile = profiles[name] if name is not None else config.profiles[0]
    release = kube_release(config.release)
    return KubeScheduler(
        fit=profile.fit_args if profile.scores(FIT) else None,
        fit_weight=profile.weight(FIT) or 0,
        balanced=profile.balanced_args if profile.scores(BALANCED) else None,
        balanced_weight=profile.weight(BALANCED) or 0,
        not_modelled=tuple(n for n, _ in profile.score_plugins if n not in SCORED),
        not_simulated=not_simulated(profile),
        priority_sort=profile.queue_sort == (PRIORITY_SORT,),
        fit_filter=profile.filters(FIT),
        filter_order=tuple(
            n for n in profile.filter_plugins if n in NODE_FILTERS or n in PROFILE_FILTERS
        ),
        added_affinity=profile.node_affinity_added,
        ignored_resources=frozenset(profile.fit_ignored_resources),
        ignored_resource_groups=frozenset(profile.fit_ignored_resource_groups),
        corrections=kube_corrections(profile),
        balanced_formula=release.balanced_allocation,
        pod_level_resources=release.pod_level_resources,
        taint_reason_names_taint=release.taint_reason_names_taint,
        profile=ProfilePlugins(
            filters=tuple(n for n in profile.filter_plugins if n in PROFILE_FILTERS),
            scores=tuple((n, w) for n, w in profile.score_plugins if n in PROFILE_SCORES),
            spread=spread_args(profile),
            inter_pod=inter_pod_args(profile),
            added_preferred=added_preferred_terms(profile),
            image_volumes=release.image_volume_locality,
        ),
    )


GROUP_EFFECTS: Final = {
    "GangScheduling": (
        "plugin at preEnqueue and permit; alpha, feature gate GangScheduling",
        "kube-scheduler's gang scheduling: a pod of a PodGroup waits until the group's "
        "minCount pods exist, and the group is placed all or nothing",
    ),
    "TopologyPlacementGenerator": (
        "plugin at placementGenerate; alpha, feature gate TopologyAwareWorkloadScheduling",
        "proposes placements for a whole PodGroup, one per domain of its topology key",
    ),
    "PodGroupPodsCount": (
        "plugin at placementScore; alpha, feature gate TopologyAwareWorkloadScheduling",
        "scores a PodGroup's placements by how many of its pods each holds",
    ),
    "Coscheduling": (
        "plugin at queueSort, preFilter and permit; scheduler-plugins",
        "gang scheduling: pods of a PodGroup are queued together and wait at permit "
        "until minMember of them are placed",
    ),
}
"""What each plugin of :data:`policytest.kube.registry.GROUP_PLUGINS` does."""


def not_simulated(profile: Profile) -> tuple[NotSimulated, ...]:
    """The profile's gang and workload plugins, then a queue sort other than PrioritySort
    (policytest then takes pending pods in arrival order), which policytest does not run."""
    found = [
        NotSimulated(name, *GROUP_EFFECTS[name])
        for name in profile.group_plugins
        if name in GROUP_EFFECTS
    ]
    found += (
        NotSimulated(
            name,
            "plugin at queueSort",
            "orders the pending pods its own way; policytest takes them in arrival order",
        )
        for name in profile.queue_sort
        if name != PRIORITY_SORT and name not in profile.group_plugins
    )
    return tuple(found)
