"""A review reads a bounded number of files (issue 34, item 4).

One small blob repeated through a tree that is used 250 times makes a pull request of
250,000 paths in a few objects: ``diff`` copied and validated each of them on both sides
for minutes. The files to review are counted from the names git lists, before any blob
is read, and a change past ``review-paths`` is refused with one line naming the limit.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import VOLCANO_CONF, RunLine, committed_repo, git
from tests.workmeter import WorkMeter

WORK = 10_000_000
"""Calls the refusal may take (listing 250,000 names is most of it); reviewing the
files made billions."""


def commit_many_paths(repo: Path, directories: int, files: int) -> None:
    """Commit ``directories`` directories of ``files`` YAML files, one blob for all."""
    blob = git(repo, "hash-object", "-w", "--stdin", stdin="kind: ConfigMap\ndata: {}\n")
    tree = git(
        repo, "mktree", stdin="".join(f"100644 blob {blob}\tf{i}.yaml\n" for i in range(files))
    )
    base_tree = git(repo, "rev-parse", "HEAD^{tree}")
    listing = git(repo, "ls-tree", base_tree)
    entries = listing + "\n" + "".join(f"040000 tree {tree}\td{i}\n" for i in range(directories))
    top = git(repo, "mktree", stdin=entries)
    commit = git(repo, "commit-tree", top, "-p", "HEAD", "-m", "many paths")
    git(repo, "update-ref", "refs/heads/main", commit)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = committed_repo(tmp_path / "repo", {"configs/volcano.yaml": VOLCANO_CONF})
    monkeypatch.chdir(repo)
    return repo


def test_a_change_of_250000_paths_is_refused_before_any_blob_is_read(
    run_line: RunLine, repo: Path
) -> None:
    commit_many_paths(repo, directories=250, files=1_000)
    with WorkMeter(WORK) as meter:
        result = run_line(["diff", "--base", "HEAD~1", "--head", "HEAD"])
    assert result.exit_code == 1, result
    assert result.stderr.splitlines() == [
        "policytest: error: the change has 250,000 YAML and fixture files to review, more "
        "than the limit of 2,000; nothing reviewed (raise it with --limit review-paths=N, "
        "or review part of the repository: policytest diff PATH)"
    ]
    assert meter.calls < WORK


def test_the_limit_counts_the_files_in_the_paths_reviewed(run_line: RunLine, repo: Path) -> None:
    commit_many_paths(repo, directories=3, files=10)
    argv = ["diff", "--base", "HEAD~1", "--head", "HEAD"]
    refused = run_line([*argv, "--limit", "review-paths=29"])
    assert refused.exit_code == 1 and "has 30 YAML and fixture files" in refused.stderr
    assert run_line([*argv, "--limit", "review-paths=30"]).exit_code == 0
    assert run_line([*argv, "--limit", "review-paths=10", "d1"]).exit_code == 0
    assert run_line([*argv, "--limit", "review-paths=9", "d1"]).exit_code == 1
