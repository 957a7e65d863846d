"""``run --update`` and ``pytest --policytest-update`` write what they read back: node
names YAML 1.1 reads as booleans are quoted, a case name written in two documents of one
file updates each case with its own result, and an aliased ``expect`` stays valid YAML."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import RunLine, committed_repo, git

CONF = """\
actions: "enqueue, allocate"
tiers:
- plugins:
  - name: binpack
    arguments: {binpack.weight: 10, binpack.cpu: 1}
"""
DOCUMENT = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {{name: {name}}}
scheduler: {{config: configs/v.yaml}}
cluster:
  nodes:
  - {{name: "{busy}", allocatable: {{cpu: "8", pods: "110"}}, used: {{cpu: "6"}}}}
  - {{name: "{idle}", allocatable: {{cpu: "8", pods: "110"}}}}
cases:
- name: same
  pod: {{requests: {{cpu: "1"}}}}
  expect: {expect}
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = committed_repo(tmp_path / "repo", {"configs/v.yaml": CONF}, commit=False)
    monkeypatch.chdir(path)
    return path


def _run_twice(run_line: RunLine, fixture: str) -> None:
    """Update, then check that the update converged: a second run passes."""
    assert run_line(["run", "--update", fixture]).exit_code == 0
    after = run_line(["run", fixture])
    assert after.exit_code == 0, after


@pytest.mark.parametrize("names", [("y", "no"), ("on", "off"), ("yes", "n"), ("1e3", "null")])
def test_node_names_yaml_reads_as_other_types_are_quoted(
    run_line: RunLine, repo: Path, names: tuple[str, str]
) -> None:
    busy, idle = names
    text = DOCUMENT.format(
        name="f", busy=busy, idle=idle, expect=f'{{ranking: ["{idle}", "{busy}"]}}'
    )
    (repo / "f.policytest.yaml").write_text(text)
    _run_twice(run_line, "f.policytest.yaml")
    assert f'ranking: ["{busy}", "{idle}"]' in (repo / "f.policytest.yaml").read_text()


def test_the_same_case_name_in_two_documents_updates_each_its_own(
    run_line: RunLine, repo: Path
) -> None:
    first = DOCUMENT.format(name="a", busy="b1", idle="i1", expect="{top: i1}")
    second = DOCUMENT.format(name="b", busy="b2", idle="i2", expect="{top: i2}")
    (repo / "f.policytest.yaml").write_text(first + "---\n" + second)
    _run_twice(run_line, "f.policytest.yaml")
    text = (repo / "f.policytest.yaml").read_text()
    assert "top: b1" in text and "top: b2" in text


def test_an_aliased_expect_is_replaced_where_it_is_used(run_line: RunLine, repo: Path) -> None:
    text = DOCUMENT.format(name="f", busy="busy", idle="idle", expect="*e").replace(
        "cases:\n",
        "cases:\n- name: anchor\n  pod: {requests: {cpu: '1'}}\n  expect: &e {top: idle}\n",
    )
    (repo / "f.policytest.yaml").write_text(text)
    _run_twice(run_line, "f.policytest.yaml")
    updated = (repo / "f.policytest.yaml").read_text()
    assert "expect: &e {top: busy}" in updated and "expect: {top: busy}" in updated


def test_pytest_update_matches_cases_by_line_too(pytester: pytest.Pytester) -> None:
    git(pytester.path, "init", "--quiet")
    (pytester.path / "configs").mkdir()
    (pytester.path / "configs" / "v.yaml").write_text(CONF)
    first = DOCUMENT.format(name="a", busy="y", idle="i1", expect="{top: i1}")
    second = DOCUMENT.format(name="b", busy="b2", idle="no", expect='{ranking: ["no"]}')
    (pytester.path / "f.policytest.yaml").write_text(first + "---\n" + second)
    pytester.runpytest_inprocess("-p", "no:cacheprovider", "--policytest-update")
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=3)
    text = (pytester.path / "f.policytest.yaml").read_text()
    assert 'top: "y"' in text and "ranking: [b2]" in text
