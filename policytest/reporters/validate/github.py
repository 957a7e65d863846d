"""GitHub Actions workflow commands: annotations on the pull request's diff."""

from __future__ import annotations

from policytest.check.validate import ValidationReport
from policytest.core.findings import Finding, Severity
from policytest.reporters.validate.text import summary_line

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(f: Finding) -> str:
    """One finding as a workflow annotation on its file and line."""
    return (
        f"::{_LEVEL[f.severity]} file={escape_property(f.path)},line={f.line},col={f.column},"
        f"title={escape_property(f.rule)}::{escape_data(f.message)}"
    )


def render(report: ValidationReport, *, color: bool) -> str:
    lines = [annotation(f) for f in report.findings]
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"
