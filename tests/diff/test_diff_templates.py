"""A template a change adds is "not checked" in ``diff``, as ``validate``'s PT005 says.

Before, a chart template that parses as YAML (its ConfigMap literal, the conf's values
templated) showed in every ``diff`` format as "status rejected: Volcano cannot load this
file and keeps its previous configuration", while ``validate`` rightly said PT005 "not
checked, render it"; the render command named the diff's temporary copy of the chart.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import DATA, RunLine, committed_repo, git, write_files

CHART = DATA / "realrepos" / "templates" / "volcano-chart"
PARSES = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: volcano-scheduler-configmap
data:
  volcano-scheduler.conf: |
    actions: "{{ .Values.scheduler.actions }}"
    tiers:
    - plugins:
      - name: gang
"""
RENDER = "check what it renders to: `helm template chart --show-only templates/"


@pytest.fixture
def pull_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose chart gains two scheduler templates in its last commit: one
    that parses as YAML, and Volcano's own (``{{- if }}`` lines, not YAML)."""
    repo = committed_repo(tmp_path / "repo", {"chart/Chart.yaml": "name: v\nversion: 1.15.0\n"})
    write_files(
        repo,
        {
            "chart/templates/values-conf.yaml": PARSES,
            "chart/templates/scheduler-configmap.yaml": (
                CHART / "templates" / "scheduler-configmap.yaml"
            ).read_text(encoding="utf-8"),
        },
    )
    git(repo, "add", ".")
    git(repo, "commit", "--quiet", "-m", "the scheduler's templates")
    monkeypatch.chdir(repo)
    return repo


def test_text_says_not_checked_with_the_command_validate_gives(
    run_line: RunLine, pull_request: Path
) -> None:
    result = run_line(["diff", "--base", "HEAD~1", "--head", "HEAD"])
    assert result.exit_code == 0, result
    out = result.stdout
    assert "rejected" not in out and "policytest-diff-" not in out
    assert (
        "status  not checked: a Helm template (`{{ .Values.scheduler.actions }}`), not the "
        f"config the scheduler reads; {RENDER}values-conf.yaml | policytest validate -`" in out
    )
    assert (
        "Config chart/templates/scheduler-configmap.yaml (template) (new file)\n"
        "  status  not checked: a Helm template (`{{- if .Values.custom.scheduler_enable }}`)"
    ) in out
    validated = run_line(["validate", "chart"]).stdout
    assert f"{RENDER}values-conf.yaml | policytest validate -`" in validated


@pytest.mark.parametrize("chosen", ["markdown", "html"])
def test_markdown_and_html_say_not_checked(
    run_line: RunLine, pull_request: Path, chosen: str
) -> None:
    out = run_line(["diff", "--base", "HEAD~1", "--head", "HEAD", "--format", chosen]).stdout
    assert "not checked" in out
    assert "rejected" not in out and "policytest-diff-" not in out  # the temporary copy


def test_json_statuses(run_line: RunLine, pull_request: Path) -> None:
    result = run_line(["diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "json"])
    configs = json.loads(result.stdout)["configs"]
    statuses = {
        config["path"]: (config["kind"], config["settings"][0]["after"]["value"])
        for config in configs
    }
    assert statuses["chart/templates/values-conf.yaml"][0] == "Volcano"
    assert statuses["chart/templates/scheduler-configmap.yaml"][0] == "template"
    assert all(status.startswith("not checked: a Helm template") for _, status in statuses.values())


def test_an_edited_template_is_a_change_not_checked(run_line: RunLine, pull_request: Path) -> None:
    """Before, a template edited on both sides read "Changed in text only (the scheduler
    reads them the same)", which nobody had checked: its status now says it is not."""
    template = pull_request / "chart" / "templates" / "values-conf.yaml"
    template.write_text(template.read_text("utf-8").replace("name: gang", "name: binpack"), "utf-8")
    git(pull_request, "commit", "--quiet", "-am", "binpack")
    out = run_line(["diff", "--base", "HEAD~1", "--head", "HEAD"]).stdout
    assert "text only" not in out
    assert (
        "Config chart/templates/values-conf.yaml (Volcano, ConfigMap "
        "volcano-scheduler-configmap, key volcano-scheduler.conf) (edited, not checked)\n"
        "  status  not checked: a Helm template (`{{ .Values.scheduler.actions }}`)"
    ) in out
    markdown = run_line(["diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "markdown"])
    assert "(edited, not checked)" in markdown.stdout
    listed = run_line(["diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "json"]).stdout
    [config] = json.loads(listed)["configs"]
    assert config["change"] == "changed"
    [status] = config["settings"]
    assert status["before"] == status["after"]
