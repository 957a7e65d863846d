"""``diff --format html`` (and ``upgrade``'s): every changed case before and after.

The page says everything the text and Markdown reports say, from the same sentences
(:mod:`policytest.reporters.diff.words`): the headline, the settings that changed and
the release facts behind the changes, each changed config's effective settings (the
cause), the findings introduced and resolved, and per changed fixture and case what
changed (the release it was judged as, which change alone caused it, the ranking, each
node's rank and score change, the placements), then the ranking on each side as stacked
per-plugin score bars with each node's utilisation and the pods it received.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from policytest.diff.model import CaseDiff, CaseSide, ConfigDiff, DiffReport, FixtureDiff
from policytest.reporters.diff import words
from policytest.reporters.html.page import render_page, shown
from policytest.reporters.html.views import node_table, not_simulated, pods_placed
from policytest.reporters.validate.text import format_finding
from policytest.scoring.protocol import NodeScore


def render(report: DiffReport, *, color: bool = False) -> str:
    unchanged = report.has_changes and (report.unchanged_fixtures or report.not_run)
    return render_page(
        "diff.html.j2",
        title=f"policytest {report.command}",
        base=shown(report.base),
        head=shown(report.head),
        headline=shown(words.headline(report)),
        settings_path=shown(report.settings_path),
        settings=[shown(words.setting_change(change)) for change in report.settings],
        facts=[
            (shown(fact), words.plural(count, "case"))
            for fact, count in words.release_facts(report)
        ],
        configs=[_config(config) for config in report.changed_configs],
        same_text=[
            (shown(config.path), shown(words.described(config)))
            for config in report.configs
            if config.change == "unchanged"
        ],
        introduced=[format_finding(finding, color=False) for finding in report.introduced],
        resolved=[format_finding(finding, color=False) for finding in report.resolved],
        suppressed=[format_finding(finding, color=False) for finding in report.suppressed],
        suppressed_title=words.SUPPRESSED_BY_CHANGE,
        fixtures=[_fixture(fixture) for fixture in report.changed_fixtures],
        unchanged=shown(words.unchanged_sentence(report)) if unchanged else "",
        not_simulated=not_simulated(
            replace(item, effect=item.effect + words.side_note(side))
            for item, side in report.not_simulated
        ),
    )


def _config(config: ConfigDiff) -> dict[str, Any]:
    return {
        "path": shown(config.path),
        "what": shown(words.described(config)),
        "change": words.UNCHECKED if config.unchecked else config.change,
        "settings": [
            (
                shown(change.key),
                shown(words.setting_value(change.before)),
                shown(words.setting_value(change.after)),
                shown(words.setting_cause(change)) if change.cause else "",
            )
            for change in config.settings
        ],
        "fixtures": [shown(path) for path in config.fixtures],
    }


def _fixture(fixture: FixtureDiff) -> dict[str, Any]:
    """A changed fixture and its changed cases (every case of a new or removed one, each
    with the one side it has)."""
    return {
        "path": shown(fixture.path),
        "reason": shown(fixture.reason),
        "summary": shown(words.fixture_summary(fixture)),
        "cases": [_case(case) for case in fixture.changed_cases],
    }


def _case(case: CaseDiff) -> dict[str, Any]:
    both = case.before is not None and case.after is not None
    return {
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
        "ranking": (
            (shown(words.ranking(case.before)), shown(words.ranking(case.after)))
            if case.ranking_changed
            else None
        ),
        "nodes": [(shown(name), *numbers) for name, *numbers in words.node_rows(case)],
        "placements": [(shown(p.node), p.before, p.after) for p in case.placements]
        if both and case.placements_changed
        else [],
        "used": shown(words.nodes_used(case)) if both and case.placements_changed else "",
        "jobs": [
            (
                shown(change.job),
                shown(words.job_side(change.before)),
                shown(words.job_side(change.after)),
                shown(words.job_reason(change)),
            )
            for change in case.jobs[: words.JOBS_LISTED]
        ],
        "more_jobs": max(0, len(case.jobs) - words.JOBS_LISTED),
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
