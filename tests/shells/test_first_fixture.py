"""A first fixture without a blank page: ``policytest init`` writes one from a config and
named nodes, its empty expectations fail, ``--update`` fills them and says so."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import VOLCANO_CONF, RunLine, user_repository

INIT = [
    "init",
    "deploy/volcano-scheduler.conf",
    "--node",
    "busy:cpu=8,memory=32Gi",
    "--used",
    "busy:cpu=6,memory=16Gi",
    "--node",
    "empty:cpu=8,memory=32Gi",
]
WRITTEN = "fixtures/volcano-scheduler.policytest.yaml"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return user_repository(tmp_path, monkeypatch, {"deploy/volcano-scheduler.conf": VOLCANO_CONF})


def test_init_writes_a_fixture_that_fails_until_update_records_the_results(
    run_line: RunLine, repo: Path
) -> None:
    written = run_line(INIT)
    assert written.exit_code == 0, written
    assert f"wrote {WRITTEN}" in written.stderr
    text = (repo / WRITTEN).read_text()
    assert 'config: "../deploy/volcano-scheduler.conf"' in text
    assert '{"cpu": "8", "memory": "32Gi", "pods": "110"}' in text
    assert text.count("expect: {}") == 2

    empty = run_line(["run"])
    assert empty.exit_code == 1, empty
    assert empty.stdout.count("expect is empty: this case checks nothing") == 2
    assert "(the scheduler gave ranking [busy, empty])" in empty.stdout
    assert "(the scheduler gave placements {busy: 2, empty: 8})" in empty.stdout

    updated = run_line(["run", "--update"])
    assert updated.exit_code == 0, updated
    assert "  UPDATED one pod\n  UPDATED ten pods one after another\n" in updated.stdout
    assert updated.stdout.endswith("Cases: 0 passed, 0 failed, 2 updated; judged as Volcano 1.15\n")
    text = (repo / WRITTEN).read_text()
    assert "expect: {ranking: [busy, empty]}" in text
    assert "expect: {placements: {busy: 2, empty: 8}, pending: 0}" in text
    assert text.startswith("# Written by `policytest init`.")  # the comments are kept
    assert run_line(["run"]).stdout.endswith("Cases: 2 passed, 0 failed; judged as Volcano 1.15\n")


def test_update_marks_only_the_cases_it_rewrote(run_line: RunLine, repo: Path) -> None:
    assert run_line(INIT).exit_code == 0
    path = repo / WRITTEN
    path.write_text(path.read_text().replace("expect: {}", "expect: {top: busy}", 1))
    result = run_line(["run", "--update", "--format", "json"])
    statuses = {r["case"]: r["status"] for r in json.loads(result.stdout)["results"]}
    assert statuses == {"one pod": "passed", "ten pods one after another": "updated"}
    assert json.loads(result.stdout)["summary"]["updated"] == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(["--node", "a:cpu=8x"], "cpu: invalid quantity '8x'", id="bad-quantity"),
        pytest.param(["--node", "cpu=8"], "expected NODE:RESOURCE=QUANTITY", id="no-name"),
        pytest.param(["--node", "a:cpu=-1"], "cpu: -1 is negative", id="negative"),
        pytest.param(
            ["--node", "a:cpu=8", "--used", "b:cpu=1"], "--used names 'b'", id="unknown-used"
        ),
        pytest.param(["--node", "a:cpu=8", "--pod", "cpu"], "RESOURCE=QUANTITY", id="bad-pod"),
    ],
)
def test_init_refuses_what_it_cannot_write(
    run_line: RunLine, repo: Path, argv: list[str], message: str
) -> None:
    result = run_line(["init", "deploy/volcano-scheduler.conf", *argv])
    assert result.exit_code == 2, result
    assert message in result.stderr
    assert not (repo / "fixtures").exists()


def test_init_never_replaces_a_file(run_line: RunLine, repo: Path) -> None:
    assert run_line(INIT).exit_code == 0
    before = (repo / WRITTEN).read_text()
    again = run_line(INIT)
    assert again.exit_code == 2
    assert f"{WRITTEN} exists; name another file with -o" in again.stderr
    assert (repo / WRITTEN).read_text() == before


def test_init_needs_a_scheduler_config(run_line: RunLine, repo: Path) -> None:
    (repo / "values.yaml").write_text("replicaCount: 2\n")
    result = run_line(["init", "values.yaml", "--node", "a:cpu=8", "-o", "x.policytest.yaml"])
    assert result.exit_code == 1, result
    assert "no Volcano conf or KubeSchedulerConfiguration" in result.stderr
    assert not os.path.exists(repo / "x.policytest.yaml")


def test_an_empty_expectation_fails_in_pytest_and_update_fills_it(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / ".git").mkdir()
    pytester.mkdir("deploy")
    (pytester.path / "deploy" / "volcano-scheduler.conf").write_text(VOLCANO_CONF)
    fixture = pytester.path / "first.policytest.yaml"
    fixture.write_text(
        "apiVersion: policytest/v1\nkind: PolicyTest\nmetadata: {name: first}\n"
        "scheduler: {config: deploy/volcano-scheduler.conf}\n"
        "cluster:\n  nodes:\n"
        '  - {name: a, allocatable: {cpu: "8", pods: "110"}, used: {cpu: "4"}}\n'
        '  - {name: b, allocatable: {cpu: "8", pods: "110"}}\n'
        "cases:\n- name: one pod\n  pod: {requests: {cpu: '1'}}\n  expect: {}\n"
    )
    failed = pytester.runpytest()
    failed.assert_outcomes(failed=1, passed=1)
    failed.stdout.fnmatch_lines(["*expect is empty: this case checks nothing*"])
    pytester.runpytest("--policytest-update").assert_outcomes(passed=2)
    assert "expect: {ranking: [a, b]}" in fixture.read_text()


def test_update_fills_a_sequence_decided_by_ties_with_what_ties_cannot_change(
    run_line: RunLine, repo: Path
) -> None:
    """Two identical empty nodes tie for every pod: placements per node would depend on
    the scheduler's random pick, nodes used and pending pods do not."""
    nodes = ["--node", "a:cpu=8,memory=32Gi", "--node", "b:cpu=8,memory=32Gi"]
    assert run_line(["init", "deploy/volcano-scheduler.conf", *nodes]).exit_code == 0
    updated = run_line(["run", "--update"])
    assert updated.stdout.endswith(
        "Cases: 0 passed, 0 failed, 2 updated; judged as Volcano 1.15\n"
    ), updated
    text = (repo / WRITTEN).read_text()
    assert "expect: {ranking: [[a, b]]}" in text
    assert "expect: {nodesUsed: 2, pending: 0}" in text
    assert run_line(["run"]).exit_code == 0


