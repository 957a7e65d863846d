"""A hostile pull request, through the real entry points (CLI, a real git repository with
committed symlinks, the pytest plugin): each class of attack in the order of
docs/security.md.

1. Markdown and HTML injection into the pull-request comment;
2. workflow-command and terminal injection in text output;
3. reading outside the repository, or blocking on a FIFO or a device;
4. one bad input losing the other files' findings (NUL in a path, non-UTF-8 names);
5. a config skipped as clean (a ConfigMap value Kubernetes refuses, ``binaryData``);
6. bounds and exit codes (limits, huge lists, ``--update`` on fixtures it cannot write).
"""

from __future__ import annotations

import base64
import json
import os
import re
import stat
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from tests.conftest import RunLine, git

markdown_it = pytest.importorskip("markdown_it")

SECRET = "s3cr3t-profile-7f1c9b"
CONF = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: binpack
    arguments:
      binpack.weight: {weight}
      binpack.cpu: 1
"""
FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {{name: hostile}}
scheduler: {{config: {config}}}
cluster:
  nodes:
  - {{name: {node_a}, allocatable: {{cpu: "8", pods: "110"}}, used: {{cpu: "6"}}}}
  - {{name: node-b, allocatable: {{cpu: "8", pods: "110"}}}}
cases:
- name: {case}
  pod: {{requests: {{cpu: "1"}}}}
  expect: {{ranking: [{node_a}, node-b]}}
"""
HEADING = "\n\n## All clear: no changes\n\n"
COMMAND = "\n::error file=README.md,line=1::forged"
IMAGE = "![k](https://evil.example/k.png)"


def quoted(value: str) -> str:
    """``value`` as a YAML double-quoted scalar (JSON is YAML)."""
    return json.dumps(value)


