"""``policytest diff`` tells apart changes that act on a case together (a real repository).

One commit switches the config from MostAllocated to LeastAllocated and moves the
settings file from kubernetesVersion 1.34 to 1.36. The new winner comes from the config
alone: the release alone moves BalancedAllocation's scores but keeps the winner, as
``policytest upgrade`` on the base shows. The review runs each change alone from the
base and says so, in every format; what each change alone does is checked against the
commands that do only that change (``upgrade`` on the base, and ``diff`` with the
release fixed by a flag).
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import pytest

from policytest.core.limits import Limits
from policytest.diff.attribute import Alone, attribute
from policytest.diff.model import compare_fixture
from policytest.harness.runner import CaseResult, rank
from policytest.reporters.diff import words
from policytest.scoring.protocol import NodeScore
from tests.conftest import RunLine, committed_repo, git, write_files
from tests.diff.test_diff import LEAST, MOST

FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {name: pack}
scheduler:
  config: ../configs/kube.yaml
  profile: bin-packing-scheduler
cluster:
  nodes:
  - name: busy
    allocatable: {cpu: "16", memory: 64Gi, pods: "110"}
    used: {cpu: "10", memory: 16Gi}
  - name: empty
    allocatable: {cpu: "16", memory: 64Gi, pods: "110"}
    used: {cpu: "1", memory: 2Gi}
cases:
- name: one pod
  pod: {requests: {cpu: "2", memory: 8Gi}}
  expect: {top: busy}
- name: six pods
  pods: [{requests: {cpu: "2", memory: 8Gi}, count: 6}]
  expect: {placements: {busy: 3, empty: 3}}
"""
CONFIG = "the change to configs/kube.yaml"
RELEASE = "kubernetesVersion 1.34 -> 1.36"
VERDICT = f"{CONFIG} alone moves the winner; {RELEASE} alone keeps the winner"


def config_and_release_commit(path: Path) -> Path:
    """A repository at ``path`` whose last commit changes the config and the release."""
    repo = committed_repo(
        path,
        {
            ".policytest.yaml": 'kubernetesVersion: "1.34"\n',
            "configs/kube.yaml": MOST,
            "fixtures/pack.policytest.yaml": FIXTURE,
        },
    )
    write_files(
        repo, {".policytest.yaml": 'kubernetesVersion: "1.36"\n', "configs/kube.yaml": LEAST}
    )
    git(repo, "commit", "--quiet", "-am", "LeastAllocated, and kube-scheduler 1.36")
    return repo


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return config_and_release_commit(tmp_path_factory.mktemp("attribution"))


