"""PodTopologySpread (``podtopologyspread/{common,filtering,scoring,plugin}.go``).

A pod's constraints are its own ``topologySpreadConstraints`` (``DoNotSchedule`` ones
filter, ``ScheduleAnyway`` ones score); a pod without any gets the plugin's default
constraints (``defaultingType: System``: hostname maxSkew 3 and zone maxSkew 5, both
``ScheduleAnyway``; ``List``: the args' ``defaultConstraints``) with the selector
``helper.DefaultSelector`` makes from the Services selecting it and its controller
(a ReplicationController, ReplicaSet or StatefulSet that exists); no selector, no
constraints. Only pods in the incoming pod's namespace are counted.

Volcano's nodeorder and predicates build this same plugin: ``filter_state`` /
``node_filter`` and ``prescore`` / ``raw_score`` / ``normalize`` are what they call, on
the nodes they choose.

Upstream checks every constraint on every node. Here what a constraint does not need
per node is done once: which nodes have every key, a node's inclusion policies (once
per distinct policy, not per constraint), a topology key's domains (once per key),
whether the pod matches a constraint's own selector (once per cycle, not per node);
pods are counted from the view's index (only nodes with matching pods add). The view
is charged with each constraint's domains and nodes before they are counted.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import attrgetter
from typing import Final, Literal

from policytest.scoring.filters import PodFilter
from policytest.scoring.kube import MAX_NODE_SCORE, go_round, quo64
from policytest.scoring.plugins.view import ClusterView, ViewNode
from policytest.scoring.selectors import (
    Selector,
    compile_selector,
    selector_from_set,
)
from policytest.scoring.workload import PodWorkload, SpreadConstraint

__all__ = [
    "HOSTNAME",
    "SYSTEM_DEFAULTS",
    "ZONE",
    "Constraint",
    "FilterState",
    "ScoreState",
    "SpreadArgs",
    "constraint_weight",
    "constraints_for",
    "counted_domain",
    "filter_state",
    "matching_counts",
    "node_filter",
    "normalize",
    "normalized",
    "prescore",
    "raw_from_counts",
    "raw_score",
    "score_columns",
]

HOSTNAME: Final = "kubernetes.io/hostname"
ZONE: Final = "topology.kubernetes.io/zone"
DO_NOT_SCHEDULE: Final = "DoNotSchedule"
SCHEDULE_ANYWAY: Final = "ScheduleAnyway"
HONOR: Final = "Honor"
SYSTEM_DEFAULTS: Final = (
    SpreadConstraint(3, HOSTNAME, SCHEDULE_ANYWAY),
    SpreadConstraint(5, ZONE, SCHEDULE_ANYWAY),
)
"""``systemDefaultConstraints`` (hostname 3, zone 5; both ScheduleAnyway)."""
MISSING_LABEL_REASON: Final = (
    "node(s) didn't match pod topology spread constraints (missing required label)"
)
SKEW_REASON: Final = "node(s) didn't match pod topology spread constraints"
_CONTROLLER_KINDS: Final = {
    ("v1", "ReplicationController"),
    ("apps/v1", "ReplicaSet"),
    ("apps/v1", "StatefulSet"),
}


@dataclass(frozen=True)
class SpreadArgs:
    """``PodTopologySpreadArgs`` after defaulting."""

    defaulting_type: Literal["System", "List"] = "System"
    default_constraints: tuple[SpreadConstraint, ...] = ()

    @property
    def system_defaulted(self) -> bool:
        return self.defaulting_type == "System"

    @property
    def defaults(self) -> tuple[SpreadConstraint, ...]:
        return SYSTEM_DEFAULTS if self.system_defaulted else self.default_constraints


@dataclass(frozen=True)
class Constraint:
    """``topologySpreadConstraint``: a constraint with its selector parsed and its
    policies defaulted (node affinity Honor, taints Ignore); ``origin``: the pod's own,
    or the plugin's ``system`` or ``List`` defaults."""

    max_skew: int
    topology_key: str
    selector: Selector
    min_domains: int
    honor_affinity: bool
    honor_taints: bool
    origin: str = "pod"


