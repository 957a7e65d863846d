"""Budgets that count the work done: the values of one ConfigMap share the file's node
budget, and ``diff --head`` never reads a blob past ``file-bytes`` out of git. (Time and
memory figures: docs/robustness.md; `benchmarks/hostile_inputs.py --big` measures them.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from policytest.scoring.filters import Requirement
from tests.conftest import RunLine, committed_repo, git


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
