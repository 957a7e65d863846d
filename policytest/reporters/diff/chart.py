"""The chart of a pull-request comment: a Mermaid ``xychart-beta`` GitHub draws.

For the sequences whose placements changed: the nodes they use before (bars) and
after (a line), one category per case, so a reviewer sees at a glance whether the
change packs tighter or spreads. Every label from an input goes through
:func:`policytest.reporters.quoting.mermaid`; the rest of the chart is ours.
"""

from __future__ import annotations

from policytest.diff.model import DiffReport
from policytest.reporters.quoting import mermaid

MAX_CASES = 12
"""Cases drawn; the comment's table lists every one."""


def nodes_used_chart(report: DiffReport) -> str | None:
    """A fenced ``mermaid`` block, or ``None`` when no sequence placed differently."""
    cases = [
        case
        for _, case in report.changed_cases
        if case.placements_changed and case.before is not None and case.after is not None
    ][:MAX_CASES]
    if not cases:
        return None
    labels = [mermaid(f"{index}. {case.name}") for index, case in enumerate(cases, start=1)]
    before = [case.before.nodes_used or 0 for case in cases if case.before is not None]
    after = [case.after.nodes_used or 0 for case in cases if case.after is not None]
    top = max([*before, *after]) + 1
    return "\n".join(
        [
            "```mermaid",
            "xychart-beta",
            '    title "Nodes used: before (bars), after (line)"',
            f"    x-axis [{', '.join(labels)}]",
            f'    y-axis "nodes used" 0 --> {top}',
            f"    bar [{', '.join(map(str, before))}]",
            f"    line [{', '.join(map(str, after))}]",
            "```",
        ]
    )
