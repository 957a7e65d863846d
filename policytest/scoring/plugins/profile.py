"""The topology plugins run as kube-scheduler's framework runs them, for one pod.

:class:`PodCycle` is one scheduling cycle of one pod: PreFilter (NodePorts,
PodTopologySpread, InterPodAffinity), then, per node, the filters in the profile's
order (NodeName, NodePorts, PodTopologySpread, InterPodAffinity beside the node and
resource filters the cluster runs itself), then PreScore / Score / NormalizeScore of
TaintToleration, NodeAffinity, PodTopologySpread, InterPodAffinity and ImageLocality
over the nodes that passed, each times its profile weight (``RunScorePlugins``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from policytest.scoring.cluster import Pod
from policytest.scoring.filters import NODE_AFFINITY, TAINT_TOLERATION, PodFilter, pod_filter
from policytest.scoring.plugins import interpod, spread
from policytest.scoring.plugins.locality import image_scorer, node_name_filter, node_ports_filter
from policytest.scoring.plugins.notes import (
    AFFINITY_SKIPPED,
    SPREAD_SKIPPED,
    affinity_note,
    image_note,
    node_affinity_note,
    spread_note,
    taint_note,
)
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
    "NO_PROFILE_PLUGINS",
    "PROFILE_FILTERS",
    "PROFILE_SCORES",
    "CycleScores",
    "PodCycle",
    "ProfilePlugins",
    "extra_filter",
    "with_cycle_scores",
]

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
        view.imply((pod.workload,))  # a pod's implied controller exists before the pod
        self.filter_of: PodFilter = pod_filter(pod.placement)
        self.failure: str | None = None
        """A PreFilter failure: every node is rejected with it."""
        self.spread_state: spread.FilterState | None = None
        self.affinity_state: interpod.FilterState | None = None
        self.uniform = False
        """Whether the last ``scores`` gave every feasible node the same scores."""
        self.explained: dict[str, tuple[object, dict[str, int]]] = {}
        """Per score plugin: its PreScore state and raw scores by node (for notes)."""
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
        failed (the scheduler then fails the whole cycle)."""
        row = self._constant_row(feasible[0]) if feasible else None
        if row is not None:  # no plugin tells the nodes apart: one row for all
            self.uniform = True
            return dict.fromkeys(feasible, row)
        nodes = [self.view.by_name[name] for name in feasible]
        columns = []
        for plugin, weight in self.plugins.scores:
            try:
                columns.append((plugin, weight, self._plugin_scores(plugin, nodes)))
            except (SelectorError, PreferredTermError) as error:
                return f"{plugin} PreScore failed: {error}"
        self.uniform = all(len(set(column)) <= 1 for _, _, column in columns)
        if self.uniform:  # one row shared by every node
            row = {plugin: column[0] * weight for plugin, weight, column in columns if column}
            return dict.fromkeys(feasible, row)
        result: dict[str, dict[str, int]] = {name: {} for name in feasible}
        for plugin, weight, column in columns:
            for name, score in zip(feasible, column, strict=True):
                result[name][plugin] = score * weight
        return result

    def _constant_row(self, first: str) -> dict[str, int] | None:
        """Every plugin's weighted score when, without looking at each node, none can
        differ between nodes (taints the same everywhere, no preferred node affinity,
        nothing to spread or attract, no image of the pod on any node); ``None`` else."""
        workload, view = self.workload, self.view
        row: dict[str, int] = {}
        try:
            for plugin, weight in self.plugins.scores:
                score = 0
                if plugin == TAINT_TOLERATION:
                    if not self._constant(plugin):
                        return None
                    count = self._raw(plugin, [view.by_name[first]])[0]
                    self.explained[plugin] = (None, {first: count})
                    score = default_normalize([count], reverse=True)[0]
                elif plugin == NODE_AFFINITY:
                    if self._preferred() is not None:
                        return None
                elif plugin == POD_TOPOLOGY_SPREAD:
                    if spread.constraints_for(
                        workload, self.plugins.spread, view, spread.SCHEDULE_ANYWAY
                    ):
                        return None
                elif plugin == INTER_POD_AFFINITY:
                    if workload.affinity.any or view.with_affinity:
                        return None
                elif plugin == IMAGE_LOCALITY and image_scorer(
                    workload, view.images, len(view.nodes), image_volumes=self.plugins.image_volumes
                ):
                    return None
                row[plugin] = score * weight
        except (SelectorError, PreferredTermError):
            return None  # the full path reports it
        return row

    def _plugin_scores(self, plugin: str, nodes: Sequence[ViewNode]) -> list[int]:
        workload, view = self.workload, self.view
        names = [node.name for node in nodes]
        if plugin == TAINT_TOLERATION:
            if nodes and self._constant(plugin):  # every node counts the same
                raw = self._raw(plugin, nodes[:1])
                self.explained[plugin] = (None, {names[0]: raw[0]})
                return default_normalize(raw, reverse=True) * len(nodes)
            raw = self._raw(plugin, nodes)
            self.explained[plugin] = (None, dict(zip(names, raw, strict=True)))
            return default_normalize(raw, reverse=True)
        if plugin == NODE_AFFINITY:
            groups = self._preferred()
            if groups is None:
                return [0] * len(nodes)
            raw = [preferred_score(groups, n) for n in nodes]
            self.explained[plugin] = (groups, dict(zip(names, raw, strict=True)))
            return default_normalize(raw, reverse=False)
        if plugin == POD_TOPOLOGY_SPREAD:
            state = spread.prescore(workload, self.plugins.spread, nodes, view, self.filter_of)
            if state is None:
                return [0] * len(nodes)
            raw = [spread.raw_score(state, n) for n in nodes]
            self.explained[plugin] = (state, dict(zip(names, raw, strict=True)))
            return spread.normalize(state, names, raw)
        if plugin == INTER_POD_AFFINITY:
            affinity = interpod.prescore(workload, self.plugins.inter_pod, view)
            if affinity is None:
                return [0] * len(nodes)
            raw = [interpod.raw_score(affinity, n) for n in nodes]
            self.explained[plugin] = (affinity, dict(zip(names, raw, strict=True)))
            return interpod.normalize(affinity, raw)
        if plugin == IMAGE_LOCALITY:
            volumes = self.plugins.image_volumes
            total = len(view.nodes)
            if self.plugins.image_cache_order:
                return [self._image_when_added(n, total, volumes) for n in nodes]
            scorer = image_scorer(workload, view.images, total, image_volumes=volumes)
            return [0] * len(nodes) if scorer is None else [scorer(n) for n in nodes]
        return [0] * len(nodes)

    def _image_when_added(self, node: ViewNode, total: int, volumes: bool) -> int:
        """ImageLocality with the image states ``node`` kept when it entered the cache."""
        images = self.view.images_when_added(node)
        scorer = image_scorer(self.workload, images, total, image_volumes=volumes)
        return 0 if scorer is None else scorer(node)

    def notes(self, name: str) -> Mapping[str, str]:
        """Why each score plugin scored node ``name`` so (made when read)."""
        return LazyNotes(lambda: self._notes(name))

    def _notes(self, name: str) -> dict[str, str]:
        node = self.view.by_name[name]
        notes: dict[str, str] = {}
        for plugin, _ in self.plugins.scores:
            state, raw = self.explained.get(plugin, (None, {}))
            kept = [s for n, s in raw.items() if n not in _ignored(state)]
            if plugin == TAINT_TOLERATION:
                tolerations = self.pod.placement.tolerations
                notes[plugin] = taint_note(tolerations, node, max(raw.values(), default=0))
            elif plugin == NODE_AFFINITY:
                groups = state if isinstance(state, list) else None
                notes[plugin] = node_affinity_note(groups, node, max(raw.values(), default=0))
            elif plugin == POD_TOPOLOGY_SPREAD:
                notes[plugin] = (
                    spread_note(state, node, raw[name], kept or [0])
                    if isinstance(state, spread.ScoreState)
                    else SPREAD_SKIPPED
                )
            elif plugin == INTER_POD_AFFINITY:
                notes[plugin] = (
                    affinity_note(state, node, raw[name], kept)
                    if isinstance(state, interpod.ScoreState)
                    else AFFINITY_SKIPPED
                )
            elif plugin == IMAGE_LOCALITY:
                notes[plugin] = image_note(
                    self.workload,
                    node,
                    self.view.images,
                    len(self.view.nodes),
                    image_volumes=self.plugins.image_volumes,
                )
        return notes

    def local(self) -> bool:
        """Whether binding a pod elsewhere leaves this pod's verdicts on the other nodes
        as they are: nothing spreads or is attracted, and the taints and node affinity
        scores are the same on every node (so no change of the feasible nodes moves
        their normalisation). Remembered per pod without affinity terms while the view's
        ``version`` stays (looking the spreading constraints up again after every bind
        cost most of a sequence)."""
        if self.workload.affinity.any:
            return self._local()
        known = _remembered_local(self.pod, self.view)
        if known is None:
            known = self._local()
            self.view.local[self.pod] = (self.view.version, known)
        return known

    def _local(self) -> bool:
        if self.spread_state is not None or self.affinity_state is not None:
            return False
        scores = dict(self.plugins.scores)
        workload, view = self.workload, self.view
        try:
            if POD_TOPOLOGY_SPREAD in scores and spread.constraints_for(
                workload, self.plugins.spread, view, spread.SCHEDULE_ANYWAY
            ):
                return False
            attracted = workload.affinity.any or view.with_affinity
            if (
                INTER_POD_AFFINITY in scores
                and attracted
                and interpod.prescore(workload, self.plugins.inter_pod, view) is not None
            ):
                return False
        except SelectorError:
            return False
        for plugin in (TAINT_TOLERATION, NODE_AFFINITY):
            if plugin in scores and not self._constant(plugin):
                return False
        return True

    def _constant(self, plugin: str) -> bool:
        """Whether the plugin's raw score is the same on every node (labels and taints
        do not change: remembered per pod shape)."""
        if plugin == TAINT_TOLERATION:
            if not self.view.prefer_taints:
                return True
            key: object = (plugin, self.pod.placement.tolerations)
        else:
            key = (plugin, self.workload.preferred_node_terms)
        known = self.view.memo.get(key)
        if known is None:
            known = self.view.memo[key] = len(set(self._raw(plugin, self.view.nodes))) <= 1
        return known

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