def constraints_for(
    pod: PodWorkload, args: SpreadArgs, view: ClusterView, action: str
) -> tuple[Constraint, ...]:
    """The pod's constraints for ``action`` (``getConstraints`` / ``initPreScoreState``);
    raises :class:`~policytest.scoring.selectors.SelectorError` for a selector that
    does not parse, as the plugin fails PreFilter / PreScore."""
    labels = view.label_map(view.number(pod.labels))
    if pod.spread:
        view.charge(len(pod.spread), "PodTopologySpread: the pod's constraints")
        return _compiled(pod.spread, labels, action, "pod")
    origin = "system" if args.system_defaulted else "List"
    constraints = _compiled(args.defaults, labels, action, origin)
    if not constraints:
        return ()
    selector = default_selector(pod, view)
    if selector.empty:
        return ()
    return tuple(
        Constraint(
            c.max_skew,
            c.topology_key,
            selector,
            c.min_domains,
            c.honor_affinity,
            c.honor_taints,
            origin,
        )
        for c in constraints
    )


def default_selector(pod: PodWorkload, view: ClusterView) -> Selector:
    """``helper.DefaultSelector``: the selectors of the Services in the pod's namespace
    that select it, merged, then its controller's selector, if the controller exists."""
    merged = _services_selecting(pod, view)
    selector = selector_from_set(merged)
    owner = pod.controller
    if owner is None or (owner.api_version, owner.kind) not in _CONTROLLER_KINDS:
        return selector
    found = view.find(owner.kind, pod.namespace, owner.name)
    if found is None:
        return selector
    if owner.kind == "ReplicationController":
        return selector_from_set({**merged, **dict(found.selector_map or ())})
    try:
        other = compile_selector(found.selector)
    except ValueError:
        return selector
    return selector if other.nothing else selector.with_requirements(other.requirements)


def _services_selecting(pod: PodWorkload, view: ClusterView) -> dict[str, str]:
    """The selectors of the Services in the pod's namespace that select it, merged
    (Services do not change: worked out once per namespace and label set, and the view
    charged with the Services checked)."""
    number = view.number(pod.labels)
    key = (pod.namespace, number)
    merged = view.selected_by_services.get(key)
    if merged is None:
        selectors = [service.selector_map for service in view.objects.services(pod.namespace)]
        view.charge(
            sum(1 + len(wanted or ()) for wanted in selectors),
            "PodTopologySpread: the Services' selectors against the pod's labels",
        )
        labels = view.label_map(number)
        merged = {}
        for wanted in selectors:
            if wanted is not None and all(labels.get(k) == v for k, v in wanted):
                merged.update(wanted)
        view.selected_by_services[key] = merged
    return merged


def _compiled(
    constraints: Sequence[SpreadConstraint], labels: Mapping[str, str], action: str, origin: str
) -> tuple[Constraint, ...]:
    """``filterTopologySpreadConstraints``: those for ``action``, selectors parsed and
    ``matchLabelKeys`` merged in (the pod's values, from ``labels``, for the keys it has)."""
    result = []
    for c in constraints:
        if c.when_unsatisfiable != action:
            continue
        selector = compile_selector(c.label_selector)
        keys = {key: labels[key] for key in c.match_label_keys if key in labels}
        if keys and not selector.nothing:
            selector = selector_from_set(keys).with_requirements(selector.requirements)
        result.append(
            Constraint(
                c.max_skew,
                c.topology_key,
                selector,
                1 if c.min_domains is None else c.min_domains,
                c.node_affinity_policy in (None, HONOR),
                c.node_taints_policy == HONOR,
                origin,
            )
        )
    return tuple(result)


def matching_counts(
    view: ClusterView, selector: Selector, namespace: str, *, keep: bool = True
) -> Mapping[str, int]:
    """``countPodsMatchSelector`` (an empty selector counts nothing) on every node at once,
    by node name (nodes with none left out), from the view's index of bound pods by label
    set (the tests hold it to counting each node's pods); ``keep``: the caller may keep
    them past the next bind."""
    return {} if selector.empty else view.matching(selector, namespace, keep=keep)


def _included(c: Constraint, node: ViewNode, pod_filter: PodFilter) -> bool:
    """``matchNodeInclusionPolicies``: the pod's required node affinity (Honor) and
    its tolerations of NoSchedule / NoExecute taints (Honor)."""
    if (
        c.honor_affinity
        and pod_filter.placement.uses_labels
        and not pod_filter.affinity_matches(node.name, node.labels)
    ):
        return False
    return not (
        c.honor_taints
        and node.traits.taints
        and pod_filter.untolerated_taint(node.traits) is not None
    )


def _has_keys(labels: Mapping[str, str], constraints: Sequence[Constraint]) -> bool:
    return all(c.topology_key in labels for c in constraints)


