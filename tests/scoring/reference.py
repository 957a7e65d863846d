"""Reference definitions the scorers' faster paths are held to in tests.

Each is upstream's walk written out plainly: every bound pod one by one, every term,
constraint, port and Service checked on every pod or node, as the plugins' Go code does.
The plugins get the same answers from indexes and groups (a term matched once per label
set, a bound pod's terms once per pod object, a constraint's domains once per key);
``tests/scoring/test_topology_work.py`` compares the two on generated clusters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from policytest.scoring.filters import PodFilter, term_matches
from policytest.scoring.plugins import interpod, spread
from policytest.scoring.plugins.locality import BIND_ALL, NODE_PORTS_REASON
from policytest.scoring.plugins.preferences import PreferredTerms
from policytest.scoring.plugins.view import ClusterView, ViewNode
from policytest.scoring.selectors import Selector, label_map, selector_from_set
from policytest.scoring.workload import PodWorkload


def bound_pods(node: ViewNode) -> list[PodWorkload]:
    """The node's bound pods one by one (the view keeps them as groups of one object)."""
    return [group.workload for group in node.groups.values() for _ in range(group.count)]


def count_matching(node: ViewNode, selector: Selector, namespace: str) -> int:
    """``countPodsMatchSelector`` on one node's pods (an empty selector counts nothing):
    what ``spread.matching_counts`` answers for every node at once from the view's index."""
    if selector.empty:
        return 0
    return sum(
        1
        for p in bound_pods(node)
        if p.namespace == namespace and selector.matches(label_map(p.labels))
    )


# --- InterPodAffinity ----------------------------------------------------------------------

Counts = dict[tuple[str, str], int]


def _add(counts: Counts, node: ViewNode, key: str, weight: int = 1) -> bool:
    value = node.labels.get(key)
    if value is None:
        return False
    counts[(key, value)] = counts.get((key, value), 0) + weight
    return True


def _matches_all(terms: Sequence[interpod.Term], pod: PodWorkload) -> bool:
    return bool(terms) and all(t.matches(pod, None) for t in terms)


def interpod_filter_state(pod: PodWorkload, view: ClusterView) -> interpod.FilterState | None:
    """``PreFilter``: every bound pod's required anti-affinity terms against the pod, and
    the pod's required terms against every bound pod."""
    terms = interpod.incoming_terms(pod, view)
    namespace_labels = view.objects.namespace_labels(pod.namespace)
    existing_anti: Counts = {}
    affinity: Counts = {}
    anti: Counts = {}
    for node in view.nodes:
        for existing in bound_pods(node):
            for term in interpod.existing_terms(existing).anti_required:
                if term.matches(pod, namespace_labels):
                    _add(existing_anti, node, term.topology_key)
            if terms.required and _matches_all(terms.required, existing):
                for term in terms.required:
                    _add(affinity, node, term.topology_key)
            for term in terms.anti_required:
                if term.matches(existing, None):
                    _add(anti, node, term.topology_key)
    if not existing_anti and not terms.required and not terms.anti_required:
        return None
    return interpod.FilterState(
        terms, existing_anti, affinity, anti, _matches_all(terms.required, pod)
    )


def interpod_prescore(
    pod: PodWorkload, args: interpod.InterPodArgs, view: ClusterView
) -> interpod.ScoreState | None:
    """``PreScore``: every pair of a bound pod and a term, both ways."""
    preferred = bool(pod.affinity.preferred or pod.affinity.anti_preferred)
    if args.ignore_preferred_terms_of_existing_pods and not preferred:
        return None
    terms = interpod.incoming_terms(pod, view)
    namespace_labels = view.objects.namespace_labels(pod.namespace)
    hard = args.hard_pod_affinity_weight
    counts: Counts = {}
    found = False
    for node in view.nodes:
        for existing in bound_pods(node):
            if not preferred and not existing.affinity.any:
                continue
            theirs = interpod.existing_terms(existing)
            for weight, term in terms.preferred:
                if term.matches(existing, None):
                    found |= _add(counts, node, term.topology_key, weight)
            for weight, term in terms.anti_preferred:
                if term.matches(existing, None):
                    found |= _add(counts, node, term.topology_key, -weight)
            for weight, term in [
                *((hard, t) for t in theirs.required if hard > 0),
                *theirs.preferred,
                *((-w, t) for w, t in theirs.anti_preferred),
            ]:
                if term.matches(pod, namespace_labels):
                    found |= _add(counts, node, term.topology_key, weight)
    if not found:
        return None
    scores: dict[str, dict[str, int]] = {}
    for (key, value), score in counts.items():
        scores.setdefault(key, {})[value] = score
    return interpod.ScoreState(scores)


