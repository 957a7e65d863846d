"""Links that would move the root or the target: the root is decided once, from the
invocation, never through a link; what a link resolves to is what ``diff`` compares."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import RunLine, git

CONF = """\
actions: "enqueue, allocate"
tiers:
- plugins:
  - name: binpack
    arguments: {{binpack.weight: 10, binpack.cpu: {cpu}}}
"""
FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {{name: f}}
scheduler: {{config: {config}}}
cluster:
  nodes:
  - {{name: busy, allocatable: {{cpu: "8", pods: "110"}}, used: {{cpu: "6"}}}}
  - {{name: idle, allocatable: {{cpu: "8", pods: "110"}}}}
cases:
- name: one
  pod: {{requests: {{cpu: "1"}}}}
  expect: {{top: {top}}}
"""


@pytest.fixture
def projects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """``repo`` with a committed ``fixtures/ext -> ../../other`` link; ``other`` is
    another checkout whose fixture fails (so an update would rewrite it)."""
    other, repo = tmp_path / "other", tmp_path / "repo"
    for path in (other, repo):
        (path / "configs").mkdir(parents=True)
        (path / "fixtures").mkdir()
        git(path, "init", "--quiet", "--initial-branch=main")
    (other / "configs" / "v.yaml").write_text(CONF.format(cpu=1))
    (other / "fixtures" / "f.policytest.yaml").write_text(
        FIXTURE.format(config="../configs/v.yaml", top="idle")
    )
    (repo / "fixtures" / "ext").symlink_to("../../other")
    git(repo, "add", ".")
    git(repo, "commit", "--quiet", "-m", "base")
    monkeypatch.chdir(repo)
    return repo, other


def test_run_update_through_a_directory_link_keeps_the_root(
    run_line: RunLine, projects: tuple[Path, Path]
) -> None:
    _, other = projects
    before = (other / "fixtures" / "f.policytest.yaml").read_bytes()
    result = run_line(["run", "--update", "fixtures/ext"])
    assert result.exit_code == 1, result
    assert "resolves outside the root" in result.stdout
    assert (other / "fixtures" / "f.policytest.yaml").read_bytes() == before


def test_pytest_update_through_a_directory_link_keeps_the_root(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    (other / "configs").mkdir(parents=True)
    git(other, "init", "--quiet")
    (other / "configs" / "v.yaml").write_text(CONF.format(cpu=1))
    fixture = other / "f.policytest.yaml"
    fixture.write_text(FIXTURE.format(config="configs/v.yaml", top="idle"))
    git(pytester.path, "init", "--quiet")
    (pytester.path / "ext").symlink_to(other)
    before = fixture.read_bytes()
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--policytest-update")
    assert "resolves outside the root" in result.stdout.str()
    assert fixture.read_bytes() == before


@pytest.mark.parametrize("link", ["file", "directory"])
@pytest.mark.parametrize("head", [False, True])
def test_diff_compares_what_a_link_resolves_to(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, link: str, head: bool
) -> None:
    repo = tmp_path / "repo"
    for directory in ("common", "configs", "fixtures"):
        (repo / directory).mkdir(parents=True)
    git(repo, "init", "--quiet", "--initial-branch=main")
    (repo / "common" / "v.yaml").write_text(CONF.format(cpu=1))
    if link == "file":
        (repo / "configs" / "v.yaml").symlink_to("../common/v.yaml")
        config = "../configs/v.yaml"
    else:
        (repo / "conf").symlink_to("common")
        config = "../conf/v.yaml"
    (repo / "fixtures" / "f.policytest.yaml").write_text(FIXTURE.format(config=config, top="busy"))
    git(repo, "add", ".")
    git(repo, "commit", "--quiet", "-m", "base")
    monkeypatch.chdir(repo)
    (repo / "common" / "v.yaml").write_text(
        CONF.format(cpu=1)
        .replace("binpack.weight: 10", "binpack.weight: 0")
        .replace("  - name: binpack", "  - name: binpack\n  - name: nodeorder")
    )
    argv = ["diff", "--base", "HEAD", "--fail-on", "ranking-change"]
    if head:
        git(repo, "commit", "--quiet", "-am", "flip the winner behind the link")
        argv[2:3] = ["HEAD~1", "--head", "HEAD"]
    result = run_line(argv)
    assert result.exit_code == 1, result
    assert "used by: no fixture" not in result.stdout
    assert "fixtures/f.policytest.yaml" in result.stdout
    everything = run_line([*argv, "--all"])
    assert "rank and place as before" not in everything.stdout.split("Unchanged")[0]
