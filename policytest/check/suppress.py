"""Which findings a user keeps: ``--select``/``--ignore`` and suppression comments.

A comment ``# policytest: ignore[VB004]`` (or a bare ``# policytest: ignore``) on the
line a finding points at suppresses it there, matched against the file as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from policytest.core.findings import Finding
from policytest.core.options import RuleFilter
from policytest.read.source import SourceFile

_SUPPRESSION = re.compile(r"#\s*policytest:\s*ignore(?:\[([A-Za-z0-9_,\s]*)\])?")


def kept(findings: Iterable[Finding], source: SourceFile, rules: RuleFilter) -> list[Finding]:
    """``findings`` of ``source`` without those the rule filter or a comment suppresses."""
    # the file as written: a Volcano conf read after trimming has a trimmed document text
    text = source.text if source.text is not None else "".join(d.text for d in source.documents[:1])
    lines = text.splitlines()
    result = []
    for finding in findings:
        if not rules.allows(finding.rule):
            continue
        if 0 < finding.line <= len(lines) and _suppressed(lines[finding.line - 1], finding.rule):
            continue
        result.append(finding)
    return result


def _suppressed(line: str, rule_id: str) -> bool:
    match = _SUPPRESSION.search(line)
    if match is None:
        return False
    listed = match.group(1)
    if listed is None:
        return True
    return rule_id in {item.strip() for item in listed.split(",")}
