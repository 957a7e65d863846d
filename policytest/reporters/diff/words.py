"""The sentences every ``policytest diff`` format shares (text and Markdown).

Plain strings only; each reporter escapes or decorates them for its medium.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from policytest.diff.effective import Setting
from policytest.diff.model import (
    CaseDiff,
    CaseSide,
    Cause,
    ConfigDiff,
    DiffReport,
    Effect,
    FixtureDiff,
    JobChange,
    NotRun,
    SettingChange,
    SettingsChange,
)
from policytest.harness.runner import format_ranking, format_score, score_digits
from policytest.sessions.result import JobOutcome

ABSENT = "(absent)"
SUPPRESSED_BY_CHANGE = "Suppressed by this change (a pull request cannot silence its own review)"
"""The head's findings hidden by a suppression comment the change itself adds."""


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    return f"{count} {noun if count == 1 else plural_form or noun + 's'}"


def headline(report: DiffReport) -> str:
    """One sentence: what changed, most important first; says so when nothing did."""
    parts = []
    if report.introduced_errors:
        parts.append(plural(len(report.introduced_errors), "error finding") + " introduced")
    if report.suppressed:
        parts.append(plural(len(report.suppressed), "finding") + " suppressed by this change")
    remaining = report.head_errors - len(report.introduced_errors)
    if remaining > 0:
        parts.append(plural(remaining, "error finding") + " still in the head")
    failing = report.failing_on_both_sides
    if failing:
        parts.append(plural(failing, "case") + " failing on both sides")
    winners = report.count("winner")
    if winners:
        parts.append(plural(winners, "new winner"))
    rankings = report.count("ranking") - winners
    if rankings:
        parts.append(plural(rankings, "other ranking", "other rankings"))
    placements = report.count("placements")
    if placements:
        parts.append(plural(placements, "placement change"))
    statuses = report.count("status")
    if statuses:
        parts.append(plural(statuses, "case status change"))
    other = len(report.changed_cases) - _counted(report)
    if other:
        parts.append(plural(other, "other case change"))
    configs = report.changed_configs
    if configs:
        parts.append(plural(len(configs), "config") + " changed")
    warnings = len(report.introduced) - len(report.introduced_errors)
    if warnings:
        parts.append(plural(warnings, "other finding") + " introduced")
    if report.resolved:
        parts.append(plural(len(report.resolved), "finding") + " resolved")
    settings = settings_sentence(report)
    if not parts:
        quiet = "no change in scheduling: " + unchanged_sentence(report)
        return f"{settings}; {quiet}" if settings else quiet
    return f"{settings}; {', '.join(parts)}" if settings else ", ".join(parts)


def settings_sentence(report: DiffReport) -> str:
    """``settings changed: kubernetesVersion 1.35 -> 1.36`` ("" when none did); a change
    that was not applied says so."""
    if not report.settings:
        return ""
    return "settings changed: " + "; ".join(setting_change(c) for c in report.settings)


NOT_APPLIED = "not applied: the base's applies; --head-settings applies the head's"


def setting_change(change: SettingsChange) -> str:
    return change.describe() + ("" if change.applied else f" ({NOT_APPLIED})")


def release_facts(report: DiffReport) -> list[tuple[str, int]]:
    """Each release fact that explains a changed case, with how many cases it explains."""
    counted: dict[str, int] = {}
    for _, case in report.changed_cases:
        for fact in case.why:
            counted[fact] = counted.get(fact, 0) + 1
    return list(counted.items())


def _counted(report: DiffReport) -> int:
    return sum(
        1
        for _, case in report.changed_cases
        if case.ranking_changed or case.placements_changed or case.status_changed
    )


def unchanged_sentence(report: DiffReport) -> str:
    """The fixtures that ran and did not change, and those that did not need to run."""
    unchanged = report.unchanged_fixtures
    cases = sum(len(fixture.cases) for fixture in unchanged)
    parts = []
    if unchanged:
        parts.append(
            f"{plural(len(unchanged), 'fixture')} ({plural(cases, 'case')}) rank and place "
            "as before"
        )
    parts += [_not_run(group) for group in report.skipped]
    if not parts:
        return "no fixture uses a changed config"
    return "; ".join(parts)


