"""``run --format html`` and ``explain --format html``: every case drawn.

Per case: the ranking as stacked per-plugin score bars, each node's utilisation per
resource before the case and what the case added (the pods placed marked), utilisation
histograms at cluster scale, and the filtered nodes summed up by reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from policytest.harness.runner import MESSAGE_LINE_BREAK, CaseResult
from policytest.harness.suite import RunReport
from policytest.reporters.html.page import render_page, shown
from policytest.reporters.html.views import (
    filtered,
    histograms,
    node_table,
    not_simulated,
    pods_placed,
    resource_names,
)
from policytest.reporters.run.jobs import (
    job_rows,
    job_summary,
    reason_kinds,
    session_lines,
    stranded_lines,
)
from policytest.reporters.run.scheduling import queue_lines
from policytest.reporters.run.text import summary
from policytest.reporters.validate.text import format_finding, plural

HISTOGRAM_FROM = 25
"""Nodes from which a single-pod case also gets utilisation histograms."""


def render(report: RunReport, *, color: bool = False) -> str:
    return render_cases("policytest run", report.results, summary(report))


def render_cases(title: str, results: Sequence[CaseResult], heading: str) -> str:
    """The page of ``results`` (``run``: every case; ``explain``: one fixture's)."""
    return render_page(
        "run.html.j2",
        title=title,
        summary=shown(heading),
        cases=[case_view(result) for result in results],
    )


def case_view(result: CaseResult) -> dict[str, Any]:
    """What the page shows of one case."""
    view: dict[str, Any] = {
        "file": shown(result.file),
        "case": shown(result.case),
        "status": result.status,
        "message": [shown(line) for line in result.message.split(MESSAGE_LINE_BREAK) if line],
        "corrections": [shown(line) for line in result.corrections],
        "not_simulated": not_simulated(result.not_simulated),
        "queue": [shown(line) for line in queue_lines(result.queue)],
        "findings": [format_finding(finding, color=False) for finding in result.findings],
        "table": None,
        "histograms": [],
        "filtered": None,
        "sequence": None,
        "jobs": None,
        "stranded": [],
    }
    if result.status != "error" and result.sessions is not None:
        view["jobs"] = jobs_view(result)
        series = [("before", result.before), ("after", result.utilisation)]
        view["histograms"] = histograms(resource_names(result.before), series)
    if result.status == "error" or not result.nodes:
        return view
    placed = pods_placed(result.placements, result.ranking)
    view["table"] = node_table(
        result.nodes, result.ranking, result.before, result.utilisation, placed
    )
    view["table_title"] = (
        "Scores for the first pod, and utilisation after the sequence"
        if result.steps
        else "Scores for the pod, and utilisation with it on the best node"
    )
    if result.steps or len(result.nodes) >= HISTOGRAM_FROM:
        series = [("before", result.before), ("after", result.utilisation)]
        view["histograms"] = histograms(resource_names(result.before), series)
    view["filtered"] = filtered(result.nodes)
    if result.steps:
        view["stranded"] = [
            shown(line.strip()) for line in stranded_lines(result.stranded, HTML_TOP)[1:]
        ]
        view["sequence"] = (
            f"{plural(len(result.steps), 'pod')} placed one by one: {result.nodes_used} "
            f"nodes used, {result.pending} pending."
        )
    return view


HTML_TOP = 200
"""Jobs (and jobs per list) a page lists; the rest are counted."""


def jobs_view(result: CaseResult) -> dict[str, Any]:
    """A Volcano session case's jobs, sessions and stranded capacity, as the page shows
    them (the jobs that did not start first)."""
    run = result.sessions
    assert run is not None
    rows, more = job_rows(run, HTML_TOP)
    return {
        "summary": shown(job_summary(run)),
        "rows": [
            (shown(r.job), shown(r.queue), r.phase, r.bound, shown(r.reason), r.started)
            for r in rows
        ],
        "more": shown(more),
        "kinds": [shown(line) for line in reason_kinds(run, HTML_TOP)],
        "sessions": [
            [shown(line) for line in session_lines(record, run, HTML_TOP)]
            for record in run.sessions
        ],
        "stranded": [shown(line.strip()) for line in stranded_lines(result.stranded, HTML_TOP)[1:]],
        "plugins": [shown(line) for line in run.unsimulated_plugins],
        "notes": [shown(note) for note in run.notes],
    }