@pytest.fixture
def in_history(history: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(history)
    return history


DIFF = ["diff", "--base", "HEAD~1", "--head", "HEAD"]


def _json(run_line: RunLine, argv: list[str]) -> dict[str, Any]:
    result = run_line([*argv, "--format", "json"])
    assert result.exit_code == 0, result
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _cases(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {case["case"]: case for fixture in data["fixtures"] for case in fixture["cases"]}


def _scores(case: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    return {
        node["name"]: (node["score"]["before"], node["score"]["after"]) for node in case["nodes"]
    }


def test_the_config_moves_the_winner_and_the_release_keeps_it(
    run_line: RunLine, in_history: Path
) -> None:
    cases = _cases(_json(run_line, DIFF))
    one = cases["one pod"]
    assert one["winnerChanged"] and one["after"]["winner"] == ["empty"]
    assert one["movedBy"] == [CONFIG]
    config, release = one["causes"]
    assert (config["change"], config["kind"], config["stopped"]) == (CONFIG, "files", None)
    assert (release["change"], release["kind"]) == (RELEASE, "settings")
    assert config["effect"]["winnerChanged"] and config["effect"]["after"]["winner"] == ["empty"]
    assert not release["effect"]["rankingChanged"]
    assert release["effect"]["after"]["winner"] == ["busy"]
    # the release's facts explain what the release alone does, not the new winner
    (fact,) = release["effect"]["why"]
    assert fact.startswith("NodeResourcesBalancedAllocation's formula: 1.34 scores")
    assert one["why"] == [fact] and config["effect"]["why"] == []
    assert cases["six pods"]["movedBy"] == [CONFIG]


def test_each_change_alone_is_what_the_command_for_it_shows(
    run_line: RunLine, in_history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The release alone is ``upgrade`` on the base; the config alone is ``diff`` with
    the release fixed on both sides by the flag."""
    cases = _cases(_json(run_line, DIFF))
    config_alone = _cases(_json(run_line, [*DIFF, "--kubernetes-version", "1.34"]))
    base = tmp_path / "base"
    git(in_history, "worktree", "add", "--quiet", "--detach", str(base), "HEAD~1")
    monkeypatch.chdir(base)
    release_alone = _cases(_json(run_line, ["upgrade", "--to-kubernetes", "1.36"]))
    git(in_history, "worktree", "remove", "--force", str(base))
    for name, case in cases.items():
        config, release = (cause["effect"] for cause in case["causes"])
        assert _scores(config) == _scores(config_alone[name])
        assert config["after"]["placements"] == config_alone[name]["after"]["placements"]
        assert _scores(release) == _scores(release_alone[name])
        assert release["after"]["placements"] == release_alone[name]["after"]["placements"]
    assert _scores(cases["one pod"]["causes"][1]["effect"]) == {
        "busy": (437, 431),
        "empty": (414, 391),
    }


def test_text_says_which_change_moved_the_winner_and_by_how_much(
    run_line: RunLine, in_history: Path
) -> None:
    result = run_line(DIFF)
    assert result.exit_code == 0, result
    lines = result.stdout.splitlines()
    start = lines.index("  one pod: new winner empty (was busy); status passed -> failed")
    assert lines[start + 1 : start + 6] == [
        "    judged as kube-scheduler 1.34 -> 1.36",
        f"    cause: {VERDICT}",
        f"      {CONFIG} alone: new winner empty (was busy); status passed -> failed; "
        "scores: empty 414 -> 480 (+66), busy 437 -> 424 (-13)",
        f"      {RELEASE} alone: scores changed, same ranking; "
        "scores: busy 437 -> 431 (-6), empty 414 -> 391 (-23)",
        "        why: NodeResourcesBalancedAllocation's formula: 1.34 scores the node's balance "
        "with the pod, (1 - std) x 100; 1.36 scores how the pod changes the node's balance, "
        "50 + (50 + S(with pod) - S(without pod)) / 2 (kubernetes PR #135573)",
    ]
    assert "\n    why:" not in result.stdout  # no release fact blamed for the whole case
    # the default plugin 1.35 added is the release's, not the edit's
    assert (
        "DynamicResources weight                (absent) -> 2  "
        f"(from {RELEASE}, not from the edit)" in result.stdout
    )
    assert "scoringStrategy.type  MostAllocated -> LeastAllocated\n" in result.stdout


def test_markdown_html_and_json_say_it_too(run_line: RunLine, in_history: Path) -> None:
    md = html.unescape(run_line([*DIFF, "--format", "markdown"]).stdout)
    shown = VERDICT.replace(" -> ", " → ")
    assert f"| one pod | new winner empty (was busy); status passed → failed ({shown}) |" in md
    assert f"Cause: {shown}." in md
    assert f"- {RELEASE.replace(' -> ', ' → ')} alone: scores changed, same ranking;" in md
    assert "  - Why: NodeResourcesBalancedAllocation's formula" in md
    page = html.unescape(run_line([*DIFF, "--format", "html"]).stdout)
    assert f"Cause: {VERDICT}." in page and "Judged as kube-scheduler 1.34 -> 1.36." in page
    data = _json(run_line, DIFF)
    dynamic = data["configs"][0]["settings"][0]
    assert dynamic["key"].endswith("DynamicResources weight")
    assert dynamic["cause"] == RELEASE
    assert data["configs"][0]["settings"][1]["cause"] is None


def test_a_budget_stops_a_run_alone_and_says_so(run_line: RunLine, in_history: Path) -> None:
    """Each side costs 14 node scores (2 nodes, 1 + 6 pods): 42 pays for the two sides
    and the config alone, not the release alone; the review is still complete (exit 0)."""
    result = run_line([*DIFF, "--limit", "total-node-scores=42"])
    assert result.exit_code == 0, result
    assert (
        f"    cause: {CONFIG} alone moves the winner; {RELEASE} alone: not run, a budget ran out"
        in result.stdout
    )
    assert (
        f"      {RELEASE} alone: not run: the budget total-node-scores has 0 left and this run "
        "needs 14 (raise it with --limit total-node-scores=N)" in result.stdout
    )
    data = _json(run_line, [*DIFF, "--limit", "total-node-scores=42"])
    release = _cases(data)["one pod"]["causes"][1]
    assert release["effect"] is None and "total-node-scores" in release["stopped"]


# --- the verdict's other forms, on synthetic runs ----------------------------------------


def _result(scores: dict[str, float]) -> CaseResult:
    nodes = tuple(NodeScore(n, True, None, s, {"binpack": s}) for n, s in scores.items())
    return CaseResult("f.policytest.yaml", "c", "passed", nodes=nodes, ranking=rank(nodes))


BASE = {"a": 3.0, "b": 2.0}


def _verdict(alone: list[dict[str, float]], both: dict[str, float]) -> str:
    base = [_result(BASE)]
    fixture = compare_fixture("f.policytest.yaml", "r", base, [_result(both)])
    runs = [
        Alone(f"change {i}", "files", lambda scores=scores: [_result(scores)], {})
        for i, scores in enumerate(alone, start=1)
    ]
    (case,) = attribute(fixture, base, runs, Limits()).cases
    return words.attribution(case)


@pytest.mark.parametrize(
    ("alone", "verdict"),
    [
        pytest.param(
            [{"a": 2.5, "b": 2.0}, {"a": 3.0, "b": 2.8}],
            "change 1 and change 2 move the winner only together (neither alone does)",
            id="together",
        ),
        pytest.param(
            [{"a": 1.0, "b": 2.0}, {"a": 3.0, "b": 4.0}],
            "change 1 and change 2 each move the winner alone",
            id="each",
        ),
        pytest.param(
            [{"a": 3.0, "b": 2.0}, {"a": 1.0, "b": 2.0}, {"a": 3.0, "b": 2.5}],
            "change 2 alone moves the winner; change 1 and change 3 alone keep the winner",
            id="one-of-three",
        ),
    ],
)
def test_the_verdict(alone: list[dict[str, float]], verdict: str) -> None:
    assert _verdict(alone, {"a": 1.0, "b": 2.0}) == verdict


def test_one_change_needs_no_attribution() -> None:
    base = [_result(BASE)]
    fixture = compare_fixture("f.policytest.yaml", "r", base, [_result({"a": 1.0, "b": 2.0})])
    ran: list[str] = []
    alone = Alone("only", "files", lambda: ran.append("ran") or [], {})
    assert attribute(fixture, base, [alone], Limits()) == fixture and ran == []
