"""GitHub Actions workflow commands: annotations on the pull request's diff."""

from __future__ import annotations

from policytest.check.validate import ValidationReport
from policytest.core.findings import Finding, Severity
from policytest.reporters.quoting import github_data, github_property
from policytest.reporters.validate.text import summary_line

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def annotation(f: Finding) -> str:
    """One finding as a workflow annotation on its file and line (input quoted)."""
    return (
        f"::{_LEVEL[f.severity]} file={github_property(f.path)},line={f.line},col={f.column},"
        f"title={github_property(f.rule)}::{github_data(f.message)}"
    )


def render(report: ValidationReport, *, color: bool) -> str:
    lines = [annotation(f) for f in report.findings]
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"
