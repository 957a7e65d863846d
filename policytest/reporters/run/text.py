"""Text for terminals: one line per case, details under failures, a closing summary."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import groupby

from policytest.core.findings import Finding, Severity
from policytest.harness.runner import MESSAGE_LINE_BREAK, PASSING, CaseResult, format_score
from policytest.harness.suite import RunReport
from policytest.reporters.quoting import text
from policytest.reporters.validate.text import format_finding, paint, plural
from policytest.scoring.protocol import NodeScore

_MARK = {
    "passed": ("PASS", "32"),
    "updated": ("UPDATED", "33"),
    "failed": ("FAIL", "31"),
    "error": ("ERROR", "31;1"),
}


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
    shown: set[str] = set()
    for file, results in groupby(report.results, key=lambda r: r.file):
        out.append(text(file))
        block = list(results)
        for result in block:
            mark, code = _MARK[result.status]
            out.append(f"  {paint(mark, code, color)} {text(result.case)}")
            if result.status not in PASSING:
                out += [f"      {line}" if line else "" for line in describe_failure(result)]
        out += config_lines(block, shown, color=color)
    out.append(summary(report))
    return "\n".join(out) + "\n"


def config_lines(results: Sequence[CaseResult], shown: set[str], *, color: bool) -> list[str]:
    """The findings of the configs these cases ran with, once per config in a run
    (``shown``: the configs already listed)."""
    by_config: dict[str, set[Finding]] = {}
    for result in results:
        if result.status != "error":
            for finding in result.findings:
                by_config.setdefault(finding.path, set()).add(finding)
    lines = []
    for config, findings in sorted(by_config.items()):
        if config in shown:
            lines.append(f"  config {text(config)}: {_counted(findings)} (listed above)")
            continue
        shown.add(config)
        lines.append(f"  config {text(config)}: {_counted(findings)}")
        lines += [f"      {format_finding(f, color=color)}" for f in sorted(findings)]
    return lines


def _counted(findings: Iterable[Finding]) -> str:
    severities = [f.severity for f in findings]
    parts = [
        plural(severities.count(severity), severity.value)
        for severity in (Severity.ERROR, Severity.WARNING, Severity.INFO)
        if severity in severities
    ]
    return ", ".join(parts)


def summary(report: RunReport) -> str:
    if not report.results:
        looked = ", ".join(report.paths) or "the paths given"
        return (
            f"No fixture cases found in {looked} (looked for documents with `apiVersion: "
            "policytest/v1` in the files named and in the *.policytest.yaml files under the "
            "directories); nothing ran, which fails the run"
        )
    counts = [f"{report.count('passed')} passed", f"{report.count('failed')} failed"]
    if report.count("error"):
        counts.append(plural(report.count("error"), "error"))
    if report.count("updated"):
        counts.append(f"{report.count('updated')} updated")
    line = "Cases: " + ", ".join(counts)
    findings = report.config_findings
    if findings:
        line += f"; config findings: {_counted(findings)}"
    return line
