"""``policytest diff`` as a pull-request comment (GitHub-flavoured Markdown).

A short summary comes first (one sentence and one table row per changed case), then
Mermaid charts (the nodes each changed sequence uses, the scores of changed rankings,
before and after); the evidence follows in collapsed ``<details>`` blocks: findings,
each changed config's effective settings, each changed fixture's node tables.
Everything is in a stable order, and when nothing changed the comment is two lines.
Every name, path, value and message comes from the pull request and goes through
:mod:`policytest.reporters.quoting`, so it shows as text only. GitHub refuses comments
longer than 65,536 characters: long values are cut where shown, each list (table rows,
findings, settings) is cut to its share of the comment with a line saying how many
were left out, so the summary and the findings are always there, and the evidence
blocks that do not fit are left out from the end, with a note, to stay under
:data:`COMMENT_LIMIT`. The first line is a hidden marker, so a CI job can find and
update its earlier comment instead of adding one per push.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from policytest.core.findings import Finding
from policytest.diff.model import CaseDiff, ConfigDiff, DiffReport, FixtureDiff
from policytest.reporters import quoting
from policytest.reporters.diff import words as words
from policytest.reporters.diff.chart import charts

MARKER = "<!-- policytest-diff -->"
"""The first line of ``diff``'s comment, which CI jobs find their earlier comment by
(each command's comment starts ``<!-- policytest-<command> -->``)."""
COMMENT_LIMIT = 65_536
MAX_SUMMARY_ROWS = 50
MAX_NODE_ROWS = 25
MAX_LIST_ROWS = 100
SUMMARY_BUDGET = 20_000
"""Bytes the summary table may take; the findings and each evidence block get theirs."""
FINDINGS_BUDGET = 16_000
BLOCK_BUDGET = 8_000
_NOTE_ROOM = 400
_QUOTED = re.compile(r"`([^`]+)`")


def text(value: str) -> str:
    """A message (or any value) as text only, wherever it is put; arrows become arrows
    and `quoted` spans become code, as messages write them."""
    parts = _QUOTED.split(quoting.cut(value, quoting.MARKDOWN_TEXT_LIMIT).replace(" -> ", " → "))
    return "".join(
        code(part) if index % 2 else quoting.markdown_text(part) for index, part in enumerate(parts)
    )


def _arrow(ours: str) -> str:
    """Numbers and words of our own (ranks, scores), never from an input: arrows only."""
    return ours.replace(" -> ", " → ")


def code(value: str) -> str:
    """A name, path or key as inline code that shows as text only (also in a table cell
    and inside an HTML block)."""
    return quoting.markdown_code(value)


def fitting(rows: Sequence[str], budget: int, most: int = MAX_LIST_ROWS) -> list[str]:
    """The first ``rows`` (at most ``most``) that fit in ``budget`` bytes together."""
    kept: list[str] = []
    size = 0
    for row in rows[:most]:
        size += len(row.encode("utf-8")) + 1
        if size > budget:
            break
        kept.append(row)
    return kept


def bounded(rows: Sequence[str], budget: int, more: Callable[[int], str]) -> list[str]:
    """:func:`fitting` rows, then ``more(n)`` saying how many were left out."""
    kept = fitting(rows, budget)
    if len(kept) < len(rows):
        kept.append(more(len(rows) - len(kept)))
    return kept


def render(report: DiffReport, *, color: bool = False, limit: int = COMMENT_LIMIT) -> str:
    head = [
        f"<!-- policytest-{report.command} -->",
        f"### policytest {report.command}",
        "",
        f"{code(report.base)} → {code(report.head)}: {text(words.headline(report))}.",
    ]
    if not report.has_changes:
        return "\n".join(head) + "\n"
    blocks = ["\n".join(head)]
    blocks += _summary(report)
    blocks += charts(report)
    blocks += _findings(report)
    blocks += [_config(config) for config in report.configs if config.change != "unchanged"]
    blocks += [_fixture(fixture) for fixture in report.changed_fixtures]
    return _fit(blocks, limit)


def _fit(blocks: Sequence[str], limit: int) -> str:
    """Keep whole blocks while they fit under ``limit`` (in UTF-8 bytes, the stricter
    measure); say how many were left out."""
    kept: list[str] = []
    size = 0
    budget = limit - _NOTE_ROOM
    for index, block in enumerate(blocks):
        cost = len(block.encode("utf-8")) + 2
        if size + cost > budget:
            left = len(blocks) - index
            kept.append(
                f"> **Truncated:** {words.plural(left, 'more section')} left out to stay "
                "under GitHub's comment size limit. Run `policytest diff` locally, or use "
                "`--format json`, for the whole diff."
            )
            break
        kept.append(block)
        size += cost
    return "\n\n".join(kept) + "\n"


def _summary(report: DiffReport) -> list[str]:
    blocks = []
    rows = [
        f"| {code(fixture.path)} | {text(case.name)} | {text(_what_changed(case))} |"
        for fixture, case in report.changed_cases
        if fixture.change == "changed"
    ]
    rows += [
        f"| {code(fixture.path)} | {text(words.plural(len(fixture.cases), 'case'))} | "
        f"{text(words.fixture_summary(fixture))} |"
        for fixture in report.changed_fixtures
        if fixture.change != "changed"
    ]
    if rows:
        table = ["| Fixture | Case | What changed |", "| --- | --- | --- |"]
        shown = fitting(rows, SUMMARY_BUDGET, MAX_SUMMARY_ROWS)
        table += shown
        if len(shown) < len(rows):
            table.append(f"| … | {len(rows) - len(shown)} more | see the details |")
        blocks.append("\n".join(table))
    same = [c for c in report.configs if c.change == "unchanged"]
    lines = []
    if report.changed_configs:
        lines.append(
            "Configs: "
            + _listed([f"{code(c.path)} ({_config_change(c)})" for c in report.changed_configs])
            + "."
        )
    if same:
        lines.append(
            "Changed in text only (the scheduler reads them the same): "
            + _listed([code(c.path) for c in same])
            + "."
        )
    if report.settings:
        where = f" {code(report.settings_path)}" if report.settings_path else ""
        lines.append(
            f"Settings{where}: "
            + _listed([text(words.setting_change(change)) for change in report.settings])
            + "."
        )
    facts = words.release_facts(report)
    if facts:
        lines.append(
            "Why (the release facts behind these changes):\n"
            + "\n".join(
                f"- {text(fact)} ({words.plural(count, 'case')})" for fact, count in facts[:20]
            )
        )
    if report.not_simulated:
        lines.append(
            f"{text(words.NOT_SIMULATED)}:\n"
            + "\n".join(
                f"- **{text(item.name)}** ({text(item.kind)}): "
                f"{text(item.effect + words.side_note(side))}"
                for item, side in report.not_simulated
            )
        )
    if report.unchanged_fixtures or report.not_run:
        lines.append(f"Unchanged: {text(words.unchanged_sentence(report))}.")
    if lines:
        blocks.append("\n\n".join(lines))
    return blocks


def _what_changed(case: CaseDiff) -> str:
    """A case's summary, and which change alone causes it when several act on it."""
    cause = words.attribution(case)
    return f"{words.case_summary(case)} ({cause})" if cause else words.case_summary(case)


def _listed(items: Sequence[str]) -> str:
    """``a, b, c`` cut to its share of the comment, with how many were left out."""
    kept = bounded(items, BLOCK_BUDGET // 2, lambda left: f"and {left} more")
    return ", ".join(kept)


def _config_change(config: ConfigDiff) -> str:
    if config.change == "added":
        return "new"
    if config.change == "removed":
        return "removed"
    if config.unchecked:
        return words.UNCHECKED
    return words.plural(len(config.settings), "setting") + " changed"


def _details(summary: str, body: Iterable[str], *, open_: bool = False) -> str:
    tag = "<details open>" if open_ else "<details>"
    lines = list(body)
    while lines and not lines[-1]:
        lines.pop()
    lines = bounded(
        lines, BLOCK_BUDGET, lambda left: f"\n… {words.plural(left, 'more line')} left out."
    )
    return "\n".join([tag, f"<summary>{summary}</summary>", "", *lines, "", "</details>"])


def _findings(report: DiffReport) -> list[str]:
    if not report.introduced and not report.resolved and not report.suppressed:
        return []
    errors = len(report.introduced_errors)
    summary = (
        f"Findings: {len(report.introduced)} introduced"
        + (f" ({words.plural(errors, 'error')})" if errors else "")
        + f", {len(report.resolved)} resolved"
        + (f", {len(report.suppressed)} suppressed by this change" if report.suppressed else "")
    )
    body = []
    for title, findings in (
        ("Introduced", report.introduced),
        ("Resolved", report.resolved),
        (words.SUPPRESSED_BY_CHANGE, report.suppressed),
    ):
        if findings:
            listed = bounded(
                [_finding(finding) for finding in findings],
                FINDINGS_BUDGET // 2,
                lambda left: f"- … {words.plural(left, 'more finding')} (see `policytest diff`)",
            )
            body += [f"**{title}**", "", *listed, ""]
    return [_details(summary, body, open_=bool(errors or report.suppressed))]


def _finding(finding: Finding) -> str:
    where = f"{finding.path}:{finding.line}:{finding.column}"
    return (
        f"- {code(where)} **{text(finding.rule)}** {finding.severity.value}: "
        f"{text(finding.message)}"
    )


def _config(config: ConfigDiff) -> str:
    what = {"added": "new file", "removed": "file removed"}.get(
        config.change, words.plural(len(config.settings), "effective setting") + " changed"
    )
    what = words.UNCHECKED if config.unchecked else what
    summary = f"Config {code(config.path)} ({text(words.described(config))}): {what}"
    if config.change in ("added", "removed") or config.unchecked:
        rows = ["| Setting | Value |", "| --- | --- |"]
        rows += [
            f"| {code(change.key)} | {text(words.setting_value(change.after or change.before))} |"
            for change in config.settings
        ]
    else:
        rows = ["| Setting | Before | After |", "| --- | --- | --- |"]
        rows += [
            f"| {code(change.key)} | {text(words.setting_value(change.before))} | "
            f"{text(words.setting_value(change.after))}"
            + (f" ({text(words.setting_cause(change))})" if change.cause else "")
            + " |"
            for change in config.settings
        ]
    used = _listed([code(path) for path in config.fixtures]) or "no fixture"
    return _details(summary, [*rows, "", f"Used by: {used}."])


def _fixture(fixture: FixtureDiff) -> str:
    summary = (
        f"Fixture {code(fixture.path)}: {text(words.fixture_summary(fixture))} "
        f"({text(fixture.reason)})"
    )
    body: list[str] = []
    if fixture.change in ("added", "removed"):
        body += [
            f"- {text(case.name)}: {text(words.outcome(case.after or case.before))}"
            for case in fixture.cases
        ]
    else:
        for case in fixture.changed_cases:
            body += _case(case)
    return _details(summary, body)


def _case(case: CaseDiff) -> list[str]:
    lines = [f"**{text(case.name)}**: {text(words.case_summary(case))}", ""]
    if case.before is None or case.after is None:
        return lines
    if case.release_change:
        lines += [f"Judged as {text(case.release_change)}.", ""]
    if case.causes:
        lines += [f"Cause: {text(words.attribution(case))}.", ""]
        for cause in case.causes:
            lines.append(f"- {text(cause.change)} alone: {text(words.cause_effect(case, cause))}")
            lines += [f"  - Why: {text(fact)}" for fact in words.cause_why(cause)]
        lines.append("")
    else:
        lines += [f"- Why: {text(fact)}" for fact in case.why]
        if case.why:
            lines.append("")
    for side, label in ((case.before, "Before"), (case.after, "After")):
        if side.status != "passed" and side.message:
            lines += [f"{label}: {side.status}: {text(words.first_line(side.message))}", ""]
    if case.ranking_changed:
        lines += [
            f"Ranking {code(words.ranking(case.before))} → {code(words.ranking(case.after))}",
            "",
        ]
    nodes = words.node_rows(case)
    if nodes:
        lines += ["| Node | Rank | Score | Change |", "| --- | --- | --- | --- |"]
        lines += [
            f"| {text(name)} | {_arrow(ranks)} | {_arrow(scores)} | {change} |"
            for name, ranks, scores, change in nodes[:MAX_NODE_ROWS]
        ]
        if len(nodes) > MAX_NODE_ROWS:
            lines.append(f"| … | {len(nodes) - MAX_NODE_ROWS} more nodes | | |")
        lines.append("")
    if case.jobs:
        lines += ["| Job | Before | After | Why |", "| --- | --- | --- | --- |"]
        lines += [
            f"| {code(change.job)} | {text(words.job_side(change.before))} | "
            f"{text(words.job_side(change.after))} | "
            f"{text(words.job_reason(change))} |"
            for change in case.jobs[: words.JOBS_LISTED]
        ]
        if len(case.jobs) > words.JOBS_LISTED:
            lines.append(f"| … | {len(case.jobs) - words.JOBS_LISTED} more jobs | | |")
        lines.append("")
    if case.placements_changed:
        lines += ["| Node | Pods before | Pods after |", "| --- | --- | --- |"]
        lines += [
            f"| {text(p.node)} | {p.before} | {p.after} |" for p in case.placements[:MAX_NODE_ROWS]
        ]
        if len(case.placements) > MAX_NODE_ROWS:
            lines.append(f"| … | {len(case.placements) - MAX_NODE_ROWS} more nodes | |")
        lines += ["", f"{_arrow(words.nodes_used(case)).capitalize()}.", ""]
    return lines
