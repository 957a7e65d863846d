"""A fixture's ``cluster.snapshot`` is pull-request content like any other input: one
malformed snapshot is a finding on its own fixture (never exit 3), the other fixtures keep
their results, and the input limits apply to it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import RunLine, git

CONF = """\
actions: "enqueue, allocate"
tiers:
- plugins:
  - name: binpack
"""
FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {{name: f}}
scheduler: {{config: ../configs/v.yaml}}
cluster:
  {cluster}
cases:
- name: one
  pod: {{requests: {{cpu: "1"}}}}
  expect: {{top: a}}
"""
GOOD = FIXTURE.format(cluster='nodes: [{name: a, allocatable: {cpu: "8", pods: "110"}}]')


def _node(**extra: object) -> dict[str, object]:
    metadata = {"name": "a", **dict(extra.pop("metadata", {}))}  # type: ignore[call-overload]
    status = {"allocatable": {"cpu": "8", "pods": "110"}}
    return {"kind": "Node", "metadata": metadata, "spec": extra, "status": status}


BOMB = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
)
POD = {"kind": "Pod", "metadata": {"name": "p"}, "spec": {"nodeName": "a", "containers": 7}}
COMPACT = {"kind": "ClusterSnapshot", "apiVersion": "policytest/v1"}
MALFORMED = {
    "labels": json.dumps(_node(metadata={"labels": "abc"})),
    "taints": json.dumps(_node(taints=7)),
    "containers": json.dumps({"kind": "List", "items": [_node(), POD]}),
    "compact-pods": json.dumps({**COMPACT, "nodes": [{"name": "a", "pods": 5}]}),
    "compact-labels": json.dumps({**COMPACT, "nodes": [{"name": "a", "labels": "abc"}]}),
    "deep-json": "[" * 100_000 + "]" * 100_000,
    "deep-yaml": "- " * 100_000 + "a\n",
    "alias-bomb": BOMB,
    "flat": "- a\n" * 700_000,  # past the yaml-nodes limit
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with a good fixture and one fixture per malformed snapshot."""
    path = tmp_path / "repo"
    for directory in ("configs", "fixtures", "snapshots"):
        (path / directory).mkdir(parents=True)
    git(path, "init", "--quiet", "--initial-branch=main")
    (path / "configs" / "v.yaml").write_text(CONF)
    (path / "fixtures" / "good.policytest.yaml").write_text(GOOD)
    for name, text in MALFORMED.items():
        (path / "snapshots" / f"{name}.yaml").write_text(text)
        cluster = f"snapshot: ../snapshots/{name}.yaml"
        (path / "fixtures" / f"{name}.policytest.yaml").write_text(FIXTURE.format(cluster=cluster))
    for name, snapshot in (("nul", "a\\0b"), ("surrogate", "a\\ud800b")):
        cluster = f'snapshot: "{snapshot}"'
        (path / "fixtures" / f"{name}.policytest.yaml").write_text(FIXTURE.format(cluster=cluster))
    git(path, "add", ".")
    git(path, "commit", "--quiet", "-m", "base")
    monkeypatch.chdir(path)
    return path


def policytest(repo: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """``policytest argv`` in ``repo``, in a process of its own: reading the hostile
    snapshots up to their limits raised an xdist worker's peak by 130 to 150 MB for the
    rest of the suite."""
    return subprocess.run(
        [sys.executable, "-m", "policytest", *argv],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )


def test_run_reports_each_malformed_snapshot_on_its_fixture(repo: Path) -> None:
    result = policytest(repo, ["run", "--format", "json", "fixtures"])
    assert result.returncode == 1, result.stderr
    cases = {Path(case["file"]).stem: case for case in json.loads(result.stdout)["results"]}
    assert cases.pop("good.policytest")["status"] == "passed"
    assert len(cases) == len(MALFORMED) + 2
    for name, case in cases.items():
        assert case["status"] == "error", name
        assert "snapshot" in case["message"] or name == "compact-labels.policytest", name
        assert str(repo) not in case["message"]  # no absolute path in a report
    # checked as a fixture node is, at its position in the snapshot file
    assert cases["compact-labels.policytest"]["message"].startswith(
        "snapshots/compact-labels.yaml:1:70: PT002 required key `allocatable` is missing "
        "in `nodes[0]`"
    )
    assert "nests" in cases["deep-yaml.policytest"]["message"]
    assert "alias bomb" in cases["alias-bomb.policytest"]["message"]
    assert "600,000" in cases["flat.policytest"]["message"]
    assert "NUL" in cases["nul.policytest"]["message"]
    assert "surrogate" in cases["surrogate.policytest"]["message"]


@pytest.mark.parametrize(
    "argv",
    [
        ["validate", "fixtures"],
        ["explain", "fixtures/taints.policytest.yaml"],
        ["simulate", "fixtures/deep-json.policytest.yaml"],
        ["snapshot", "snapshots/labels.yaml"],
        ["snapshot", "snapshots/deep-json.yaml"],
    ],
)
def test_every_command_exits_1_on_a_malformed_snapshot(repo: Path, argv: list[str]) -> None:
    result = policytest(repo, argv)
    assert result.returncode == 1, result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr


def test_diff_keeps_the_good_fixture_when_a_snapshot_is_malformed(repo: Path) -> None:
    (repo / "configs" / "v.yaml").write_text(CONF + "    arguments: {binpack.weight: 3}\n")
    result = policytest(repo, ["diff", "--base", "HEAD"])
    assert result.returncode == 0, result.stderr
    assert "fixtures/good.policytest.yaml" in result.stdout


def test_pytest_reports_a_malformed_snapshot_on_its_fixture(
    pytester: pytest.Pytester,
) -> None:
    git(pytester.path, "init", "--quiet")
    for directory in ("configs", "snapshots"):
        (pytester.path / directory).mkdir()
    (pytester.path / "configs" / "v.yaml").write_text(CONF)
    (pytester.path / "snapshots" / "bad.yaml").write_text(MALFORMED["taints"])
    cluster = "snapshot: snapshots/bad.yaml"
    bad = FIXTURE.format(cluster=cluster).replace("../configs", "configs")
    (pytester.path / "bad.policytest.yaml").write_text(bad)
    (pytester.path / "good.policytest.yaml").write_text(GOOD.replace("../configs", "configs"))
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        ["bad.policytest.yaml:6:13: PT003 snapshot `snapshots/bad.yaml` cannot be used*"]
    )
    assert f"{pytester.path}/" not in result.stdout.str()  # (pytest prints its rootdir)


def test_a_compact_snapshot_node_is_checked_as_a_fixture_node_with_its_position(
    run_line: RunLine, repo: Path
) -> None:
    nodes = [
        {"name": "a", "allocatable": {"cpu": "8"}},
        {"name": "b", "taints": 7, "allocatable": {"cpu": "8"}},
    ]
    lines = [json.dumps(COMPACT)[:-1] + ', "nodes": [', *(json.dumps(n) + "," for n in nodes)]
    (repo / "snapshots" / "compact.json").write_text("\n".join(lines)[:-1] + "]}\n")
    cluster = "snapshot: ../snapshots/compact.json"
    (repo / "fixtures" / "compact.policytest.yaml").write_text(FIXTURE.format(cluster=cluster))
    expected = (
        "snapshots/compact.json:3:25: PT002 error: `taints` must be a list, not 7 "
        "in `nodes[1].taints`"
    )
    result = run_line(["validate", "fixtures/compact.policytest.yaml"])
    assert result.exit_code == 1, result
    assert expected in result.stdout
    result = run_line(["run", "fixtures/compact.policytest.yaml", "fixtures/good.policytest.yaml"])
    assert result.exit_code == 1, result
    assert expected.replace(" error:", "") in result.stdout
    assert "PASS one" in result.stdout  # the good fixture keeps its result
