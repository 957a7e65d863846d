"""The topology plugins run as kube-scheduler's framework runs them, for one pod.

:class:`PodCycle` is one scheduling cycle of one pod: PreFilter (NodePorts,
PodTopologySpread, InterPodAffinity), then, per node, the filters in the profile's
order (NodeName, NodePorts, PodTopologySpread, InterPodAffinity beside the node and
resource filters the cluster runs itself), then PreScore / Score / NormalizeScore of
TaintToleration, NodeAffinity, PodTopologySpread, InterPodAffinity and ImageLocality
over the nodes that passed, each times its profile weight (``RunScorePlugins``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from policytest.scoring.cluster import Pod
from policytest.scoring.filters import PodFilter, pod_filter
from policytest.scoring.plugins import interpod, spread
from policytest.scoring.plugins.locality import image_score, node_name_filter, node_ports_filter
from policytest.scoring.plugins.preferences import (
    PreferredTermError,
    PreferredTerms,
    default_normalize,
    intolerable_taints,
    preferred_score,
    preferred_terms,
)
from policytest.scoring.plugins.view import ClusterView, ViewNode
from policytest.scoring.selectors import SelectorError
from policytest.scoring.verdicts import Scores, Verdict, filtered
from policytest.scoring.workload import PreferredNodeTerm

__all__ = [
    "NODE_AFFINITY",
    "NO_PROFILE_PLUGINS",
    "PROFILE_FILTERS",
    "PROFILE_SCORES",
    "CycleScores",
    "PodCycle",
    "ProfilePlugins",
    "extra_filter",
    "with_cycle_scores",
]

TAINT_TOLERATION: Final = "TaintToleration"
NODE_AFFINITY: Final = "NodeAffinity"
POD_TOPOLOGY_SPREAD: Final = "PodTopologySpread"
INTER_POD_AFFINITY: Final = "InterPodAffinity"
IMAGE_LOCALITY: Final = "ImageLocality"
NODE_PORTS: Final = "NodePorts"
NODE_NAME: Final = "NodeName"
PROFILE_FILTERS: Final = (NODE_NAME, NODE_PORTS, POD_TOPOLOGY_SPREAD, INTER_POD_AFFINITY)
"""The filters of this module (the node and resource filters are the cluster's)."""
PROFILE_SCORES: Final = (
    TAINT_TOLERATION,
    NODE_AFFINITY,
    POD_TOPOLOGY_SPREAD,
    INTER_POD_AFFINITY,
    IMAGE_LOCALITY,
)


@dataclass(frozen=True)
class ProfilePlugins:
    """The topology plugins a profile runs: its filters (in order), its score plugins
    with weights (in order), their args, and the release's ImageLocality."""

    filters: tuple[str, ...] = ()
    scores: tuple[tuple[str, int], ...] = ()
    spread: spread.SpreadArgs = field(default_factory=spread.SpreadArgs)
    inter_pod: interpod.InterPodArgs = field(default_factory=interpod.InterPodArgs)
    added_preferred: tuple[PreferredNodeTerm, ...] = ()
    image_volumes: bool = True
    """ImageLocality counts image volumes (1.36+)."""
    image_cache_order: bool = False
    """ImageLocality counts, for each node, only the nodes that entered the cache up to
    it (Volcano's cache keeps each node's image summary as it was when it was added)."""

    @property
    def active(self) -> bool:
        return bool(self.filters or self.scores)


NO_PROFILE_PLUGINS: Final = ProfilePlugins()

CycleScores = Mapping[str, Mapping[str, int]]
"""Per feasible node, per plugin: the weighted normalised score."""


class PodCycle:
    """One pod's cycle through the topology plugins on the cluster as it is now."""

    def __init__(self, plugins: ProfilePlugins, pod: Pod, view: ClusterView) -> None:
        self.plugins = plugins
        self.pod = pod
        self.workload = pod.workload
        self.view = view
        self.filter_of: PodFilter = pod_filter(pod.placement)
        self.failure: str | None = None
        """A PreFilter failure: every node is rejected with it."""
        self.spread_state: spread.FilterState | None = None
        self.affinity_state: interpod.FilterState | None = None
        self.steady: dict[str, dict[str, int]] | None = None
        """Each node's scores, kept once the cycle is found :meth:`local`."""
        self._prefilter()

    def _prefilter(self) -> None:
        filters, workload, view = self.plugins.filters, self.workload, self.view
        if POD_TOPOLOGY_SPREAD in filters:
            try:
                constraints = spread.constraints_for(
                    workload, self.plugins.spread, view, spread.DO_NOT_SCHEDULE
                )
            except SelectorError as error:
                self.failure = f"PodTopologySpread PreFilter failed: {error}"
                return
            if constraints:
                self.spread_state = spread.filter_state(workload, constraints, view, self.filter_of)
        if INTER_POD_AFFINITY in filters:
            try:
                self.affinity_state = interpod.filter_state(workload, view)
            except SelectorError as error:
                self.failure = f"parsing pod: {error}"

    @property
    def filters_nodes(self) -> bool:
        """Whether a node's own state can fail these filters (else none can)."""
        workload = self.workload
        return bool(
            self.failure
            or (workload.node_name and NODE_NAME in self.plugins.filters)
            or (workload.host_ports and NODE_PORTS in self.plugins.filters)
            or self.spread_state
            or self.affinity_state
        )

    def node_filter(self, plugin: str, name: str) -> str | None:
        """The verdict of one of this module's filters on one node."""
        if self.failure is not None:
            return self.failure
        node = self.view.by_name[name]
        if plugin == NODE_NAME:
            return node_name_filter(self.workload, node)
        if plugin == NODE_PORTS:
            return node_ports_filter(self.workload, node)
        if plugin == POD_TOPOLOGY_SPREAD and self.spread_state is not None:
            return spread.node_filter(self.spread_state, self.workload, node)
        if plugin == INTER_POD_AFFINITY and self.affinity_state is not None:
            return interpod.node_filter(self.affinity_state, node)
        return None

    def scores(self, feasible: Sequence[str]) -> CycleScores | str:
        """Every score plugin's weighted score per feasible node, or why PreScore
        failed (the scheduler then fails the whole cycle). Once the cycle is found
        :meth:`local`, a node's scores do not depend on the others: they are kept."""
        steady = self.steady
        if steady is not None:
            missing = [name for name in feasible if name not in steady]
            if missing:
                found = self._scores(missing)
                if isinstance(found, str):
                    return found
                steady.update(found)
            return {name: steady[name] for name in feasible}
        return self._scores(feasible)

    def _scores(self, feasible: Sequence[str]) -> dict[str, dict[str, int]] | str:
        nodes = [self.view.by_name[name] for name in feasible]
        result: dict[str, dict[str, int]] = {name: {} for name in feasible}
        for plugin, weight in self.plugins.scores:
            try:
                normalised = self._plugin_scores(plugin, nodes)
            except (SelectorError, PreferredTermError) as error:
                return f"{plugin} PreScore failed: {error}"
            for name, score in zip(feasible, normalised, strict=True):
                result[name][plugin] = score * weight
        return result

    def _plugin_scores(self, plugin: str, nodes: Sequence[ViewNode]) -> list[int]:
        workload, view = self.workload, self.view
        names = [node.name for node in nodes]
        if plugin == TAINT_TOLERATION:
            return default_normalize(self._raw(plugin, nodes), reverse=True)
        if plugin == NODE_AFFINITY:
            groups = self._preferred()
            if groups is None:
                return [0] * len(nodes)
            return default_normalize([preferred_score(groups, n) for n in nodes], reverse=False)
        if plugin == POD_TOPOLOGY_SPREAD:
            state = spread.prescore(workload, self.plugins.spread, nodes, view, self.filter_of)
            if state is None:
                return [0] * len(nodes)
            return spread.normalize(state, names, [spread.raw_score(state, n) for n in nodes])
        if plugin == INTER_POD_AFFINITY:
            affinity = interpod.prescore(workload, self.plugins.inter_pod, view)
            if affinity is None:
                return [0] * len(nodes)
            return interpod.normalize(affinity, [interpod.raw_score(affinity, n) for n in nodes])
        if plugin == IMAGE_LOCALITY:
            total = len(view.nodes)
            volumes = self.plugins.image_volumes
            cache_order = self.plugins.image_cache_order
            return [
                image_score(
                    workload,
                    n,
                    view.images_when_added(n) if cache_order else view.images,
                    total,
                    image_volumes=volumes,
                )
                for n in nodes
            ]
        return [0] * len(nodes)

    def local(self) -> bool:
        """Whether binding a pod elsewhere leaves this pod's verdicts on the other nodes
        as they are: nothing spreads or is attracted, and the taints and node affinity
        scores are the same on every node (so no change of the feasible nodes moves
        their normalisation)."""
        if self.spread_state is not None or self.affinity_state is not None:
            return False
        scores = dict(self.plugins.scores)
        workload, view = self.workload, self.view
        if POD_TOPOLOGY_SPREAD in scores:
            try:
                if spread.constraints_for(
                    workload, self.plugins.spread, view, spread.SCHEDULE_ANYWAY
                ):
                    return False
            except SelectorError:
                return False
        if INTER_POD_AFFINITY in scores:
            try:
                if interpod.prescore(workload, self.plugins.inter_pod, view) is not None:
                    return False
            except SelectorError:
                return False
        constant = (
            (TAINT_TOLERATION, TAINT_TOLERATION in scores),
            (NODE_AFFINITY, NODE_AFFINITY in scores),
        )
        for plugin, runs in constant:
            if runs and len(set(self._raw(plugin, view.nodes))) > 1:
                return False
        if self.steady is None:
            self.steady = {}
        return True

    def _raw(self, plugin: str, nodes: Sequence[ViewNode]) -> list[int]:
        """TaintToleration's or NodeAffinity's raw scores (NodeAffinity skipped: 0s)."""
        if plugin == TAINT_TOLERATION:
            tolerations = self.pod.placement.tolerations
            return [intolerable_taints(tolerations, node.traits.taints) for node in nodes]
        try:
            groups = self._preferred()
        except PreferredTermError:
            return [0, 1]  # PreScore fails: treat as changing
        if groups is None:
            return [0] * len(nodes)
        return [preferred_score(groups, node) for node in nodes]

    def _preferred(self) -> list[PreferredTerms] | None:
        """NodeAffinity's PreScore: the profile's added terms and the pod's (``None``:
        Skip, neither is set)."""
        own = self.workload.preferred_node_terms
        added = self.plugins.added_preferred
        if own is None and not added:
            return None
        groups = [preferred_terms(added)] if added else []
        if own is not None:
            groups.append(preferred_terms(own))
        return groups


def extra_filter(cycle: PodCycle | None) -> Callable[[str, str], str | None] | None:
    """The cycle's per-node filter for ``kube_filter``, when it can reject a node."""
    return cycle.node_filter if cycle is not None and cycle.filters_nodes else None


def with_cycle_scores(scores: Scores, cycle: PodCycle) -> Scores:
    """``scores`` (filters and resource plugins) with the cycle's score plugins added to
    every feasible node; when their PreScore fails, no node is feasible."""
    feasible = [name for name, v in zip(scores.names, scores.verdicts, strict=True) if v[0]]
    if not feasible:
        return scores
    result = cycle.scores(feasible)
    verdicts: list[Verdict] = []
    for name, verdict in zip(scores.names, scores.verdicts, strict=True):
        if not verdict[0]:
            verdicts.append(verdict)
        elif isinstance(result, str):
            verdicts.append(filtered(result))
        else:
            added = result[name]
            plugins = {**verdict[3], **added}
            verdicts.append((True, None, verdict[2] + sum(added.values()), plugins, *verdict[4:]))
    return Scores(scores.names, verdicts)
