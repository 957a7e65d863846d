"""Why a topology plugin scored a node as it did, in words (for ``explain``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from policytest.scoring.filters import Toleration, term_matches
from policytest.scoring.plugins import interpod, spread
from policytest.scoring.plugins.locality import MB
from policytest.scoring.plugins.preferences import (
    PREFER_NO_SCHEDULE,
    PreferredTerms,
    untolerated_prefer_taints,
)
from policytest.scoring.plugins.view import ImageState, ViewNode
from policytest.scoring.snapshot import normalized_image
from policytest.scoring.workload import PodWorkload

__all__ = ["affinity_note", "image_note", "node_affinity_note", "spread_note", "taint_note"]

SPREAD_SKIPPED: Final = (
    "skipped: the pod has no ScheduleAnyway constraint, and no default applies (no "
    "Service, ReplicaSet, ReplicationController or StatefulSet selects it)"
)
AFFINITY_SKIPPED: Final = "skipped: no pod affinity term of the pod or of a bound pod applies"
NODE_AFFINITY_SKIPPED: Final = "skipped: the pod has no preferred node affinity"


def _range(raw: int, scores: Sequence[int]) -> str:
    return f"raw {raw} (feasible nodes: min {min(scores)}, max {max(scores)})"


def spread_note(state: spread.ScoreState, node: ViewNode, raw: int, scores: Sequence[int]) -> str:
    """Each constraint's count on the node's domain, which constraint it is, the raw
    score and the normalisation ``100 x (max + min - raw) / max``."""
    if node.name in state.ignored:
        return "left out (scores 0): the node lacks a topology key of the pod's constraints"
    parts = []
    for c, domains, on_node in zip(state.constraints, state.counts, state.on_node, strict=True):
        origin = {"pod": "the pod's constraint", "system": "system default"}.get(
            c.origin, "default constraint (List)"
        )
        head = f"{origin} {c.topology_key} maxSkew {c.max_skew}"
        value = node.labels.get(c.topology_key)
        if value is None:
            parts.append(f"{head}: no {c.topology_key} label, no term")
        elif c.topology_key == spread.HOSTNAME:
            count = on_node.get(node.name, 0)  # as PreScore counted (a sequence binds on)
            parts.append(f"{head}: {count} matching pods on this node")
        else:
            shown = ", ".join(f"{v or '(none)'} {n}" for v, n in sorted(domains.items()))
            parts.append(f"{head}: {domains[value]} matching pods in {value} (by domain: {shown})")
    return "; ".join(parts) + f"; {_range(raw, scores)} -> 100 x (max + min - raw) / max"


def affinity_note(
    state: interpod.ScoreState, node: ViewNode, raw: int, scores: Sequence[int]
) -> str:
    """The weights the matched terms added to the node's topology domains."""
    matched = [
        f"{key}={node.labels[key]} {by_value[node.labels[key]]:+d}"
        for key, by_value in sorted(state.scores.items())
        if key in node.labels and node.labels[key] in by_value
    ]
    terms = ", ".join(matched) if matched else "no matched term's domain holds this node"
    return f"terms matched: {terms}; {_range(raw, scores)} -> 100 x (raw - min) / (max - min)"


def taint_note(tolerations: Sequence[Toleration], node: ViewNode, highest: int) -> str:
    taints = untolerated_prefer_taints(tolerations, node.traits.taints)
    if not taints:
        return f"no untolerated {PREFER_NO_SCHEDULE} taint"
    shown = ", ".join(str(t) for t in taints)
    return (
        f"{len(taints)} untolerated {PREFER_NO_SCHEDULE} taints ({shown}); the most on a "
        f"feasible node: {highest} -> 100 - 100 x count / most"
    )


def node_affinity_note(
    groups: Sequence[PreferredTerms] | None, node: ViewNode, highest: int | None
) -> str:
    """Which preferred terms the node matches; ``highest``: the best feasible node's
    sum, which the score is normalised by (``None``: the sum is the score)."""
    if groups is None:
        return NODE_AFFINITY_SKIPPED
    weights = [
        w
        for group in groups
        for w, term in group.terms
        if term_matches(term, node.name, node.labels)
    ]
    if not weights:
        return "no preferred term matches"
    listed = ", ".join(map(str, weights))
    matched = f"preferred terms matched, weights {listed} (sum {sum(weights)})"
    if highest is None:
        return f"{matched}, not normalised"
    return f"{matched}; the best feasible node: {highest} -> 100 x sum / best"


def image_note(
    pod: PodWorkload,
    node: ViewNode,
    images: Mapping[str, ImageState],
    total: int,
    *,
    image_volumes: bool,
) -> str:
    wanted = [*pod.init_images, *pod.images, *(pod.image_volumes if image_volumes else ())]
    found = []
    for image in wanted:
        name = normalized_image(image)
        state = images.get(name)
        if state is not None and name in node.images:
            found.append(f"{name} ({state.size / MB:.0f} MiB on {state.nodes} of {total} nodes)")
    if not found:
        return "none of the pod's images is on this node"
    return (
        "images found: "
        + ", ".join(found)
        + " (size x nodes holding it / all nodes, summed, clamped to 23 MiB .. "
        "1000 MiB x containers)"
    )