def fixture(
    config: str = "../configs/volcano.yaml", node_a: str = "node-a", case: str = "c"
) -> str:
    return FIXTURE.format(config=quoted(config), node_a=quoted(node_a), case=quoted(case))


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository with one config and one fixture committed; the working
    directory is the repository."""
    path = tmp_path / "repo"
    (path / "configs").mkdir(parents=True)
    (path / "fixtures").mkdir()
    git(path, "init", "--quiet", "--initial-branch=main")
    (path / "configs" / "volcano.yaml").write_text(CONF.format(weight=1))
    (path / "fixtures" / "f.policytest.yaml").write_text(fixture())
    git(path, "add", ".")
    git(path, "commit", "--quiet", "-m", "base")
    monkeypatch.chdir(path)
    return path


def commit(repo: Path, message: str = "change") -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", message)


def no_foreign_line(output: str) -> None:
    """No line a reader (GitHub's runner, a terminal) would take as a command."""
    assert "\x1b" not in output
    for line in output.split("\n"):
        assert not line.lstrip().startswith(("::", "##[")), line


# --- 1. Markdown ------------------------------------------------------------------------


def test_pr_comment_shows_hostile_names_as_text(run_line: RunLine, repo: Path) -> None:
    (repo / "configs" / "volcano.yaml").write_text(
        CONF.format(weight=10) + f"      {quoted(IMAGE)}: 3\n"
    )
    (repo / "fixtures" / "f.policytest.yaml").write_text(
        fixture(node_a=f"a{HEADING}@octocat", case=f"@octocat {IMAGE} <img src=x>")
    )
    result = run_line(["diff", "--base", "HEAD", "--format", "markdown", "--fail-on", "never"])
    assert result.exit_code == 0, result
    renderer = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table")
    tokens = renderer.parse(result.stdout)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert headings == ["policytest diff"]
    inline = [c for t in tokens if t.type == "inline" for c in t.children or []]
    assert not [c for c in inline if c.type in ("image", "link_open")]
    assert {c.content for c in inline if c.type == "html_inline"} <= {"<code>", "</code>"}
    html = renderer.render(result.stdout)
    assert "<img" not in html and "@octocat" not in html  # a word joiner follows the @
    assert "@\u2060octocat" in html


# --- 2. text output ---------------------------------------------------------------------


def test_diff_text_and_run_text_start_no_workflow_command(run_line: RunLine, repo: Path) -> None:
    (repo / "configs" / "volcano.yaml").write_text(
        CONF.format(weight=10) + f"      {quoted(COMMAND + chr(27) + '[31m')}: 3\n"
    )
    (repo / "fixtures" / "f.policytest.yaml").write_text(
        fixture(node_a=f"a{COMMAND}", case=f"c{COMMAND}\x1b]0;title\x07")
    )
    for argv in (
        ["diff", "--base", "HEAD", "--fail-on", "never"],
        ["run", "--format", "text", "fixtures"],
        ["validate", "--format", "text", "."],
        ["explain", "fixtures/f.policytest.yaml"],
    ):
        result = run_line(argv)
        assert result.exit_code in (0, 1), result
        no_foreign_line(result.stdout + result.stderr)
        assert "\\n::error" in result.stdout  # shown, escaped


def test_pytest_report_starts_no_workflow_command(pytester: pytest.Pytester) -> None:
    (pytester.path / ".git").mkdir()
    pytester.mkdir("configs")
    (pytester.path / "configs" / "volcano.yaml").write_text(CONF.format(weight=1))
    text = fixture("configs/volcano.yaml", node_a=f"a{COMMAND}", case=f"c{COMMAND}\x1b[2J")
    wrong = text.replace(", node-b]", "]").replace("ranking: [", "ranking: [node-b, ")
    (pytester.path / "f.policytest.yaml").write_text(wrong)
    result = pytester.runpytest("-rA")
    result.assert_outcomes(failed=1, passed=1)  # the case; its config's item passes
    no_foreign_line(result.stdout.str())
    assert "Traceback" not in result.stdout.str()


# --- 3. reading outside the repository --------------------------------------------------


def test_committed_symlinks_out_of_the_repository_are_never_read(
    run_line: RunLine, repo: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        f"profiles:\n- schedulerName: {SECRET}\n"
    )
    (repo / "configs" / "volcano.yaml").unlink()
    (repo / "configs" / "volcano.yaml").symlink_to(secret)  # the config a fixture uses
    (repo / "configs" / "extra.yaml").symlink_to(secret)  # and one nobody uses
    commit(repo, "symlinks")
    git(repo, "ls-files", "-s", "configs/volcano.yaml").startswith("120000")  # a link
    for argv in (
        ["diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "markdown"],
        ["diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "json"],
        ["validate", "--format", "json", "."],
        ["run", "--format", "json", "fixtures"],
    ):
        result = run_line(argv)
        assert result.exit_code == 1, result
        assert SECRET not in result.stdout + result.stderr, argv
    findings = json.loads(run_line(["validate", "--format", "json", "."]).stdout)["findings"]
    refused = {f["path"] for f in findings if "resolves outside the root" in f["message"]}
    assert refused == {"./configs/volcano.yaml", "./configs/extra.yaml"}


def test_links_to_devices_and_fifos_never_block(repo: Path) -> None:
    (repo / "configs" / "stdin.yaml").symlink_to("/dev/stdin")
    (repo / "configs" / "zero.yaml").symlink_to("/dev/zero")
    commit(repo, "devices")
    os.mkfifo(repo / "configs" / "fifo.yaml")  # in the tree, untracked
    (repo / "configs" / "to-fifo.yaml").symlink_to("fifo.yaml")  # inside the root
    command = [sys.executable, "-m", "policytest"]
    for argv in (["validate", "--format", "json", "."], ["diff", "--base", "HEAD~1"]):
        # stdin stays open and silent: a read of it would wait for ever
        done = subprocess.run(
            [*command, *argv], cwd=repo, stdin=subprocess.PIPE, capture_output=True, timeout=60
        )
        assert done.returncode in (0, 1), done.stderr
        assert b"Traceback" not in done.stderr
    done = subprocess.run(
        [*command, "validate", "--format", "json", "."],
        cwd=repo,
        stdin=subprocess.PIPE,
        capture_output=True,
        timeout=60,
    )
    messages = {f["path"]: f["message"] for f in json.loads(done.stdout)["findings"]}
    assert "resolves outside the root" in messages["./configs/stdin.yaml"]
    assert "resolves outside the root" in messages["./configs/zero.yaml"]
    assert "is a FIFO, so it is not read" in messages["./configs/fifo.yaml"]
    assert "is a FIFO, so it is not read" in messages["./configs/to-fifo.yaml"]


def test_a_fixture_config_linked_to_dev_stdin_is_a_finding(run_line: RunLine, repo: Path) -> None:
    (repo / "fixtures" / "f.policytest.yaml").write_text(fixture("/dev/stdin"))
    result = run_line(["run", "--format", "json", "fixtures"])
    assert result.exit_code == 1
    (case,) = json.loads(result.stdout)["results"]
    assert case["status"] == "error" and "is outside the root" in case["message"]


# --- 4. one bad input, every other finding ----------------------------------------------


def test_a_nul_in_a_config_path_loses_no_other_finding(run_line: RunLine, repo: Path) -> None:
    (repo / "fixtures" / "nul.policytest.yaml").write_text(fixture("a\0b.yaml"))
    (repo / "configs" / "volcano.yaml").write_text(CONF.format(weight=1).replace("1\n", "-5\n"))
    result = run_line(["validate", "--format", "sarif", "."])
    assert result.exit_code == 1, result
    results = json.loads(result.stdout)["runs"][0]["results"]
    rules = sorted(r["ruleId"] for r in results)
    assert "PT003" in rules and "VB002" in rules  # the NUL, and the real error elsewhere
    nul = next(r for r in results if r["ruleId"] == "PT003")
    assert "NUL byte" in nul["message"]["text"]
    commit(repo)
    diff = run_line(["diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "markdown"])
    assert diff.exit_code == 1, diff
    run = run_line(["run", "--format", "json", "fixtures"])
    assert run.exit_code == 1
    results = {r["file"]: r for r in json.loads(run.stdout)["results"]}
    assert "NUL byte" in results["fixtures/nul.policytest.yaml"]["message"]
    other = results["fixtures/f.policytest.yaml"]  # the other file still runs, as loaded
    assert "VB002" in [f["rule"] for f in other["findings"]]


def test_non_utf8_names_and_control_characters_in_sarif_and_junit(
    run_line: RunLine, repo: Path
) -> None:
    name = os.fsdecode(b"bad\xff-\x1b.policytest.yaml")
    Path(repo / "fixtures" / name).write_text(fixture(case="c\x01\x1b[31m\x0b"))
    Path(repo / "configs" / os.fsdecode(b"v\xfe.yaml")).write_text("actions: [allocate]\n")
    sarif = run_line(["validate", "--format", "sarif", "."])
    assert sarif.exit_code == 1, sarif
    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in json.loads(sarif.stdout)["runs"][0]["results"]
    ]
    assert "configs/v%FE.yaml" in uris
    junit = run_line(["run", "--format", "junit", "fixtures"])
    tree = ElementTree.fromstring(junit.stdout.encode("utf-8"))
    names = {case.get("name") for case in tree.iter("testcase")}
    assert "c\\x01\\x1b[31m\\x0b" in names


# --- 5. skipped as clean ----------------------------------------------------------------

CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: volcano-scheduler-configmap}
data:
  volcano-scheduler.conf: |
    actions: "enqueue, allocate, backfill"
    tiers:
    - plugins:
      - name: binpack
"""


def test_a_conf_without_its_pipe_is_reported_and_not_removed(run_line: RunLine, repo: Path) -> None:
    (repo / "configs" / "cm.yaml").write_text(CONFIGMAP)
    commit(repo, "configmap")
    (repo / "configs" / "cm.yaml").write_text(CONFIGMAP.replace("conf: |", "conf:"))
    result = run_line(["validate", "configs/cm.yaml"])
    assert result.exit_code == 1
    assert re.search(r"cm.yaml:6:5: PT004 error: .*is a mapping, not a string", result.stdout)
    data = json.loads(run_line(["diff", "--base", "HEAD", "--format", "json"]).stdout)
    (config,) = [c for c in data["configs"] if c["path"] == "configs/cm.yaml"]
    assert config["change"] == "changed"
    assert "rejected" in json.dumps(config["settings"])
    assert [f["rule"] for f in data["findings"]["introduced"]] == ["PT004"]


def test_binary_data_is_checked_as_what_it_decodes_to(run_line: RunLine, repo: Path) -> None:
    conf = CONF.format(weight=1).replace("binpack.cpu: 1", "binpack.cpu: -5")
    encoded = base64.b64encode(conf.encode()).decode()
    (repo / "configs" / "binary.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: v}\n"
        f"binaryData:\n  volcano-scheduler.conf: {encoded}\n  other.conf: '!!!'\n"
    )
    result = run_line(["validate", "configs/binary.yaml"])
    assert result.exit_code == 1
    assert "VB002" in result.stdout  # the negative weight inside the base64
    assert "PT004" in result.stdout and "not valid base64" in result.stdout


# --- 6. bounds and exits ----------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["--limit", "depth=100000"],
        ["--limit", "file-bytes=99999999999999999999999"],
        ["--max-file-bytes", "99999999999999999999999"],
    ],
)
def test_unsafe_limits_are_usage_errors(run_line: RunLine, repo: Path, argv: list[str]) -> None:
    result = run_line(["validate", *argv, "."])
    assert result.exit_code == 2
    assert "at most" in result.stderr


def test_the_deepest_allowed_nesting_does_not_crash(run_line: RunLine, repo: Path) -> None:
    deep = "[" * 299 + "]" * 299
    (repo / "configs" / "volcano.yaml").write_text(
        CONF.format(weight=1) + f"      binpack.resources.x: {deep}\n"
    )
    result = run_line(["validate", "--limit", "depth=300", "."])
    assert result.exit_code == 1, result


def test_a_hundred_thousand_duplicate_plugins_give_a_short_message(repo: Path) -> None:
    """In a process of its own: reading the 1.9 MB conf raised this worker's peak by
    about 200 MB for the rest of the suite."""
    entries = "".join("  - name: binpack\n" for _ in range(100_000))
    (repo / "configs" / "volcano-scheduler.conf").write_text(
        'actions: "allocate"\ntiers:\n- plugins:\n' + entries
    )
    argv = ["validate", "--format", "json", "configs/volcano-scheduler.conf"]
    result = subprocess.run(
        [sys.executable, "-m", "policytest", *argv],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    (finding,) = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "VC005"]
    assert len(finding["message"]) < 1_000
    assert "… and 99,980 more" in finding["message"]


WRONG = fixture().replace('ranking: ["node-a", node-b]', 'ranking: [node-b, "node-a"]')


def test_update_refuses_a_read_only_fixture(run_line: RunLine, repo: Path) -> None:
    path = repo / "fixtures" / "f.policytest.yaml"
    path.write_text(WRONG)
    path.chmod(0o444)
    result = run_line(["run", "--update", "fixtures"])
    assert result.exit_code == 1
    assert path.read_text() == WRONG and stat.S_IMODE(path.stat().st_mode) == 0o444
    (error,) = result.stderr.splitlines()
    assert "is read-only (mode 0444)" in error and "Traceback" not in result.stderr


def test_update_that_cannot_write_is_one_line(
    run_line: RunLine, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from policytest.harness import golden

    def refuse(path: str, data: bytes) -> None:
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(golden, "write_atomically", refuse)
    (repo / "fixtures" / "f.policytest.yaml").write_text(WRONG)
    result = run_line(["run", "--update", "fixtures"])
    assert result.exit_code == 1
    (error,) = result.stderr.splitlines()
    assert error.endswith("cannot update fixtures/f.policytest.yaml: Permission denied")


def test_pytest_update_of_a_read_only_fixture_is_a_clean_failure(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / ".git").mkdir()
    pytester.mkdir("configs")
    (pytester.path / "configs" / "volcano.yaml").write_text(CONF.format(weight=1))
    path = pytester.path / "f.policytest.yaml"
    path.write_text(WRONG.replace("../configs/", "configs/"))
    path.chmod(0o444)
    result = pytester.runpytest("--policytest-update")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*not updating*read-only (mode 0444)*"])
    assert "Traceback" not in result.stdout.str()
    assert path.read_text() == WRONG.replace("../configs/", "configs/")


def test_a_fixture_using_a_conf_without_its_pipe_errors_with_the_reason(
    run_line: RunLine, repo: Path
) -> None:
    (repo / "configs" / "volcano.yaml").write_text(CONFIGMAP.replace("conf: |", "conf:"))
    result = run_line(["run", "--format", "json", "fixtures"])
    assert result.exit_code == 1
    (case,) = json.loads(result.stdout)["results"]
    assert case["status"] == "error" and "PT004" in case["message"]
