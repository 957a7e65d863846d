"""What a Volcano session case did, job by job, as text: each job's phase, its pods bound
and, when it did not start, the scheduler's own words; per session the binds and the
allocations a gang could not keep; the capacity left free in pieces too small.

Summarised at cluster scale: the jobs that did not start come first, ``top`` jobs are
listed and the rest counted by phase; the reasons of many jobs are counted by kind (the
message with its numbers left out); each list of pods or jobs is cut with a count of
what was left out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from policytest.core.amounts import format_amount
from policytest.harness.fragmentation import Stranded
from policytest.harness.runner import CaseResult
from policytest.reporters.quoting import text
from policytest.reporters.validate.text import plural
from policytest.sessions.result import JobOutcome, SessionRecord, SessionsResult

__all__ = [
    "JobRow",
    "job_rows",
    "job_summary",
    "jobs_lines",
    "note_lines",
    "reason_kinds",
    "session_lines",
    "stranded_lines",
]

PODS_SHOWN: Final = 4
"""Pods named per job in a list of binds or discarded allocations."""
NOTES_SHOWN: Final = 3
"""Notes on skipped input a passing case's summary shows before the rest are counted."""
_NUMBER: Final = re.compile(r"\d+")


def job_summary(run: SessionsResult) -> str:
    """``3 jobs (2 Running, 1 Inqueue); 6 of 9 pods bound in 2 sessions``."""
    jobs = run.pod_groups
    phases = Counter(outcome.phase for outcome in jobs.values())
    counted = ", ".join(f"{count:,} {phase}" for phase, count in phases.most_common())
    bound = sum(outcome.bound for outcome in jobs.values())
    tasks = sum(outcome.tasks for outcome in jobs.values())
    sessions = plural(len(run.sessions), "session")
    phased = f" ({counted})" if counted else ""
    return f"{plural(len(jobs), 'job')}{phased}; {bound:,} of {tasks:,} pods bound in {sessions}"


def note_lines(run: SessionsResult) -> list[str]:
    """Under a passing case's summary: the first notes on input the scheduler cannot use
    or jobs that can never start, the rest counted (``explain`` lists them all)."""
    lines = [f"note: {text(note)}" for note in run.notes[:NOTES_SHOWN]]
    if len(run.notes) > NOTES_SHOWN:
        more = plural(len(run.notes) - NOTES_SHOWN, "more note")
        lines.append(f"... {more} (`policytest explain` lists them)")
    return lines


def jobs_lines(result: CaseResult, top: int | None) -> list[str]:
    """Everything a reader needs to know of the case's jobs and sessions (``top`` jobs
    listed, all when ``None``)."""
    run = result.sessions
    if run is None:
        return []
    lines = [f"Volcano sessions: {text(job_summary(run))}"]
    lines += _job_table(run, top)
    lines += reason_kinds(run, top)
    for record in run.sessions:
        lines += session_lines(record, run, top)
    lines += stranded_lines(result.stranded, top)
    if run.unsimulated_plugins:
        lines.append("Plugins whose part in a session is not simulated:")
        lines += [f"  {text(line)}" for line in run.unsimulated_plugins]
    if run.notes:
        lines.append(
            "What the scheduler does with input it cannot use, and the jobs that can never start:"
        )
        lines += [f"  {text(note)}" for note in run.notes]
    return lines


def _not_started(outcome: JobOutcome) -> bool:
    return outcome.bound < outcome.min_member


def _ordered(jobs: Mapping[str, JobOutcome]) -> list[JobOutcome]:
    """The jobs that did not start first, each part in the order the case lists them."""
    return sorted(jobs.values(), key=lambda outcome: not _not_started(outcome))


@dataclass(frozen=True)
class JobRow:
    """One job as a report lists it (plain strings: each reporter quotes them)."""

    job: str
    queue: str
    phase: str
    """Its phase after each session, a repeated phase once (``Inqueue -> Running``)."""
    bound: str
    """``2 of 3 (minMember 2)``."""
    reason: str
    started: bool


def job_rows(run: SessionsResult, top: int | None) -> tuple[list[JobRow], str]:
    """The first ``top`` jobs (all when ``None``), those that did not start first, and
    what the others are, counted by phase ("" when none is left out)."""
    jobs = _ordered(run.pod_groups)
    shown = jobs if top is None else jobs[:top]
    rows = [
        JobRow(
            outcome.key,
            outcome.queue,
            " -> ".join(_phases(run, outcome.key)),
            f"{outcome.bound:,} of {outcome.tasks:,} (minMember {outcome.min_member:,})",
            outcome.reason,
            not _not_started(outcome),
        )
        for outcome in shown
    ]
    left = jobs[len(shown) :]
    if not left:
        return rows, ""
    phases = Counter(outcome.phase for outcome in left)
    counted = ", ".join(f"{count:,} {phase}" for phase, count in phases.most_common())
    return rows, f"... {plural(len(left), 'more job')}: {counted}"


def _job_table(run: SessionsResult, top: int | None) -> list[str]:
    rows, more = job_rows(run, top)
    title = "after each session" if len(run.sessions) > 1 else "after the session"
    cells = [["job", "queue", "phase", "bound"]]
    cells += [[text(row.job), text(row.queue), row.phase, row.bound] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(cells[0]))]
    lines = [f"Jobs ({title}; the jobs that did not start first):"]
    for index, line in enumerate(cells):
        joined = "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(line)).rstrip()
        reason = rows[index - 1].reason if index else ""
        lines.append(f"  {joined}" + (f": {text(reason)}" if reason else ""))
    if more:
        lines.append(f"  {more}")
    return lines


