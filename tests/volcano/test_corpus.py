"""Golden findings for every real Volcano config in the corpus (upstream installer, docs,
tests and issues): ``<config>.expected.json`` next to each file holds what ``validate``
reports. Adding a config needs no code; regenerate with ``POLICYTEST_UPDATE_GOLDEN=1``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from policytest import validate_paths
from policytest.core.options import CheckOptions
from tests.volcano.helpers import DATA

CORPUS = DATA / "corpus"
CONFIGS = sorted(p for p in CORPUS.rglob("*") if p.suffix in (".yaml", ".conf"))
UPDATE = os.environ.get("POLICYTEST_UPDATE_GOLDEN") == "1"


def report(path: Path) -> dict[str, Any]:
    result = validate_paths([str(path)], CheckOptions())
    return {
        "recognised": bool(result.checked),
        "findings": [
            {
                "line": f.line,
                "column": f.column,
                "rule": f.rule,
                "severity": f.severity.value,
                "message": f.message,
            }
            for f in result.findings
        ],
    }


@pytest.mark.parametrize("path", CONFIGS, ids=[str(p.relative_to(CORPUS)) for p in CONFIGS])
def test_corpus_findings_match_the_golden_file(path: Path) -> None:
    golden = path.with_name(path.name + ".expected.json")
    actual = report(path)
    if UPDATE:
        golden.write_text(json.dumps(actual, indent=2, ensure_ascii=False) + "\n", "utf-8")
    assert golden.exists(), f"no golden file {golden.name}; run with POLICYTEST_UPDATE_GOLDEN=1"
    assert actual == json.loads(golden.read_text("utf-8"))


def test_the_corpus_is_all_there() -> None:
    assert len(CONFIGS) == 59
    orphans = [g for g in CORPUS.rglob("*.expected.json") if not g.with_name(g.name[:-14]).exists()]
    assert orphans == []


def rules_of(name: str) -> set[tuple[str, str]]:
    (path,) = [p for p in CONFIGS if p.name == name]
    return {(f["rule"], f["severity"]) for f in report(path)["findings"]}


def test_the_helm_default_conf_gets_vb012_and_no_error() -> None:
    """The shipped default lists binpack without arguments: a note, not a warning."""
    assert rules_of("volcano-scheduler.conf") == {("VB012", "info")}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("gang-aware-eviction-design-1.yaml", ("VC002", "error")),
        ("job-resource-reservation-design-1.yaml", ("VC002", "error")),
        ("plugin-conf-2.yaml", ("VC006", "error")),
        ("pr-4661-fake-action.conf", ("VC002", "error")),
        ("usage-based-scheduling-1.yaml", ("VC001", "error")),
    ],
)
def test_known_mistakes_in_upstream_examples(name: str, expected: tuple[str, str]) -> None:
    assert expected in rules_of(name)
