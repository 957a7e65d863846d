"""A KubeSchedulerConfiguration as kube-scheduler v1.35 holds it after decoding,
defaulting, validation and building each profile's framework.

The reference scorer consumes this directly: ``Profile.fit_args`` and
``Profile.balanced_args`` are the scorer's own types, ``score_plugins`` is the effective
score plugin list (multiPoint expanded, ``*`` and disabled applied) with its weights.
"""

from __future__ import annotations

from collections.abc import Mapping

from policytest.core.records import field, record
from policytest.core.releases import DEFAULT_KUBERNETES
from policytest.kube.registry import PRIORITY_SORT
from policytest.scoring.kube_args import BalancedArgs, FitScoring

TYPE_CHECKING = False
if TYPE_CHECKING:  # the filters load only when a profile has an addedAffinity
    from typing import Any

    from policytest.scoring.filters import SelectorTerm

__all__ = ["BalancedArgs", "FitScoring", "KubeSchedulerConfig", "Profile"]


@record(frozen=True)
class Profile:
    """One scheduling profile (one ``schedulerName``).

    ``fit_args`` is ``None`` only when NodeResourcesFit is enabled nowhere in the profile
    and its configured args are invalid (kube-scheduler never builds the plugin then).
    ``fit_ignored_resources`` / ``fit_ignored_resource_groups`` feed the Fit filter.
    """

    scheduler_name: str
    score_plugins: tuple[tuple[str, int], ...]
    filter_plugins: tuple[str, ...]
    fit_args: FitScoring | None
    balanced_args: BalancedArgs
    fit_ignored_resources: tuple[str, ...] = ()
    fit_ignored_resource_groups: tuple[str, ...] = ()
    percentage_of_nodes_to_score: int | None = None
    placement_score_plugins: tuple[tuple[str, int], ...] = ()
    """``placementScore`` plugins and weights (kube-scheduler 1.36+; unused by per-pod
    scoring)."""
    placement_generate_plugins: tuple[str, ...] = ()
    node_affinity_added: tuple[SelectorTerm, ...] | None = None
    """NodeAffinity's ``addedAffinity`` required terms (``None``: none), which every
    pod of the profile must match on top of its own."""
    topology_args: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """The written args of PodTopologySpread, InterPodAffinity and NodeAffinity, by
    plugin (validated; the scorer reads them, so that validating imports no scorer)."""
    raised_weights: tuple[str, ...] = ()
    """What was written with weight 0 and is held as 1: score plugins (``NodeResourcesFit``)
    and resources of Fit and BalancedAllocation (``NodeResourcesFit/cpu``)."""
    queue_sort: tuple[str, ...] = (PRIORITY_SORT,)
    """The queueSort plugins (a profile that does not have exactly one does not start)."""
    group_plugins: tuple[str, ...] = ()
    """The gang and workload-aware scheduling plugins the profile runs at any extension
    point (:data:`policytest.kube.registry.GROUP_PLUGINS`), in the order first met."""

    def weight(self, plugin: str) -> int | None:
        """The score weight of ``plugin``, or ``None`` if it does not score."""
        for name, weight in self.score_plugins:
            if name == plugin:
                return weight
        return None

    def scores(self, plugin: str) -> bool:
        """Is ``plugin`` one of this profile's score plugins?"""
        return self.weight(plugin) is not None

    def filters(self, plugin: str) -> bool:
        """Is ``plugin`` one of this profile's filter plugins?"""
        return plugin in self.filter_plugins


@record(frozen=True)
class KubeSchedulerConfig:
    """The whole configuration: its profiles and the process-wide settings."""

    api_version: str
    profiles: tuple[Profile, ...]
    release: str = DEFAULT_KUBERNETES
    """The kube-scheduler release judged (``policytest.core.releases``): the scorer
    follows its BalancedAllocation formula and PodLevelResources gate."""
    parallelism: int = 16
    percentage_of_nodes_to_score: int = 0
    pod_initial_backoff_seconds: int = 1
    pod_max_backoff_seconds: int = 10

    def profile(self, scheduler_name: str | None = None) -> Profile | None:
        """The profile with that ``schedulerName`` (``None``: the first profile)."""
        if scheduler_name is None:
            return self.profiles[0] if self.profiles else None
        for profile in self.profiles:
            if profile.scheduler_name == scheduler_name:
                return profile
        return None

    @property
    def scheduler_names(self) -> tuple[str, ...]:
        """Every profile's ``schedulerName``, in order."""
        return tuple(profile.scheduler_name for profile in self.profiles)
