"""Budgets that count the work done: the values of one ConfigMap share the file's node
budget, and ``diff --head`` never reads a blob past ``file-bytes`` out of git. (Time and
memory figures: docs/robustness.md; `benchmarks/hostile_inputs.py --big` measures them.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from policytest.core.limits import Limits, NodeCounter
from policytest.core.options import CheckOptions, kube_release
from policytest.kube.semantics import profile_costs
from policytest.read.source import compose_all, decoded, read_file
from policytest.scoring.filters import Requirement
from tests.conftest import RunLine, committed_repo, git


def yaml_config(path: Path) -> Any:
    """The config at ``path`` decoded as the checks see it."""
    return decoded(read_file(str(path), Limits()).documents[0], Limits())


def _configmap(values: int, nodes: int) -> str:
    lines = ["apiVersion: v1", "kind: ConfigMap", "metadata: {name: s}", "data:"]
    for index in range(values):
        lines.append(f"  scheduler-{index}.yaml: |")
        lines.append("    apiVersion: kubescheduler.config.k8s.io/v1")
        lines.append("    kind: KubeSchedulerConfiguration")
        lines.append("    extenders:")
        lines += ["    - a"] * nodes
    return "\n".join(lines) + "\n"


def test_the_values_of_a_configmap_share_one_node_budget(run_line: RunLine, tmp_path: Path) -> None:
    path = tmp_path / "cm.yaml"
    argv = ["validate", "--limit", "yaml-nodes=1000", "--select", "KS006", str(path)]
    path.write_text(_configmap(values=2, nodes=400))
    assert run_line(argv).exit_code == 0  # 800 nodes in all: within the file's budget
    path.write_text(_configmap(values=3, nodes=400))
    result = run_line(argv)
    assert result.exit_code == 1
    assert result.stdout.count("too many nodes (more than 1,000 YAML nodes)") == 1, result


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = committed_repo(tmp_path / "repo", {"configs/big.yaml": "- a\n" * 10})
    monkeypatch.chdir(path)
    return path


def test_a_blob_past_the_file_limit_is_refused_unread_and_still_compared(
    run_line: RunLine, repo: Path
) -> None:
    (repo / "configs" / "big.yaml").write_text("- b\n" * 1_000)
    git(repo, "commit", "--quiet", "-am", "head")
    argv = ["diff", "--base", "HEAD~1", "--head", "HEAD", "--max-file-bytes", "1000"]
    result = run_line([*argv, "--format", "json"])
    assert result.exit_code == 0, result
    assert "file is larger than 1,000 bytes" in result.stdout  # introduced by the head
    (repo / "configs" / "big.yaml").write_text("- c\n" * 1_000)
    git(repo, "commit", "--quiet", "-am", "another large one")
    assert (
        "file is larger"
        not in run_line(
            ["diff", "--base", "HEAD~1", "--head", "HEAD", "--max-file-bytes", "1000"]
        ).stdout
    )


def test_in_and_not_in_match_by_set_membership() -> None:
    values = tuple(f"v{index}" for index in range(1_000))
    requirement = Requirement("zone", "NotIn", values)
    assert requirement.members == frozenset(values)
    assert requirement == Requirement("zone", "NotIn", values)


# --- one budget per invocation: N inputs each just under a per-file limit -------------------

KUBE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
"""


def _nodes(text: str) -> int:
    """The YAML nodes the reader composes from ``text`` (what ``yaml-nodes`` counts)."""
    counter = NodeCounter(1 << 40)
    compose_all(text, Limits(), counter)
    return (1 << 40) - counter.left


