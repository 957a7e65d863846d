"""One profile of a loaded KubeSchedulerConfiguration as an executable scheduler."""

from __future__ import annotations

from collections.abc import Sequence

from policytest.core.errors import PolicytestError
from policytest.core.releases import kube_release
from policytest.kube.corrections import kube_corrections
from policytest.kube.model import KubeSchedulerConfig
from policytest.kube.topology_args import added_preferred_terms, inter_pod_args, spread_args
from policytest.scoring.plugins.profile import PROFILE_FILTERS, PROFILE_SCORES, ProfilePlugins
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