def _lacking(constraints: Sequence[Constraint], view: ClusterView) -> set[str]:
    """The nodes without the topology key of one of ``constraints``."""
    lacking: set[str] = set()
    for key in {c.topology_key for c in constraints}:
        lacking |= view.without(key)
    return lacking


class _Inclusion:
    """``matchNodeInclusionPolicies`` of one pod, answered once per node and distinct
    pair of policies (constraints share them: two pairs at most in practice)."""

    def __init__(self, pod_filter: PodFilter) -> None:
        self.pod_filter = pod_filter
        self.known: dict[tuple[bool, bool, str], bool] = {}

    def __call__(self, c: Constraint, node: ViewNode) -> bool:
        key = (c.honor_affinity, c.honor_taints, node.name)
        found = self.known.get(key)
        if found is None:
            found = self.known[key] = _included(c, node, self.pod_filter)
        return found


# --- Filter --------------------------------------------------------------------------------


@dataclass(frozen=True)
class FilterState:
    """PreFilter's state: per constraint, matching pods per topology value, the minimum
    the skew is measured from, and whether the incoming pod matches its selector."""

    constraints: tuple[Constraint, ...]
    counts: tuple[dict[str, int], ...]
    minimums: tuple[int, ...]
    own: tuple[int, ...]
    first: tuple[tuple[str, int], ...]
    """Each topology key of the constraints, with the position of the first constraint
    on it (where a node without the key fails), in that order."""
    failing: Mapping[str, Mapping[str, int]] | None
    """Per topology key, per domain: the position of the first constraint on that key
    whose skew the pod breaks there (``None``: a constraint breaks it even in a domain
    without matching pods, so each node is checked constraint by constraint)."""

    @property
    def checks(self) -> int:
        """What :func:`node_filter` looks up for one node, at most."""
        return len(self.constraints) if self.failing is None else len(self.first)


def filter_state(
    pod: PodWorkload, constraints: tuple[Constraint, ...], view: ClusterView, pod_filter: PodFilter
) -> FilterState:
    """``calPreFilterState`` over every node of the cluster: the domains of the nodes
    that have every key and that a constraint's policies include, each counting the
    pods its selector matches on those nodes."""
    lacking = _lacking(constraints, view)
    eligible = [node for node in view.nodes if node.name not in lacking]
    included = _Inclusion(pod_filter)
    policies = {(c.honor_affinity, c.honor_taints): c for c in constraints}
    view.charge(len(eligible) * len(policies), "PodTopologySpread: the nodes' inclusion")
    members = {
        policy: {node.name for node in eligible if included(c, node)}
        for policy, c in policies.items()
    }
    domains: dict[tuple[str, tuple[bool, bool]], dict[str, int]] = {}
    counts = []
    for c in constraints:
        policy = (c.honor_affinity, c.honor_taints)
        template = domains.get((c.topology_key, policy))
        column = view.column(c.topology_key)
        if template is None:
            template = domains[(c.topology_key, policy)] = dict.fromkeys(
                (column[node.name] for node in eligible if node.name in members[policy]), 0
            )
        found = matching_counts(view, c.selector, pod.namespace)
        view.charge(len(template) + len(found), "PodTopologySpread: a constraint's domains")
        domain_counts = dict(template)
        kept = members[policy]
        for name, count in found.items():
            if name in kept:
                domain_counts[column[name]] += count
        counts.append(domain_counts)
    minimums = tuple(
        0 if len(domains) < c.min_domains else min(domains.values())
        for c, domains in zip(constraints, counts, strict=True)
    )
    labels = view.label_map(view.number(pod.labels))
    view.charge(sum(c.selector.size for c in constraints), "PodTopologySpread: the pod's labels")
    own = tuple(1 if c.selector.matches(labels) else 0 for c in constraints)
    first: dict[str, int] = {}
    for index, c in enumerate(constraints):
        first.setdefault(c.topology_key, index)
    failing = _failing(constraints, counts, minimums, own)
    return FilterState(constraints, tuple(counts), minimums, own, tuple(first.items()), failing)


