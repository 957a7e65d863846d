"""What a sequence of pods and a Volcano session case expect alike: something at all,
the pods each node got, the nodes used and the pods left pending."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Final

from policytest.harness.model import Expectation

__all__ = ["NOTHING_EXPECTED", "count_problems", "counts_text"]

NOTHING_EXPECTED: Final = (
    "expect is empty: this case checks nothing (the scheduler gave {got}); "
    "`policytest run --update` (pytest: `--policytest-update`) records that for you to review"
)


def count_problems(
    expect: Expectation, placements: Mapping[str, int], pending: int, gave: str = ""
) -> Iterator[str]:
    """The expectation's problems with the pods each node got and the pods left pending
    (``gave``: what the scheduler did besides, for an expectation that checks nothing)."""
    got = {name: count for name, count in placements.items() if count}
    if expect.asserts_nothing():
        yield NOTHING_EXPECTED.format(got=f"{gave}placements {counts_text(got, limit=8)}")
    if expect.placements is not None:
        wanted = {name: count for name, count in expect.placements.items() if count}
        if got != wanted:
            yield f"placements: expected {counts_text(wanted)}, got {counts_text(got)}"
    if expect.nodes_used is not None and expect.nodes_used != len(got):
        yield f"nodesUsed: expected {expect.nodes_used}, got {len(got)}"
    if expect.pending is not None and expect.pending != pending:
        yield f"pending: expected {expect.pending}, got {pending}"


def counts_text(counts: Mapping[str, int], limit: int | None = None) -> str:
    """``{node-a: 2, node-b: 1}`` in the order given (the cluster's node order, as the
    placements line under the message lists them; an expectation's as written); with
    ``limit``, the ``limit`` nodes with the most pods and how many more nodes."""
    items = list(counts.items())
    more = ""
    if limit is not None and len(items) > limit:
        kept = {name for name, _ in sorted(items, key=lambda item: -item[1])[:limit]}
        more = f", ... {len(items) - limit} more nodes"
        items = [item for item in items if item[0] in kept]
    return "{" + ", ".join(f"{name}: {count}" for name, count in items) + more + "}"