MAX_NAMED = 10
"""Fixtures named in a sentence before the rest are counted."""


def _not_run(group: NotRun) -> str:
    """``2 fixtures not run (why): a, b`` (the names when the group is to be named)."""
    sentence = f"{plural(len(group.paths), 'fixture')} not run ({group.reason})"
    if not group.named:
        return sentence
    names = ", ".join(group.paths[:MAX_NAMED])
    more = len(group.paths) - MAX_NAMED
    return f"{sentence}: {names}" + (f" and {more} more" if more > 0 else "")


def winner(side: CaseSide | None) -> str:
    if side is None or not side.winner:
        return "none"
    if len(side.winner) == 1:
        return side.winner[0]
    return "a tie of " + ", ".join(side.winner)


def counts(placed: Mapping[str, int]) -> str:
    return "{" + ", ".join(f"{name}: {count}" for name, count in placed.items()) + "}"


def ranking(side: CaseSide | None, limit: int | None = None) -> str:
    """The side's ranking; with ``limit``, its best ``limit`` nodes and how many more."""
    return format_ranking(side.ranking, limit) if side is not None and side.ranking else "[]"


def case_summary(case: CaseDiff) -> str:
    """What happened to one case, in one line."""
    if case.before is None:
        return f"new case: {outcome(case.after)}"
    if case.after is None:
        return "case removed"
    if not case.comparable:
        if case.status_changed:
            return f"status {case.before.status} -> {case.after.status}"
        return "the error changed"
    parts = []
    first = "first pod: " if case.sequence else ""
    if case.winner_changed:
        parts.append(f"{first}new winner {winner(case.after)} (was {winner(case.before)})")
    elif case.ranking_changed:
        parts.append(f"{first}ranking changed, winner still {winner(case.after)}")
    if case.placements_changed:
        parts.append(f"placements {counts(case.before.placed)} -> {counts(case.after.placed)}")
        if case.before.nodes_used != case.after.nodes_used:
            parts.append(f"nodes used {case.before.nodes_used} -> {case.after.nodes_used}")
        if case.before.pending != case.after.pending:
            parts.append(f"pending {case.before.pending} -> {case.after.pending}")
    if case.jobs:
        shown = [job_change(change) for change in case.jobs[:JOBS_SUMMARISED]]
        more = len(case.jobs) - len(shown)
        parts.append("jobs " + ", ".join(shown) + (f" and {more} more" if more else ""))
    if case.status_changed:
        parts.append(f"status {case.before.status} -> {case.after.status}")
    if not parts and case.scores_changed:
        parts.append("scores changed, same ranking")
    if not parts:
        parts.append("nodes filtered differently")
    return "; ".join(parts)


_EFFECT_WORDS: Mapping[Effect, tuple[str, str, str]] = {
    "winner": ("moves the winner", "move the winner", "keeps the winner"),
    "ranking": ("changes the ranking", "change the ranking", "keeps the ranking"),
    "placements": ("changes the placements", "change the placements", "keeps the placements"),
    "status": ("changes the case's status", "change the case's status", "keeps its status"),
    "error": ("changes the error", "change the error", "keeps the error"),
    "scores": ("changes the scores", "change the scores", "keeps the scores"),
}
"""Per effect: what one change does, what several do, what a change that does not
have it does."""
MAX_FOCUS = 4
"""Nodes whose scores a change alone is shown moving."""


