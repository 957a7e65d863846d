"""SARIF 2.1.0, the format GitHub code scanning ingests."""

from __future__ import annotations

import os
from pathlib import PurePath
from urllib.parse import quote

from policytest.check.validate import ValidationReport
from policytest.core.findings import Severity
from policytest.core.rules import Rule
from policytest.core.version import __version__
from policytest.reporters import quoting
from policytest.reporters.catalogue import all_rules
from policytest.reporters.quoting import json_document

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _artifact_location(path: str) -> dict[str, str]:
    """A SARIF ``artifactLocation`` for ``path``, as a URI (RFC 3986, percent-encoded).

    A relative path is a relative reference resolved against ``%SRCROOT%`` (the checkout,
    for code scanning); an absolute path is a ``file://`` URI of its own, since a base
    would be ignored or, worse, prepended to it. A name that is not UTF-8 keeps its
    bytes, percent-encoded.
    """
    if path.startswith("<"):
        return {"uri": "stdin", "uriBaseId": "%SRCROOT%"}
    pure = PurePath(path)
    if pure.is_absolute():
        return {"uri": pure.as_uri()}
    relative = os.fsencode(pure.as_posix().removeprefix("./"))
    return {"uri": quote(relative), "uriBaseId": "%SRCROOT%"}


def _rule_descriptor(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": rule.id,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.doc.split("\n\n")[0]},
        "help": {"text": rule.doc},
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
    }


def as_sarif(report: ValidationReport) -> dict[str, Any]:
    rules = list(all_rules())
    index = {rule.id: position for position, rule in enumerate(rules)}
    results = []
    for finding in report.findings:
        result: dict[str, Any] = {
            "ruleId": finding.rule,
            "level": _LEVEL[finding.severity],
            "message": {"text": quoting.sarif(finding.message)},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": _artifact_location(finding.path),
                        "region": {"startLine": finding.line, "startColumn": finding.column},
                    }
                }
            ],
        }
        if finding.rule in index:
            result["ruleIndex"] = index[finding.rule]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "policytest",
                        "version": __version__,
                        "informationUri": "https://github.com/policytest/policytest",
                        "rules": [_rule_descriptor(rule) for rule in rules],
                    }
                },
                "results": results,
            }
        ],
    }


def render(report: ValidationReport, *, color: bool) -> str:
    return json_document(as_sarif(report))