def _phases(run: SessionsResult, key: str) -> list[str]:
    """The job's phase after each session, a repeated phase once."""
    phases: list[str] = []
    for record in run.sessions:
        outcome = record.jobs.get(key)
        if outcome is not None and (not phases or phases[-1] != outcome.phase):
            phases.append(outcome.phase)
    return phases


def reason_kinds(run: SessionsResult, top: int | None) -> list[str]:
    """When more jobs did not start than are listed: their reasons counted by kind."""
    waiting = [outcome for outcome in run.pod_groups.values() if _not_started(outcome)]
    if top is None or len(waiting) <= top:
        return []
    kinds: dict[str, list[JobOutcome]] = {}
    for outcome in waiting:
        kinds.setdefault(_NUMBER.sub("N", outcome.reason), []).append(outcome)
    lines = [f"Why the {len(waiting):,} jobs that did not start wait (by kind, one example):"]
    for outcomes in sorted(kinds.values(), key=lambda group: -len(group))[:top]:
        example = outcomes[0]
        why = example.reason or "no message (never tried: enqueue did not admit it)"
        lines.append(f"  {len(outcomes):,} like {text(example.key)}: {text(why)}")
    if len(kinds) > top:
        lines.append(f"  ... {plural(len(kinds) - top, 'more kind')}")
    return lines


def session_lines(record: SessionRecord, run: SessionsResult, top: int | None) -> list[str]:
    """``Session 1: 4 binds (default/small 2, default/llm 2)``, then the allocations a
    gang made and gave back, by job."""
    owner = {pod: outcome.key for outcome in record.jobs.values() for pod in outcome.pods}
    binds = Counter(owner.get(bind.pod, "") for bind in record.binds)
    count = len(record.binds)
    head = f"Session {record.index}: {count:,} bind{'s' * (count != 1)}"
    if binds:
        head += f" ({_counted(binds, top)})"
    lines = [head]
    discarded: dict[str, list[str]] = {}
    for pod, node in record.discarded:
        discarded.setdefault(owner.get(pod, ""), []).append(f"{text(pod)} -> {text(node)}")
    if discarded:
        lines.append("  allocated, then discarded with the gang (not ready):")
        jobs = list(discarded.items())
        for job, undone in jobs if top is None else jobs[:top]:
            pods = undone[::-1]  # undone last first: shown in the order allocated
            more = f", ... {len(pods) - PODS_SHOWN:,} more" if len(pods) > PODS_SHOWN else ""
            lines.append(f"    {text(job)}: {', '.join(pods[:PODS_SHOWN])}{more}")
        if top is not None and len(jobs) > top:
            lines.append(f"    ... {plural(len(jobs) - top, 'more job')}")
    if record.equal_shares:
        lines.append(
            "  queues with equal shares were served in an order the scheduler may not keep"
        )
    return lines


def _counted(counts: Counter[str], top: int | None) -> str:
    items = counts.most_common()
    shown = items if top is None else items[:top]
    listed = ", ".join(f"{text(key)} {count:,}" for key, count in shown)
    if len(shown) < len(items):
        listed += f", ... {plural(len(items) - len(shown), 'more job')}"
    return listed


def stranded_lines(found: Sequence[Stranded], top: int | None) -> list[str]:
    """``Free but stranded ...:`` then one sentence per resource and size of pod, naming
    the jobs (or pending pods) it keeps out: ``top`` of them, the rest counted."""
    if not found:
        return []
    groups: dict[tuple[str, str, int, int, int, int], list[Stranded]] = {}
    for item in found:
        key = (item.kind, item.resource, item.per_pod, item.free, item.roomy, item.largest)
        groups.setdefault(key, []).append(item)
    lines = ["Free but stranded (in pieces smaller than the pending pods need):"]
    lines += [f"  {text(sentence(items, top))}" for items in groups.values()]
    return lines


def sentence(items: Sequence[Stranded], top: int | None = None) -> str:
    """``24 nvidia.com/gpu free, no node with 8 free: job `default/llm` cannot start (it
    needs 2 more pods of 8; the free pieces hold 0)``; several jobs short of the same
    resource by pods of the same size in one sentence."""
    item = items[0]

    def amount(value: int) -> str:
        return format_amount(value, item.resource == "cpu", item.resource)

    where = (
        f"no node with {amount(item.per_pod)} free"
        if item.roomy == 0
        else f"only {plural(item.roomy, 'node')} with {amount(item.per_pod)} free"
    )
    head = f"{amount(item.free)} {item.resource} free, {where}"
    if item.kind != "job":
        needed = sum(other.needed for other in items)
        return (
            f"{head}: {_named(items, top, '')} cannot be placed ({amount(item.per_pod)} each; "
            f"the free pieces hold {item.fits:,} of {needed:,})"
        )
    if len(items) == 1:
        return (
            f"{head}: job `{item.name}` cannot start (it needs "
            f"{plural(item.needed, 'more pod')} of {amount(item.per_pod)}; the free pieces "
            f"hold {item.fits:,})"
        )
    named = _named(items, top, "`")
    holds = max(other.fits for other in items)
    return (
        f"{head}: {len(items):,} jobs cannot start ({named}; each needs more pods of "
        f"{amount(item.per_pod)} than the free pieces hold, {holds:,})"
    )


def _named(items: Sequence[Stranded], top: int | None, quote: str) -> str:
    """The first ``top`` names (all when ``None``), each in ``quote``, the rest counted."""
    shown = items if top is None else items[:top]
    named = ", ".join(f"{quote}{other.name}{quote}" for other in shown)
    if len(shown) < len(items):
        named += f" and {len(items) - len(shown):,} more"
    return named
