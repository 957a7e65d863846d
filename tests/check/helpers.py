"""Helpers for the validate tests: findings as ``--format json`` prints them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import RunLine
from tests.rule_examples import example


def validate_json(run_line: RunLine, *paths: Path | str) -> tuple[int, list[dict[str, Any]]]:
    """The exit code and the findings of ``policytest validate --format json PATHS``."""
    result = run_line(["validate", "--format", "json", *paths])
    findings: list[dict[str, Any]] = json.loads(result.stdout)["findings"]
    return result.exit_code, findings


def example_rules(
    run_line: RunLine, directory: Path, doc: str, label: str, name: str = "config.yaml"
) -> tuple[int, list[str]]:
    """The exit code and rule ids of a rule's ``Failing`` or ``Passing`` example, as a file."""
    config = directory / name
    config.write_text(example(doc, label), encoding="utf-8")
    code, found = validate_json(run_line, config)
    return code, [finding["rule"] for finding in found]
