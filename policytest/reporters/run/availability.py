"""Unschedulable nodes summed up as kube-scheduler sums them up, for any cluster size.

kube-scheduler's FitError counts each filter reason over the nodes that failed and
writes ``0/3000 nodes are available: 2996 Insufficient cpu, 4 node(s) had untolerated
taint(s).`` (the ``count reason`` items sorted as strings); a node that fails for
several reasons counts once under each. Reporters show this line instead of one row
per filtered node, and list nodes grouped by their reasons where there is room.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from policytest.scoring.protocol import NodeScore

REASON_SEPARATOR = ", "
"""How a scorer joins a node's reasons (``Insufficient cpu, Insufficient memory``)."""


def availability(nodes: Sequence[NodeScore]) -> str:
    """``1/3000 nodes are available: 2996 Insufficient cpu, ...``: a plain string that
    names reasons from the input (reporters quote it)."""
    feasible = sum(1 for node in nodes if node.feasible)
    counts: Counter[str] = Counter()
    for node in nodes:
        if not node.feasible:
            counts.update(set((node.reason or "filtered").split(REASON_SEPARATOR)))
    line = f"{feasible}/{len(nodes)} nodes are available"
    if not counts:
        return line + "."
    items = sorted(f"{count} {reason}" for reason, count in counts.items())
    return f"{line}: {', '.join(items)}."


@dataclass(frozen=True)
class ReasonGroup:
    """The filtered nodes that share one reason (all of a node's reasons, as written)."""

    reason: str
    count: int
    examples: tuple[str, ...]


def reason_groups(nodes: Sequence[NodeScore], examples: int = 5) -> list[ReasonGroup]:
    """Filtered nodes grouped by reason, largest group first, with the first names."""
    groups: dict[str, list[str]] = {}
    for node in nodes:
        if not node.feasible:
            groups.setdefault(node.reason or "filtered", []).append(node.name)
    ordered = sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))
    return [ReasonGroup(reason, len(names), tuple(names[:examples])) for reason, names in ordered]
