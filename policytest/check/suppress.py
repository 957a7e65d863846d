"""Which findings a user keeps: ``--select``/``--ignore`` and suppression comments.

One set of suppressions for every command and the pytest plugin. A finding is kept
when the rule filter (:class:`~policytest.core.options.RuleFilter`, from the flags,
the pytest options or the project settings, carried by ``CheckOptions.rules``) allows
its rule and the line it points at carries no ``# policytest: ignore[VB004]`` (or bare
``# policytest: ignore``) comment, matched against the file as written. ``validate``
passes the source it read; the commands that run fixtures find the line in the file
the finding names (a config a fixture uses is a file on disk). Suppressing a finding
hides it and stops it failing the run; it never changes what the scheduler does with
the config. A kept finding takes the severity the settings file's ``severity`` gives
its rule, if it gives one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence

from policytest.core.findings import Finding
from policytest.core.options import CheckOptions, RuleFilter
from policytest.read.paths import Refused, read_regular
from policytest.read.source import SourceFile

_SUPPRESSION = r"#\s*policytest:\s*ignore(?:\[([A-Za-z0-9_,\s]*)\])?"
"""Compiled (and cached by ``re``) for the first finding: a clean file needs none."""
_LINES: dict[tuple[str, int, int], list[str]] = {}
_LINES_MAX = 64


Suppressing = Callable[[Iterable[Finding], SourceFile, RuleFilter], list[Finding]]
"""What a command keeps of a file's findings: :func:`kept`, or ``diff``'s review of a
change, where only the base's comments count (:mod:`policytest.diff.compare`)."""


def kept(findings: Iterable[Finding], source: SourceFile, rules: RuleFilter) -> list[Finding]:
    """``findings`` of ``source`` without those the rule filter or a comment suppresses."""
    lines = source_lines(source)
    return [rules.graded(finding) for finding in findings if shown(finding, rules, lines)]


def source_lines(source: SourceFile) -> list[str]:
    """The lines of ``source`` as written (a Volcano conf read after trimming has a
    trimmed document text)."""
    text = source.text if source.text is not None else "".join(d.text for d in source.documents[:1])
    return text.splitlines()


def suppresses(line: str, rule_id: str) -> bool:
    """Does ``line`` carry a comment that suppresses ``rule_id``?"""
    return "policytest" in line and _suppressed(line, rule_id)


def visible(findings: Iterable[Finding], options: CheckOptions) -> list[Finding]:
    """The findings ``options.rules`` and the files' suppression comments leave shown
    (each finding's line read from the file it names)."""
    rules = options.rules
    return [rules.graded(f) for f in findings if shown(f, rules, file_lines(f.path, options))]


def shown(finding: Finding, rules: RuleFilter, lines: Sequence[str]) -> bool:
    """Is ``finding`` shown, given the rule filter and the lines of its file?"""
    if not rules.allows(finding.rule):
        return False
    line = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
    return not _suppressed(line, finding.rule)


def _suppressed(line: str, rule_id: str) -> bool:
    match = re.search(_SUPPRESSION, line)
    if match is None:
        return False
    listed = match.group(1)
    if listed is None:
        return True
    return rule_id in {item.strip() for item in listed.split(",")}


def file_lines(path: str, options: CheckOptions) -> list[str]:
    """The lines of ``path`` as written (none when it cannot be read or is too big)."""
    try:
        status = os.stat(path)
    except OSError:
        return []
    if status.st_size > options.limits.max_file_bytes:
        return []
    key = (path, status.st_mtime_ns, status.st_size)
    if key not in _LINES:
        try:  # the one path rule: a regular file, inside the repository that holds it
            data = read_regular(path, options.limits.max_file_bytes, options.root)
        except (Refused, OSError):
            return []
        text = data.decode("utf-8", "replace")
        if len(_LINES) >= _LINES_MAX:
            _LINES.clear()
        _LINES[key] = text.splitlines()
    return _LINES[key]
