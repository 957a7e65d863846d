"""Text for terminals: one line per case, details under failures, a closing summary."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import groupby

from policytest.core.findings import Finding, Severity
from policytest.harness.repack import RepackOutcome
from policytest.harness.runner import (
    MESSAGE_LINE_BREAK,
    PASSING,
    CaseResult,
    format_score,
    table_digits,
)
from policytest.harness.suite import RunReport, refused_config
from policytest.reporters.quoting import text
from policytest.reporters.run import DEFAULT_TOP
from policytest.reporters.run.availability import availability, reason_groups
from policytest.reporters.run.jobs import job_summary, jobs_lines, note_lines
from policytest.reporters.run.scheduling import not_simulated_lines, not_simulated_names
from policytest.reporters.validate.text import format_finding, paint, plural
from policytest.scoring.protocol import NodeScore, NotSimulated

MARK = {
    "passed": ("PASS", "32"),
    "updated": ("UPDATED", "33"),
    "failed": ("FAIL", "31"),
    "error": ("ERROR", "31;1"),
}


PER_LINE = 8
"""Nodes per line of a long placements map."""


def node_table(nodes: Sequence[NodeScore], top: int | None = DEFAULT_TOP) -> list[str]:
    """The scored nodes as a compact table: rank, node, total, each plugin's share; the
    best ``top`` of them (all when ``None``), then the filtered nodes, one row each while
    they are few and summed up by reason as kube-scheduler does when they are many."""
    feasible = sorted((n for n in nodes if n.feasible), key=lambda n: -n.total)
    plugins = sorted({plugin for node in feasible for plugin in node.plugins})
    header = ["rank", "node", "total", *plugins]
    rows = []
    rank = 0
    previous: float | None = None
    digits = table_digits(feasible)
    for position, node in enumerate(feasible[:top], start=1):
        rank = rank if node.total == previous else position
        previous = node.total
        rows.append(
            [
                str(rank),
                text(node.name),
                format_score(node.total, digits),
                *(
                    format_score(node.plugins[p], digits) if p in node.plugins else "-"
                    for p in plugins
                ),
            ]
        )
    filtered = [node for node in nodes if not node.feasible]
    few = top is None or len(filtered) <= top
    rows += [
        ["-", text(node.name), "filtered", text(node.reason or "")] for node in filtered if few
    ]
    # a filtered node's reason ends its row: it sets no column's width (a long reason
    # made every plugin column as wide as itself)
    sized = [header, *(row[:3] if row[2] == "filtered" else row for row in rows)]
    widths = [max(len(row[i]) for row in sized if i < len(row)) for i in range(len(header))]
    table = [
        "  ".join(
            cell.ljust(widths[i]) if i < len(widths) else cell for i, cell in enumerate(row)
        ).rstrip()
        for row in [header, *rows]
    ]
    if top is not None and len(feasible) > top:
        table.append(f"... {len(feasible) - top:,} more scored nodes")
    if not few:
        table.append(text(availability(nodes)))
        table += [
            f"  {group.count:,} {text(group.reason)}: "
            + ", ".join(text(name) for name in group.examples)
            + (", ..." if group.count > len(group.examples) else "")
            for group in reason_groups(nodes)
        ]
    return table


def placement_lines(
    placements: Mapping[str, int], top: int | None = DEFAULT_TOP, pending: int | None = None
) -> list[str]:
    """``placements: {node-a: 4, node-b: 2}`` (then ``, pending: 0`` when given): when
    more than ``top`` nodes received pods, those that received most, and how many more;
    :data:`PER_LINE` nodes a line (the lines depend on how many nodes, never on names)."""
    placed = [(name, count) for name, count in placements.items() if count]
    shown = placed
    if top is not None and len(placed) > top:
        shown = sorted(placed, key=lambda item: -item[1])[:top]
    items = [f"{text(name)}: {count}" for name, count in shown]
    if len(shown) < len(placed):
        rest = sum(count for _, count in placed) - sum(count for _, count in shown)
        items.append(f"... {len(placed) - len(shown):,} more nodes with {rest:,} pods")
    rows = [", ".join(items[at : at + PER_LINE]) for at in range(0, len(items), PER_LINE)] or [""]
    joined = ",\n  ".join(rows)
    tail = "" if pending is None else f", pending: {pending}"
    return f"placements: {{{joined}}}{tail}".split("\n")


def describe_failure(result: CaseResult, top: int | None = DEFAULT_TOP) -> list[str]:
    """What went wrong, then the evidence (findings, node table, placements); every
    name quoted for a terminal, the best ``top`` nodes listed (all when ``None``)."""
    lines = [text(line) for line in result.message.split(MESSAGE_LINE_BREAK)]
    if lines == [""]:
        lines = []
    if result.status == "failed" and result.sessions is not None:
        lines += ["", *jobs_lines(result, top)]
    elif result.status == "failed" and result.nodes:
        lines += ["", *node_table(result.nodes, top)]
    if result.placements is not None and result.status == "failed":
        lines += placement_lines(result.placements, top, result.pending)
    if result.repack is not None and result.status == "failed":
        lines.append(repack_line(result.repack))
    return lines


def repack_line(repack: RepackOutcome) -> str:
    """``repack: 19 nodes in use (38 today), frees 19; 270 pods moved, 120 stayed``."""
    stayed = sum(count for _, count in repack.kept)
    return (
        f"repack: {repack.in_use:,} nodes in use ({repack.in_use_before:,} today), "
        f"{frees(repack.freed)}; {repack.moved:,} pods moved, {stayed:,} stayed"
    )


def frees(freed: int) -> str:
    """``frees 19``, or ``needs 3 more`` when the repack needs more nodes than today."""
    return f"frees {freed:,}" if freed >= 0 else f"needs {-freed:,} more"


def render(report: RunReport, *, color: bool, top: int | None = DEFAULT_TOP) -> str:
    out: list[str] = []
    shown: set[str] = set()
    described: set[NotSimulated] = set()
    for file, results in groupby(report.results, key=lambda r: r.file):
        block = list(results)
        out.append(text(file) + releases_note(block))
        for result in block:
            mark, code = MARK[result.status]
            out.append(f"  {paint(mark, code, color)} {text(result.case)}")
            if result.status in PASSING and result.sessions is not None:
                out.append(f"      {text(job_summary(result.sessions))}")
                out += [f"      {line}" for line in note_lines(result.sessions)]
            if result.status not in PASSING:
                out += [f"      {line}" if line else "" for line in _details(result, top)]
        out += config_lines(block, shown, color=color)
        out += unsimulated_lines(block, described)
    out.append(summary(report))
    return "\n".join(out) + "\n"


def _details(result: CaseResult, top: int | None) -> list[str]:
    """Under a case that did not pass: why; for a config the scheduler refuses, a pointer
    to the config's lines, which list its findings once however many cases use it."""
    refused = refused_config(result)
    if refused is None:
        return describe_failure(result, top)
    configs = ", ".join(sorted({text(finding.path) for finding in result.findings}))
    return [f"{refused}: its findings are listed once, under `config {configs}`"]


