"""``policytest diff`` for terminals: a summary line, then each changed config and case.

Every name, path, value and message shown comes from the pull request under review and
goes through :func:`policytest.reporters.quoting.text`: this output also lands in CI logs,
where a line must not become a workflow command.
"""

from __future__ import annotations

from collections.abc import Sequence

from policytest.core.findings import Finding
from policytest.diff.model import CaseDiff, ConfigDiff, DiffReport, FixtureDiff, SettingChange
from policytest.reporters.diff import words as words
from policytest.reporters.quoting import text
from policytest.reporters.validate.text import format_finding


def _bold(text: str, color: bool) -> str:
    return f"\033[1m{text}\033[0m" if color else text


def render(report: DiffReport, *, color: bool) -> str:
    title = f"policytest {report.command}: {text(report.base)} -> {text(report.head)}"
    out = [_bold(title, color)]
    out.append(text(_capital(words.headline(report))) + ".")
    if report.settings:
        where = f" {text(report.settings_path)}" if report.settings_path else ""
        out += ["", _bold(f"Settings{where}", color)]
        out += [f"  {text(words.setting_change(change))}" for change in report.settings]
    facts = words.release_facts(report)
    if facts:
        out += ["", "Why (the release facts behind these changes):"]
        out += [f"  {text(fact)} ({words.plural(count, 'case')})" for fact, count in facts]
    unsimulated = words.not_simulated(report)
    if unsimulated:
        out += ["", f"{words.NOT_SIMULATED}:", *(f"  {text(line)}" for line in unsimulated)]
    for config in report.configs:
        if config.change != "unchanged":
            out += ["", *_config(config, color)]
    same_text = [c for c in report.configs if c.change == "unchanged"]
    if same_text:
        out += ["", "Changed in text only (the scheduler reads them the same):"]
        out += [f"  {text(c.path)}{_document(c)}" for c in same_text]
    for fixture in report.changed_fixtures:
        out += ["", *_fixture(fixture, color)]
    out += _findings("Findings introduced", report.introduced, color)
    out += _findings("Findings resolved", report.resolved, color)
    out += _findings(words.SUPPRESSED_BY_CHANGE, report.suppressed, color)
    if report.has_changes and (report.unchanged_fixtures or report.not_run):
        out += ["", f"Unchanged: {text(words.unchanged_sentence(report))}."]
    return "\n".join(out) + "\n"


def _capital(sentence: str) -> str:
    """The first letter capitalised, the rest as written (keys such as
    ``kubernetesVersion`` keep their case)."""
    return sentence[:1].upper() + sentence[1:]


def _document(config: ConfigDiff) -> str:
    return f" ({text(words.described(config))})"


def _config(config: ConfigDiff, color: bool) -> list[str]:
    what = {"added": " (new file)", "removed": " (removed)"}.get(config.change, "")
    what = f" ({words.UNCHECKED})" if config.unchecked else what
    lines = [_bold(f"Config {text(config.path)}{_document(config)}{what}", color)]
    keys = [text(change.key) for change in config.settings]
    width = max((len(key) for key in keys), default=0)
    for key, change in zip(keys, config.settings, strict=True):
        before = text(words.setting_value(change.before))
        after = text(words.setting_value(change.after))
        if config.change == "added" or config.unchecked:
            lines.append(f"  {key:<{width}}  {after}")
        elif config.change == "removed":
            lines.append(f"  {key:<{width}}  {before}")
        else:
            lines.append(f"  {key:<{width}}  {before} -> {after}{_by(change)}")
    lines.append(f"  used by: {text(words.fixture_list(config.fixtures))}")
    return lines


def _by(change: SettingChange) -> str:
    return f"  ({text(words.setting_cause(change))})" if change.cause else ""


def _fixture(fixture: FixtureDiff, color: bool) -> list[str]:
    lines = [
        _bold(f"Fixture {text(fixture.path)}", color)
        + f" ({text(fixture.reason)}): {text(words.fixture_summary(fixture))}"
    ]
    shown = fixture.cases if fixture.change in ("added", "removed") else fixture.changed_cases
    for case in shown:
        if fixture.change in ("added", "removed"):
            lines.append(f"  {text(case.name)}: {text(words.outcome(case.after or case.before))}")
        else:
            lines += _case(case)
    return lines


def _case(case: CaseDiff) -> list[str]:
    lines = [f"  {text(case.name)}: {text(words.case_summary(case))}"]
    if case.before is None or case.after is None:
        return lines
    if case.release_change:
        lines.append(f"    judged as {text(case.release_change)}")
    if case.causes:
        lines.append(f"    cause: {text(words.attribution(case))}")
        for cause in case.causes:
            lines.append(
                f"      {text(cause.change)} alone: {text(words.cause_effect(case, cause))}"
            )
            lines += [f"        why: {text(fact)}" for fact in words.cause_why(cause)]
    else:
        lines += [f"    why: {text(fact)}" for fact in case.why]
    for side, label in ((case.before, "before"), (case.after, "after")):
        if side.status != "passed" and side.message:
            lines.append(f"    {label}: {side.status}: {text(words.first_line(side.message))}")
    if case.ranking_changed:
        before, after = text(words.ranking(case.before)), text(words.ranking(case.after))
        lines.append(f"    ranking  {before} -> {after}")
    nodes = words.node_rows(case)
    if nodes:
        rows = [["node", "rank", "score", "change"]]
        rows += [[text(name), *numbers] for name, *numbers in nodes]
        lines += [f"    {row}" for row in _table(rows)]
    if case.jobs:
        rows = [["job", "before", "after", "why"]]
        rows += [
            [
                text(change.job),
                words.job_side(change.before),
                words.job_side(change.after),
                text(words.job_reason(change)),
            ]
            for change in case.jobs[: words.JOBS_LISTED]
        ]
        lines += [f"    {row}" for row in _table(rows)]
        if len(case.jobs) > words.JOBS_LISTED:
            lines.append(f"    ... {words.plural(len(case.jobs) - words.JOBS_LISTED, 'more job')}")
    if case.placements_changed:
        rows = [["node", "pods before", "pods after"]]
        rows += [[text(p.node), str(p.before), str(p.after)] for p in case.placements]
        lines += [f"    {row}" for row in _table(rows)]
        lines.append(f"    {words.nodes_used(case)}")
    return lines


def _table(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]


def _findings(title: str, findings: Sequence[Finding], color: bool) -> list[str]:
    if not findings:
        return []
    return ["", f"{title} ({len(findings)}):"] + [
        f"  {format_finding(finding, color=color)}" for finding in findings
    ]
