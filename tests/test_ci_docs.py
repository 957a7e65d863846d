"""The CI files in ``docs/examples/``: valid YAML, quoted verbatim in ``docs/ci.md``, and every
``policytest`` command in them (and in the page's console blocks) accepted by the real parser,
so renaming a flag breaks this test before it breaks someone's pipeline."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from policytest.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CI_PAGE = DOCS / "ci.md"
EXAMPLES = sorted((DOCS / "examples").glob("*.yaml"))
CONTROL = {"|", "||", "&&", ";", "&", "(", ")"}
REDIRECT = {">", ">>", "<", "2>", "&>"}
KEYWORDS = {"if", "then", "else", "elif", "do", "!", "time", "exec"}


def load(path: Path) -> Any:
    return YAML(typ="safe", pure=True).load(path.read_text())


def scripts(node: Any) -> Iterator[str]:
    """Every shell script of a workflow (``run:``) or a GitLab job (``script:`` and friends)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "run" and isinstance(value, str):
                yield value
            elif key in ("script", "before_script", "after_script"):
                yield from (value if isinstance(value, list) else [value])
            else:
                yield from scripts(value)
    elif isinstance(node, list):
        for item in node:
            yield from scripts(item)


def policytest_commands(script: str) -> Iterator[list[str]]:
    """The argument lists of every ``policytest`` command in a shell script."""
    script = re.sub(r"\$\{\{[^}]*\}\}", "EXPR", script.replace("\\\n", " "))
    for line in script.splitlines():
        line = line.strip().removeprefix("$ ")
        if not line or line.startswith("#"):
            continue
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        segment: list[str] = []
        for token in [*lexer, ";"]:
            if token in CONTROL:
                yield from _command(segment)
                segment = []
            else:
                segment.append(token)


def _command(tokens: list[str]) -> Iterator[list[str]]:
    while tokens and (tokens[0] in KEYWORDS or re.match(r"\w+=", tokens[0])):
        tokens = tokens[1:]
    if not tokens or tokens[0] != "policytest":
        return
    args: list[str] = []
    skip = False
    for token in tokens[1:]:
        if skip:
            skip = False
        elif token in REDIRECT:
            skip = True
        else:
            args.append(token)
    yield args


def console_blocks(markdown: str) -> Iterator[str]:
    for match in re.finditer(r"```(?:console|sh|bash|shell)\n(.*?)```", markdown, re.DOTALL):
        yield match.group(1)


def all_commands() -> list[tuple[str, list[str]]]:
    found = [
        (path.name, args)
        for path in EXAMPLES
        for script in scripts(load(path))
        for args in policytest_commands(script)
    ]
    found += [
        ("ci.md", args)
        for block in console_blocks(CI_PAGE.read_text())
        for args in policytest_commands(block)
    ]
    return found


def test_examples_exist() -> None:
    assert {path.name for path in EXAMPLES} >= {
        "github-workflow.yaml",
        "github-comment.yaml",
        "gitlab-ci.yaml",
    }


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.name)
def test_example_is_yaml_and_quoted_verbatim_in_the_page(path: Path) -> None:
    assert isinstance(load(path), dict)
    assert f"```yaml\n{path.read_text()}```" in CI_PAGE.read_text()
    assert f"(examples/{path.name})" in CI_PAGE.read_text()


@pytest.mark.parametrize(
    "where, args",
    [pytest.param(where, args, id=f"{where}: {' '.join(args)}") for where, args in all_commands()],
)
def test_command_parses(where: str, args: list[str]) -> None:
    parser = build_parser()
    try:
        parsed = parser.parse_args(args)
    except SystemExit:
        pytest.fail(f"{where}: `policytest {shlex.join(args)}` does not parse")
    assert parsed.command in {"validate", "run", "diff"}


def test_github_workflow_runs_validate_run_and_diff() -> None:
    workflow = load(DOCS / "examples/github-workflow.yaml")
    assert set(workflow["jobs"]) == {"validate", "test", "diff"}
    commands = {
        shlex.join(args) for script in scripts(workflow) for args in policytest_commands(script)
    }
    assert "validate --format sarif ." in commands
    assert "run --format github fixtures/" in commands
    assert any(c.startswith("diff --base") and "--format markdown" in c for c in commands)
    uses = [step.get("uses", "") for job in workflow["jobs"].values() for step in job["steps"]]
    assert any(use.startswith("github/codeql-action/upload-sarif@") for use in uses)
    assert workflow["jobs"]["validate"]["permissions"]["security-events"] == "write"
    checkout = workflow["jobs"]["diff"]["steps"][0]
    assert checkout["with"]["fetch-depth"] == 0


def test_pull_request_jobs_are_read_only_and_keep_no_credentials() -> None:
    """docs/security.md: the `pull_request` run is read-only, also for forks; the diff
    job uploads the comment for the `workflow_run` workflow to post."""
    workflow = load(DOCS / "examples/github-workflow.yaml")
    assert "pull_request_target" not in workflow["on"]
    assert workflow["permissions"] == {"contents": "read"}
    for name, job in workflow["jobs"].items():
        granted = {k: v for k, v in job.get("permissions", {}).items() if v == "write"}
        assert set(granted) <= {"security-events"}, name
        checkout = job["steps"][0]
        assert checkout["uses"].startswith("actions/checkout@")
        assert checkout["with"]["persist-credentials"] is False, name
    uploads = [
        s for s in workflow["jobs"]["diff"]["steps"] if "upload-artifact" in s.get("uses", "")
    ]
    assert [step["with"]["name"] for step in uploads] == ["policytest-diff"]


def test_comment_workflow_never_checks_out_the_pull_request() -> None:
    comment = load(DOCS / "examples/github-comment.yaml")
    workflow = load(DOCS / "examples/github-workflow.yaml")
    assert comment["on"]["workflow_run"]["workflows"] == [workflow["name"]]
    assert comment["permissions"] == {}
    (job,) = comment["jobs"].values()
    assert job["permissions"] == {"actions": "read", "pull-requests": "write"}
    uses = [step.get("uses", "") for step in job["steps"]]
    assert not [use for use in uses if use.startswith("actions/checkout")]
    assert uses[0].startswith("actions/download-artifact@")
    script = "\n".join(scripts(comment))
    assert "${{" not in script  # event data reaches the shell through env only
    assert "-F body=@comment.md" in script and "HEAD_SHA" in script


def test_gitlab_job_diffs_merge_requests() -> None:
    pipeline = load(DOCS / "examples/gitlab-ci.yaml")
    diff_job = pipeline["policytest-diff"]
    assert diff_job["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    commands = list(policytest_commands("\n".join(diff_job["script"])))
    assert [
        "diff",
        "--base",
        "$CI_MERGE_REQUEST_DIFF_BASE_SHA",
        "--format",
        "markdown",
        "--fail-on",
        "never",
    ] in commands


def test_page_shows_rendered_manifests_piped_to_validate() -> None:
    lines = [line for block in console_blocks(CI_PAGE.read_text()) for line in block.splitlines()]
    for renderer in ("$ helm template ", "$ kustomize build "):
        assert any(
            line.startswith(renderer) and line.endswith("| policytest validate -") for line in lines
        ), renderer


def test_the_parser_catches_a_renamed_flag() -> None:
    [args] = policytest_commands("policytest diff --bsae main > out.md")
    with pytest.raises(SystemExit):
        build_parser().parse_args(args)
