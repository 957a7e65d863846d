"""What reports show of hostile names: no GitHub autolink in the pull-request comment, no
lone surrogate in any JSON output, no workflow command in ``pytest -v``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from policytest.reporters.quoting import markdown_text
from tests.conftest import RunLine, git

CONF = 'actions: "enqueue, allocat"\ntiers:\n- plugins:\n  - name: binpack\n'
FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {name: f}
scheduler: {config: configs/v.yaml}
cluster:
  nodes: [{name: a, allocatable: {cpu: "8", pods: "110"}}]
cases:
- name: one
  pod: {requests: {cpu: "1"}}
  expect: {top: a}
"""


@pytest.mark.parametrize(
    "name", ["GH-1", "gh-12 x", "see GH-1", "0123456789abcdef0123456789abcdef01234567", "deadbee"]
)
def test_no_issue_reference_or_commit_hash_is_left_for_github_to_link(name: str) -> None:
    shown = markdown_text(name).replace("\u2060", " ")
    assert "GH-1" not in shown.upper()
    assert not any(len(word) >= 7 for word in shown.split())
    assert markdown_text(name).replace("\u2060", "").replace("&#45;", "-") == name


def test_json_outputs_hold_no_lone_surrogate(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(tmp_path, "init", "--quiet")
    name = os.fsdecode(b"bad-\xff.yaml")
    (tmp_path / name).write_text(CONF)
    monkeypatch.chdir(tmp_path)
    for argv in (["validate", "--format", "json", "."], ["validate", "--format", "sarif", "."]):
        result = run_line(argv)
        assert result.exit_code == 1, result
        result.stdout.encode("utf-8")  # no lone surrogate: strict encoders accept it
        assert "bad-\\\\xff.yaml" in result.stdout or "bad-%FF.yaml" in result.stdout
        json.loads(result.stdout)


def test_pytest_verbose_starts_no_workflow_command(pytester: pytest.Pytester) -> None:
    git(pytester.path, "init", "--quiet")
    (pytester.path / "configs").mkdir()
    (pytester.path / "configs" / "v.yaml").write_text(CONF.replace("allocat", "allocate"))
    (pytester.path / "::error file=x::pwned.policytest.yaml").write_text(FIXTURE)
    result = pytester.runpytest_inprocess("-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    for line in result.stdout.lines:
        assert not line.lstrip().startswith(("::", "##[")), line