def _failing(
    constraints: Sequence[Constraint],
    counts: Sequence[Mapping[str, int]],
    minimums: Sequence[int],
    own: Sequence[int],
) -> dict[str, dict[str, int]] | None:
    """``FilterState.failing``: the domains each constraint fails (more matching pods
    than ``maxSkew + minimum - own``), by key, the first constraint kept (``None``
    when one fails a domain without pods too)."""
    failing: dict[str, dict[str, int]] = {}
    for index, (c, domains, minimum, mine) in enumerate(
        zip(constraints, counts, minimums, own, strict=True)
    ):
        allowed = c.max_skew + minimum - mine
        if allowed < 0:
            return None
        if domains and max(domains.values()) > allowed:
            by_value = failing.setdefault(c.topology_key, {})
            for value, count in domains.items():
                if count > allowed:
                    by_value.setdefault(value, index)
    return failing


def node_filter(state: FilterState, node: ViewNode) -> str | None:
    """``Filter``: the node has every topology key, and placing the pod there keeps
    each constraint's skew within ``maxSkew``: the first constraint (in order) that the
    node lacks the key of or whose skew it breaks decides. Found key by key from
    ``FilterState.failing``, not constraint by constraint."""
    labels = node.labels
    if state.failing is None:
        for c, domains, minimum, own in zip(
            state.constraints, state.counts, state.minimums, state.own, strict=True
        ):
            value = labels.get(c.topology_key)
            if value is None:
                return MISSING_LABEL_REASON
            if domains.get(value, 0) + own - minimum > c.max_skew:
                return SKEW_REASON
        return None
    reason, decided = None, len(state.constraints)
    for key, index in state.first:
        if index >= decided:  # every constraint on this key comes later
            break
        value = labels.get(key)
        if value is None:
            return MISSING_LABEL_REASON
        failed = state.failing.get(key, {}).get(value)
        if failed is not None and failed < decided:
            reason, decided = SKEW_REASON, failed
    return reason


# --- Score ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScoreState:
    """PreScore's state: the constraints, the nodes left out (missing a key when every
    key is required), matching pods per topology value, each constraint's weight, and
    each constraint's matching pods per node (:func:`matching_counts`)."""

    constraints: tuple[Constraint, ...]
    ignored: frozenset[str]
    counts: tuple[dict[str, int], ...]
    weights: tuple[float, ...]
    namespace: str
    on_node: tuple[Mapping[str, int], ...]
    require_all: bool
    """Every constraint's key is required: a node lacking one is left out, and the
    matching pods on it count in no domain."""


def prescore(
    pod: PodWorkload,
    args: SpreadArgs,
    feasible: Sequence[ViewNode],
    view: ClusterView,
    pod_filter: PodFilter,
) -> ScoreState | None:
    """``PreScore`` (``None``: Skip). Domains are the values of the key on the
    ``feasible`` nodes; pods are counted on every node of the cluster (only nodes with
    matching pods add to a domain). Nodes without a key are left out unless the
    constraints are the system defaults."""
    if not view.nodes:
        return None
    constraints = constraints_for(pod, args, view, SCHEDULE_ANYWAY)
    if not constraints:
        return None
    require_all = bool(pod.spread) or not args.system_defaulted
    names = list(map(attrgetter("name"), feasible))
    lacking = _lacking(constraints, view) if require_all else set()
    ignored = lacking.intersection(names)
    kept = [name for name in names if name not in ignored] if ignored else names
    keys = {c.topology_key for c in constraints if c.topology_key != HOSTNAME}
    view.charge(len(kept) * len(keys) + len(constraints), "PodTopologySpread: the domains")
    by_key = {key: _domains(view.column(key), kept) for key in keys}
    counts = tuple(
        {} if c.topology_key == HOSTNAME else dict(by_key[c.topology_key]) for c in constraints
    )
    weights = tuple(
        constraint_weight(c, len(feasible) - len(ignored), len(domains))
        for c, domains in zip(constraints, counts, strict=True)
    )
    on_node = tuple(matching_counts(view, c.selector, pod.namespace) for c in constraints)
    included = _Inclusion(pod_filter)
    for c, domains, found in zip(constraints, counts, on_node, strict=True):
        if not domains:
            continue
        view.charge(len(found), "PodTopologySpread: a constraint's matching pods")
        column = view.column(c.topology_key)
        for name, count in found.items():
            if name in lacking:
                continue
            value = column.get(name, "")
            if value in domains and included(c, view.by_name[name]):
                domains[value] += count
    return ScoreState(
        constraints, frozenset(ignored), counts, weights, pod.namespace, on_node, require_all
    )