def attribution(case: CaseDiff) -> str:
    """Which of the changes acting on the case together has its :attr:`~CaseDiff.effect`
    alone ("the change to configs/kube.yaml alone moves the winner;
    kubernetesVersion 1.34 -> 1.36 alone keeps the winner"); "" without causes."""
    effect = case.effect
    if not case.causes or effect is None:
        return ""
    one, several, keeps = _EFFECT_WORDS[effect]
    movers = case.moved_by
    ran = [cause for cause in case.causes if cause.effect is not None]
    stopped = [cause for cause in case.causes if cause.effect is None]
    keepers = [cause for cause in ran if cause not in movers]
    parts = []
    if len(movers) == 1:
        parts.append(f"{movers[0].change} alone {one}")
    elif movers:
        parts.append(f"{_and(movers)} each {several} alone")
    elif len(ran) > 1 and not stopped:
        neither = "neither" if len(ran) == 2 else "none"
        parts.append(f"{_and(ran)} {several} only together ({neither} alone does)")
    if keepers and (movers or stopped):
        parts.append(f"{_and(keepers)} alone {keeps if len(keepers) == 1 else _plural(keeps)}")
    if stopped:
        parts.append(f"{_and(stopped)} alone: not run, a budget ran out")
    return "; ".join(parts)


def _and(causes: Sequence[Cause]) -> str:
    names = [cause.change for cause in causes]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _plural(verb_phrase: str) -> str:
    """``keeps the winner`` -> ``keep the winner``."""
    verb, _, rest = verb_phrase.partition(" ")
    return f"{verb.removesuffix('s')} {rest}"


def cause_effect(case: CaseDiff, cause: Cause) -> str:
    """What one change alone does to the case, with how much it moves the scores of
    the nodes that matter (the winners, before and after): "new winner empty (was
    busy); scores: empty 414 -> 480 (+66), busy 437 -> 424 (-13)"."""
    effect = cause.effect
    if effect is None:
        return cause.stopped
    if effect.change == "unchanged":
        return "changes nothing in this case"
    moved = [node for node in effect.nodes if node.changed and node.name in _focus(case, effect)]
    scores = ", ".join(
        f"{node.name} {score(node.score_before, node.filtered_before)} -> "
        f"{score(node.score_after, node.filtered_after)}"
        + (f" ({delta(node.delta)})" if node.delta is not None else "")
        for node in moved
    )
    whose = "first pod's scores" if effect.sequence else "scores"
    return case_summary(effect) + (f"; {whose}: {scores}" if scores else "")


def cause_why(cause: Cause) -> tuple[str, ...]:
    """The release facts behind what one change alone does (none for a file edit)."""
    return cause.effect.why if cause.effect is not None else ()


def setting_cause(change: SettingChange) -> str:
    """Why a config's setting changed when its file's edit alone leaves it."""
    return f"from {change.cause}, not from the edit"


def _focus(*cases: CaseDiff) -> set[str]:
    """The winners of ``cases`` on both sides: the nodes a reader follows."""
    names: dict[str, None] = {}
    for case in cases:
        for side in (case.after, case.before):
            names.update(dict.fromkeys(side.winner if side is not None else ()))
    return set(list(names)[:MAX_FOCUS])


def node_rows(case: CaseDiff) -> list[tuple[str, str, str, str]]:
    """The nodes whose rank, score or filter changed: (name, ``rank -> rank``,
    ``score -> score``, change), in rank order after the change, with the decimals of
    ``run``'s tables (two, more where two values would print alike)."""
    nodes = [node for node in case.nodes if node.changed] if case.comparable else []
    shown = [0.0]  # a change that is not 0 never prints as one
    for node in nodes:
        shown += (v for v in (node.score_before, node.score_after, node.delta) if v is not None)
    digits = score_digits(abs(value) for value in shown)
    return [
        (
            node.name,
            f"{rank(node.rank_before)} -> {rank(node.rank_after)}",
            f"{score(node.score_before, node.filtered_before, digits)} -> "
            f"{score(node.score_after, node.filtered_after, digits)}",
            delta(node.delta, digits),
        )
        for node in nodes
    ]


def nodes_used(case: CaseDiff) -> str:
    """``nodes used 2 -> 3, pending 1 -> 0`` of a sequence on both sides."""
    before, after = case.before, case.after
    if before is None or after is None:
        return ""
    return (
        f"nodes used {before.nodes_used} -> {after.nodes_used}, "
        f"pending {before.pending} -> {after.pending}"
    )


JOBS_SUMMARISED = 3
"""Jobs a case's one-line summary names; the others are counted."""
JOBS_LISTED = 25
"""Jobs a case's table lists (text and Markdown); the others are counted."""


