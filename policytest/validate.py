"""``policytest validate``: walk paths, read, recognise, check, filter findings.

This is the library entry point behind the CLI and the pre-commit hook; it returns a
report and never prints.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from policytest.checks import check_document
from policytest.findings import Finding, Severity
from policytest.options import CheckOptions, RuleFilter
from policytest.recognise import expand, read_as_scheduler
from policytest.source import READ_ERROR, STDIN, STDIN_NAME, SourceFile, is_yaml_path, read_file
from policytest.suppression import shown

SKIPPED_DIRECTORIES = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "env",
        ".tox",
        ".nox",
        "node_modules",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "site-packages",
    }
)

_LOOKS_LIKE_OURS = re.compile(
    r"KubeSchedulerConfiguration|kubescheduler\.config\.k8s\.io|policytest/v1|PolicyTest|"
    r"volcano-scheduler|^\s*(actions|tiers)\s*:",
    re.MULTILINE,
)


class PathNotFound(Exception):
    """A path named on the command line does not exist (a usage error)."""


@dataclass(frozen=True)
class ValidationReport:
    """What ``validate`` found: findings sorted by file and position, and file counts."""

    findings: tuple[Finding, ...]
    checked: tuple[str, ...]
    skipped: tuple[str, ...] = field(default=())

    def count(self, severity: Severity) -> int:
        return sum(1 for finding in self.findings if finding.severity is severity)


def iter_files(paths: Sequence[str]) -> Iterator[tuple[str, bool]]:
    """Files to read, each with whether the user named it explicitly; sorted walks."""
    for path in paths:
        if path == STDIN:
            yield path, True
        elif os.path.isdir(path):
            yield from ((found, False) for found in _walk(path))
        elif os.path.exists(path) or os.path.islink(path):
            yield path, True
        else:
            raise PathNotFound(path)


def _walk(top: str) -> Iterator[str]:
    for directory, subdirectories, files in os.walk(top):
        subdirectories[:] = sorted(
            name for name in subdirectories if not _skipped(os.path.join(directory, name))
        )
        for name in sorted(files):
            if is_yaml_path(name):
                yield os.path.join(directory, name)


def _skipped(directory: str) -> bool:
    """Tool and dependency directories; a virtualenv under any name has ``pyvenv.cfg``."""
    name = os.path.basename(directory)
    if name in SKIPPED_DIRECTORIES or name.endswith(".egg-info"):
        return True
    return os.path.isfile(os.path.join(directory, "pyvenv.cfg"))


def validate_paths(
    paths: Sequence[str],
    options: CheckOptions,
    rules: RuleFilter | None = None,
) -> ValidationReport:
    """Validate every scheduler config and fixture under ``paths`` (``rules``, when
    given, instead of ``options.rules``)."""
    rules = options.rules if rules is None else rules
    findings: list[Finding] = []
    checked: list[str] = []
    skipped: list[str] = []
    for path, explicit in iter_files(paths):
        source = read_as_scheduler(read_file(path, options.limits), options)
        ours, file_findings = _check_source(source, options, explicit)
        if not ours:
            skipped.append(source.path)
            continue
        checked.append(source.path)
        findings.extend(_filtered(file_findings, source, rules))
    return ValidationReport(tuple(sorted(findings)), tuple(checked), tuple(skipped))


def _check_source(
    source: SourceFile, options: CheckOptions, explicit: bool
) -> tuple[bool, list[Finding]]:
    """Whether the file holds anything of ours, and the findings for it.

    A file that cannot be parsed is an error when its text mentions a scheduler config
    or a fixture, when it is standard input (asked for, and never passed by a hook), or
    when it was named explicitly and cannot be read at all (permission denied, a
    dangling symlink). Otherwise it is somebody else's file (a Helm template, JSON with
    comments, a file too large): named explicitly, it gets a warning, so a
    repository-wide hook reports it without failing; found by walking, it is skipped.
    """
    if source.problems:
        asked_for = source.path == STDIN_NAME or (explicit and source.unreadable)
        if asked_for or _LOOKS_LIKE_OURS.search(source.head) or _claimed(source):
            return True, list(source.problems)
        if not explicit:
            return False, []
        return True, [
            replace(
                problem,
                severity=Severity.WARNING,
                message=f"{problem.message} (not recognisable as a scheduler config or "
                "fixture, so not checked)",
            )
            for problem in source.problems
        ]
    findings: list[Finding] = []
    ours = False
    for document in source.documents:
        for embedded, kind in expand(document, options.limits):
            ours = True
            findings.extend(check_document(embedded, kind, options))
    return ours, findings


def _claimed(source: SourceFile) -> bool:
    """A scheduler's own reading already rejected it (VC001 for a Volcano conf file)."""
    return any(problem.rule != READ_ERROR for problem in source.problems)


def _filtered(findings: Iterable[Finding], source: SourceFile, rules: RuleFilter) -> list[Finding]:
    """Apply ``--select``/``--ignore`` and ``# policytest: ignore[RULE]`` comments."""
    # the file as written: a Volcano conf read after trimming has a trimmed document text
    text = source.text if source.text is not None else "".join(d.text for d in source.documents[:1])
    lines = text.splitlines()
    return [finding for finding in findings if shown(finding, rules, lines)]
