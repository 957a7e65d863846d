"""Process exit codes: a documented contract for CI and pre-commit."""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    """What a ``policytest`` process tells its caller."""

    OK = 0
    """Clean (warnings allowed unless ``--strict``)."""
    FINDINGS = 1
    """Error findings, failed or erroring test cases, or unparseable input."""
    USAGE = 2
    """Unknown flag, a path that does not exist, a bad option value."""
    INTERNAL = 3
    """A bug in policytest: one line on stderr, never a traceback."""
