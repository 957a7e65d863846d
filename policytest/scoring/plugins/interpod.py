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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Final

from policytest.scoring.kube import MAX_NODE_SCORE
from policytest.scoring.plugins.view import ClusterView, ViewNode
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

    def matches(self, pod: PodWorkload, namespace_labels: Mapping[str, str] | None) -> bool:
        if pod.namespace in self.namespaces or self.namespace_selector.matches(
            namespace_labels or {}
        ):
            return self.selector.matches(label_map(pod.labels))
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


@dataclass(frozen=True)
class FilterState:
    """PreFilter's counts per (topology key, value): existing pods' anti-affinity
    matching the incoming pod, and existing pods matching its affinity / anti-affinity."""

    terms: PodTerms
    existing_anti: Counts
    affinity: Counts
    anti: Counts
    self_match: bool


def _add(counts: Counts, node: ViewNode, key: str) -> None:
    value = node.labels.get(key)
    if value is not None:
        counts[(key, value)] = counts.get((key, value), 0) + 1


def _matches_all(terms: Sequence[Term], pod: PodWorkload) -> bool:
    """``podMatchesAllAffinityTerms``: at least one term, and every one matches."""
    return bool(terms) and all(t.matches(pod, None) for t in terms)


def filter_state(pod: PodWorkload, view: ClusterView) -> FilterState | None:
    """``PreFilter`` (``None``: Skip). Raises
    :class:`~policytest.scoring.selectors.SelectorError` for the incoming pod's terms
    (the scheduler: UnschedulableAndUnresolvable, "parsing pod")."""
    terms = incoming_terms(pod, view)
    namespace_labels = view.objects.namespace_labels(pod.namespace)
    existing_anti: Counts = {}
    affinity: Counts = {}
    anti: Counts = {}
    for node, existing in view.with_affinity:
        for term in existing_terms(existing).anti_required:
            if term.matches(pod, namespace_labels):
                _add(existing_anti, node, term.topology_key)
    if terms.required or terms.anti_required:
        for node in view.nodes:
            for existing in node.pods:
                if terms.required and _matches_all(terms.required, existing):
                    for term in terms.required:
                        _add(affinity, node, term.topology_key)
                for term in terms.anti_required:
                    if term.matches(existing, None):
                        _add(anti, node, term.topology_key)
    if not existing_anti and not terms.required and not terms.anti_required:
        return None
    return FilterState(terms, existing_anti, affinity, anti, _matches_all(terms.required, pod))


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
    scores: dict[str, dict[str, int]] = {}
    found = False

    def process(
        term: Term,
        weight: int,
        target: PodWorkload,
        labels: Mapping[str, str] | None,
        node: ViewNode,
    ) -> bool:
        if not term.matches(target, labels):
            return False
        value = node.labels.get(term.topology_key)
        if value is None:
            return False
        by_value = scores.setdefault(term.topology_key, {})
        by_value[value] = by_value.get(value, 0) + weight
        return True

    pairs = (
        [(node, existing) for node in view.nodes for existing in node.pods]
        if preferred
        else view.with_affinity
    )
    for node, existing in pairs:
        if node.labels:
            theirs = existing_terms(existing)
            for weight, term in terms.preferred:
                found |= process(term, weight, existing, None, node)
            for weight, term in terms.anti_preferred:
                found |= process(term, -weight, existing, None, node)
            if hard > 0:
                for term in theirs.required:
                    found |= process(term, hard, pod, namespace_labels, node)
            for weight, term in theirs.preferred:
                found |= process(term, weight, pod, namespace_labels, node)
            for weight, term in theirs.anti_preferred:
                found |= process(term, -weight, pod, namespace_labels, node)
    return ScoreState(scores) if found else None


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
