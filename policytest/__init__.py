"""policytest: validate and test Kubernetes scheduler bin-packing configuration.

The public API is what ``__all__`` lists; it is imported lazily, so ``import policytest``
stays cheap for the pre-commit hook. The package is grouped by pipeline stage, each
importing only the stages beneath it::

    core/      findings, the rule registry, options, limits, exit codes, errors
    read/      source files with positions, yaml.v2 typing, recognising documents, walking
    scoring/   the cluster model and the schedulers' exact arithmetic
    volcano/   the Volcano conf: model, decoder, rules and checks
    kube/      KubeSchedulerConfiguration: model, decoding, defaulting, rules and checks
    check/     configs loaded as their scheduler loads them; the validate pipeline
    fixtures/  fixture model and checks, loading, running, golden updates, simulate
    diff/      what a config change does to every fixture
    reporters/ one module per output format, per command
    api        the functions below; cli, pytest_plugin and commands/ are thin shells
"""

from __future__ import annotations

import importlib

from policytest.core.version import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from policytest.api import diff_files as diff_files
    from policytest.api import diff_revisions as diff_revisions
    from policytest.api import run_paths as run_paths
    from policytest.api import scheduler_from_file as scheduler_from_file
    from policytest.api import validate_paths as validate_paths
    from policytest.check.validate import ValidationReport as ValidationReport
    from policytest.core.errors import PathNotFound as PathNotFound
    from policytest.core.errors import PolicytestError as PolicytestError
    from policytest.core.exitcodes import ExitCode as ExitCode
    from policytest.core.findings import Finding as Finding
    from policytest.core.findings import Severity as Severity
    from policytest.core.options import CheckOptions as CheckOptions
    from policytest.core.options import RuleFilter as RuleFilter
    from policytest.diff.model import DiffReport as DiffReport
    from policytest.harness.load import ConfigUnusable as ConfigUnusable
    from policytest.harness.runner import CaseResult as CaseResult
    from policytest.harness.suite import RunReport as RunReport

_EXPORTS = {
    "validate_paths": "policytest.api",
    "run_paths": "policytest.api",
    "diff_files": "policytest.api",
    "diff_revisions": "policytest.api",
    "scheduler_from_file": "policytest.api",
    "ValidationReport": "policytest.check.validate",
    "RunReport": "policytest.harness.suite",
    "CaseResult": "policytest.harness.runner",
    "DiffReport": "policytest.diff.model",
    "Finding": "policytest.core.findings",
    "Severity": "policytest.core.findings",
    "CheckOptions": "policytest.core.options",
    "RuleFilter": "policytest.core.options",
    "ExitCode": "policytest.core.exitcodes",
    "PolicytestError": "policytest.core.errors",
    "PathNotFound": "policytest.core.errors",
    "ConfigUnusable": "policytest.harness.load",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562)."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'policytest' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