def _domains(values: Mapping[str, str], names: Sequence[str]) -> dict[str, int]:
    """The domains of ``names`` (``""`` for a node without the key), each at 0."""
    found = set(map(values.get, names))
    return dict.fromkeys({"" if value is None else value for value in found}, 0)


def raw_score(state: ScoreState, node: ViewNode) -> int:
    """``Score``: per constraint whose key the node has, matching pods in its domain
    (on the node itself for hostname) times the weight, plus ``maxSkew - 1``; rounded."""
    if node.name in state.ignored:
        return 0
    counts: list[int | None] = []
    for c, domains, on_node in zip(state.constraints, state.counts, state.on_node, strict=True):
        value = node.labels.get(c.topology_key)
        if value is None:
            counts.append(None)
        elif c.topology_key == HOSTNAME:
            counts.append(on_node.get(node.name, 0))
        else:
            counts.append(domains[value])
    return raw_from_counts(state.constraints, state.weights, counts)


def score_columns(
    state: ScoreState, names: Sequence[str], view: ClusterView
) -> list[list[Hashable]]:
    """What :func:`raw_score` reads of each node of ``names`` (feasible nodes, as
    PreScore had them), one column per constraint: the node's domain, or for hostname
    its matching pods; ``None`` without the key (a node left out lacks one). Nodes
    equal in every column score the same."""
    columns: list[list[Hashable]] = []
    for c, on_node in zip(state.constraints, state.on_node, strict=True):
        if c.topology_key != HOSTNAME:
            columns.append(list(map(view.column(c.topology_key).get, names)))
            continue
        lookup: Mapping[str, int | None] = on_node
        unlabelled = view.without(HOSTNAME)
        if unlabelled:
            lookup = {**on_node, **dict.fromkeys(unlabelled)}
        columns.append(list(map(lookup.get, names, repeat(0))))
    return columns


def normalize(state: ScoreState, names: Sequence[str], scores: Sequence[int]) -> list[int]:
    """``NormalizeScore``: ``100 * (max + min - score) / max`` over the nodes not left
    out (those score 0); every node 100 when the maximum is 0."""
    kept = [s for name, s in zip(names, scores, strict=True) if name not in state.ignored]
    low = min(kept, default=0)
    high = max([0, *kept])
    return [
        0 if name in state.ignored else normalized(score, low, high)
        for name, score in zip(names, scores, strict=True)
    ]


# --- pure parts, shared with a sequence that keeps spreading scores across binds ----------


def constraint_weight(c: Constraint, kept: int, domains: int) -> float:
    """A constraint's weight in ``Score``: ``log(n + 2)``, ``n`` being the feasible
    nodes not left out (hostname) or the domains they are in (any other key)."""
    return math.log((kept if c.topology_key == HOSTNAME else domains) + 2)


def raw_from_counts(
    constraints: Sequence[Constraint], weights: Sequence[float], counts: Sequence[int | None]
) -> int:
    """``Score`` of a node not left out, from its count per constraint (``None``: the
    node lacks the key): ``count * weight + maxSkew - 1`` summed in constraint order
    (float64), rounded. The counts are the node's own matching pods for hostname, its
    domain's for any other key."""
    score = 0.0
    for c, count, weight in zip(constraints, counts, weights, strict=True):
        if count is not None:
            score += float(count) * weight + float(c.max_skew - 1)
    return go_round(score)


def normalized(score: int, low: int, high: int) -> int:
    """``NormalizeScore`` of one raw score, ``low`` and ``high`` being the minimum and
    the maximum (at least 0) of the raw scores of the feasible nodes not left out."""
    if high == 0:
        return MAX_NODE_SCORE
    return quo64(MAX_NODE_SCORE * (high + low - score), high)


def counts_on(state: ScoreState, node: ViewNode) -> bool:
    """Whether PreScore counts the matching pods on ``node`` in any domain: not when it
    lacks a key and every key is required (as a feasible node would be left out)."""
    return not state.require_all or _has_keys(node.labels, state.constraints)


def counted_domain(c: Constraint, node: ViewNode, pod_filter: PodFilter) -> str | None:
    """The domain of constraint ``c`` whose count the matching pods on ``node`` add to
    when the domain is among the feasible nodes' (``prescore``'s count), for a node
    that has every key or whose constraints do not require them all (a node not left
    out when feasible); ``None``: they add to none (hostname counts each node's own
    pods; the inclusion policies)."""
    if c.topology_key == HOSTNAME or not _included(c, node, pod_filter):
        return None
    return node.labels.get(c.topology_key, "")