def test_init_prints_the_fixture_with_dash(run_line: RunLine, repo: Path) -> None:
    """``-o -`` prints what the default file would hold (its config path as from
    fixtures/), writes no file, and says where the path is relative to."""
    printed = run_line([*INIT, "-o", "-"])
    assert printed.exit_code == 0, printed
    assert printed.stdout.startswith("# Written by `policytest init`.")
    assert 'config: "../deploy/volcano-scheduler.conf"' in printed.stdout
    assert "relative to fixtures/" in printed.stderr
    assert not (repo / "fixtures").exists() and not (repo / "-").exists()
    (repo / "fixtures").mkdir()
    (repo / WRITTEN).write_text(printed.stdout)
    assert run_line(["run", "--update"]).exit_code == 0


def test_init_never_writes_through_a_link_out_of_the_repository(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A committed ``fixtures -> ../elsewhere``: the default output would land outside the
    repository (``run --update`` refuses the same link)."""
    (tmp_path / "repo").mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    repo = user_repository(
        tmp_path / "repo", monkeypatch, {"deploy/volcano-scheduler.conf": VOLCANO_CONF}
    )
    (repo / "fixtures").symlink_to("../elsewhere")
    result = run_line(INIT)
    assert result.exit_code == 1, result
    assert f"not writing {WRITTEN}: it resolves to " in result.stderr
    assert "outside the repository root" in result.stderr
    assert list(elsewhere.iterdir()) == []
    inside = run_line([*INIT, "-o", "tests/first.policytest.yaml"])
    assert inside.exit_code == 0, inside
    assert (repo / "tests" / "first.policytest.yaml").is_file()
