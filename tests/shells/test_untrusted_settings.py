"""The settings file is pull-request content too (issue round two, item 1): a blank rule
id cannot silence every rule, a file above the repository or one that is not a regular
file is never read in silence, and a huge one is cheap to refuse."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import RunLine, committed_repo, git

REFUSED_CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: Bogus
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository holding a config kube-scheduler refuses (KS010); cwd inside."""
    path = committed_repo(tmp_path / "repo", {"configs/k.yaml": REFUSED_CONFIG}, commit=False)
    monkeypatch.chdir(path)
    return path


@pytest.mark.parametrize("blank", [" ", "\t", "\u00a0", "\u3000", "  \t "])
@pytest.mark.parametrize("key", ["ignore", "select"])
def test_a_blank_rule_id_is_refused(run_line: RunLine, repo: Path, key: str, blank: str) -> None:
    (repo / ".policytest.yaml").write_text(f'{key}: [VB, "{blank}"]\n', encoding="utf-8")
    result = run_line(["validate", "configs"])
    assert result.exit_code == 2
    assert f"key `{key}[1]`: is blank" in result.stderr
    assert "All clean" not in result.stdout


def test_a_blank_rule_id_is_refused_on_the_command_line(run_line: RunLine, repo: Path) -> None:
    assert (
        run_line(["validate", "--ignore", "\u3000", "configs"]).exit_code == 1
    )  # dropped, not all


def test_settings_above_the_repository_are_not_read(run_line: RunLine, repo: Path) -> None:
    (repo.parent / ".policytest.yaml").write_text("ignore: [KS]\n")
    result = run_line(["validate", "configs"])
    assert result.exit_code == 1
    assert "KS010" in result.stdout
    (repo / "configs" / ".policytest.yaml").write_text("ignore: [KS]\n")
    os.chdir(repo / "configs")
    assert run_line(["validate", "k.yaml"]).exit_code == 0  # inside the repository: read


@pytest.mark.parametrize("kind", ["fifo", "stdin", "outside"])
def test_a_settings_file_that_is_not_a_regular_file_inside_is_an_error(
    run_line: RunLine, repo: Path, tmp_path: Path, kind: str
) -> None:
    settings = repo / ".policytest.yaml"
    if kind == "fifo":
        os.mkfifo(settings)
    elif kind == "stdin":
        settings.symlink_to("/dev/stdin")
    else:
        (tmp_path / "elsewhere.yaml").write_text("ignore: [KS]\n")
        settings.symlink_to(tmp_path / "elsewhere.yaml")
    result = run_line(["validate", "configs"])
    assert result.exit_code == 2
    assert result.stderr.startswith("policytest: error: settings file .policytest.yaml:1:")
    assert ("FIFO" if kind == "fifo" else "outside the root") in result.stderr


@pytest.mark.parametrize(
    ("entries", "error"),
    [(500_000, "larger than 262,144 bytes"), (40_000, "more than 20,000 YAML nodes")],
)
def test_a_huge_settings_file_is_refused_cheaply(
    run_line: RunLine, repo: Path, entries: int, error: str
) -> None:
    (repo / ".policytest.yaml").write_text("ignore:\n" + "- VB\n" * entries)
    result = run_line(["validate", "configs"])
    assert result.exit_code == 2
    assert error in result.stderr
    assert "--limit" not in result.stderr  # no flag raises a settings file's limits


def test_a_long_list_of_known_ids_is_checked_once_each(run_line: RunLine, repo: Path) -> None:
    (repo / ".policytest.yaml").write_text("ignore:\n" + "- VB\n" * 9_000 + "- KS010\n")
    assert run_line(["validate", "configs"]).exit_code == 0


def test_pytest_reads_no_settings_above_the_repository(pytester: pytest.Pytester) -> None:
    (pytester.path.parent / ".policytest.yaml").write_text("ignore: [\n")  # malformed
    git(pytester.path, "init", "--quiet")
    pytester.makefile(".yaml", **{"k.policytest": "x: 1\n"})
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    assert "settings file" not in result.stdout.str()
