"""InterPodAffinity (``interpodaffinity/{filtering,scoring,plugin}.go``).

Both sides count: the incoming pod's required and preferred (anti-)affinity terms
matched against the pods already bound, and those pods' terms matched against the
incoming pod (their required anti-affinity filters; their required affinity adds
``hardPodAffinityWeight``; their preferred terms add or take their weight). A term's
namespaces are its ``namespaces``, the namespaces its ``namespaceSelector`` selects,
or the pod's own namespace when it gives neither.

Volcano's predicates and nodeorder build this same plugin (with
``hardPodAffinityWeight`` 0): ``filter_state`` / ``node_filter`` and ``prescore`` /
``raw_score`` / ``normalize`` are what they call.

Upstream walks every bound pod and every term. Here the incoming pod's terms are matched
once per label set of the bound pods (the view's index) and the bound pods' terms once
per pod object (the view's groups); what matched adds its weight, summed per topology
key, times the pods counted, to each node's domain. Sums of integers: the counts are
exactly upstream's (``tests/scoring/reference.py`` holds the walk they are compared with).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Final

from policytest.scoring.kube import MAX_NODE_SCORE
from policytest.scoring.plugins.view import ClusterView, PodGroup, ViewNode
from policytest.scoring.selectors import (
    NOTHING,
    Selector,
    SelectorError,
    compile_selector,
    label_map,
)
from policytest.scoring.workload import AffinityTerm, PodWorkload

__all__ = [
    "AFFINITY_REASON",
    "ANTI_AFFINITY_REASON",
    "EXISTING_ANTI_AFFINITY_REASON",
    "FilterState",
    "InterPodArgs",
    "PodTerms",
    "ScoreState",
    "filter_state",
    "node_filter",
    "normalize",
    "pod_terms",
    "prescore",
    "raw_score",
]

AFFINITY_REASON: Final = "node(s) didn't match pod affinity rules"
ANTI_AFFINITY_REASON: Final = "node(s) didn't match pod anti-affinity rules"
EXISTING_ANTI_AFFINITY_REASON: Final = "node(s) didn't satisfy existing pods anti-affinity rules"


@dataclass(frozen=True)
class InterPodArgs:
    """``InterPodAffinityArgs`` after defaulting."""

    hard_pod_affinity_weight: int = 1
    ignore_preferred_terms_of_existing_pods: bool = False


@dataclass(frozen=True)
class Term:
    """``fwk.AffinityTerm``: namespaces, namespace selector, selector, topology key."""

    namespaces: frozenset[str]
    namespace_selector: Selector
    selector: Selector
    topology_key: str

    @property
    def size(self) -> int:
        """What matching it against one pod reads, at most (its namespaces are a set)."""
        return 1 + self.namespace_selector.size + self.selector.size

    def matches(self, pod: PodWorkload, namespace_labels: Mapping[str, str] | None) -> bool:
        return self.selects(pod.namespace, label_map(pod.labels), namespace_labels)

    def selects(
        self,
        namespace: str,
        labels: Mapping[str, str],
        namespace_labels: Mapping[str, str] | None,
    ) -> bool:
        """Whether the term matches a pod in ``namespace`` with ``labels``."""
        if namespace in self.namespaces or self.namespace_selector.matches(namespace_labels or {}):
            return self.selector.matches(labels)
        return False


@dataclass(frozen=True)
class PodTerms:
    """A pod's parsed terms (``PodInfo``); preferred ones with their weights."""

    required: tuple[Term, ...] = ()
    preferred: tuple[tuple[int, Term], ...] = ()
    anti_required: tuple[Term, ...] = ()
    anti_preferred: tuple[tuple[int, Term], ...] = ()


NO_TERMS: Final = PodTerms()


@lru_cache(maxsize=4096)
def pod_terms(pod: PodWorkload) -> PodTerms:
    """The pod's terms parsed (``framework.NewPodInfo``); raises
    :class:`~policytest.scoring.selectors.SelectorError` for a selector that does not
    parse."""
    affinity = pod.affinity
    if not affinity.any:
        return NO_TERMS
    return PodTerms(
        tuple(_term(pod, t) for t in affinity.required),
        tuple((w.weight, _term(pod, w.term)) for w in affinity.preferred),
        tuple(_term(pod, t) for t in affinity.anti_required),
        tuple((w.weight, _term(pod, w.term)) for w in affinity.anti_preferred),
    )


