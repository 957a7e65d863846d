"""The library API: what the CLI, the pytest plugin and Python callers use.

Each function wires the stages for one job, so callers never assemble the pipeline
themselves: ``validate_paths`` checks configs and fixtures (fixtures load their
configs through the config checks beneath them), ``run_paths`` runs fixture cases,
``diff_files`` / ``diff_revisions`` compare two configs or two commits. Nothing here
prints. Heavy stages are imported when a function is called, not on import.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from policytest.core.options import DEFAULT_OPTIONS, CheckOptions, RuleFilter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policytest.check.validate import ValidationReport
    from policytest.core.findings import Finding
    from policytest.diff.model import DiffReport
    from policytest.harness.suite import RunReport
    from policytest.read.source import Document
    from policytest.scoring.protocol import Scheduler

Progress = Callable[[int, int, str], None]
"""Told (files done, files in all, the file just run) after each fixture file."""


def validate_paths(
    paths: Sequence[str],
    options: CheckOptions = DEFAULT_OPTIONS,
    rules: RuleFilter | None = None,
) -> ValidationReport:
    """Check every scheduler config and fixture under ``paths`` (files, directories,
    ``-`` for standard input); ``rules`` (default ``options.rules``) and suppression
    comments filter the findings. Raises :class:`~policytest.PathNotFound`."""
    from policytest.check.validate import validate_paths as validate_tree

    return validate_tree(paths, options, rules, check_fixture=_check_fixture)


def _check_fixture(document: Document, options: CheckOptions) -> list[Finding]:
    from policytest.harness.load import check_fixture

    return check_fixture(document, options)


def run_paths(
    paths: Sequence[str],
    options: CheckOptions = DEFAULT_OPTIONS,
    progress: Progress | None = None,
) -> RunReport:
    """Run every case of every fixture under ``paths``. Raises :class:`~policytest.PathNotFound`."""
    from policytest.harness.suite import run_paths as run_suite

    return run_suite(paths, options, progress)


def diff_files(
    old: str,
    new: str,
    fixture_paths: Sequence[str] = ("fixtures",),
    options: CheckOptions = DEFAULT_OPTIONS,
    *,
    run_all: bool = False,
) -> DiffReport:
    """How the fixtures under ``fixture_paths`` that use ``old`` (or ``new``) change when
    ``new`` replaces it."""
    from policytest.diff.compare import diff_files as compare_files

    return compare_files(old, new, fixture_paths, options, run_all=run_all)


def diff_revisions(
    paths: Sequence[str] = (),
    options: CheckOptions = DEFAULT_OPTIONS,
    *,
    base: str | None = None,
    head: str | None = None,
    run_all: bool = False,
    cwd: str | None = None,
) -> DiffReport:
    """How the fixtures and configs under ``paths`` change between two commits (default:
    the merge-base with the default branch, and the working tree)."""
    from policytest.diff.compare import diff_revisions as compare_revisions

    return compare_revisions(paths, options, base=base, head=head, run_all=run_all, cwd=cwd)


def scheduler_from_file(
    path: str, profile: str | None = None, options: CheckOptions = DEFAULT_OPTIONS
) -> Scheduler:
    """An executable scheduler from a config file, to rank and place pods from Python.
    Raises :class:`~policytest.ConfigUnusable` when the scheduler would refuse it."""
    from policytest.harness.load import scheduler_from_file as load

    return load(path, profile, options)
