"""Findings: what a check says about one place in one file.

Findings are values, never exceptions: rules yield them, reporters print them, and
one bad file never hides the problems of another.
"""

from __future__ import annotations

import enum

from policytest.core.records import record


class Severity(str, enum.Enum):
    """How bad a finding is; ``error`` makes ``policytest validate`` exit 1."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@record(frozen=True, order=True)
class Finding:
    """One problem at one place: ``path:line:column: RULE severity: message``.

    ``line`` and ``column`` are 1-based positions in the file the user edits (inside a
    ConfigMap's embedded string they are mapped back to the outer file). ``document``
    is the 0-based index of the YAML document in a multi-document file.
    """

    path: str
    line: int
    column: int
    rule: str
    severity: Severity
    message: str
    document: int = 0
