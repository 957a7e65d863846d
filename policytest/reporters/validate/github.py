"""GitHub Actions workflow commands: annotations on the pull request's diff."""

from __future__ import annotations

from policytest.check.validate import ValidationReport
from policytest.core.findings import Severity
from policytest.reporters.quoting import github_data, github_property
from policytest.reporters.validate.text import summary_line

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def render(report: ValidationReport, *, color: bool) -> str:
    lines = [
        f"::{_LEVEL[f.severity]} file={github_property(f.path)},line={f.line},col={f.column},"
        f"title={github_property(f.rule)}::{github_data(f.message)}"
        for f in report.findings
    ]
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"