def existing_terms(pod: PodWorkload) -> PodTerms:
    """A bound pod's terms; one whose terms do not parse has none."""
    try:
        return pod_terms(pod)
    except SelectorError:
        return NO_TERMS


def _term(pod: PodWorkload, term: AffinityTerm) -> Term:
    """``newAffinityTerm``: no namespaces and no namespace selector mean the pod's own."""
    namespaces = (
        frozenset((pod.namespace,))
        if not term.namespaces and term.namespace_selector is None
        else frozenset(term.namespaces)
    )
    return Term(
        namespaces,
        compile_selector(term.namespace_selector),
        compile_selector(term.label_selector),
        term.topology_key,
    )


def _merged(term: Term, view: ClusterView) -> Term:
    """``mergeAffinityTermNamespacesIfNotEmpty``: the namespaces a non-empty namespace
    selector selects join ``namespaces``, and the selector becomes *Nothing*."""
    if term.namespace_selector.empty:
        return term
    selected = {
        name
        for name, labels in view.objects.namespaces
        if term.namespace_selector.matches(dict(labels))
    }
    return replace(term, namespaces=term.namespaces | selected, namespace_selector=NOTHING)


def incoming_terms(pod: PodWorkload, view: ClusterView) -> PodTerms:
    """The incoming pod's terms with their namespace selectors resolved (raises
    :class:`~policytest.scoring.selectors.SelectorError`)."""
    terms = pod_terms(pod)
    if terms is NO_TERMS:
        return terms
    return PodTerms(
        tuple(_merged(t, view) for t in terms.required),
        tuple((w, _merged(t, view)) for w, t in terms.preferred),
        tuple(_merged(t, view) for t in terms.anti_required),
        tuple((w, _merged(t, view)) for w, t in terms.anti_preferred),
    )


# --- Filter --------------------------------------------------------------------------------

Counts = dict[tuple[str, str], int]
Weights = dict[str, int]
"""Summed weights of the terms that matched, by topology key (a key is there when a term
with it matched, even if the weights sum to 0)."""


@dataclass(frozen=True)
class FilterState:
    """PreFilter's counts per (topology key, value): existing pods' anti-affinity
    matching the incoming pod, and existing pods matching its affinity / anti-affinity."""

    terms: PodTerms
    existing_anti: Counts
    affinity: Counts
    anti: Counts
    self_match: bool


def _matches_all(terms: Sequence[Term], namespace: str, labels: Mapping[str, str]) -> bool:
    """``podMatchesAllAffinityTerms``: at least one term, and every one matches."""
    return bool(terms) and all(t.selects(namespace, labels, None) for t in terms)


def _weights(terms: Sequence[tuple[int, Term]]) -> Weights:
    summed: Weights = {}
    for weight, term in terms:
        summed[term.topology_key] = summed.get(term.topology_key, 0) + weight
    return summed


def _label_sets(
    terms: Sequence[Term], view: ClusterView, step: str
) -> Iterator[tuple[str, int, Mapping[str, str]]]:
    """Each label set of the bound pods (namespace, number, labels) that one of the
    incoming pod's ``terms`` may match: in a namespace of the term's, or in any when its
    namespace selector matches everything. The view is charged with every term against
    every label set of its namespaces, before they are matched."""
    everywhere = [term.namespace_selector.matches({}) for term in terms]
    by_namespace = view.pods_by_labels
    if any(everywhere):
        namespaces = list(by_namespace)
    else:
        namespaces = sorted({n for term in terms for n in term.namespaces if n in by_namespace})
    view.charge(
        sum(len(term.namespaces) for term in terms)
        + sum(term.size for term in terms)
        * sum(len(by_namespace[namespace]) for namespace in namespaces),
        step,
    )
    for namespace in namespaces:
        for number in by_namespace[namespace]:
            yield namespace, number, view.label_map(number)


def _in_namespace(term: Term, everywhere: bool, namespace: str) -> bool:
    return everywhere or namespace in term.namespaces


def _add_weights(counts: Counts, node: ViewNode, weights: Weights, times: int) -> bool:
    """``weights`` times ``times`` added to ``node``'s domain of each key it has a label
    for (whichever of the two is smaller is walked); whether it has any."""
    labels, found = node.labels, False
    pairs: Iterator[tuple[str, int | None, str | None]]
    if len(weights) <= len(labels):
        pairs = ((key, weight, labels.get(key)) for key, weight in weights.items())
    else:
        pairs = ((key, weights.get(key), value) for key, value in labels.items())
    for key, weight, value in pairs:
        if weight is not None and value is not None:
            counts[(key, value)] = counts.get((key, value), 0) + weight * times
            found = True
    return found


