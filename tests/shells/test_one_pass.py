"""One pass means one pass (issue 28): a case's own schema problem errors that case only,
a problem every case shares is reported once with everything else found, and a finding
inside a list of pods points at the offending key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import VOLCANO_CONF, RunLine, user_repository

FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {name: one-pass}
scheduler: {config: volcano-scheduler.conf}
cluster:
  nodes:
  - {name: a, allocatable: {cpu: "8", pods: "110"}, used: {cpu: "4"}}
  - {name: b, allocatable: {cpu: "8", pods: "110"}}
cases:
- name: sound
  pod: {requests: {cpu: "1"}}
  expect: {top: a}
- name: misspelt
  pod: {requests: {cpu: "1"}}
  expect: {top: a, bogus: 1}
- name: zero
  pods: [{requests: {cpu: "1"}, count: 0}]
  expect: {pending: 0}
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return user_repository(tmp_path, monkeypatch, {"volcano-scheduler.conf": VOLCANO_CONF})


def statuses(run_line: RunLine) -> dict[str, str]:
    result = run_line(["run", "f.policytest.yaml", "--format", "json"])
    return {r["case"]: r["status"] for r in json.loads(result.stdout)["results"]}


def test_a_case_with_its_own_schema_problem_errors_alone(run_line: RunLine, repo: Path) -> None:
    (repo / "f.policytest.yaml").write_text(FIXTURE)
    assert statuses(run_line) == {"sound": "passed", "misspelt": "error", "zero": "error"}
    text = run_line(["run", "f.policytest.yaml"]).stdout
    assert "  ERROR zero\n      f.policytest.yaml:17:40: PT002 `count` must be at least 1" in text


def test_a_problem_of_every_case_is_reported_with_all_the_others(
    run_line: RunLine, repo: Path
) -> None:
    broken = FIXTURE.replace("volcano-scheduler.conf", "missing.conf").replace(
        '"8", pods', '"8x", pods', 1
    )
    (repo / "f.policytest.yaml").write_text(broken)
    result = run_line(["run", "f.policytest.yaml"])
    assert "  ERROR sound, misspelt, zero\n" in result.stdout, result.stdout
    for where in (
        ":4:21: PT003 config `missing.conf` does not exist",
        ":7:34: PT003",
        ":15:20: PT002",
        ":17:40: PT002",
    ):
        assert where in result.stdout, (where, result.stdout)
    validated = run_line(["validate", "f.policytest.yaml", "--format", "json"])
    assert len(json.loads(validated.stdout)["findings"]) == 4
