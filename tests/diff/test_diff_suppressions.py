"""A pull request cannot silence the review of its own change (issue 34, item 3).

``# policytest: ignore[...]`` added by the change on a line it writes removed the finding
from ``diff``'s review, which then exited 0. In review, a suppression comment counts only
where the base's file has the same line, comment and all; the others silence nothing and
the findings they would hide are shown as suppressed by this change. The base's own
suppressions apply.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.conftest import RunLine, committed_repo, git

CONF = """\
actions: "enqueue, allocate"
tiers:
- plugins:
  - name: binpack
    arguments:
      binpack.weight: 10
      binpack.cpu: {cpu}
      binpack.memory: {memory}
"""
NEGATIVE = "`binpack.cpu: -2` is negative"
IGNORE = "  # policytest: ignore[VB002]"


def review(run_line: RunLine, *argv: str) -> tuple[int, dict[str, object]]:
    result = run_line(["diff", "--base", "HEAD", "--format", "json", *argv])
    return result.exit_code, json.loads(result.stdout)


def messages(found: object) -> list[str]:
    assert isinstance(found, list)
    return [finding["message"] for finding in found]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = committed_repo(tmp_path / "repo", {"configs/v.yaml": CONF.format(cpu=2, memory=1)})
    monkeypatch.chdir(repo)
    return repo


def test_a_suppression_the_change_adds_on_the_line_it_breaks_does_not_silence_it(
    run_line: RunLine, repo: Path
) -> None:
    (repo / "configs" / "v.yaml").write_text(CONF.format(cpu=f"-2{IGNORE}", memory=1))
    assert run_line(["validate", "configs/v.yaml"]).exit_code == 0  # validate honours it
    code, report = review(run_line)
    assert code == 1
    findings = report["findings"]
    assert isinstance(findings, dict)
    assert any(NEGATIVE in message for message in messages(findings["introduced"]))
    assert any(NEGATIVE in message for message in messages(findings["suppressedByChange"]))
    text = run_line(["diff", "--base", "HEAD"]).stdout
    assert "1 finding suppressed by this change" in text
    assert "Suppressed by this change" in text and NEGATIVE in text
    markdown = run_line(["diff", "--base", "HEAD", "--format", "markdown"]).stdout
    assert "Suppressed by this change" in markdown and "1 suppressed by this change" in markdown


def test_the_base_suppressions_apply(run_line: RunLine, repo: Path) -> None:
    (repo / "configs" / "v.yaml").write_text(CONF.format(cpu=f"-2{IGNORE}", memory=1))
    git(repo, "commit", "--quiet", "-am", "suppressed on main")
    (repo / "configs" / "v.yaml").write_text(CONF.format(cpu=f"-2{IGNORE}", memory=3))
    code, report = review(run_line)
    assert code == 0, report
    assert report["findings"] == {"introduced": [], "resolved": [], "suppressedByChange": []}


def test_a_suppression_added_to_a_finding_the_base_has_resolves_nothing(
    run_line: RunLine, repo: Path
) -> None:
    (repo / "configs" / "v.yaml").write_text(CONF.format(cpu=-2, memory=1))
    git(repo, "commit", "--quiet", "-am", "negative on main")
    (repo / "configs" / "v.yaml").write_text(CONF.format(cpu=f"-2{IGNORE}", memory=1))
    code, report = review(run_line)
    assert code == 0  # nothing introduced: the finding is the base's
    findings = report["findings"]
    assert isinstance(findings, dict)
    assert findings["resolved"] == [] and findings["introduced"] == []
    assert any(NEGATIVE in message for message in messages(findings["suppressedByChange"]))


def test_a_copy_of_a_suppressed_line_is_the_change_s_own(run_line: RunLine, repo: Path) -> None:
    """The base suppresses one negative weight; the change writes the same line again in
    a second conf of the ConfigMap: one of the two is the change's."""
    conf = textwrap.indent(CONF.format(cpu=f"-2{IGNORE}", memory=1), "    ")
    head = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: v}\ndata:\n"
    (repo / "configs" / "v.yaml").write_text(f"{head}  a.conf: |\n{conf}")
    git(repo, "commit", "--quiet", "-am", "suppressed on main")
    (repo / "configs" / "v.yaml").write_text(f"{head}  a.conf: |\n{conf}  b.conf: |\n{conf}")
    assert run_line(["validate", "configs/v.yaml"]).exit_code == 0
    code, report = review(run_line)
    assert code == 1
    findings = report["findings"]
    assert isinstance(findings, dict)
    assert len(messages(findings["suppressedByChange"])) == 1, findings
