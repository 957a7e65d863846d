"""Invariants of the node filters, on random taints, tolerations, labels and selectors."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from policytest.scoring.filters import (
    NodeTraits,
    Placement,
    PodFilter,
    Requirement,
    SelectorTerm,
    Taint,
    Toleration,
    kube_filter,
    volcano_filter,
)

ORDER = ("NodeUnschedulable", "TaintToleration", "NodeAffinity")
KEYS = st.sampled_from(["a", "b", "example.com/gpu", "node.kubernetes.io/unschedulable", ""])
VALUES = st.sampled_from(["", "x", "true", "1", "07", "-3"])
EFFECTS = st.sampled_from(["NoSchedule", "NoExecute", "PreferNoSchedule", ""])
OPERATORS = st.sampled_from(["", "Equal", "Exists", "Gt", "Lt"])
taints = st.lists(st.builds(Taint, KEYS, VALUES, EFFECTS), max_size=4)
tolerations = st.lists(st.builds(Toleration, KEYS, OPERATORS, VALUES, EFFECTS), max_size=4)
labels = st.dictionaries(st.sampled_from(["a", "b", "zone"]), VALUES, max_size=3)
requirements = st.builds(
    Requirement,
    st.sampled_from(["a", "b", "zone", "bad key!"]),
    st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Near"]),
    st.lists(VALUES, max_size=2).map(tuple),
)
terms = st.lists(
    st.builds(SelectorTerm, st.lists(requirements, max_size=3).map(tuple)), max_size=3
).map(tuple)


def verdict(placement: Placement, traits: NodeTraits, name: str = "n") -> bool:
    pod = PodFilter(placement)
    node_labels = dict(traits.labels)
    kube = kube_filter(pod, name, traits, node_labels, ORDER) is None
    volcano = (
        volcano_filter(pod, name, traits, node_labels, node_affinity=True, taint_toleration=True)
        is None
    )
    assert kube == volcano  # the same plugins, in another order
    return kube


@given(taints, st.booleans(), tolerations, tolerations, labels)
def test_more_tolerations_never_filter_more(
    node_taints: list[Taint],
    cordoned: bool,
    some: list[Toleration],
    more: list[Toleration],
    node_labels: dict[str, str],
) -> None:
    traits = NodeTraits(tuple(node_labels.items()), tuple(node_taints), cordoned)
    if verdict(Placement(tuple(some)), traits):
        assert verdict(Placement(tuple(some + more)), traits)


@given(taints, st.booleans())
def test_tolerating_everything_passes_every_taint_and_cordon(
    node_taints: list[Taint], cordoned: bool
) -> None:
    traits = NodeTraits((), tuple(node_taints), cordoned)
    assert verdict(Placement((Toleration(operator="Exists"),)), traits)


@given(taints)
def test_only_no_schedule_and_no_execute_taints_filter(node_taints: list[Taint]) -> None:
    traits = NodeTraits((), tuple(node_taints), False)
    filtering = any(t.effect in ("NoSchedule", "NoExecute") for t in node_taints)
    assert verdict(Placement(), traits) is not filtering


@given(labels, labels, terms)
def test_a_selector_is_and_with_the_affinity_terms(
    node_labels: dict[str, str], selector: dict[str, str], required: tuple[SelectorTerm, ...]
) -> None:
    traits = NodeTraits(tuple(node_labels.items()))
    both = verdict(Placement((), tuple(selector.items()), required), traits)
    only_selector = verdict(Placement((), tuple(selector.items()), None), traits)
    only_terms = verdict(Placement((), None, required), traits)
    assert both == (only_selector and only_terms)
    assert only_selector == all(node_labels.get(k) == v for k, v in selector.items())


@given(labels, terms, terms)
def test_terms_are_ored(
    node_labels: dict[str, str],
    first: tuple[SelectorTerm, ...],
    second: tuple[SelectorTerm, ...],
) -> None:
    traits = NodeTraits(tuple(node_labels.items()))
    either = verdict(Placement((), None, first + second), traits)
    assert either == (
        verdict(Placement((), None, first), traits) or verdict(Placement((), None, second), traits)
    )