def _python_m(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "policytest", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_files_of_one_command_share_one_node_budget(tmp_path: Path) -> None:
    for name in "abcd":
        (tmp_path / f"{name}.yaml").write_text(KUBE)
    each = _nodes(KUBE)
    # each file is within yaml-nodes on its own; the run's total holds two and a half
    limits = ["--limit", f"yaml-nodes={each}", "--limit", f"total-yaml-nodes={each * 5 // 2}"]
    done = _python_m(["validate", "--format", "json", *limits, "."], tmp_path)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    findings = json.loads(done.stdout)["findings"]
    refused = {Path(f["path"]).name: f for f in findings}
    assert sorted(refused) == ["c.yaml", "d.yaml"]  # a and b were read and checked
    for finding in refused.values():
        assert finding["rule"] == "PT001" and finding["severity"] == "error"
        assert f"budget of {each * 5 // 2:,} YAML nodes over all its files" in finding["message"]
        assert "--limit total-yaml-nodes=N" in finding["message"]
    control = _python_m(["validate", "--limit", f"yaml-nodes={each}", "."], tmp_path)
    assert control.returncode == 0, control.stdout  # the same files, the default total


def test_the_files_of_one_command_share_one_byte_budget(run_line: RunLine, tmp_path: Path) -> None:
    for name in "abc":
        (tmp_path / f"{name}.yaml").write_text(KUBE)
    total = len(KUBE.encode()) * 2
    result = run_line(["validate", "--limit", f"total-file-bytes={total}", str(tmp_path)])
    assert result.exit_code == 1, result
    assert result.stdout.count(f"budget of {total:,} bytes read over all its files") == 1
    assert "c.yaml:1:1: PT001" in result.stdout


def _profiles(count: int) -> str:
    return "".join(
        ["apiVersion: kubescheduler.config.k8s.io/v1\n", "kind: KubeSchedulerConfiguration\n"]
        + ["profiles:\n"]
        + [f"- schedulerName: s{index}\n" for index in range(count)]
    )


def test_profile_expansion_is_charged_and_refused_at_the_profile(
    run_line: RunLine, tmp_path: Path
) -> None:
    path = tmp_path / "profiles.yaml"
    path.write_text(_profiles(20))
    config = yaml_config(path)
    costs = [cost for _, cost in profile_costs(config, kube_release(CheckOptions()))]
    limit = sum(costs[:12])  # twelve profiles fit, the thirteenth does not
    argv = ["validate", "--limit", f"profile-plugins={limit}", str(path)]
    result = run_line(argv)
    assert result.exit_code == 1, result
    assert "profiles.yaml:16:3: PT001 error: the profiles up to this one" in result.stdout
    assert "--limit profile-plugins=N" in result.stdout
    path.write_text(_profiles(12))
    assert run_line(argv).exit_code == 0
    # two configs of twelve profiles share the invocation's total
    (tmp_path / "other.yaml").write_text(_profiles(12))
    result = run_line([*argv[:3], "--limit", f"total-profile-plugins={limit + 1}", str(tmp_path)])
    assert result.exit_code == 1, result
    assert result.stdout.count("--limit total-profile-plugins=N") == 1


FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {{name: {name}}}
scheduler: {{config: {config}}}
cluster:
  nodes:
  - {{name: a, allocatable: {{cpu: "8", pods: "110"}}}}
  - {{name: b, allocatable: {{cpu: "8", pods: "110"}}, used: {{cpu: "2"}}}}
cases:
- name: packs
  pod: {{requests: {{cpu: "1"}}}}
  expect: {{top: {top}}}
"""
VOLCANO = 'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: binpack\n'


def _fixture(name: str, config: str = "configs/v.yaml", top: str = "b") -> str:
    return FIXTURE.format(name=name, config=config, top=top)


def test_run_keeps_the_results_it_computed_when_the_node_scores_run_out(
    run_line: RunLine, tmp_path: Path
) -> None:
    files = {"configs/v.yaml": VOLCANO}
    files |= {f"fixtures/{n}.policytest.yaml": _fixture(n, "../configs/v.yaml") for n in "abc"}
    repo = committed_repo(tmp_path / "repo", files)
    # every fixture computes 2 node scores: the run's total holds two fixtures
    argv = ["run", "--format", "json", "--limit", "total-node-scores=5", str(repo / "fixtures")]
    result = run_line(argv)
    assert result.exit_code == 1, result
    cases = {Path(c["file"]).name: c for c in json.loads(result.stdout)["results"]}
    assert cases["a.policytest.yaml"]["status"] == "passed"
    assert cases["b.policytest.yaml"]["status"] == "passed"
    refused = cases["c.policytest.yaml"]
    assert refused["status"] == "error"
    assert "budget of 5 node scores over all its files; not run" in refused["message"]
    assert "--limit total-node-scores=N" in refused["message"]


def test_checking_a_fixture_or_updating_its_expectations_spends_no_more_node_scores(
    run_line: RunLine, tmp_path: Path
) -> None:
    """validate computes no score; run --update's run after the update has a budget of
    its own (it runs everything again)."""
    files = {
        "configs/v.yaml": VOLCANO,
        "fixtures/a.policytest.yaml": _fixture("a", "../configs/v.yaml"),
    }
    repo = committed_repo(tmp_path / "repo", files)
    fixture = str(repo / "fixtures" / "a.policytest.yaml")
    checked = run_line(["validate", "--limit", "total-node-scores=1", fixture])
    assert checked.exit_code == 0, checked
    ran = run_line(["run", "--limit", "total-node-scores=2", fixture])
    assert ran.exit_code == 0, ran
    updated = run_line(["run", "--update", "--limit", "total-node-scores=2", fixture])
    assert updated.exit_code == 0, updated


def test_the_pytest_session_shares_one_budget(pytester: pytest.Pytester) -> None:
    files = {"configs/v.yaml": VOLCANO}
    files |= {f"{n}.policytest.yaml": _fixture(n) for n in "abc"}
    committed_repo(pytester.path, files)
    result = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", "--policytest-limit", "total-node-scores=5"
    )
    result.assert_outcomes(passed=4, failed=1)  # a config item and a case per fixture
    result.stdout.fnmatch_lines(
        [
            "c.policytest.yaml:10:3: PT003 case `packs`: this run has used up its budget of 5 "
            "node scores over all its files; not run*"
        ]
    )
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=6)


def test_both_sides_of_a_diff_share_one_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {"configs/v.yaml": VOLCANO}
    files |= {f"fixtures/{n}.policytest.yaml": _fixture(n, "../configs/v.yaml") for n in "ab"}
    repo = committed_repo(tmp_path / "repo", files)
    (repo / "configs" / "v.yaml").write_text(VOLCANO + "    arguments: {binpack.weight: 3}\n")
    git(repo, "commit", "--quiet", "-am", "head")
    argv = ["diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "json"]
    assert _python_m(argv, repo).returncode == 0  # the default budget
    # four runs of two node scores (two fixtures, both sides): 8 holds them all, 7 three
    # (loading a fixture to find the configs it names charges nothing)
    assert _python_m([*argv, "--limit", "total-node-scores=8"], repo).returncode == 0
    done = _python_m([*argv, "--limit", "total-node-scores=7"], repo)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "budget of 7 node scores over all its files; not run" in done.stdout
    assert "fixtures/a.policytest.yaml" in done.stdout  # the fixture it could run is reported


def _dump(pods: int) -> str:
    node = {"kind": "Node", "metadata": {"name": "a"}, "status": {"allocatable": {"cpu": "8"}}}
    items = [node] + [
        {"kind": "Pod", "metadata": {"name": f"p{i}"}, "spec": {"nodeName": "a"}}
        for i in range(pods)
    ]
    return json.dumps({"kind": "List", "items": items})


def test_snapshot_keeps_at_most_the_pods_a_fixture_may_hold(tmp_path: Path) -> None:
    (tmp_path / "dump.json").write_text(_dump(3))
    done = _python_m(["snapshot", "--limit", "pods=2", "dump.json"], tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        "policytest: dump.json: more than 2 pods (bound and pending) by object 4, more than "
        "a fixture may hold; not read (raise the limit with --limit pods=N)"
    ]
    done = _python_m(["snapshot", "--limit", "pods=3", "dump.json"], tmp_path)
    assert done.returncode == 0, done.stderr
    # the three identical bound pods are kept once, counted, with their creation places
    assert json.loads(done.stdout)["nodes"][0]["pods"] == [
        {"containers": [], "count": 3, "order": [0, 1, 2]}
    ]
