"""The topology plugins run as kube-scheduler's framework runs them, for one pod.

:class:`PodCycle` is one scheduling cycle of one pod: PreFilter (NodePorts,
PodTopologySpread, InterPodAffinity), then, per node, the filters in the profile's
order (NodeName, NodePorts, PodTopologySpread, InterPodAffinity beside the node and
resource filters the cluster runs itself), then PreScore / Score / NormalizeScore of
TaintToleration, NodeAffinity, PodTopologySpread, InterPodAffinity and ImageLocality
over the nodes that passed, each times its profile weight (``RunScorePlugins``).

A plugin's raw score of a node depends on a few things of the node: its taints
(TaintToleration), its labels (NodeAffinity's preferred terms), its topology domains
and its own matching pods (PodTopologySpread), its domains of the matched terms
(InterPodAffinity), its images (ImageLocality). A cycle therefore keys every feasible
node by what each plugin reads, computes each plugin's raw score once per group of
nodes with equal keys, normalises over the groups (the minimum and maximum are the
nodes'), and gives the nodes of a group one shared row of scores. With ``grouped`` off
every node is its own group (the reference the tests compare with).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import itemgetter
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
    preferred_scores,
    preferred_terms,
)
from policytest.scoring.plugins.view import ClusterView, ViewNode
from policytest.scoring.protocol import LazyMapping
from policytest.scoring.selectors import SelectorError
from policytest.scoring.snapshot import normalized_image
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
    "feasible_names",
    "reads_own_labels",
    "with_cycle_scores",
    "with_rows",
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
    raw_node_affinity: bool = False
    """NodeAffinity's score is its raw sum of matched preferred weights, not normalised
    (Volcano before 1.15 calls its Score node by node, without NormalizeScore)."""

    @property
    def active(self) -> bool:
        return bool(self.filters or self.scores)


NO_PROFILE_PLUGINS: Final = ProfilePlugins()

CycleScores = Sequence[Mapping[str, int]]
"""Per feasible node (in the order given), per plugin: the weighted normalised score
(nodes with equal rows share one mapping)."""


@dataclass(frozen=True)
class _Part:
    """One score plugin in a cycle: what its raw score reads of the feasible nodes (key
    columns, one value per node; none: the same on every node), its raw score of a node,
    its normalisation of the raw scores of some nodes, and the PreScore state notes
    show (``explain``: record the raw scores for notes)."""

    columns: Sequence[Sequence[Hashable]]
    raw: Callable[[ViewNode], int]
    normalize: Callable[[Sequence[ViewNode], list[int]], list[int]]
    state: object = None
    explain: bool = True
    checks: int = 1
    """What one raw score reads (its constraints, its topology keys), for the meter."""


class PodCycle:
    """One pod's cycle through the topology plugins on the cluster as it is now."""

    def __init__(
        self, plugins: ProfilePlugins, pod: Pod, view: ClusterView, *, grouped: bool = True
    ) -> None:
        self.plugins = plugins
        self.grouped = grouped
        """Score groups of nodes equal in what the plugins read (off: node by node)."""
        self.pod = pod
        self.workload = pod.workload
        self.view = view
        view.charge(pod.workload.parts, "reading the pod's labels, terms and constraints")
        if pod.workload.implied_owner is not None:  # it exists before the pod
            view.imply(pod.workload.implied_owner)
        self.filter_of: PodFilter = pod_filter(pod.placement)
        self.failure: str | None = None
        """A PreFilter failure: every node is rejected with it."""
        self.spread_state: spread.FilterState | None = None
        self.affinity_state: interpod.FilterState | None = None
        self.explained: dict[str, tuple[object, Mapping[str, int]]] = {}
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
            return node_ports_filter(self.workload, node, self.view)
        if plugin == POD_TOPOLOGY_SPREAD and self.spread_state is not None:
            self.view.charge(self.spread_state.checks, "PodTopologySpread: the filter")
            return spread.node_filter(self.spread_state, node)
        if plugin == INTER_POD_AFFINITY and self.affinity_state is not None:
            terms = self.affinity_state.terms
            checks = len(terms.required) + len(terms.anti_required) + len(node.labels)
            self.view.charge(checks, "InterPodAffinity: the filter")
            return interpod.node_filter(self.affinity_state, node)
        return None

    def scores(self, feasible: Sequence[str]) -> CycleScores | str:
        """Every score plugin's weighted score per feasible node, or why PreScore
        failed (the scheduler then fails the whole cycle)."""
        row = self._constant_row(feasible[0]) if feasible else None
        if row is not None:  # no plugin tells the nodes apart: one row for all
            return [row] * len(feasible)
        nodes = list(map(self.view.by_name.__getitem__, feasible))
        parts = []
        for plugin, weight in self.plugins.scores:
            try:
                parts.append((plugin, weight, self._part(plugin, feasible, nodes)))
            except (SelectorError, PreferredTermError) as error:
                return f"{plugin} PreScore failed: {error}"
        keys: Sequence[Hashable] = feasible
        if self.grouped:
            columns = [c for _, _, part in parts if part is not None for c in part.columns]
            keys = list(zip(*columns, strict=True)) if columns else [()] * len(feasible)
        groups = dict(zip(keys, nodes, strict=True))  # one node of each group
        members = list(groups.values())
        rows: list[dict[str, int]] = [{} for _ in members]
        for plugin, weight, part in parts:
            if part is None:  # skipped: 0 on every node
                for row in rows:
                    row[plugin] = 0
                continue
            self.view.charge(len(members) * part.checks, f"{plugin}: the scores")
            raw = [part.raw(node) for node in members]
            if part.explain:
                self.explained[plugin] = (part.state, _raw_by_node(feasible, keys, groups, raw))
            for row, score in zip(rows, part.normalize(members, raw), strict=True):
                row[plugin] = score * weight
        shared: dict[tuple[int, ...], dict[str, int]] = {}
        by_key = {
            key: shared.setdefault(tuple(row.values()), row)
            for key, row in zip(groups, rows, strict=True)
        }
        return list(map(by_key.__getitem__, keys))

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
                    count = self._taints(view.by_name[first])
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

    def _part(self, plugin: str, names: Sequence[str], nodes: Sequence[ViewNode]) -> _Part | None:
        """The plugin's part in scoring the feasible nodes ``names`` (``None``: it
        skips, every node scores 0)."""
        workload, view = self.workload, self.view
        if plugin == TAINT_TOLERATION:
            columns = [] if self._constant(plugin) else [_sparse(self._static_raw(plugin), names)]
            return _Part(columns, self._taints, _default_normalize(reverse=True))
        if plugin == NODE_AFFINITY:
            groups = self._preferred()
            if groups is None:
                return None
            by_node = self._static_raw(plugin)
            return _Part(
                [list(map(by_node.__getitem__, names))],
                lambda node: by_node[node.name],
                _as_raw if self.plugins.raw_node_affinity else _default_normalize(reverse=False),
                groups,
            )
        if plugin == POD_TOPOLOGY_SPREAD:
            state = spread.prescore(workload, self.plugins.spread, nodes, view, self.filter_of)
            if state is None:
                return None
            view.charge(len(state.constraints) * len(names), "PodTopologySpread: the node groups")
            return _Part(
                spread.score_columns(state, names, view),
                lambda node: spread.raw_score(state, node),
                lambda members, raw: spread.normalize(state, [n.name for n in members], raw),
                state,
                checks=len(state.constraints),
            )
        if plugin == INTER_POD_AFFINITY:
            affinity = interpod.prescore(workload, self.plugins.inter_pod, view)
            if affinity is None:
                return None
            view.charge(len(affinity.scores) * len(names), "InterPodAffinity: the node groups")
            return _Part(
                [list(map(view.column(key).get, names)) for key in affinity.scores],
                lambda node: interpod.raw_score(affinity, node),
                lambda _, raw: interpod.normalize(affinity, raw),
                affinity,
                checks=len(affinity.scores),
            )
        if plugin == IMAGE_LOCALITY:
            image = self._image_raw()
            if image is None:
                return None
            return _Part(
                [_sparse(self._static_raw(plugin), names)],
                image,
                _as_raw,
                explain=False,
            )
        return None

    def _image_raw(self) -> Callable[[ViewNode], int] | None:
        """ImageLocality's score of a node (``None``: no node holds an image of the pod,
        every node scores 0)."""
        volumes = self.plugins.image_volumes
        total = len(self.view.nodes)
        scorer = image_scorer(self.workload, self.view.images, total, image_volumes=volumes)
        if scorer is None or not self.plugins.image_cache_order:
            return scorer
        return lambda node: self._image_when_added(node, total, volumes)

    def _image_raws(self, image: Callable[[ViewNode], int], names: set[str]) -> dict[str, int]:
        """ImageLocality's raw score of the nodes ``names``, once per set of images held
        (unless each node counts the image states of its own time in the cache)."""
        nodes = map(self.view.by_name.__getitem__, names)
        if self.plugins.image_cache_order:
            return {node.name: image(node) for node in nodes}
        by_images: dict[frozenset[str], int] = {}
        found = {}
        for node in nodes:
            score = by_images.get(node.images)
            if score is None:
                score = by_images[node.images] = image(node)
            found[node.name] = score
        return found

    def _taints(self, node: ViewNode) -> int:
        """TaintToleration's raw score of ``node``."""
        return intolerable_taints(self.pod.placement.tolerations, node.traits.taints)

    def _image_when_added(self, node: ViewNode, total: int, volumes: bool) -> int:
        """ImageLocality with the image states ``node`` kept when it entered the cache."""
        images = self.view.images_when_added(node)
        scorer = image_scorer(self.workload, images, total, image_volumes=volumes)
        return 0 if scorer is None else scorer(node)

    def notes(self, name: str) -> Mapping[str, str]:
        """Why each score plugin scored node ``name`` so (made when read)."""
        return LazyMapping(lambda: self._notes(name))

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
                highest = None if self.plugins.raw_node_affinity else max(raw.values(), default=0)
                notes[plugin] = node_affinity_note(groups, node, highest)
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
                images = (
                    self.view.images_when_added(node)
                    if self.plugins.image_cache_order
                    else self.view.images
                )
                notes[plugin] = image_note(
                    self.workload,
                    node,
                    images,
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
        """Whether TaintToleration's or NodeAffinity's raw score is the same on every
        node (labels and taints do not change: remembered per pod shape)."""
        if plugin == TAINT_TOLERATION:
            if not self.view.prefer_tainted:
                return True
            key: object = (plugin, self.pod.placement.tolerations)
        else:
            key = (plugin, self.workload.preferred_node_terms)
        known = self.view.memo.get(key)
        if known is None:
            try:
                raw = self._static_raw(plugin)
            except PreferredTermError:  # PreScore fails: treat as changing
                known = False
            else:
                values = set(raw.values())
                if len(raw) < len(self.view.nodes):  # the nodes left out score 0
                    values.add(0)
                known = len(values) <= 1
            self.view.memo[key] = known
        return known

    def _static_raw(self, plugin: str) -> dict[str, int]:
        """The raw scores of what binds do not change, by node name, remembered per
        pod shape: TaintToleration's (nodes without PreferNoSchedule taints, which
        score 0, left out), NodeAffinity's (every node; ``{}`` when it skips), and
        ImageLocality's (only the nodes holding an image of the pod)."""
        view, workload = self.view, self.workload
        volumes = self.plugins.image_volumes
        if plugin == TAINT_TOLERATION:
            key: object = (plugin, self.pod.placement.tolerations)
        elif plugin == NODE_AFFINITY:
            key = (plugin, workload.preferred_node_terms)
        else:
            own = workload.image_volumes if volumes else ()
            key = (plugin, workload.images, workload.init_images, own)
        found = view.static_raw.get(key)
        if found is not None:
            return found
        if plugin == TAINT_TOLERATION:
            tolerations = self.pod.placement.tolerations
            found = {}
            for taints, names in view.prefer_tainted.items():
                count = intolerable_taints(tolerations, taints)
                if count:
                    found.update(dict.fromkeys(names, count))
        elif plugin == NODE_AFFINITY:
            groups = self._preferred()
            found = {} if groups is None else preferred_scores(groups, view)
        else:
            image = self._image_raw()
            images = {*workload.images, *workload.init_images}
            if volumes:
                images.update(workload.image_volumes)
            holding = {n for i in images for n in view.holders.get(normalized_image(i), ())}
            found = {} if image is None else self._image_raws(image, holding)
        view.static_raw[key] = found
        return found

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


def _as_raw(_: Sequence[ViewNode], raw: list[int]) -> list[int]:
    """A score that is not normalised (ImageLocality; NodeAffinity in old Volcano)."""
    return raw


def _raw_by_node(
    names: Sequence[str],
    keys: Sequence[Hashable],
    groups: Mapping[Hashable, ViewNode],
    raw: Sequence[int],
) -> Mapping[str, int]:
    """Each node's raw score (its group's), made when a note reads it."""

    def compute() -> dict[str, int]:
        by_key = dict(zip(groups, raw, strict=True))
        return dict(zip(names, map(by_key.__getitem__, keys), strict=True))

    return LazyMapping(compute)


def _sparse(raw: Mapping[str, int], names: Sequence[str]) -> list[int]:
    """``raw``'s score of each of ``names`` (0 for the nodes it leaves out)."""
    return list(map(raw.get, names, repeat(0)))


def _default_normalize(*, reverse: bool) -> Callable[[Sequence[ViewNode], list[int]], list[int]]:
    return lambda _, raw: default_normalize(raw, reverse=reverse)


def binds_locally(plugins: ProfilePlugins, pod: Pod, view: ClusterView) -> bool:
    """``PodCycle.local`` for ``pod`` now, without a cycle when the answer is remembered
    (a sequence asks it of every kept pod kind after every bind)."""
    known = None if pod.workload.affinity.any else _remembered_local(pod, view)
    return known if known is not None else PodCycle(plugins, pod, view).local()


def reads_own_labels(plugins: ProfilePlugins, pod: Pod, view: ClusterView) -> bool:
    """Whether the topology plugins may read ``pod``'s own labels when they score it now:
    its spread constraints (their ``matchLabelKeys``, whether it matches itself), a
    Service or controller that gives it default constraints, pod affinity terms of its
    own (self-match) or of bound pods (whose selectors match it). When none can, pods
    that differ only in labels (the jobs of a Volcano session, each labelled with its
    own name) get equal verdicts on every node."""
    workload = pod.workload
    if not plugins.active or not workload.labels:
        return False
    if workload.spread or workload.affinity.any or workload.owners or workload.implied_owner:
        return True
    if view.with_affinity:
        return True
    key = ("services", workload.namespace)
    known = view.memo.get(key)
    if known is None:
        known = view.memo[key] = bool(view.objects.services(workload.namespace))
    return known


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
    every feasible node; when their PreScore fails, no node is feasible. Nodes sharing
    a verdict and a row of the cycle's scores share the sum."""
    feasible = feasible_names(scores)
    if not feasible:
        return scores
    result = cycle.scores(feasible)
    if isinstance(result, str):
        failed = filtered(result)
        return Scores(scores.names, [failed if v[0] else v for v in scores.verdicts])
    return Scores(scores.names, with_rows(scores, result, _summed), cycle.notes)


def feasible_names(scores: Scores) -> list[str]:
    """The names of the nodes the filters let the pod onto, in cluster order."""
    return list(compress(scores.names, map(itemgetter(0), scores.verdicts)))


def with_rows(
    scores: Scores,
    rows: CycleScores,
    add: Callable[[Verdict, Mapping[str, int]], Verdict],
) -> list[Verdict]:
    """Each node's verdict with its row of ``rows`` (one per feasible node, in order)
    added by ``add`` (an infeasible node keeps its verdict), ``add`` called once per
    distinct verdict and row: nodes share both by node keys and groups, so a few
    thousand sums serve 10,000 nodes."""
    verdicts = scores.verdicts
    if len(rows) * 2 < len(verdicts):  # few feasible nodes: walk only those
        summed: dict[tuple[int, int], Verdict] = {}
        added = list(verdicts)
        feasible = compress(range(len(verdicts)), map(itemgetter(0), verdicts))
        for index, row in zip(feasible, rows, strict=True):
            verdict = verdicts[index]
            pair = (id(verdict), id(row))
            total = summed.get(pair)
            if total is None:
                total = summed[pair] = add(verdict, row)
            added[index] = total
        return added
    found: Sequence[Mapping[str, int] | None] = rows
    if len(rows) < len(verdicts):
        feasible_rows = iter(rows)
        found = [next(feasible_rows) if verdict[0] else None for verdict in verdicts]
    pairs = list(zip(map(id, verdicts), map(id, found), strict=True))
    first = dict(zip(pairs, zip(verdicts, found, strict=True), strict=True))
    summed = {pair: v if row is None else add(v, row) for pair, (v, row) in first.items()}
    return list(map(summed.__getitem__, pairs))


def _summed(verdict: Verdict, added: Mapping[str, int]) -> Verdict:
    """A feasible node's verdict with the cycle's scores added."""
    plugins = {**verdict[3], **added}
    return (True, None, verdict[2] + sum(added.values()), plugins, *verdict[4:])
