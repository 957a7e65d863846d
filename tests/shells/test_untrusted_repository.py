"""What a pull request can commit besides files: submodules, paths no checkout can hold,
directories that look like virtualenvs, merge keys; and what ``diff`` must not do to
the repository (rewrite ``.git/index``). Through the CLI, on real git repositories."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import RunLine, committed_repo, git
from tests.shells.test_untrusted_settings import REFUSED_CONFIG as BROKEN_KUBE

CONF = """\
actions: "enqueue, allocate"
tiers:
- plugins:
  - name: binpack
    arguments: {{binpack.weight: {weight}}}
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = committed_repo(tmp_path / "repo", {"configs/v.yaml": CONF.format(weight=10)})
    monkeypatch.chdir(path)
    return path


def commit(repo: Path, message: str = "change") -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", message)


def test_a_submodule_at_a_yaml_path_is_not_a_file(
    run_line: RunLine, repo: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "--quiet")
    (other / "x").write_text("x\n")
    commit(other, "other")
    git(
        repo,
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "--quiet",
        str(other),
        "configs/sub.yaml",
    )
    (repo / "configs" / "v.yaml").write_text(CONF.format(weight=3))
    commit(repo)
    for argv in (["diff", "--base", "HEAD~1", "--head", "HEAD"], ["diff", "--base", "HEAD~1"]):
        result = run_line(argv)
        assert result.exit_code == 0, result
        assert "binpack.weight  10 -> 3" in result.stdout


def test_a_path_component_no_checkout_can_hold_is_skipped(run_line: RunLine, repo: Path) -> None:
    blob = git(repo, "hash-object", "-w", "configs/v.yaml")
    long_name = "configs/" + "c" * 300 + ".yaml"
    git(repo, "update-index", "--add", "--cacheinfo", f"100644,{blob},{long_name}")
    git(repo, "commit", "--quiet", "-m", "long")
    result = run_line(["diff", "--base", "HEAD~1", "--head", "HEAD"])
    assert result.exit_code == 0, result


def test_diff_never_rewrites_the_index(run_line: RunLine, repo: Path) -> None:
    index = repo / ".git" / "index"
    os.utime(repo / "configs" / "v.yaml")  # stat-dirty: `git diff` would refresh the index
    before = index.stat().st_mtime_ns, index.read_bytes()
    assert run_line(["diff", "--base", "HEAD"]).exit_code == 0
    assert (index.stat().st_mtime_ns, index.read_bytes()) == before


@pytest.mark.parametrize(
    ("directory", "pyvenv"), [("env", None), ("venv", None), ("deploy", ""), ("v", "home = /x\n")]
)
def test_a_directory_that_only_looks_like_a_virtualenv_is_walked(
    run_line: RunLine, repo: Path, directory: str, pyvenv: str | None
) -> None:
    (repo / directory).mkdir()
    (repo / directory / "k.yaml").write_text(BROKEN_KUBE)
    if pyvenv is not None:
        (repo / directory / "pyvenv.cfg").write_text(pyvenv)
    result = run_line(["validate", "."])
    assert result.exit_code == 1, result
    assert "KS010" in result.stdout


def test_a_real_virtualenv_is_skipped_and_verbose_says_so(run_line: RunLine, repo: Path) -> None:
    (repo / "py" / "bin").mkdir(parents=True)
    (repo / "py" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (repo / "py" / "k.yaml").write_text(BROKEN_KUBE)
    result = run_line(["validate", "--verbose", "."])
    assert result.exit_code == 0, result
    assert "skipped (a Python virtualenv, not walked): ./py" in result.stderr


@pytest.mark.parametrize(
    "text",
    [
        "<<: {apiVersion: kubescheduler.config.k8s.io/v1, kind: KubeSchedulerConfiguration}\n"
        + BROKEN_KUBE.split("\n", 2)[2],
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s}\ndata:\n  <<: {scheduler.yaml: "
        + repr(BROKEN_KUBE).replace("'", '"')
        + "}\n",
    ],
    ids=["top", "configmap-data"],
)
def test_a_merge_key_hides_no_config(run_line: RunLine, repo: Path, text: str) -> None:
    (repo / "configs" / "k.yaml").write_text(text)
    result = run_line(["validate", "configs/k.yaml"])
    assert result.exit_code == 1, result
    assert "KS010" in result.stdout
    commit(repo)
    assert "KS010" in run_line(["diff", "--base", "HEAD~1", "--head", "HEAD"]).stdout