def releases_note(results: Sequence[CaseResult]) -> str:
    """`` (kube-scheduler 1.35)``: the releases these cases were judged as."""
    shown = ", ".join(dict.fromkeys(r.release for r in results if r.release))
    return f" ({shown})" if shown else ""


def config_lines(results: Sequence[CaseResult], shown: set[str], *, color: bool) -> list[str]:
    """The findings of the configs these cases ran with (refused or not), once per config
    in a run (``shown``: the configs already listed)."""
    by_config: dict[str, set[Finding]] = {}
    for result in results:
        if result.status != "error" or refused_config(result):
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


def unsimulated_lines(results: Sequence[CaseResult], described: set[NotSimulated]) -> list[str]:
    """What these cases' configs make the scheduler do that policytest does not simulate:
    described the first time in a run (``described``: the items already described),
    named after that."""
    items = list(dict.fromkeys(item for result in results for item in result.not_simulated))
    if not items:
        return []
    new = [item for item in items if item not in described]
    described.update(new)
    lines = [f"  {line}" for line in not_simulated_lines(new)]
    old = [item for item in items if item not in new]
    if old:
        lines.append(f"  not simulated: {not_simulated_names(old)} (described above)")
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
    releases = sorted({r.release for r in report.results if r.release}, key=str.lower)
    if releases:
        line += f"; judged as {', '.join(releases)}"
    findings = report.config_findings
    if findings:
        line += f"; config findings: {_counted(findings)}"
        if any(f.severity is Severity.ERROR for f in findings):
            line += " (an error fails the run, as it fails validate)"
    unsimulated = dict.fromkeys(item for r in report.results for item in r.not_simulated)
    if unsimulated:
        line += f"; not simulated: {not_simulated_names(list(unsimulated))}"
    return line
