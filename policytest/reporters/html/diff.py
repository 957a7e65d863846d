"""``diff --format html``: every changed case before and after, side by side.

The page opens with the headline sentence the other formats share, then each changed
config's effective settings (the cause), the findings introduced and resolved, and per
changed case the ranking on each side as stacked per-plugin score bars, each node's
utilisation and the pods it received (the effect).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from policytest.diff.model import CaseDiff, CaseSide, DiffReport
from policytest.reporters.diff import words
from policytest.reporters.html.page import render_page, shown
from policytest.reporters.html.views import node_table, not_simulated, pods_placed
from policytest.reporters.validate.text import format_finding
from policytest.scoring.protocol import NodeScore


def render(report: DiffReport, *, color: bool = False) -> str:
    return render_page(
        "diff.html.j2",
        title="policytest diff",
        base=shown(report.base),
        head=shown(report.head),
        headline=shown(words.headline(report)),
        configs=[
            {
                "path": shown(config.path),
                "what": shown(", ".join(p for p in (config.kind, config.document) if p)),
                "change": config.change,
                "settings": [
                    (
                        shown(change.key),
                        shown(words.setting_value(change.before)),
                        shown(words.setting_value(change.after)),
                    )
                    for change in config.settings
                ],
                "fixtures": [shown(path) for path in config.fixtures],
            }
            for config in report.changed_configs
        ],
        introduced=[format_finding(finding, color=False) for finding in report.introduced],
        resolved=[format_finding(finding, color=False) for finding in report.resolved],
        cases=[
            _case(shown(fixture.path), shown(fixture.reason), case)
            for fixture, case in report.changed_cases
        ],
        unchanged=shown(words.unchanged_sentence(report)),
        not_simulated=not_simulated(
            replace(item, effect=item.effect + words.side_note(side))
            for item, side in report.not_simulated
        ),
    )


def _case(path: str, reason: str, case: CaseDiff) -> dict[str, Any]:
    return {
        "path": path,
        "reason": reason,
        "name": shown(case.name),
        "summary": shown(words.case_summary(case)),
        "release": shown(case.release_change),
        "attribution": shown(words.attribution(case)),
        "causes": [
            (
                shown(cause.change),
                shown(words.cause_effect(case, cause)),
                [shown(fact) for fact in words.cause_why(cause)],
            )
            for cause in case.causes
        ],
        "why": [] if case.causes else [shown(fact) for fact in case.why],
        "sides": [
            (label, side.status, shown(words.first_line(side.message)), _table(case, side, label))
            for label, side in (("before", case.before), ("after", case.after))
            if side is not None
        ],
    }


def _table(case: CaseDiff, side: CaseSide, label: str) -> dict[str, Any] | None:
    """One side's nodes as a node table."""
    if side.status == "error":
        return None
    before = label == "before"
    nodes = [
        NodeScore(
            node.name,
            (node.score_before if before else node.score_after) is not None,
            node.filtered_before if before else node.filtered_after,
            (node.score_before if before else node.score_after) or 0.0,
            node.plugins_before if before else node.plugins_after,
        )
        for node in case.nodes
    ]
    placed = pods_placed(side.placements, side.ranking)
    return node_table(nodes, side.ranking, side.before, side.utilisation, placed)
