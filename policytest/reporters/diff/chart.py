"""The charts of a pull-request comment: Mermaid ``xychart-beta`` blocks GitHub draws.

For the sequences that use another number of nodes: the nodes they use before (bars)
and after (a line), one category per case, so a reviewer sees at a glance whether the
change packs tighter or spreads. For the first single-pod cases whose ranking changed:
the best nodes' scores before (bars) and after (a line). Every label and title from an
input goes through :func:`policytest.reporters.quoting.mermaid`; the rest is ours.
"""

from __future__ import annotations

from collections.abc import Sequence

from policytest.diff.model import CaseDiff, DiffReport
from policytest.harness.runner import format_score
from policytest.reporters.quoting import mermaid

MAX_CASES = 12
"""Cases drawn; the comment's table lists every one."""
MAX_RANKINGS = 3
"""Single-pod cases whose scores are drawn, one chart each."""
MAX_NODES = 10
"""Nodes of a ranking drawn (the best after the change)."""


def charts(report: DiffReport) -> list[str]:
    """Every chart of the comment (none when no placement or ranking changed)."""
    drawn = [nodes_used_chart(report)]
    rankings = [
        case for _, case in report.changed_cases if case.ranking_changed and not case.sequence
    ]
    drawn += [scores_chart(case) for case in rankings[:MAX_RANKINGS]]
    return [chart for chart in drawn if chart is not None]


def nodes_used_chart(report: DiffReport) -> str | None:
    """A fenced ``mermaid`` block, or ``None`` when no sequence uses another number of
    nodes (a case that places differently on as many nodes, ``2 -> 2``, draws nothing
    the table does not say)."""
    cases = [
        case
        for _, case in report.changed_cases
        if case.placements_changed
        and case.before is not None
        and case.after is not None
        and case.before.nodes_used != case.after.nodes_used
    ][:MAX_CASES]
    if not cases:
        return None
    labels = [mermaid(f"{index}. {case.name}") for index, case in enumerate(cases, start=1)]
    before = [case.before.nodes_used or 0 for case in cases if case.before is not None]
    after = [case.after.nodes_used or 0 for case in cases if case.after is not None]
    top = max([*before, *after]) + 1
    title = '"Nodes used: before (bars), after (line)"'
    return _chart(title, labels, '"nodes used"', (0, top), before, after)


def scores_chart(case: CaseDiff) -> str | None:
    """The scores of the best nodes (after the change) that are scored on both sides."""
    nodes = [
        node
        for node in case.nodes
        if node.score_before is not None and node.score_after is not None
    ][:MAX_NODES]
    if not nodes:
        return None
    before = [node.score_before or 0.0 for node in nodes]
    after = [node.score_after or 0.0 for node in nodes]
    low = min(0.0, *before, *after)
    high = max(*before, *after) * 1.1 or 1.0
    title = mermaid(f"Scores of {case.name}: before (bars), after (line)", 80)
    labels = [mermaid(node.name) for node in nodes]
    return _chart(title, labels, '"score"', (low, high), before, after)


def _chart(
    title: str,
    labels: Sequence[str],
    axis: str,
    span: tuple[float, float],
    bars: Sequence[float],
    line: Sequence[float],
) -> str:
    """A fenced chart: quoted ``title`` and ``labels``, our own numbers."""
    low, high = (format_score(round(value, 2)) for value in span)
    return "\n".join(
        [
            "```mermaid",
            "xychart-beta",
            f"    title {title}",
            f"    x-axis [{', '.join(labels)}]",
            f"    y-axis {axis} {low} --> {high}",
            f"    bar [{', '.join(format_score(value) for value in bars)}]",
            f"    line [{', '.join(format_score(value) for value in line)}]",
            "```",
        ]
    )
