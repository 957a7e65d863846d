"""The scores of TaintToleration and NodeAffinity (``tainttoleration/taint_toleration.go``,
``nodeaffinity/node_affinity.go``) and the framework's ``DefaultNormalizeScore``.

TaintToleration counts a node's ``PreferNoSchedule`` taints that the pod's tolerations
with an empty or ``PreferNoSchedule`` effect do not tolerate; fewer is better.
NodeAffinity sums the weights of the preferred terms (the pod's, then the profile's
``addedAffinity`` ones) the node matches; a term that does not parse fails PreScore,
and with it the scheduling cycle. Volcano's nodeorder calls the same Score functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from policytest.core.errors import PolicytestError
from policytest.scoring.filters import (
    OBJECT_NAME_FIELD,
    CompiledTerm,
    SelectorTerm,
    Taint,
    Toleration,
    compile_term,
    term_matches,
    term_parses,
)
from policytest.scoring.kube import MAX_NODE_SCORE, quo64
from policytest.scoring.plugins.view import ClusterView, ViewNode
from policytest.scoring.workload import PreferredNodeTerm

__all__ = [
    "PreferredTermError",
    "PreferredTerms",
    "default_normalize",
    "intolerable_taints",
    "preferred_score",
    "preferred_scores",
    "preferred_terms",
    "untolerated_prefer_taints",
]

PREFER_NO_SCHEDULE: Final = "PreferNoSchedule"


def default_normalize(scores: Sequence[int], *, reverse: bool) -> list[int]:
    """``helper.DefaultNormalizeScore(100, reverse)``: scaled by the maximum (integer
    division); reversed, ``100 - scaled``; a maximum of 0 gives 0 (100 reversed)."""
    high = max([0, *scores])
    if high == 0:
        return [MAX_NODE_SCORE for _ in scores] if reverse else list(scores)
    scaled = [quo64(MAX_NODE_SCORE * score, high) for score in scores]
    return [MAX_NODE_SCORE - s for s in scaled] if reverse else scaled


def intolerable_taints(tolerations: Sequence[Toleration], taints: Sequence[Taint]) -> int:
    """TaintToleration's ``Score``: untolerated ``PreferNoSchedule`` taints."""
    return len(untolerated_prefer_taints(tolerations, taints))


def untolerated_prefer_taints(
    tolerations: Sequence[Toleration], taints: Sequence[Taint]
) -> list[Taint]:
    """The ``PreferNoSchedule`` taints no toleration with an empty or
    ``PreferNoSchedule`` effect tolerates."""
    relevant = [t for t in tolerations if t.effect in ("", PREFER_NO_SCHEDULE)]
    return [
        taint
        for taint in taints
        if taint.effect == PREFER_NO_SCHEDULE and not any(t.tolerates(taint) for t in relevant)
    ]


class PreferredTermError(PolicytestError, ValueError):
    """A preferred node affinity term that does not parse (PreScore fails)."""


@dataclass(frozen=True)
class PreferredTerms:
    """``nodeaffinity.PreferredSchedulingTerms``: (weight, compiled term) pairs."""

    terms: tuple[tuple[int, CompiledTerm], ...]


def preferred_terms(terms: Sequence[PreferredNodeTerm]) -> PreferredTerms:
    """``NewPreferredSchedulingTerms``: terms of weight 0 and empty terms are dropped;
    a term that does not parse raises :class:`PreferredTermError`."""
    parsed = []
    for term in terms:
        preference: SelectorTerm = term.preference
        if term.weight == 0 or (not preference.match_expressions and not preference.match_fields):
            continue
        if not term_parses(preference):
            raise PreferredTermError(
                "a preferred node affinity term does not parse (an unknown operator, a "
                "Gt/Lt value that is not one integer, a matchFields value list that is "
                "not exactly one value)"
            )
        compiled = compile_term(preference)
        assert compiled is not None  # not empty, and it parses
        parsed.append((term.weight, compiled))
    return PreferredTerms(tuple(parsed))


def preferred_score(terms: Sequence[PreferredTerms], node: ViewNode) -> int:
    """NodeAffinity's ``Score``: the weights of the matching terms, summed."""
    return sum(
        weight
        for group in terms
        for weight, compiled in group.terms
        if term_matches(compiled, node.name, node.labels)
    )


def preferred_scores(terms: Sequence[PreferredTerms], view: ClusterView) -> dict[str, int]:
    """:func:`preferred_score` of every node of the view, worked out once per group of
    nodes whose labels agree on every key the terms read (and whose names agree, when a
    term matches ``metadata.name``): 2,000 terms on 10,000 nodes of ten zones are 2,000
    terms on ten groups. The view is charged with reading the nodes' labels, then with
    every term against every group."""
    compiled = [term for group in terms for _, term in group.terms]
    keys = {requirement.key for term in compiled for requirement in term.expressions}
    by_name = any(field == OBJECT_NAME_FIELD for term in compiled for field, _, _ in term.fields)
    nodes = view.nodes
    view.charge(
        sum(min(len(node.labels), len(keys)) for node in nodes),
        "NodeAffinity's preferred terms: the nodes' labels they read",
    )
    groups: dict[object, list[ViewNode]] = {}
    for node in nodes:
        groups.setdefault(_read_by_terms(node, keys, by_name), []).append(node)
    size = sum(max(1, len(term.expressions) + len(term.fields)) for term in compiled)
    view.charge(len(groups) * size, "NodeAffinity's preferred terms against the nodes")
    found: dict[str, int] = {}
    for members in groups.values():
        found.update(dict.fromkeys((n.name for n in members), preferred_score(terms, members[0])))
    return {node.name: found[node.name] for node in nodes}


def _read_by_terms(node: ViewNode, keys: set[str], by_name: bool) -> object:
    """What terms reading ``keys`` (and the name, ``by_name``) read of ``node``."""
    labels = node.labels
    if len(keys) < len(labels):
        read = frozenset((key, labels[key]) for key in keys if key in labels)
    else:
        read = frozenset(item for item in labels.items() if item[0] in keys)
    return (read, node.name) if by_name else read
