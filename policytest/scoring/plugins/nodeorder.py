"""Volcano's ``nodeorder`` and ``predicates`` over the kube-scheduler topology plugins.

Both Volcano plugins build the same kube-scheduler plugins as
:mod:`policytest.scoring.plugins.profile` runs them, with their own wiring
(``plugins/nodeorder/nodeorder.go``, ``plugins/predicates/predicates.go``):

- predicates filters with NodePorts, InterPodAffinity and PodTopologySpread (system
  default constraints) unless its ``predicate.*Enable`` flag is false; a flag never
  touches the score.
- nodeorder scores TaintToleration, NodeAffinity, InterPodAffinity and
  PodTopologySpread in its batch function over allocate's candidate nodes only, each
  normalised by its own ``NormalizeScore`` there and times its ``*.weight``; a weight
  of 0 removes the term. ImageLocality is a per-node function, not normalised.
  ``InterPodAffinityArgs`` are not defaulted: ``hardPodAffinityWeight`` is 0, so existing
  pods' required affinity terms never score.
- ImageLocality reads the image states of Volcano's cache, where each node keeps the
  image summary current when it was added: a node counts only the nodes added before it
  (and itself) that hold the image. Releases on Kubernetes 1.36 (Volcano 1.16) count
  the pod's image volumes too.
- With exactly one candidate, allocate binds it without scoring; with more, every
  term adds to nodeorder's score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Final

from policytest.scoring.filters import NODE_AFFINITY, TAINT_TOLERATION
from policytest.scoring.plugins.interpod import InterPodArgs
from policytest.scoring.plugins.profile import (
    IMAGE_LOCALITY,
    INTER_POD_AFFINITY,
    NODE_PORTS,
    POD_TOPOLOGY_SPREAD,
    PodCycle,
    ProfilePlugins,
    feasible_names,
    with_rows,
)
from policytest.scoring.protocol import LazyMapping
from policytest.scoring.verdicts import Scores, Verdict
from policytest.scoring.weights import NodeOrderWeights

__all__ = [
    "NODEORDER_TERMS",
    "add_terms",
    "kept_terms",
    "nodeorder_profile",
    "with_nodeorder_terms",
]

NODEORDER: Final = "nodeorder"
NODEORDER_TERMS: Final = (
    (TAINT_TOLERATION, "tainttoleration"),
    (NODE_AFFINITY, "nodeaffinity"),
    (POD_TOPOLOGY_SPREAD, "podtopologyspread"),
    (INTER_POD_AFFINITY, "podaffinity"),
    (IMAGE_LOCALITY, "imagelocality"),
)
"""Each kube-scheduler score plugin nodeorder runs, and its weight key (without ``.weight``)."""
_PART: Final = dict(NODEORDER_TERMS)
_PER_NODE: Final = frozenset({IMAGE_LOCALITY})
"""The terms nodeorder scores node by node (``NodeOrderFn``); the rest in its batch."""
_PER_NODE_BEFORE_1_15: Final = frozenset({IMAGE_LOCALITY, NODE_AFFINITY})
VOLCANO_INTER_POD: Final = InterPodArgs(hard_pod_affinity_weight=0)


def nodeorder_profile(
    weights: Sequence[NodeOrderWeights],
    *,
    node_ports: bool,
    pod_affinity: bool,
    pod_topology_spread: bool,
    image_volumes: bool,
    raw_node_affinity: bool = False,
) -> ProfilePlugins:
    """The topology plugins of a conf: the filters predicates runs (in its order) and
    the terms of every nodeorder entry (an entry listed twice scores twice);
    ``raw_node_affinity``: the release scores NodeAffinity node by node (before 1.15)."""
    filters = (
        (NODE_PORTS, node_ports),
        (INTER_POD_AFFINITY, pod_affinity),
        (POD_TOPOLOGY_SPREAD, pod_topology_spread),
    )
    scores = tuple(
        (plugin, sum(getattr(w, part) for w in weights))
        for plugin, part in NODEORDER_TERMS
        if any(getattr(w, part) for w in weights)
    )
    return ProfilePlugins(
        filters=tuple(name for name, on in filters if on),
        scores=scores,
        inter_pod=VOLCANO_INTER_POD,
        image_volumes=image_volumes,
        image_cache_order=True,
        raw_node_affinity=raw_node_affinity,
    )


def with_nodeorder_terms(
    scores: Scores, cycle: PodCycle, resources_in_batch: bool, subset: bool = False
) -> Scores:
    """``scores`` (predicates, fit check, per-node scores) with nodeorder's topology
    terms added to every candidate's nodeorder score and total, when there is more
    than one candidate (allocate scores nothing for one; ``subset``: ``scores`` are a
    few nodes of a cluster, scored as if among several candidates). When a PreScore
    fails (an unparsable preferred term) nodeorder's batch function returns an error;
    what allocate then does is not modelled: the terms are left out."""
    candidates = feasible_names(scores)
    if not candidates or (len(candidates) < 2 and not subset):
        return scores
    result = cycle.scores(candidates)
    if isinstance(result, str):
        return scores
    add = partial(add_terms, resources_in_batch=resources_in_batch)
    return Scores(scores.names, with_rows(scores, result, add), partial(_term_notes, cycle))


def _term_notes(cycle: PodCycle, name: str) -> Mapping[str, str]:
    """The cycle's notes for node ``name``, named as nodeorder's terms
    (``nodeorder.tainttoleration``), made when read."""
    return LazyMapping(
        lambda: {f"{NODEORDER}.{_PART[p]}": note for p, note in cycle.notes(name).items()}
    )


def add_terms(verdict: Verdict, terms: Mapping[str, int], resources_in_batch: bool) -> Verdict:
    """The verdict with the terms, its total summed as ``PrioritizeNodes`` does: the
    per-node functions in tier order (nodeorder's ImageLocality, and its resource
    scores and raw NodeAffinity up to 1.14; binpack), then the batch functions (all
    integers)."""
    feasible, reason, _, plugins, resources, parts, balance = verdict
    per_node_terms = _PER_NODE if resources_in_batch else _PER_NODE_BEFORE_1_15
    node_terms = float(sum(s for p, s in terms.items() if p in per_node_terms))
    batch_terms = float(sum(s for p, s in terms.items() if p not in per_node_terms))
    own_resources = plugins.get(NODEORDER, 0.0)
    per_node = 0.0
    for plugin, value in plugins.items():
        if plugin != NODEORDER:
            per_node += value
        else:
            per_node += node_terms if resources_in_batch else own_resources + node_terms
    batch = own_resources + batch_terms if resources_in_batch else batch_terms
    own = {**parts.get(NODEORDER, {}), **{_PART[p]: float(s) for p, s in terms.items()}}
    return (
        feasible,
        reason,
        per_node + batch,
        {**plugins, NODEORDER: own_resources + node_terms + batch_terms},
        resources,
        {**parts, NODEORDER: own},
        balance,
    )


def kept_terms(verdict: Verdict, plugins: ProfilePlugins) -> dict[str, int] | None:
    """The terms :func:`add_terms` added to a feasible ``verdict``, read back from its
    parts (``None``: it is filtered out, or no terms were added: one candidate)."""
    if not verdict[0]:
        return None
    own = verdict[5].get(NODEORDER, {})
    terms = {
        plugin: int(own[_PART[plugin]]) for plugin, _ in plugins.scores if _PART[plugin] in own
    }
    return terms if len(terms) == len(plugins.scores) else None
