"""Text for terminals: ``path:line:column: RULE severity: message``, then a summary."""

from __future__ import annotations

from policytest.check.validate import ValidationReport
from policytest.core.findings import Finding, Severity
from policytest.reporters import quoting

_COLORS = {Severity.ERROR: "31", Severity.WARNING: "33", Severity.INFO: "36"}


def paint(text: str, code: str, color: bool) -> str:
    """``text`` in an ANSI colour when ``color`` (terminals only)."""
    return f"\033[{code}m{text}\033[0m" if color else text


def plural(count: int, noun: str) -> str:
    """``1 error``, ``2 errors``, ``1 info``: a count and its noun, agreeing."""
    if count == 1 or noun == "info":
        return f"{count} {noun}"
    return f"{count} {noun}es" if noun.endswith(("s", "sh", "ch", "x")) else f"{count} {noun}s"


def format_finding(finding: Finding, *, color: bool) -> str:
    """One finding on one line, the way compilers and linters print them (the path and
    message quoted: they come from the input)."""
    where = f"{quoting.text(finding.path)}:{finding.line}:{finding.column}:"
    severity = paint(finding.severity.value, _COLORS[finding.severity], color)
    return (
        f"{paint(where, '1', color)} {paint(finding.rule, '1', color)} {severity}: "
        f"{quoting.text(finding.message)}"
    )


def summary_line(report: ValidationReport) -> str:
    """``N errors, M warnings in K files`` (or that all is clean)."""
    files = len(report.checked)
    noun = "file" if files == 1 else "files"
    errors, warnings = report.count(Severity.ERROR), report.count(Severity.WARNING)
    if not report.findings:
        return f"All clean: {files} {noun} checked."
    infos = report.count(Severity.INFO)
    parts = [f"{errors} error{'s' * (errors != 1)}", f"{warnings} warning{'s' * (warnings != 1)}"]
    if infos:
        parts.append(f"{infos} info")
    return f"Found {', '.join(parts)} in {files} {noun}."


def render(report: ValidationReport, *, color: bool) -> str:
    lines = [format_finding(finding, color=color) for finding in report.findings]
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"