def _ignored(state: object) -> frozenset[str]:
    return state.ignored if isinstance(state, spread.ScoreState) else frozenset()


class LazyNotes(Mapping[str, str]):
    """A node's notes, computed on first read (a ranking reads none)."""

    __slots__ = ("_compute", "_value")

    def __init__(self, compute: Callable[[], dict[str, str]]) -> None:
        self._compute = compute
        self._value: dict[str, str] | None = None

    def _notes(self) -> dict[str, str]:
        if self._value is None:
            self._value = self._compute()
        return self._value

    def __getitem__(self, plugin: str) -> str:
        return self._notes()[plugin]

    def __iter__(self) -> Iterator[str]:
        return iter(self._notes())

    def __len__(self) -> int:
        return len(self._notes())


def binds_locally(plugins: ProfilePlugins, pod: Pod, view: ClusterView) -> bool:
    """``PodCycle.local`` for ``pod`` now, without a cycle when the answer is remembered
    (a sequence asks it of every kept pod kind after every bind)."""
    known = None if pod.workload.affinity.any else _remembered_local(pod, view)
    return known if known is not None else PodCycle(plugins, pod, view).local()


def _remembered_local(pod: Pod, view: ClusterView) -> bool | None:
    """The answer of ``PodCycle.local`` for ``pod`` while the view's ``version`` is the
    one it was given at (``None``: not known)."""
    known = view.local.get(pod)
    return known[1] if known is not None and known[0] == view.version else None


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
    shared: dict[int, Verdict] = {}  # uniform scores: nodes sharing a verdict share the sum
    for name, verdict in zip(scores.names, scores.verdicts, strict=True):
        if not verdict[0]:
            verdicts.append(verdict)
        elif isinstance(result, str):
            verdicts.append(filtered(result))
        else:
            summed = shared.get(id(verdict)) if cycle.uniform else None
            if summed is None:
                added = result[name]
                plugins = {**verdict[3], **added}
                summed = (True, None, verdict[2] + sum(added.values()), plugins, *verdict[4:])
                shared[id(verdict)] = summed
            verdicts.append(summed)
    return Scores(scores.names, verdicts, None if isinstance(result, str) else cycle.notes)