def job_change(change: JobChange) -> str:
    """``default/llm 0 -> 2 bound (Inqueue -> Running)``."""
    before, after = change.before, change.after
    if before is None or after is None:
        present = before or after
        assert present is not None
        verb = "new" if before is None else "gone"
        return f"{change.job} {verb} ({present.bound} bound, {present.phase})"
    phase = f" ({before.phase} -> {after.phase})" if before.phase != after.phase else ""
    return f"{change.job} {before.bound} -> {after.bound} bound{phase}"


def job_reason(change: JobChange) -> str:
    """Why the job did not start, in the scheduler's words: after the change, else
    before it (``before: ...``); "" when it started on both sides."""
    if change.after is not None and change.after.reason:
        return change.after.reason
    if change.before is not None and change.before.reason:
        return f"before: {change.before.reason}"
    return ""


def job_side(outcome: JobOutcome | None) -> str:
    """``2 of 3 bound, Running``; ``-`` for a side without the job."""
    if outcome is None:
        return "-"
    return f"{outcome.bound} of {outcome.tasks} bound, {outcome.phase}"


def outcome(side: CaseSide | None) -> str:
    """One side of a case on its own (an added or removed case or fixture)."""
    if side is None:
        return "-"
    if side.status == "error":
        return f"error: {first_line(side.message)}"
    if side.placements is not None:
        return f"placements {counts(side.placed)}, pending {side.pending}"
    return f"winner {winner(side)}, ranking {ranking(side, limit=5)}"  # one line


def fixture_summary(fixture: FixtureDiff) -> str:
    if fixture.change == "added":
        return f"new fixture with {plural(len(fixture.cases), 'case')}"
    if fixture.change == "removed":
        return f"fixture removed ({plural(len(fixture.cases), 'case')})"
    return f"{len(fixture.changed_cases)} of {plural(len(fixture.cases), 'case')} changed"


UNCHECKED = "edited, not checked"
"""A config edited but checked on neither side (a template, another scheduler's conf)."""


def described(config: ConfigDiff) -> str:
    """``kube-scheduler, ConfigMap scheduler-config, key scheduler-config.yaml``: what a
    changed config is and where in its file."""
    return ", ".join(part for part in (config.kind, config.document) if part)


def setting_value(setting: Setting | None) -> str:
    if setting is None:
        return ABSENT
    if setting.written is None:
        return setting.value
    return f"{setting.value} (written {setting.written})"


def score(value: float | None, filtered: str | None = None, digits: int | None = None) -> str:
    """A score (``digits``: a table's decimals, else as many as tell neighbours apart)."""
    if value is None:
        return "filtered" if filtered else "-"
    return format_score(value, digits)


def delta(value: float | None, digits: int | None = None) -> str:
    if value is None:
        return ""
    if value == 0:
        return "0"
    sign = "+" if value > 0 else "-"
    return f"{sign}{format_score(abs(value), digits)}"


def rank(value: int | None) -> str:
    return "-" if value is None else str(value)


def first_line(text: str) -> str:
    """The reason a case failed or errored, in one line: its first line, and the first
    finding too when that line only announces them (``... does not start:``)."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    if not lines[0].endswith(":") or len(lines) == 1:
        return lines[0]
    more = f" (and {len(lines) - 2} more)" if len(lines) > 2 else ""
    return f"{lines[0]} {lines[1]}{more}"


def fixture_list(paths: Sequence[str]) -> str:
    return ", ".join(paths) if paths else "no fixture"


NOT_SIMULATED = (
    "Not simulated (the scheduler does this on a real cluster; the results show it without)"
)
_SIDE_NOTES: Mapping[str, str] = {"after": " (added by this change)", "before": " (removed by it)"}


def not_simulated(report: DiffReport) -> list[str]:
    """One line per action or plugin the configs run that policytest does not simulate,
    saying when the change adds or removes it."""
    return [item.describe() + side_note(side) for item, side in report.not_simulated]


def side_note(side: str) -> str:
    """`` (added by this change)`` for what only the head has, and so on."""
    return _SIDE_NOTES.get(side, "")
