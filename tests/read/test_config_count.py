"""The configs one file may make policytest look for (issue 34, item 5).

A ConfigMap of 30,000 small scheduler confs (2.4 MB, far inside ``yaml-nodes``) made
``validate`` and both sides of ``diff`` compose and check every one: seconds per
thousand. The ``configs`` limit counts each config looked for (a document, a List item,
a ConfigMap value that may hold one) before it is composed; past it, one PT001 names the
limit at the first value refused and the rest of the file is not searched. Each test
runs the real command under a :class:`~tests.workmeter.WorkMeter`: composing and checking
every value would pass its limit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import VOLCANO_CONF, RunLine, committed_repo, git
from tests.read.test_bounded_walks import metered

WORK = 20_000_000
"""Calls a refusal may take (about a tenth is made: the file is read and 1,000 confs are
checked); checking all 30,000 made over 150 million."""
VALUES = 30_000
SMALL_CONF = '"actions: \\"enqueue, allocate\\"\\ntiers:\\n- plugins:\\n  - name: binpack\\n"'
REFUSAL = (
    "PT001 error: more than 1,000 scheduler configs looked for in one file; this one and "
    "the rest are not checked (raise it with --limit configs=N)"
)


def configmap(values: int, conf: str = SMALL_CONF) -> str:
    lines = ["apiVersion: v1", "kind: ConfigMap", "metadata: {name: many}", "data:"]
    lines += [f"  c{index:05d}.conf: {conf}" for index in range(values)]
    return "\n".join(lines) + "\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_configmap_of_30000_confs_is_refused_at_the_first_past_the_limit(
    run_line: RunLine, repo: Path
) -> None:
    (repo / "many.yaml").write_text(configmap(VALUES))
    code, out, calls = metered(run_line, ["validate", "many.yaml"], WORK)
    assert code == 1, out
    # the 1,001st value, on line 4 + 1,001: the findings before it are kept (none here)
    assert f"many.yaml:1005:16: {REFUSAL}" in out.splitlines(), out
    assert calls < WORK


def test_the_limit_is_raised_on_the_command_line(run_line: RunLine, repo: Path) -> None:
    (repo / "some.yaml").write_text(configmap(30, SMALL_CONF.replace("binpack", "binpak")))
    result = run_line(["validate", "--limit", "configs=20", "some.yaml"])
    out = result.stdout
    assert result.exit_code == 1
    assert out.count("unknown plugin") == 20, out  # the first twenty checked
    assert "more than 20 scheduler configs" in out
    assert (
        run_line(["validate", "--limit", "configs=30", "some.yaml"]).stdout.count("unknown plugin")
        == 30
    )


def test_the_documents_of_a_file_and_a_list_share_one_count(run_line: RunLine, repo: Path) -> None:
    documents = "---\n".join([VOLCANO_CONF] * 3)
    (repo / "three.yaml").write_text(documents)
    item = f"- {{kind: ConfigMap, metadata: {{name: c}}, data: {{c.conf: {SMALL_CONF}}}}}\n"
    (repo / "list.yaml").write_text("apiVersion: v1\nkind: List\nitems:\n" + item * 3)
    for name in ("three.yaml", "list.yaml"):
        result = run_line(["validate", "--limit", "configs=2", name])
        code, out = result.exit_code, result.stdout
        assert code == 1, out
        assert out.count("PT001") == 1 and "more than 2 scheduler configs" in out, out


def test_a_value_past_the_node_budget_is_not_composed_again(run_line: RunLine, repo: Path) -> None:
    """The values of one ConfigMap share one ``yaml-nodes`` budget: a Volcano conf refused
    by it was composed again under a budget of its own (three 300,000-node values read)."""
    lines = ["apiVersion: v1", "kind: ConfigMap", "metadata: {name: c}", "data:"]
    for index in range(3):
        lines += [f"  k{index}.conf: |", "    actions: allocate", "    x:"]
        lines += ["    - a"] * 300_000
    (repo / "big.yaml").write_text("\n".join(lines) + "\n")
    out = run_line(["validate", "big.yaml"]).stdout
    assert out.count("VC006") == 1, out  # the first value only
    assert out.count("PT001 error: file has too many nodes") == 2, out


def test_both_sides_of_a_diff_are_bounded(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = committed_repo(tmp_path / "repo", {"many.yaml": configmap(VALUES)})
    (repo / "many.yaml").write_text(configmap(VALUES).replace("enqueue, ", ""))
    git(repo, "commit", "--quiet", "-am", "head")
    monkeypatch.chdir(repo)
    argv = ["diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "json"]
    code, out, calls = metered(run_line, argv, WORK)
    assert calls < WORK
    review = json.loads(out)
    assert code == 0, out  # the same refusal on both sides: nothing introduced
    assert review["summary"]["configsChanged"] >= 1
