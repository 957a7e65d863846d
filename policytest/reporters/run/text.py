"""Text for terminals: one line per case, details under failures, a closing summary."""

from __future__ import annotations

from collections.abc import Sequence

from policytest.fixtures.runner import MESSAGE_LINE_BREAK, CaseResult, format_score
from policytest.fixtures.suite import RunReport
from policytest.reporters.quoting import text
from policytest.reporters.validate.text import format_finding, paint
from policytest.scoring.protocol import NodeScore

_MARK = {"passed": ("PASS", "32"), "failed": ("FAIL", "31"), "error": ("ERROR", "31;1")}


def node_table(nodes: Sequence[NodeScore]) -> list[str]:
    """The scored nodes as a compact table: rank, node, total, each plugin's share."""
    feasible = sorted((n for n in nodes if n.feasible), key=lambda n: -n.total)
    plugins = sorted({plugin for node in feasible for plugin in node.plugins})
    header = ["rank", "node", "total", *plugins]
    rows = []
    rank = 0
    previous: float | None = None
    for position, node in enumerate(feasible, start=1):
        rank = rank if node.total == previous else position
        previous = node.total
        rows.append(
            [
                str(rank),
                text(node.name),
                format_score(node.total),
                *(format_score(node.plugins[p]) if p in node.plugins else "-" for p in plugins),
            ]
        )
    rows += [
        ["-", text(node.name), "filtered", text(node.reason or "")]
        for node in nodes
        if not node.feasible
    ]
    widths = [
        max(len(row[i]) for row in [header, *rows] if i < len(row)) for i in range(len(header))
    ]
    return [
        "  ".join(
            cell.ljust(widths[i]) if i < len(widths) else cell for i, cell in enumerate(row)
        ).rstrip()
        for row in [header, *rows]
    ]


def describe_failure(result: CaseResult) -> list[str]:
    """What went wrong, then the evidence (findings, node table, placements); every
    name quoted for a terminal."""
    lines = [text(line) for line in result.message.split(MESSAGE_LINE_BREAK)]
    if lines == [""]:
        lines = []
    if result.status == "failed" and result.nodes:
        lines += ["", *node_table(result.nodes)]
    if result.placements is not None and result.status == "failed":
        placed = ", ".join(f"{text(n)}: {c}" for n, c in result.placements.items() if c)
        lines.append(f"placements: {{{placed}}}, pending: {result.pending}")
    return lines


def render(report: RunReport, *, color: bool) -> str:
    out: list[str] = []
    current_file = None
    for result in report.results:
        if result.file != current_file:
            current_file = result.file
            out.append(text(result.file))
        mark, code = _MARK[result.status]
        out.append(f"  {paint(mark, code, color)} {text(result.case)}")
        if result.status != "passed":
            out += [f"      {line}" if line else "" for line in describe_failure(result)]
        for finding in result.findings:
            if result.status == "passed":
                out.append(f"      {format_finding(finding, color=color)}")
    out.append(summary(report))
    return "\n".join(out) + "\n"


def summary(report: RunReport) -> str:
    counts = [f"{report.count('passed')} passed", f"{report.count('failed')} failed"]
    if report.count("error"):
        counts.append(f"{report.count('error')} errors")
    if not report.results:
        return "No fixture cases found."
    return "Cases: " + ", ".join(counts)
