"""The one base class of every exception policytest raises.

An exception means "cannot proceed" (a usage problem, a config the scheduler refuses
where a caller asked for a scheduler), never "found a problem": problems are findings.
Its ``str()`` is written for users, so shells print it as it is.
"""

from __future__ import annotations


class PolicytestError(Exception):
    """Base class of policytest's exceptions: catch this to catch them all."""


class PathNotFound(PolicytestError):
    """A path named on the command line does not exist (a usage error)."""
