"""Run reporters: the documented JSON shape, JUnit XML, GitHub annotations, text."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree

from policytest.core.findings import Finding, Severity
from policytest.harness.runner import CaseResult, Step
from policytest.harness.suite import RunReport
from policytest.reporters import RUN_FORMATS, render_run
from policytest.scoring.protocol import NodeScore

NODES = (
    NodeScore("node-a", True, total=79.16666666666666, plugins={"binpack": 79.16666666666666}),
    NodeScore("node-b", True, total=41.666666666666664, plugins={"binpack": 41.666666666666664}),
    NodeScore("node-x", False, "Insufficient cpu"),
)
REPORT = RunReport(
    (
        CaseResult(
            "fixtures/x.policytest.yaml",
            "small task",
            "passed",
            nodes=NODES,
            ranking=(("node-a",), ("node-b",)),
            line=12,
        ),
        CaseResult(
            "fixtures/x.policytest.yaml",
            "gpu jobs",
            "failed",
            "placements: expected {node-a: 4}, got {node-b: 4}",
            nodes=NODES,
            ranking=(("node-a",), ("node-b",)),
            placements={"node-a": 0, "node-b": 4},
            pending=0,
            steps=(Step(0, "node-b", ("node-a",)),),
            line=20,
        ),
        CaseResult(
            "fixtures/y.policytest.yaml",
            "broken",
            "error",
            "config `c.yaml` does not exist",
            line=3,
            findings=(
                Finding(
                    "fixtures/y.policytest.yaml",
                    3,
                    11,
                    "PT003",
                    Severity.ERROR,
                    "config `c.yaml` does not exist",
                ),
            ),
        ),
    )
)


def test_json_matches_the_documented_shape() -> None:
    data = json.loads(render_run("json", REPORT, color=False))
    assert data["summary"] == {"passed": 1, "failed": 1, "errors": 1, "updated": 0}
    first = data["results"][0]
    assert {
        k: first[k] for k in ("file", "case", "status", "ranking", "placements", "pending")
    } == {
        "file": "fixtures/x.policytest.yaml",
        "case": "small task",
        "status": "passed",
        "ranking": [["node-a"], ["node-b"]],
        "placements": None,
        "pending": None,
    }
    assert first["nodes"][0] == {
        "name": "node-a",
        "rank": 1,
        "total": 79.16666666666666,
        "plugins": {"binpack": 79.16666666666666},
        "feasible": True,
        "reason": None,
    }
    assert first["nodes"][2] == {
        "name": "node-x",
        "rank": None,
        "total": None,
        "plugins": {},
        "feasible": False,
        "reason": "Insufficient cpu",
    }
    assert data["results"][1]["ties"] == [
        {"pod": 1, "node": "node-b", "tiedWith": ["node-a"], "identical": False}
    ]


def test_junit_is_valid_xml_with_failures_and_errors() -> None:
    root = ElementTree.fromstring(render_run("junit", REPORT, color=False).split("\n", 1)[1])
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [
        "fixtures/x.policytest.yaml",
        "fixtures/y.policytest.yaml",
    ]
    assert suites[0].get("failures") == "1" and suites[1].get("errors") == "1"
    failure = suites[0].findall("testcase")[1].find("failure")
    assert failure is not None and failure.get("message", "").startswith("placements:")


def test_github_annotations_for_failures_only() -> None:
    lines = render_run("github", REPORT, color=False).splitlines()
    assert lines[0] == (
        "::error file=fixtures/x.policytest.yaml,line=20,title=gpu jobs (failed)"
        "::placements: expected {node-a: 4}, got {node-b: 4}"
    )
    assert lines[1].startswith("::error file=fixtures/y.policytest.yaml,line=3,")
    assert lines[-1] == "Cases: 1 passed, 1 failed, 1 error"


def test_text_shows_the_node_table_under_a_failure() -> None:
    text = render_run("text", REPORT, color=False)
    assert "  PASS small task" in text and "  FAIL gpu jobs" in text
    assert "      rank  node    total     binpack" in text
    assert "      1     node-a  79.17     79.17" in text  # two decimals, as in HTML
    assert "      -     node-x  filtered  Insufficient cpu" in text
    assert "  ERROR broken" in text


def test_every_run_format_renders_an_empty_report() -> None:
    for name in RUN_FORMATS:
        assert render_run(name, RunReport(()), color=False)
