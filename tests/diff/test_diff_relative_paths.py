"""A review never names where the checkout lies (issue 34, item 5): the pull-request
comment and ``diff``'s errors name paths relative to the repository, as a command run at
its top does (a CI runner's ``/home/runner/work/...`` is nobody's business)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import VOLCANO_CONF, RunLine, committed_repo, git

FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
scheduler: {{config: {config}}}
cluster:
  nodes: [{{name: a, allocatable: {{cpu: "8", pods: "110"}}}}]
cases:
- name: one
  pod: {{requests: {{cpu: 1m}}}}
  expect: {{top: a}}
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fixture whose head names a config outside the repository."""
    files = {
        "configs/volcano.yaml": VOLCANO_CONF,
        "fixtures/f.policytest.yaml": FIXTURE.format(config="../configs/volcano.yaml"),
    }
    repo = committed_repo(tmp_path / "checkout", files)
    (tmp_path / "outside.yaml").write_text(VOLCANO_CONF)
    (repo / "fixtures" / "f.policytest.yaml").write_text(
        FIXTURE.format(config="../../outside.yaml")
    )
    git(repo, "commit", "--quiet", "-am", "head")
    monkeypatch.chdir(repo)
    return repo


@pytest.mark.parametrize("output", ["markdown", "text", "json", "html"])
def test_the_review_names_no_directory_of_the_checkout(
    run_line: RunLine, repo: Path, output: str
) -> None:
    result = run_line(["diff", "--base", "HEAD~1", "--head", "HEAD", "--format", output])
    shown = result.stdout + result.stderr
    assert "outside.yaml" in shown and "outside the root" in shown, shown
    assert str(repo) not in shown and str(repo.parent) not in shown, shown
    assert "set by --root" not in shown  # the revision's copy is the root, not the flag


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--base", "no-such-branch"], "no branch, tag or commit of that name in the repository"),
        (["../.."], "../.. is outside the repository"),
    ],
)
def test_errors_name_no_directory_of_the_checkout(
    run_line: RunLine, repo: Path, argv: list[str], message: str
) -> None:
    result = run_line(["diff", *argv])
    assert result.exit_code == 2
    assert message in result.stderr, result
    assert str(repo) not in result.stderr, result