# --- PodTopologySpread ---------------------------------------------------------------------


def spread_filter_state(
    pod: PodWorkload,
    constraints: tuple[spread.Constraint, ...],
    view: ClusterView,
    pod_filter: PodFilter,
) -> tuple[tuple[dict[str, int], ...], tuple[int, ...]]:
    """``calPreFilterState``: per constraint, every node with every key that its policies
    include adds its matching pods to its domain; and the minimums."""
    counts: tuple[dict[str, int], ...] = tuple({} for _ in constraints)
    for node in view.nodes:
        if not all(c.topology_key in node.labels for c in constraints):
            continue
        for index, c in enumerate(constraints):
            if not spread._included(c, node, pod_filter):
                continue
            value = node.labels[c.topology_key]
            found = count_matching(node, c.selector, pod.namespace)
            counts[index][value] = counts[index].get(value, 0) + found
    minimums = tuple(
        0 if len(domains) < c.min_domains else min(domains.values())
        for c, domains in zip(constraints, counts, strict=True)
    )
    return counts, minimums


def spread_node_filter(
    constraints: Sequence[spread.Constraint],
    counts: Sequence[Mapping[str, int]],
    minimums: Sequence[int],
    pod: PodWorkload,
    node: ViewNode,
) -> str | None:
    """``Filter``: each constraint in turn, the pod's own labels matched on every node."""
    labels = dict(pod.labels)
    for c, domains, minimum in zip(constraints, counts, minimums, strict=True):
        value = node.labels.get(c.topology_key)
        if value is None:
            return spread.MISSING_LABEL_REASON
        own = 1 if c.selector.matches(labels) else 0
        if domains.get(value, 0) + own - minimum > c.max_skew:
            return spread.SKEW_REASON
    return None


def default_selector(pod: PodWorkload, view: ClusterView) -> Selector:
    """``helper.DefaultSelector``'s Services part: every Service of the cluster checked."""
    labels = dict(pod.labels)
    merged: dict[str, str] = {}
    for service in view.objects.workloads:
        if service.kind != "Service" or service.namespace != pod.namespace:
            continue
        wanted = service.selector_map
        if wanted is not None and all(labels.get(k) == v for k, v in wanted):
            merged.update(wanted)
    return selector_from_set(merged)


# --- NodePorts, NodeAffinity ---------------------------------------------------------------


def node_ports_filter(pod: PodWorkload, node: ViewNode) -> str | None:
    """``Filter``: the node's ports gathered from every bound pod, each wanted port
    checked (0.0.0.0 conflicts with every IP)."""
    used: dict[str, set[tuple[str, int]]] = {}
    for existing in bound_pods(node):
        for port in existing.host_ports:
            used.setdefault(port.host_ip, set()).add((port.protocol, port.port))
    for port in pod.host_ports:
        pair = (port.protocol, port.port)
        if port.host_ip == BIND_ALL:
            if any(pair in pairs for pairs in used.values()):
                return NODE_PORTS_REASON
        elif any(pair in used.get(ip, ()) for ip in (BIND_ALL, port.host_ip)):
            return NODE_PORTS_REASON
    return None


def preferred_scores(terms: Sequence[PreferredTerms], view: ClusterView) -> dict[str, int]:
    """NodeAffinity's ``Score`` of every node, every term matched on every node."""
    return {
        node.name: sum(
            weight
            for group in terms
            for weight, compiled in group.terms
            if term_matches(compiled, node.name, node.labels)
        )
        for node in view.nodes
    }
