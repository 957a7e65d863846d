"""Executable schedulers: the scorers wired as the real schedulers wire them.

:class:`VolcanoScheduler` runs every registered node-order function (binpack and
nodeorder entries, in tier and plugin order, duplicates counted once per entry) and
sums them as the session does. :class:`KubeScheduler` filters with NodeResourcesFit
and sums each modelled score plugin's score times its profile weight. Plugins that
are neutral for fixture clusters are listed as not modelled, never silently dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Final, Literal

from policytest.core.limits import WorkMeter
from policytest.scoring.accounting import (
    KubeNodeInfo,
    VolcanoNodeInfo,
    kube_node_info,
    kube_node_info_with_pod,
    volcano_node_info,
    volcano_node_info_with_pod,
    volcano_pod_request,
)
from policytest.scoring.cluster import Node, Pod
from policytest.scoring.filters import (
    NODE_AFFINITY,
    NODE_UNSCHEDULABLE,
    PLAIN_NODE,
    TAINT_TOLERATION,
    NodeTraits,
    Placement,
    PodFilter,
    SelectorTerm,
    kube_filter,
    passes_trivially,
    pod_filter,
    volcano_filter,
)
from policytest.scoring.kube import (
    BalancedArgs,
    BalanceTerms,
    FitResource,
    FitScoring,
    balanced_allocation_scorer,
    balanced_allocation_skips,
    balanced_allocation_terms,
    fit_filter,
    fit_resources,
    fit_scorer,
)
from policytest.scoring.plugins.nodeorder import add_terms, kept_terms, with_nodeorder_terms
from policytest.scoring.plugins.profile import (
    NO_PROFILE_PLUGINS,
    PROFILE_SCORES,
    PodCycle,
    ProfilePlugins,
    binds_locally,
    extra_filter,
    reads_own_labels,
    with_cycle_scores,
)
from policytest.scoring.plugins.view import ClusterView
from policytest.scoring.protocol import BalanceDetail, LazyDetails, NotSimulated, ResourceDetail
from policytest.scoring.rsf import RsfScore, proportional_filter, rsf_scorer
from policytest.scoring.snapshot import normalized_image
from policytest.scoring.verdicts import (
    INFEASIBLE,
    MEMO_LIMIT,
    KeyTable,
    Scores,
    Verdict,
    filtered,
    kube_key,
    node_scores,
    one_verdict,
    verdicts_around,
    volcano_key,
)
from policytest.scoring.volcano import (
    BALANCED_RESOURCE_ARGS,
    NodeOrderScores,
    binpack_scorer,
    nodeorder_scorer,
    predicates_checker,
)
from policytest.scoring.weights import (
    RSF,
    BinpackWeights,
    NodeOrderWeights,
    ResourceStrategyFitArgs,
)
from policytest.scoring.workload import NO_OBJECTS, ClusterObjects, PodWorkload

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policytest.core.releases import BalancedFormula
    from policytest.scoring.session_plan import SessionPlan

VOLCANO_NOT_MODELLED = (
    "nodeorder.nodeaffinity",
    "nodeorder.podaffinity",
    "nodeorder.tainttoleration",
    "nodeorder.imagelocality",
    "nodeorder.podtopologyspread",
)
FIT = "NodeResourcesFit"
BALANCED = "NodeResourcesBalancedAllocation"
NODE_FILTERS = (NODE_UNSCHEDULABLE, TAINT_TOLERATION, NODE_AFFINITY, FIT)
"""The filter plugins policytest runs, when the profile runs them (in the profile's order)."""
_NODE_ONLY = NODE_FILTERS[:3]
"""The filters that read of a node only what binds do not change."""


@dataclass(frozen=True)
class VolcanoPredicates:
    """Volcano's ``predicates`` node filters: on when an entry of the plugin has
    ``enablePredicate``; the flags come from the last entry (the last registration wins)."""

    node_affinity: bool = True
    taint_toleration: bool = True
    node_ports: bool = True
    pod_affinity: bool = True
    """InterPodAffinity's filter (required terms, and existing pods' anti-affinity)."""
    pod_topology_spread: bool = True
    """PodTopologySpread's filter (``DoNotSchedule`` constraints); its score is nodeorder's."""


class _NodeLabels:
    """Each node's labels as a dict, made when a pod first needs them."""

    def __init__(self, traits: Mapping[str, NodeTraits]) -> None:
        self.traits = traits
        self.cache: dict[str, dict[str, str]] = {}

    def __call__(self, name: str) -> dict[str, str]:
        labels = self.cache.get(name)
        if labels is None:
            labels = self.cache[name] = dict(self.traits[name].labels)
        return labels


_NO_LABELS: Mapping[str, str] = {}
_PREPARED_LIMIT = 32
"""Pods whose scoring set-up and verdicts a cluster keeps at once: twice the pod kinds a
sequence keeps (``fast.MAX_KINDS``), so that scoring a new kind does not drop the
verdicts of the kept ones."""
_KeptTotals = dict[tuple[int, int], tuple[Verdict, float]]
"""A pod's totals after a bind, by (node key, id of the verdict whose terms were kept),
with that verdict (its id stays its own while it is held here)."""


@dataclass(frozen=True, slots=True)
class Guard:
    """The nodes a pod's filters may keep it off (``nodes``, at positions ``at`` in
    cluster order): its verdict there is worked out node by node; on every other node
    it is its node state's. ``fixed``: when the pod's placement alone decides them (its
    node filters reject them), their verdicts by position, ``None`` at the other nodes
    (``open_at``), so that scoring every node walks only those."""

    nodes: frozenset[str]
    at: list[int]
    fixed: list[Verdict | None] | None = None
    open_at: list[int] = field(default_factory=list)


_Own = tuple[Callable[[str], Verdict], Callable[[str], Verdict], Guard | None]
"""A pod's verdict of a node its filters cannot keep it off, of any node, and where its
filters may keep it off (``None``: anywhere, every node is judged on its own)."""
_Prepared = tuple[
    Callable[[str], Verdict],
    Callable[[str], Verdict],
    Guard | None,
    dict[int, Verdict],
    _KeptTotals,
]
_REJECTIONS_LIMIT = 16
"""Pod placements whose node filters' rejections a kube cluster keeps at once (each holds
a verdict or a slot per node)."""


class _FillingCluster:
    """What a Volcano and a kube-scheduler cluster being filled do alike: collect a pod's
    filters and resource scores on given nodes, once prepared per pod. Each cluster says
    how it keys and guards its nodes and how it prepares a pod."""

    scheduler: VolcanoScheduler | KubeScheduler
    infos: Mapping[str, object]
    memo: bool
    prepared: dict[int, tuple[Pod, _Prepared]]
    guarded_at: list[int]
    view: ClusterView | None
    extra: Callable[[str, str], str | None] | None

    def node_keys(self) -> dict[str, int]:
        """Each node's accounting as a number: nodes with equal numbers give a pod that
        no filter tells them apart for equal verdicts."""
        raise NotImplementedError

    def _guarded(self) -> frozenset[str]:
        raise NotImplementedError

    def _prepare(self, pod: Pod) -> _Own:
        raise NotImplementedError

    def resource_verdict(self, pod: Pod, name: str) -> Verdict:
        """The pod's verdict on node ``name`` from the node and resource filters and
        scores alone, for a pod none of the topology plugins' filters can keep off a
        node (its cycle does not ``filters_nodes``): what a bind changes on the bound
        node for a pod whose topology scores a sequence keeps (asked after every bind:
        without a collector's set-up)."""
        plain, own, guard, verdicts_by_key, _ = self._prepared(pod)
        self.extra = None
        guarded = None if guard is None else guard.nodes
        memo = verdicts_by_key if self.memo and guarded is not None else None
        return one_verdict(name, self.node_keys(), guarded, memo, plain, own)

    def kind_key(self, pod: Pod) -> Pod:
        """``pod`` as far as its verdicts depend on it: without its name, which no
        scorer reads, and without its labels while the topology plugins cannot read
        them (:func:`~policytest.scoring.plugins.profile.reads_own_labels`), so that the
        pods of jobs that differ only in their labels share one kind in a sequence."""
        key = replace(pod, name="") if pod.name else pod
        labelled = key.workload.labels
        if labelled and (
            self.view is None or not reads_own_labels(self.scheduler.profile, pod, self.view)
        ):
            key = replace(key, workload=replace(key.workload, labels=()))
        if self.view is not None and key.workload.reads_images:
            key = replace(key, workload=_unheld_images_alike(key.workload, self.view.images))
        return key

    @property
    def topology_version(self) -> object:
        """What the topology plugins' view counts of the changes that can move a pod's
        scores on nodes it was not bound to (``None``: the conf runs none of them)."""
        return None if self.view is None else self.view.version

    def local_binds(self, pod: Pod) -> bool:
        """Whether binding a pod changes this pod's score on the bound node only."""
        return self.view is None or binds_locally(self.scheduler.profile, pod, self.view)

    def _collector(
        self, pod: Pod, extra: Callable[[str, str], str | None] | None
    ) -> Callable[[Sequence[str] | None], Scores]:
        """The filters and resource scores of ``pod`` on given nodes (every node:
        ``None``), with the topology filters ``extra``."""
        plain, own, guard, verdicts_by_key, _ = self._prepared(pod)
        self.extra = extra
        if extra is not None:
            guard = None
        guarded, guarded_at = (None, []) if guard is None else (guard.nodes, guard.at)
        memo = verdicts_by_key if self.memo and guard is not None else None
        fixed = None if guard is None or memo is None else guard.fixed
        open_at = [] if guard is None else guard.open_at

        def collect(names: Sequence[str] | None) -> Scores:
            keys = self.node_keys()
            if names is None and fixed is not None and memo is not None:
                every = list(self.infos)
                return Scores(every, verdicts_around(fixed, open_at, every, keys, memo, plain))
            return node_scores(self.infos, names, keys, guarded, guarded_at, memo, plain, own)

        return collect

    def _prepared(self, pod: Pod) -> _Prepared:
        return _prepared_once(self.prepared, pod, self._prepare)


_Prepare = Callable[[Pod], _Own]

_UNHELD_IMAGE: Final = "(an image no node holds)"


def _unheld_images_alike(workload: PodWorkload, held: Mapping[str, object]) -> PodWorkload:
    """``workload`` with every image no node holds (``held``: the cluster's image states,
    by normalised name) named alike. ImageLocality counts only the images nodes hold (an
    image none holds scores 0 on every node; the number of containers, which bounds the
    score, stays) and says nothing of the others: so the jobs of a repack that differ in
    their build's own image tag are one kind, scored once, not 833 times."""
    if normalized_image(_UNHELD_IMAGE) in held:  # a cluster that holds even this name
        return workload

    def alike(names: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(name if normalized_image(name) in held else _UNHELD_IMAGE for name in names)

    return replace(
        workload,
        images=alike(workload.images),
        init_images=alike(workload.init_images),
        image_volumes=alike(workload.image_volumes),
    )


def _prepared_once(
    cache: dict[int, tuple[Pod, _Prepared]], pod: Pod, prepare: _Prepare
) -> _Prepared:
    """The pod's side of scoring and its verdicts by node key, made once per pod object
    (a sequence rescores the bound node for the same few pods again and again; the pod
    is kept, so its id is not reused meanwhile)."""
    entry = cache.get(id(pod))
    if entry is None or entry[0] is not pod:
        if len(cache) >= _PREPARED_LIMIT:
            cache.clear()
        entry = cache[id(pod)] = (pod, (*prepare(pod), {}, {}))
    return entry[1]


def with_topology(
    cycle: PodCycle | None,
    only: Sequence[str] | None,
    collect: Callable[[Sequence[str] | None], Scores],
    add: Callable[[Scores, PodCycle, bool], Scores],
) -> Scores:
    """A pod's scores (``collect``: filters and per-node scores, of ``only`` or of every
    node) with the topology plugins' terms that ``add`` puts on the feasible nodes. Those
    terms are normalised over the feasible nodes, so rescoring ``only`` a few nodes
    scores them all, unless the cycle is local (its terms are the same whichever nodes
    are feasible): then ``add`` scores the subset (its third argument)."""
    if cycle is None or not cycle.plugins.scores:
        return collect(only)
    if only is not None and cycle.local():  # the others' scores cannot move it
        return add(collect(only), cycle, True)
    scored = add(collect(None), cycle, False)
    if only is None:
        return scored
    position = {name: index for index, name in enumerate(scored.names)}
    return Scores(list(only), [scored.verdicts[position[name]] for name in only])


def _guarded_nodes(
    traits: Iterable[tuple[str, NodeTraits]], order: Iterable[str]
) -> tuple[frozenset[str], list[int]]:
    """The nodes a pod without tolerations, selector or affinity may not pass (taints
    and cordons do not change while a cluster fills), and their positions in ``order``."""
    guarded = frozenset(name for name, node_traits in traits if not passes_trivially(node_traits))
    return guarded, [index for index, name in enumerate(order) if name in guarded]


"""A pod's verdict of a plain node, of any node, whether the pod is plain, its memo."""


@dataclass(frozen=True)
class NodeOrderEntry:
    """One registered node-order function: a binpack, nodeorder or resource-strategy-fit
    plugin entry."""

    plugin: Literal["binpack", "nodeorder", "resource-strategy-fit"]
    binpack: BinpackWeights | None = None
    nodeorder: NodeOrderWeights | None = None
    rsf: ResourceStrategyFitArgs | None = None


@dataclass(frozen=True)
class VolcanoScheduler:
    """Volcano's allocate scoring: predicates fit check, then every node-order function."""

    entries: tuple[NodeOrderEntry, ...]
    name: str = "volcano"
    integer_scores: bool = False
    not_modelled: tuple[str, ...] = VOLCANO_NOT_MODELLED
    not_simulated: tuple[NotSimulated, ...] = ()
    """The conf's actions that evict (preempt, reclaim, ...), which policytest does not run."""
    priority_sort: bool = False
    """Pods are placed in arrival order (Volcano orders jobs and tasks in its session)."""
    corrections: tuple[str, ...] = ()
    balanced_formula: BalancedFormula = "with-pod"
    """nodeorder's balancedresource: its Kubernetes library's formula (1.36's from 1.16)."""
    overhead_first: bool = False
    """The release adds pod overhead before the init-container max (before 1.15)."""
    proportional: ResourceStrategyFitArgs | None = None
    """The resource-strategy-fit arguments whose proportional filter runs, if any."""
    predicates: VolcanoPredicates | None = VolcanoPredicates()
    """The ``predicates`` plugin's node filters; ``None``: the conf does not run them."""
    profile: ProfilePlugins = NO_PROFILE_PLUGINS
    """The kube-scheduler topology plugins predicates filters and nodeorder scores with
    (:mod:`policytest.scoring.plugins.nodeorder`)."""
    nodeorder_batch: bool = False
    """nodeorder scores its resource plugins in its batch function, after their PreScore
    (from 1.15): BalancedAllocation skips best-effort pods, and the float total adds
    them after the per-node functions (binpack's float comes first)."""
    session: SessionPlan | None = None
    """The conf's actions and tiers as a session runs them (jobs, queues, gangs)."""

    def cluster(
        self,
        nodes: Sequence[Node],
        objects: ClusterObjects = NO_OBJECTS,
        meter: WorkMeter | None = None,
    ) -> VolcanoCluster:
        state = VolcanoCluster(
            self,
            {node.name: node for node in nodes},
            {node.name: volcano_node_info(node, self.overhead_first) for node in nodes},
            view=ClusterView.of(nodes, objects, meter) if self.profile.active else None,
        )
        state.node_keys()  # part of loading the cluster, as the kube view nodeorder reads
        state._guarded()
        return state

    def utilisation(self, nodes: Sequence[Node]) -> Mapping[str, Mapping[str, tuple[int, int]]]:
        return _volcano_utilisation(
            {node.name: volcano_node_info(node, self.overhead_first) for node in nodes}
        )


@dataclass
class VolcanoCluster(_FillingCluster):
    """Nodes being filled by Volcano: Volcano units for binpack, the kube view for nodeorder."""

    scheduler: VolcanoScheduler
    nodes: dict[str, Node]
    infos: dict[str, VolcanoNodeInfo]
    kube_infos: dict[str, KubeNodeInfo] = field(default_factory=dict)
    label_cache: dict[str, dict[str, str]] = field(default_factory=dict)
    guarded: frozenset[str] | None = None
    keys: dict[str, int] = field(default_factory=dict)
    """Each node's accounting as a key (``verdicts.volcano_key``, numbered by ``table``):
    equal keys, equal verdicts for a plain pod on a plain node."""
    table: KeyTable = field(default_factory=KeyTable)
    memo: bool = True
    """Share verdicts between nodes with equal keys, and the topology plugins' scores
    between nodes equal in what they read (off: score every node on its own)."""
    prepared: dict[int, tuple[Pod, _Prepared]] = field(default_factory=dict)
    guarded_at: list[int] = field(default_factory=list)
    """The positions of the ``guarded`` nodes in cluster order."""
    view: ClusterView | None = None
    """What the topology plugins read (``None``: the conf runs none of them)."""
    extra: Callable[[str, str], str | None] | None = None
    """The current cycle's topology filters (plugin, node) while a pod is scored."""

    def _guarded(self) -> frozenset[str]:
        """The nodes a pod without tolerations, selector or affinity may not pass (taints
        and cordons do not change while a cluster fills)."""
        if self.guarded is None:
            traits = ((name, node.traits) for name, node in self.nodes.items())
            self.guarded, self.guarded_at = _guarded_nodes(traits, self.infos)
        return self.guarded

    def _labels(self, name: str) -> Mapping[str, str]:
        labels = self.label_cache.get(name)
        if labels is None:
            labels = self.label_cache[name] = dict(self.nodes[name].traits.labels)
        return labels

    def _kube_info(self, name: str) -> KubeNodeInfo:
        if name not in self.kube_infos:
            self.kube_infos[name] = kube_node_info(self.nodes[name])
        return self.kube_infos[name]

    def score(self, pod: Pod, only: Sequence[str] | None = None) -> Scores:
        cycle = (
            PodCycle(self.scheduler.profile, pod, self.view, grouped=self.memo)
            if self.view
            else None
        )
        batch = self.scheduler.nodeorder_batch
        return with_topology(
            cycle,
            only,
            self._collector(pod, extra_filter(cycle)),
            lambda scores, cycle, subset: with_nodeorder_terms(scores, cycle, batch, subset),
        )

    def kept_total(self, pod: Pod, name: str, kept: Verdict) -> float | None:
        """``pod``'s total on node ``name`` after a bind there, from the node's resource
        verdict and the nodeorder terms of ``kept`` (its verdict when last scored on every
        node), for a pod whose terms no bind moves (no topology filter can keep it off a
        node); ``None``: score the node instead. A node that keeps the pod off needs no
        terms, so a node it was kept off when last scored is rescored too."""
        if pod.workload.host_ports or pod.workload.node_name:
            return None
        _, _, guard, _, totals = self._prepared(pod)
        shared = self.memo and guard is not None and name not in guard.nodes
        state = (self.node_keys()[name], id(kept))
        if shared:  # a plain node's total follows from its key and the kept terms
            found = totals.get(state)
            if found is not None and found[0] is kept:
                return found[1]
        verdict = self.resource_verdict(pod, name)
        total: float = INFEASIBLE
        if verdict[0]:
            terms = kept_terms(kept, self.scheduler.profile)
            if terms is None:
                return None
            if terms:
                verdict = add_terms(verdict, terms, self.scheduler.nodeorder_batch)
            total = verdict[2]
        if shared:
            if len(totals) >= MEMO_LIMIT:
                totals.clear()
            totals[state] = (kept, total)
        return total

    def node_keys(self) -> dict[str, int]:
        """Each node's key (``verdicts.volcano_key``), made on first use."""
        if len(self.keys) != len(self.infos):
            kube = any(entry.nodeorder for entry in self.scheduler.entries)
            self.keys = {
                name: self.table(volcano_key(info, self._kube_info(name) if kube else None))
                for name, info in self.infos.items()
            }
        return self.keys

    def _prepare(self, pod: Pod) -> _Own:
        """(verdict of a node no predicate can keep the pod off; verdict of any node;
        the guarded nodes when the pod is plain for the predicates: no selector nor
        required affinity (tolerations only matter on guarded nodes), or the conf runs
        no predicates)."""
        scheduler = self.scheduler
        first = scheduler.overhead_first
        formula = scheduler.balanced_formula
        request = volcano_pod_request(pod, first)
        annotations = dict(pod.annotations)
        scorers = [
            (
                entry,
                binpack_scorer(entry.binpack, pod, first) if entry.binpack else None,
                nodeorder_scorer(entry.nodeorder, pod, formula, scheduler.nodeorder_batch)
                if entry.nodeorder
                else None,
                rsf_scorer(entry.rsf, request, annotations) if entry.rsf else None,
            )
            for entry in scheduler.entries
        ]
        balanced = any(e.nodeorder and e.nodeorder.balancedresource for e in scheduler.entries)
        terms = (
            balanced_allocation_terms(BALANCED_RESOURCE_ARGS, pod, formula) if balanced else None
        )
        proportional = scheduler.proportional
        predicates = scheduler.predicates
        node_filter = pod_filter(pod.placement) if predicates is not None else None
        # a plain pod can only be kept off the nodes with a filtering taint or a cordon
        trivial = node_filter is None or node_filter.trivial
        infos = self.infos
        fits = predicates_checker(pod, first)

        def verdict(name: str, predicate: bool) -> Verdict:
            info = infos[name]
            reason = fits(info)
            if reason is None and proportional is not None:
                reason = proportional_filter(proportional, request, info)
            if reason is None and predicate and node_filter is not None and predicates is not None:
                reason = volcano_filter(
                    node_filter,
                    name,
                    self.nodes[name].traits,
                    self._labels(name) if node_filter.placement.uses_labels else _NO_LABELS,
                    node_affinity=predicates.node_affinity,
                    taint_toleration=predicates.taint_toleration,
                )
            extra = self.extra
            if reason is None and extra is not None:
                reason = next(
                    filter(None, (extra(plugin, name) for plugin in scheduler.profile.filters)),
                    None,
                )
            if reason is not None:
                return filtered(reason)
            total = 0.0
            plugins: dict[str, float] = {}
            parts: dict[str, dict[str, float]] = {}
            rsf_scores: list[RsfScore] = []
            for entry, binpack, nodeorder, rsf in scorers:
                if binpack is not None:
                    value = binpack(info)
                elif rsf is not None:
                    scored = rsf(info)
                    value = scored.total
                    rsf_scores.append(scored)
                    _add_rsf_parts(parts.setdefault(entry.plugin, {}), scored)
                else:
                    assert nodeorder is not None and entry.nodeorder is not None
                    scores = nodeorder(self._kube_info(name))
                    value = scores.total
                    _add_parts(parts.setdefault(entry.plugin, {}), scores, entry.nodeorder)
                total += value
                plugins[entry.plugin] = plugins.get(entry.plugin, 0.0) + value
            return (
                True,
                None,
                total,
                plugins,
                LazyDetails(partial(self._details, info, request, tuple(rsf_scores))),
                parts,
                _LazyBalance(
                    "nodeorder.balancedresource", formula, partial(terms, self._kube_info(name))
                )
                if terms
                else {},
            )

        def plain(name: str) -> Verdict:
            return verdict(name, False)

        def own(name: str) -> Verdict:
            return verdict(name, not trivial or self.extra is not None or name in self._guarded())

        return plain, own, Guard(self._guarded(), self.guarded_at) if trivial else None

    def _details(
        self, info: VolcanoNodeInfo, request: Mapping[str, float], rsf: tuple[RsfScore, ...]
    ) -> Mapping[str, tuple[ResourceDetail, ...]]:
        details = dict(self._binpack_details(info, request))
        if rsf:
            details[RSF] = _rsf_details(rsf[-1])
        return details

    def _binpack_details(
        self, info: VolcanoNodeInfo, request: Mapping[str, float]
    ) -> Mapping[str, tuple[ResourceDetail, ...]]:
        weights = next((e.binpack for e in reversed(self.scheduler.entries) if e.binpack), None)
        if weights is None:
            return {"binpack": ()}
        return {
            "binpack": tuple(
                ResourceDetail(
                    name,
                    int(request[name] + info.used.get(name, 0.0)),
                    int(info.allocatable.get(name, 0.0)),
                    weight,
                    name not in ("memory", "pods"),
                    weight * (request[name] + info.used.get(name, 0.0)) / info.allocatable[name]
                    if info.allocatable.get(name)
                    else 0.0,
                    plugin_weight=weights.weight,
                    division="float",
                )
                for name, weight in weights.resources.items()
                if request.get(name, 0.0) > 0
            )
        }

    def bind(self, node_name: str, pod: Pod) -> None:
        self.infos[node_name] = volcano_node_info_with_pod(
            self.infos[node_name], pod, self.scheduler.overhead_first
        )
        node = self.nodes[node_name]
        self.nodes[node_name] = replace(node, pods=(*node.pods, pod))
        if self.view is not None:
            self.view.bind(node_name, pod.workload)
        if node_name in self.kube_infos:  # integer sums: adding one pod equals recounting
            self.kube_infos[node_name] = kube_node_info_with_pod(self.kube_infos[node_name], pod)
        self._rekey(node_name)

    def _rekey(self, node_name: str) -> None:
        """The node's key after its pods changed (once keys are made)."""
        if self.keys:
            kube = any(entry.nodeorder for entry in self.scheduler.entries)
            self.keys[node_name] = self.table(
                volcano_key(self.infos[node_name], self._kube_info(node_name) if kube else None)
            )

    def unbind(self, node_name: str, pod: Pod) -> None:
        """Take ``pod`` off the node it was bound to last (a Volcano session discarding
        a statement, last bind first): the node's pods and the topology plugins' view
        as before that bind; its accounting counted again from its pods (float sums do
        not subtract back exactly)."""
        node = self.nodes[node_name]
        at = len(node.pods) - 1 - node.pods[::-1].index(pod)
        node = self.nodes[node_name] = replace(node, pods=node.pods[:at] + node.pods[at + 1 :])
        self.infos[node_name] = volcano_node_info(node, self.scheduler.overhead_first)
        self.kube_infos.pop(node_name, None)
        if self.view is not None:
            self.view.unbind(node_name, pod.workload)
        self._rekey(node_name)

    def utilisation(self) -> Mapping[str, Mapping[str, tuple[int, int]]]:
        return _volcano_utilisation(self.infos)


def _volcano_utilisation(
    infos: Mapping[str, VolcanoNodeInfo],
) -> Mapping[str, Mapping[str, tuple[int, int]]]:
    return {
        name: {
            resource: (int(info.used.get(resource, 0.0)), int(capacity))
            for resource, capacity in info.allocatable.items()
            if resource != "pods"
        }
        for name, info in infos.items()
    }


def _kube_utilisation(
    infos: Mapping[str, KubeNodeInfo],
) -> Mapping[str, Mapping[str, tuple[int, int]]]:
    return {
        name: {
            resource: (info.requested.get(resource, 0), capacity)
            for resource, capacity in info.allocatable.items()
            if capacity
        }
        for name, info in infos.items()
    }


@dataclass(frozen=True)
class KubeScheduler:
    """One kube-scheduler profile's resource scoring (weights already defaulted)."""

    fit: FitScoring | None
    fit_weight: int
    balanced: BalancedArgs | None
    balanced_weight: int
    not_modelled: tuple[str, ...] = ()
    not_simulated: tuple[NotSimulated, ...] = ()
    """The profile's gang and workload plugins and a queue sort other than PrioritySort,
    which policytest does not simulate."""
    priority_sort: bool = True
    """The profile's queue sort is PrioritySort: a sequence's pods are placed by priority,
    then arrival (else in arrival order)."""
    fit_filter: bool = True
    ignored_resources: frozenset[str] = frozenset()
    ignored_resource_groups: frozenset[str] = frozenset()
    name: str = "kube-scheduler"
    integer_scores: bool = True
    corrections: tuple[str, ...] = ()
    balanced_formula: BalancedFormula = "balance-change"
    """BalancedAllocation's formula (``with-pod`` up to 1.35)."""
    pod_level_resources: bool = True
    """The PodLevelResources gate (off in 1.33)."""
    taint_reason_names_taint: bool = False
    """TaintToleration's filter reason names the taint (1.33)."""
    filter_order: tuple[str, ...] = NODE_FILTERS
    """The filter plugins policytest runs, in the profile's order (``NodeResourcesFit``
    among them when ``fit_filter``)."""
    added_affinity: tuple[SelectorTerm, ...] | None = None
    """NodeAffinity's ``addedAffinity`` required terms, enforced on every pod."""
    profile: ProfilePlugins = NO_PROFILE_PLUGINS
    """The topology plugins the profile runs (spreading, affinity, taints and node
    affinity scores, images, ports, node name)."""

    def cluster(
        self,
        nodes: Sequence[Node],
        objects: ClusterObjects = NO_OBJECTS,
        meter: WorkMeter | None = None,
    ) -> KubeCluster:
        level = self.pod_level_resources
        traits = {node.name: node.traits for node in nodes}
        infos = {node.name: kube_node_info(node, level) for node in nodes}
        table = KeyTable()
        state = KubeCluster(
            self,
            infos,
            traits,
            _NodeLabels(traits),
            {name: table(kube_key(info)) for name, info in infos.items()},
            table,
            view=ClusterView.of(nodes, objects, meter) if self.profile.active else None,
        )
        state._guarded()  # part of loading the cluster, as the keys
        return state

    def utilisation(self, nodes: Sequence[Node]) -> Mapping[str, Mapping[str, tuple[int, int]]]:
        level = self.pod_level_resources
        return _kube_utilisation({node.name: kube_node_info(node, level) for node in nodes})


@dataclass
class KubeCluster(_FillingCluster):
    """Nodes being filled by kube-scheduler."""

    scheduler: KubeScheduler
    infos: dict[str, KubeNodeInfo]
    traits: Mapping[str, NodeTraits] = field(default_factory=dict)
    labels: Callable[[str], Mapping[str, str]] = lambda name: _NO_LABELS
    keys: dict[str, int] = field(default_factory=dict)
    """Each node's accounting as a key (``verdicts.kube_key``, numbered by ``table``):
    equal keys, equal verdicts for a plain pod on a plain node."""
    table: KeyTable = field(default_factory=KeyTable)
    memo: bool = True
    """Share verdicts between nodes with equal keys, and the topology plugins' scores
    between nodes equal in what they read (off: score every node on its own)."""
    prepared: dict[int, tuple[Pod, _Prepared]] = field(default_factory=dict)
    guarded_at: list[int] = field(default_factory=list)
    """The positions of the ``guarded`` nodes in cluster order."""
    guarded: frozenset[str] | None = None
    view: ClusterView | None = None
    """What the topology plugins read (``None``: the profile runs none of them)."""
    extra: Callable[[str, str], str | None] | None = None
    """The current cycle's topology filters (plugin, node) while a pod is scored."""
    rejections: dict[Placement, tuple[dict[str, Verdict], Guard]] = field(default_factory=dict)
    """Per pod placement: the nodes its node filters reject, with their verdicts."""

    def score(self, pod: Pod, only: Sequence[str] | None = None) -> Scores:
        return self.score_cycle(pod, only)[0]

    def score_cycle(
        self, pod: Pod, only: Sequence[str] | None = None
    ) -> tuple[Scores, PodCycle | None]:
        """``score``, and the cycle of the topology plugins that scored (``None``: the
        profile runs none), whose PreScore states a sequence keeps across binds."""
        cycle = (
            PodCycle(self.scheduler.profile, pod, self.view, grouped=self.memo)
            if self.view
            else None
        )
        collect = self._collector(pod, extra_filter(cycle))
        scores = with_topology(
            cycle,
            only,
            collect,
            lambda scores, cycle, _: with_cycle_scores(scores, cycle),
        )
        return scores, cycle

    def kept_total(self, pod: Pod, name: str, kept: Verdict) -> float | None:
        """``pod``'s total on node ``name`` after a bind there, from the node's resource
        verdict and the topology plugins' part of ``kept`` (its verdict when last scored
        on every node), for a pod whose topology scores no bind moves; ``None``: score
        the node instead."""
        if not kept[0] or pod.workload.host_ports or pod.workload.node_name:
            return None
        verdict = self.resource_verdict(pod, name)
        if not verdict[0]:
            return INFEASIBLE
        plugins = kept[3]
        total: float = verdict[2] + sum(plugins.get(plugin, 0) for plugin in PROFILE_SCORES)
        return total

    def node_keys(self) -> dict[str, int]:
        return self.keys

    def _guarded(self) -> frozenset[str]:
        """The nodes a pod without tolerations, selector or affinity may not pass (taints
        and cordons do not change while a cluster fills)."""
        if self.guarded is None:
            self.guarded, self.guarded_at = _guarded_nodes(self.traits.items(), self.infos)
        return self.guarded

    def _rejections(
        self, node_filter: PodFilter, added: PodFilter | None
    ) -> tuple[dict[str, Verdict], Guard] | None:
        """The verdict of each node the node filters keep a pod of this placement off
        (cordon, taints, node affinity and its PreFilter: what binds do not change),
        judged once per placement, and those nodes as the pod's guard: on every other
        node its verdict is its node state's, shared by key (a pod selecting a node pool
        or pinned to a zone was filtered node by node at every full scoring). ``None``
        when the profile runs NodeResourcesFit before one of those filters (the first
        failing filter's reason would then depend on the node's resources), or without
        sharing (``memo`` off)."""
        order = self.scheduler.filter_order
        if not self.memo or (
            FIT in order
            and any(order.index(p) > order.index(FIT) for p in _NODE_ONLY if p in order)
        ):
            return None
        placement = node_filter.placement
        found = self.rejections.get(placement)
        if found is None:
            if len(self.rejections) >= _REJECTIONS_LIMIT:
                self.rejections.clear()
            uses_labels = placement.uses_labels or added is not None
            rejected: dict[str, Verdict] = {}
            fixed: list[Verdict | None] = []
            for name in self.infos:
                reason = kube_filter(
                    node_filter,
                    name,
                    self.traits[name] if self.traits else PLAIN_NODE,
                    self.labels(name) if uses_labels else _NO_LABELS,
                    order,
                    None,
                    added,
                    name_taint=self.scheduler.taint_reason_names_taint,
                )
                verdict = None if reason is None else filtered(reason)
                fixed.append(verdict)
                if verdict is not None:
                    rejected[name] = verdict
            at = [index for index, verdict in enumerate(fixed) if verdict is not None]
            open_at = [index for index, verdict in enumerate(fixed) if verdict is None]
            guard = Guard(frozenset(rejected), at, fixed, open_at)
            found = self.rejections[placement] = (rejected, guard)
        return found

    def _prepare(self, pod: Pod) -> _Own:
        """(verdict of a node no pod filter can keep the pod off, bound to its memo;
        verdict of any node; the nodes its filters may keep it off: the guarded nodes
        for a plain pod (no selector, required affinity nor ``addedAffinity``;
        tolerations only matter on guarded nodes), else those its placement's filters
        reject, when known)."""
        scheduler = self.scheduler
        level = scheduler.pod_level_resources
        formula = scheduler.balanced_formula
        fit = fit_scorer(scheduler.fit, pod) if scheduler.fit else None
        scores_balance = scheduler.balanced is not None and not balanced_allocation_skips(
            scheduler.balanced, pod, level
        )
        balanced = terms = None
        if scheduler.balanced is not None and scores_balance:
            balanced = balanced_allocation_scorer(scheduler.balanced, pod, formula, level)
            terms = balanced_allocation_terms(scheduler.balanced, pod, formula, level)
        resources = fit_resources(scheduler.fit, pod) if scheduler.fit else None
        node_filter = pod_filter(pod.placement)
        added = (
            None
            if scheduler.added_affinity is None
            else pod_filter(Placement(required_terms=scheduler.added_affinity))
        )
        uses_labels = pod.placement.uses_labels or added is not None
        trivial = node_filter.trivial and added is None
        rejections = None if trivial else self._rejections(node_filter, added)
        infos = self.infos
        fit_weight = scheduler.fit_weight
        balanced_weight = scheduler.balanced_weight

        def scored(info: KubeNodeInfo) -> Verdict:
            plugins: dict[str, float] = {}
            if fit is not None:
                plugins[FIT] = fit(info) * fit_weight
            if balanced is not None:
                plugins[BALANCED] = balanced(info) * balanced_weight
            details = (
                LazyDetails(partial(_fit_details, resources, info, scheduler)) if resources else {}
            )
            balance = _LazyBalance(BALANCED, formula, partial(terms, info)) if terms else {}
            return (True, None, sum(plugins.values()), plugins, details, {}, balance)

        def plain(name: str) -> Verdict:
            # nothing but resources can keep a plain pod off this node
            info = infos[name]
            reason = (
                fit_filter(
                    pod,
                    info,
                    ignored_resources=scheduler.ignored_resources,
                    ignored_resource_groups=scheduler.ignored_resource_groups,
                    pod_level=level,
                )
                if scheduler.fit_filter
                else None
            )
            return filtered(reason) if reason is not None else scored(info)

        def own(name: str) -> Verdict:
            info = infos[name]
            traits = self.traits[name] if self.traits else PLAIN_NODE
            extra = self.extra
            if extra is None:
                if trivial and passes_trivially(traits):
                    return plain(name)
                if rejections is not None:
                    return rejections[0].get(name) or plain(name)
            reason = kube_filter(
                node_filter,
                name,
                traits,
                self.labels(name) if uses_labels else _NO_LABELS,
                scheduler.filter_order,
                partial(
                    fit_filter,
                    pod,
                    info,
                    ignored_resources=scheduler.ignored_resources,
                    ignored_resource_groups=scheduler.ignored_resource_groups,
                    pod_level=level,
                )
                if scheduler.fit_filter
                else None,
                added,
                None if extra is None else _for_node(extra, name),
                name_taint=scheduler.taint_reason_names_taint,
            )
            return filtered(reason) if reason is not None else scored(info)

        if trivial:
            return plain, own, Guard(self._guarded(), self.guarded_at)
        return plain, own, None if rejections is None else rejections[1]

    def bind(self, node_name: str, pod: Pod) -> None:
        info = self.infos[node_name] = kube_node_info_with_pod(
            self.infos[node_name], pod, self.scheduler.pod_level_resources
        )
        self.keys[node_name] = self.table(kube_key(info))
        if self.view is not None:
            self.view.bind(node_name, pod.workload)

    def utilisation(self) -> Mapping[str, Mapping[str, tuple[int, int]]]:
        return _kube_utilisation(self.infos)


def _for_node(extra: Callable[[str, str], str | None], name: str) -> Callable[[str], str | None]:
    """The topology filters' verdicts on one node, by plugin."""
    return lambda plugin: extra(plugin, name)


class _LazyBalance(Mapping[str, BalanceDetail]):
    """One plugin's BalancedAllocation terms, computed when ``explain`` asks."""

    __slots__ = ("_compute", "_formula", "_plugin", "_value")

    def __init__(self, plugin: str, formula: str, compute: Callable[[], BalanceTerms]) -> None:
        self._plugin = plugin
        self._formula = formula
        self._compute = compute
        self._value: BalanceDetail | None = None

    def __getitem__(self, plugin: str) -> BalanceDetail:
        if plugin != self._plugin:
            raise KeyError(plugin)
        if self._value is None:
            self._value = BalanceDetail(*self._compute(), self._formula)
        return self._value

    def __iter__(self) -> Iterator[str]:
        return iter((self._plugin,))

    def __len__(self) -> int:
        return 1


def _add_parts(parts: dict[str, float], scores: NodeOrderScores, weights: NodeOrderWeights) -> None:
    """nodeorder's weighted scores, those with a weight, into ``parts`` (summed over
    duplicated entries)."""
    for part in ("leastrequested", "mostrequested", "balancedresource"):
        if getattr(weights, part):
            parts[part] = parts.get(part, 0.0) + getattr(scores, part)


def _add_rsf_parts(parts: dict[str, float], scored: RsfScore) -> None:
    """resource-strategy-fit's two addends (summed over duplicated entries)."""
    for part, value in (("strategy", scored.strategy), ("sra", scored.sra)):
        if value is not None:
            parts[part] = parts.get(part, 0.0) + value


def _rsf_details(scored: RsfScore) -> tuple[ResourceDetail, ...]:
    """Each scored resource: utilisation after placement, its strategy weight, its
    weighted score (before the division by the weight sum and the x100 x plugin weight)."""
    details = []
    for item in scored.resources:
        note = f"{item.type}, " + (
            "pod annotation" if item.rule == "annotation" else f"from `{item.rule}`"
        )
        if item.overflow:
            note += "; over allocatable: the strategy part is 0 on this node"
        details.append(
            ResourceDetail(
                item.name,
                int(item.requested + item.used),
                int(item.allocatable),
                item.weight,
                item.name not in ("memory", "pods"),
                item.score,
                note=note,
            )
        )
    return tuple(details)


def _fit_details(
    resources: Callable[[KubeNodeInfo], list[FitResource]],
    info: KubeNodeInfo,
    scheduler: KubeScheduler,
) -> Mapping[str, tuple[ResourceDetail, ...]]:
    """Each resource's share: its own score times its weight (Fit averages these over
    the weights of the resources that count, then the profile weight multiplies)."""
    shaped = scheduler.fit is not None and scheduler.fit.strategy == "RequestedToCapacityRatio"
    return {
        FIT: tuple(
            ResourceDetail(
                name,
                requested,
                allocatable,
                weight,
                name == "cpu",
                None if score is None else score * weight,
                score,
                scheduler.fit_weight,
                "round" if shaped else "int64",
            )
            for name, requested, allocatable, weight, score in resources(info)
        )
    }
