"""Reporters: one module per output format, chosen by name (``--format``).

The table maps names to modules so the CLI's choices cannot drift from what exists,
and a format's module is imported only when it is used.
"""

from __future__ import annotations

import importlib
from typing import Protocol

from policytest.validate import ValidationReport


class ValidationRenderer(Protocol):
    def __call__(self, report: ValidationReport, *, color: bool) -> str: ...


VALIDATE_FORMATS: dict[str, str] = {
    "text": "policytest.reporters.text",
    "json": "policytest.reporters.json_report",
    "github": "policytest.reporters.github",
    "sarif": "policytest.reporters.sarif",
}


def render_validation(name: str, report: ValidationReport, *, color: bool) -> str:
    """Render ``report`` in the format ``name`` (one of :data:`VALIDATE_FORMATS`)."""
    renderer: ValidationRenderer = importlib.import_module(VALIDATE_FORMATS[name]).render
    return renderer(report, color=color)
