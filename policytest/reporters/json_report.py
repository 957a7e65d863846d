"""JSON for automation: the stable shape documented in the README."""

from __future__ import annotations

from policytest.check.validate import ValidationReport
from policytest.core.findings import Finding, Severity
from policytest.reporters.quoting import json_document

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypedDict

    class FindingJSON(TypedDict):
        rule: str
        severity: str
        path: str
        line: int
        column: int
        message: str
        document: int

    class SummaryJSON(TypedDict):
        files: int
        errors: int
        warnings: int

    class ValidationJSON(TypedDict):
        findings: list[FindingJSON]
        summary: SummaryJSON


def finding_json(finding: Finding) -> FindingJSON:
    """One finding as plain data."""
    return {
        "rule": finding.rule,
        "severity": finding.severity.value,
        "path": finding.path,
        "line": finding.line,
        "column": finding.column,
        "message": finding.message,
        "document": finding.document,
    }


def as_json(report: ValidationReport) -> ValidationJSON:
    """The report as plain data (keys may be added over time, never renamed)."""
    return {
        "findings": [finding_json(f) for f in report.findings],
        "summary": {
            "files": len(report.checked),
            "errors": report.count(Severity.ERROR),
            "warnings": report.count(Severity.WARNING),
        },
    }


def render(report: ValidationReport, *, color: bool) -> str:
    return json_document(as_json(report))
