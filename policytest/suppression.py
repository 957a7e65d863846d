"""One set of suppressions for every command: ``--select``/``--ignore`` and comments.

A finding is shown when the rule filter (:class:`~policytest.options.RuleFilter`, from
the flags, the pytest options or the project settings) allows its rule and the line it
points at carries no ``# policytest: ignore`` / ``# policytest: ignore[RULE,...]``
comment. ``validate`` passes the text it read; the commands that run fixtures find the
line in the file the finding names (a config a fixture uses is a file on disk).
Suppressing a finding hides it and stops it failing the run; it never changes what the
scheduler does with the config.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence

from policytest.findings import Finding
from policytest.options import CheckOptions, RuleFilter

_SUPPRESSION = re.compile(r"#\s*policytest:\s*ignore(?:\[([A-Za-z0-9_,\s]*)\])?")
_LINES: dict[tuple[str, int, int], list[str]] = {}
_LINES_MAX = 64


def suppressed(line: str, rule_id: str) -> bool:
    """Does ``line`` carry a comment that suppresses ``rule_id``?"""
    match = _SUPPRESSION.search(line)
    if match is None:
        return False
    listed = match.group(1)
    if listed is None:
        return True
    return rule_id in {item.strip() for item in listed.split(",")}


def shown(finding: Finding, rules: RuleFilter, lines: Sequence[str]) -> bool:
    """Is ``finding`` shown, given the rule filter and the lines of its file?"""
    if not rules.allows(finding.rule):
        return False
    return not (
        0 < finding.line <= len(lines) and suppressed(lines[finding.line - 1], finding.rule)
    )


def visible(findings: Iterable[Finding], options: CheckOptions) -> list[Finding]:
    """The findings the options and the files' suppression comments leave shown."""
    return [f for f in findings if shown(f, options.rules, _file_lines(f.path, options))]


def _file_lines(path: str, options: CheckOptions) -> list[str]:
    """The lines of ``path`` as written (none when it cannot be read or is too big)."""
    try:
        status = os.stat(path)
    except OSError:
        return []
    if status.st_size > options.limits.max_file_bytes:
        return []
    key = (path, status.st_mtime_ns, status.st_size)
    if key not in _LINES:
        try:
            with open(path, "rb") as handle:
                text = handle.read().decode("utf-8", "replace")
        except OSError:
            return []
        if len(_LINES) >= _LINES_MAX:
            _LINES.clear()
        _LINES[key] = text.splitlines()
    return _LINES[key]