def _charge_adds(view: ClusterView, nodes: Sequence[ViewNode], keys: int, step: str) -> None:
    """Charge the view with adding weights of ``keys`` topology keys to each of ``nodes``
    (:func:`_add_weights` walks the fewer of the keys and the node's labels)."""
    view.charge(sum(min(keys, len(node.labels)) for node in nodes), step)


def _add_matching_pods(
    counts: Counts, view: ClusterView, matched: Iterator[tuple[str, int, Weights]], step: str
) -> bool:
    """For each label set (namespace, number) with the weights of the terms that matched
    it: the weights times its pods on each node, added to that node's domains; whether
    any node had a domain to add to."""
    found = False
    for namespace, number, weights in matched:
        by_node = view.pods_by_labels[namespace][number]
        nodes = [view.by_name[name] for name in by_node]
        _charge_adds(view, nodes, len(weights), step)
        for node, count in zip(nodes, by_node.values(), strict=True):
            found |= _add_weights(counts, node, weights, count)
    return found


def _required_matches(
    terms: Sequence[Term], view: ClusterView
) -> Iterator[tuple[str, int, Weights]]:
    """The label sets every required affinity term matches, each with one weight per
    term (``podMatchesAllAffinityTerms``; each term then counts the pod)."""
    everywhere = [term.namespace_selector.matches({}) for term in terms]
    weights = _weights([(1, term) for term in terms])
    for namespace, number, labels in _label_sets(
        terms, view, "InterPodAffinity: the pod's required terms"
    ):
        if all(
            _in_namespace(term, anywhere, namespace) and term.selector.matches(labels)
            for term, anywhere in zip(terms, everywhere, strict=True)
        ):
            yield namespace, number, weights


def _each_matches(
    terms: Sequence[tuple[int, Term]], view: ClusterView, step: str
) -> Iterator[tuple[str, int, Weights]]:
    """Each label set some of ``terms`` (weighted) match, with their weights by key."""
    everywhere = [term.namespace_selector.matches({}) for _, term in terms]
    for namespace, number, labels in _label_sets([t for _, t in terms], view, step):
        matched = [
            (weight, term)
            for (weight, term), anywhere in zip(terms, everywhere, strict=True)
            if _in_namespace(term, anywhere, namespace) and term.selector.matches(labels)
        ]
        if matched:
            yield namespace, number, _weights(matched)


def _existing_weights(
    groups: Sequence[PodGroup],
    view: ClusterView,
    weigh: Callable[[PodTerms], list[tuple[int, Term]]],
    pod: PodWorkload,
    namespace_labels: Mapping[str, str] | None,
    step: str,
) -> Iterator[tuple[PodGroup, Weights]]:
    """Each group of bound pods with the weights of its terms (``weigh`` picks and
    weighs them) that match the incoming ``pod``, by key; matched once per pod object."""
    known: dict[int, Weights] = {}
    labels = view.label_map(view.number(pod.labels))
    for group in groups:
        weights = known.get(id(group.workload))
        if weights is None:
            weighed = weigh(existing_terms(group.workload))
            view.charge(sum(term.size for _, term in weighed), step)
            weights = known[id(group.workload)] = _weights(
                [
                    (w, term)
                    for w, term in weighed
                    if term.selects(pod.namespace, labels, namespace_labels)
                ]
            )
        if weights:
            yield group, weights


