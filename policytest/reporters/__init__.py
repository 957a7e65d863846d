"""Reporters: one module per output format, chosen by name (``--format``).

The tables map names to modules so the CLI's choices cannot drift from what exists,
and a format's module is imported only when it is used.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policytest.check.validate import ValidationReport
    from policytest.diff.model import DiffReport
    from policytest.harness.suite import RunReport

VALIDATE_FORMATS: dict[str, str] = {
    "text": "policytest.reporters.validate.text",
    "json": "policytest.reporters.json_report",
    "github": "policytest.reporters.validate.github",
    "sarif": "policytest.reporters.validate.sarif",
}

RUN_FORMATS: dict[str, str] = {
    "text": "policytest.reporters.run.text",
    "json": "policytest.reporters.run.json",
    "github": "policytest.reporters.run.github",
    "junit": "policytest.reporters.run.junit",
    "html": "policytest.reporters.html.run",
}

DIFF_FORMATS: dict[str, str] = {
    "text": "policytest.reporters.diff.text",
    "markdown": "policytest.reporters.diff.markdown",
    "json": "policytest.reporters.diff.json",
    "html": "policytest.reporters.html.diff",
}


def render_validation(name: str, report: ValidationReport, *, color: bool) -> str:
    """Render a validation report in the format ``name`` (one of :data:`VALIDATE_FORMATS`)."""
    rendered: str = importlib.import_module(VALIDATE_FORMATS[name]).render(report, color=color)
    return rendered


def render_run(name: str, report: RunReport, *, color: bool) -> str:
    """Render a run report in the format ``name`` (one of :data:`RUN_FORMATS`)."""
    rendered: str = importlib.import_module(RUN_FORMATS[name]).render(report, color=color)
    return rendered


def render_diff(name: str, report: DiffReport, *, color: bool) -> str:
    """Render a diff report in the format ``name`` (one of :data:`DIFF_FORMATS`)."""
    rendered: str = importlib.import_module(DIFF_FORMATS[name]).render(report, color=color)
    return rendered