def filter_state(pod: PodWorkload, view: ClusterView) -> FilterState | None:
    """``PreFilter`` (``None``: Skip). Raises
    :class:`~policytest.scoring.selectors.SelectorError` for the incoming pod's terms
    (the scheduler: UnschedulableAndUnresolvable, "parsing pod")."""
    terms = incoming_terms(pod, view)
    namespace_labels = view.objects.namespace_labels(pod.namespace)
    existing_anti: Counts = {}
    affinity: Counts = {}
    anti: Counts = {}
    step = "InterPodAffinity: the bound pods' anti-affinity terms"
    for group, weights in _existing_weights(
        view.with_affinity,
        view,
        lambda theirs: [(1, term) for term in theirs.anti_required],
        pod,
        namespace_labels,
        step,
    ):
        _charge_adds(view, [group.node], len(weights), step)
        _add_weights(existing_anti, group.node, weights, group.count)
    if terms.required:
        _add_matching_pods(
            affinity,
            view,
            _required_matches(terms.required, view),
            "InterPodAffinity: the matching pods",
        )
    if terms.anti_required:
        weighted = [(1, term) for term in terms.anti_required]
        step = "InterPodAffinity: the pod's anti-affinity terms"
        _add_matching_pods(anti, view, _each_matches(weighted, view, step), step)
    if not existing_anti and not terms.required and not terms.anti_required:
        return None
    labels = view.label_map(view.number(pod.labels))
    self_match = _matches_all(terms.required, pod.namespace, labels)
    return FilterState(terms, existing_anti, affinity, anti, self_match)


def node_filter(state: FilterState, node: ViewNode) -> str | None:
    """``Filter``: the pod's affinity, its anti-affinity, then existing pods'
    anti-affinity."""
    labels = node.labels
    exists = True
    for term in state.terms.required:
        value = labels.get(term.topology_key)
        if value is None:
            return AFFINITY_REASON
        if state.affinity.get((term.topology_key, value), 0) <= 0:
            exists = False
    if not exists and not (not state.affinity and state.self_match):
        return AFFINITY_REASON
    if state.anti:
        for term in state.terms.anti_required:
            value = labels.get(term.topology_key)
            if value is not None and state.anti.get((term.topology_key, value), 0) > 0:
                return ANTI_AFFINITY_REASON
    if state.existing_anti and any(state.existing_anti.get(pair, 0) > 0 for pair in labels.items()):
        return EXISTING_ANTI_AFFINITY_REASON
    return None


# --- Score ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScoreState:
    """PreScore's state: the summed weights per topology key and value."""

    scores: dict[str, dict[str, int]]


def prescore(pod: PodWorkload, args: InterPodArgs, view: ClusterView) -> ScoreState | None:
    """``PreScore`` (``None``: Skip). Raises
    :class:`~policytest.scoring.selectors.SelectorError` for the incoming pod's terms
    (the scheduler fails the scheduling cycle)."""
    preferred = bool(pod.affinity.preferred or pod.affinity.anti_preferred)
    if args.ignore_preferred_terms_of_existing_pods and not preferred:
        return None
    terms = incoming_terms(pod, view)
    namespace_labels = view.objects.namespace_labels(pod.namespace)
    hard = args.hard_pod_affinity_weight
    counts: Counts = {}
    found = False
    if preferred:
        weighted = [*terms.preferred, *((-w, term) for w, term in terms.anti_preferred)]
        step = "InterPodAffinity: the pod's preferred terms"
        found |= _add_matching_pods(counts, view, _each_matches(weighted, view, step), step)

    def weigh(theirs: PodTerms) -> list[tuple[int, Term]]:
        return [
            *(((hard, term) for term in theirs.required) if hard > 0 else ()),
            *theirs.preferred,
            *((-w, term) for w, term in theirs.anti_preferred),
        ]

    step = "InterPodAffinity: the bound pods' terms"
    for group, weights in _existing_weights(
        view.with_affinity, view, weigh, pod, namespace_labels, step
    ):
        _charge_adds(view, [group.node], len(weights), step)
        found |= _add_weights(counts, group.node, weights, group.count)
    if not found:
        return None
    scores: dict[str, dict[str, int]] = {}
    for (key, value), score in counts.items():
        scores.setdefault(key, {})[value] = score
    return ScoreState(scores)


def raw_score(state: ScoreState, node: ViewNode) -> int:
    """``Score``: the summed weights of the node's value of every topology key."""
    score = 0
    for key, by_value in state.scores.items():
        value = node.labels.get(key)
        if value is not None:
            score += by_value.get(value, 0)
    return score


def normalize(state: ScoreState, scores: Sequence[int]) -> list[int]:
    """``NormalizeScore``: min-max to 0-100 in float64, truncated."""
    if not state.scores or not scores:
        return list(scores)
    low, high = min(scores), max(scores)
    spread = high - low
    if spread <= 0:
        return [0 for _ in scores]
    return [int(float(MAX_NODE_SCORE) * (float(s - low) / float(spread))) for s in scores]
