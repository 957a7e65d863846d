"""``policytest diff`` between git revisions, on a real repository with real history.

The repository (built once per module) holds the bundled GPU sequence fixture and the
kube-scheduler LeastAllocated fixture with their configs. On ``main`` Volcano runs with
``binpack.weight: 1`` and kube-scheduler with LeastAllocated; the ``feature`` branch
(checked out) raises the weight to 10, switches to MostAllocated, removes one config and
adds another. Tests that edit the working tree work on a clone.
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from policytest.cli import main
from tests.conftest import RunLine, git, write_files

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "fixtures"
WEIGHT_1 = (BUNDLED / "configs/volcano-nodeorder-binpack-weight-1.yaml").read_text()
WEIGHT_10 = (BUNDLED / "configs/volcano-nodeorder-binpack-weight-10.yaml").read_text()
LEAST = (BUNDLED / "configs/kube-least-allocated.yaml").read_text()
MOST = (BUNDLED / "configs/kube-most-allocated.yaml").read_text()


def bundled_fixture(name: str, config: str) -> str:
    """A bundled fixture whose ``scheduler.config`` points at ``config`` instead."""
    text = (BUNDLED / name).read_text()
    start = text.index("  config: ") + len("  config: ")
    end = text.index("\n", start)
    return text[:start] + config + text[end:]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("history")
    git(path, "init", "--quiet", "--initial-branch=main")
    write_files(
        path,
        {
            "README.md": "scheduler configs\n",
            "deploy/volcano.yaml": WEIGHT_1,
            "deploy/kube.yaml": LEAST,
            "deploy/retired.yaml": (
                BUNDLED / "configs/volcano-binpack-cpu-weighted.yaml"
            ).read_text(),
            "deploy/memory.yaml": (
                BUNDLED / "configs/volcano-binpack-memory-weighted.yaml"
            ).read_text(),
            "tests/gpu.policytest.yaml": bundled_fixture(
                "volcano-gpu-sequence-binpack-weight-10.policytest.yaml", "../deploy/volcano.yaml"
            ),
            "tests/kube.policytest.yaml": bundled_fixture(
                "kube-least-allocated.policytest.yaml", "../deploy/kube.yaml"
            ),
            "tests/memory.policytest.yaml": bundled_fixture(
                "volcano-three-nodes-memory-weighted.policytest.yaml", "../deploy/memory.yaml"
            ),
        },
    )
    git(path, "add", ".")
    git(path, "commit", "--quiet", "-m", "binpack.weight 1, LeastAllocated")
    git(path, "checkout", "--quiet", "-b", "feature")
    write_files(
        path,
        {
            "deploy/volcano.yaml": WEIGHT_10,
            "deploy/kube.yaml": MOST,
            "deploy/spare.yaml": (BUNDLED / "configs/volcano-binpack-gpu.yaml").read_text(),
        },
    )
    git(path, "rm", "--quiet", "deploy/retired.yaml")
    git(path, "add", ".")
    git(path, "commit", "--quiet", "-m", "binpack.weight 10, MostAllocated")
    return path


@pytest.fixture
def in_repo(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(repo)
    return repo


@pytest.fixture
def clone(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A clone of ``repo`` on ``feature``, whose working tree a test may edit."""
    path = tmp_path / "clone"
    git(tmp_path, "clone", "--quiet", str(repo), str(path))
    monkeypatch.chdir(path)
    yield path


@pytest.fixture(scope="module")
def feature_diff(repo: Path) -> dict[str, str]:
    """``policytest diff --base main`` in every format, run once through ``main``."""
    outputs = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(repo)
        for name in ("text", "markdown", "json"):
            with contextlib.redirect_stdout(io.StringIO()) as out:
                assert main(["diff", "--base", "main", "--format", name]) == 0
            outputs[name] = out.getvalue()
    return outputs


def diff_json(run_line: RunLine, *args: str) -> dict[str, Any]:
    result = run_line(["diff", "--format", "json", *args])
    assert result.exit_code == 0, result
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def by_path(items: list[dict[str, Any]], path: str) -> dict[str, Any]:
    return next(item for item in items if item["path"] == path)


def by_case(fixture: dict[str, Any], name: str) -> dict[str, Any]:
    return next(case for case in fixture["cases"] if case["case"] == name)


class TestText:
    def test_new_winner_placement_and_effective_weights(self, feature_diff: dict[str, str]) -> None:
        out = feature_diff["text"]
        assert out.startswith("policytest diff: main (")
        assert " -> working tree\n" in out.splitlines()[0] + "\n"
        assert "Config deploy/volcano.yaml (Volcano, ConfigMap volcano-scheduler-configmap" in out
        assert "  binpack.weight  1 -> 10\n" in out
        assert (
            "profile bin-packing-scheduler: NodeResourcesFit scoringStrategy.type  "
            "LeastAllocated -> MostAllocated" in out
        )
        assert (
            "the busiest GPU node wins: new winner gpu-1 (was a tie of gpu-1, gpu-2, gpu-3)" in out
        )
        assert (
            "placements {gpu-1: 1, gpu-2: 1, gpu-3: 1, gpu-4: 1} -> {gpu-1: 2, gpu-2: 2}; "
            "nodes used 4 -> 2" in out
        )
        assert "one pod: new winner node-1 (was node-3)" in out
        assert "placements {node-2: 2, node-3: 4} -> {node-1: 3, node-2: 3}" in out
        assert "    gpu-3  1 -> 4  487.75 -> 656.50   +168.75" in out
        assert "Findings resolved (1):" in out and "VB012 warning" in out
        assert "Unchanged: 1 fixture not run (nothing they use changed)." in out

    def test_added_and_removed_configs(self, feature_diff: dict[str, str]) -> None:
        out = feature_diff["text"]
        assert "Config deploy/spare.yaml (Volcano, ConfigMap volcano-scheduler-configmap, " in out
        assert "key volcano-scheduler.conf) (new file)\n  status" in out
        assert "Config deploy/retired.yaml (Volcano, ConfigMap" in out
        assert "(removed)\n" in out
        assert "  used by: no fixture" in out

    def test_all_runs_unchanged_fixtures_and_summarises_them(
        self, run_line: RunLine, in_repo: Path
    ) -> None:
        out = run_line(["diff", "--base", "main", "--all"]).stdout
        assert "Unchanged: 1 fixture (1 case) rank and place as before." in out
        assert "tests/memory.policytest.yaml" not in out

    def test_paths_limit_the_fixtures(self, run_line: RunLine, in_repo: Path) -> None:
        data = diff_json(run_line, "--base", "main", "tests/kube.policytest.yaml")
        assert [fixture["path"] for fixture in data["fixtures"]] == ["tests/kube.policytest.yaml"]
        # the config the fixture uses is shown although it lies outside PATH
        assert {config["path"] for config in data["configs"]} == {"deploy/kube.yaml"}

    def test_nothing_changed(self, run_line: RunLine, in_repo: Path) -> None:
        result = run_line(["diff", "--base", "HEAD", "--head", "HEAD"])
        assert result.exit_code == 0, result
        assert result.stdout.splitlines()[1] == (
            "No change in scheduling: 3 fixtures not run (nothing they use changed)."
        )
        assert len(result.stdout.splitlines()) == 2


class TestRevisions:
    @pytest.mark.parametrize(
        "base",
        [
            pytest.param("main", id="branch"),
            pytest.param("HEAD~1", id="HEAD~1"),
            pytest.param("commit", id="commit-hash"),
            pytest.param("short", id="short-hash"),
        ],
    )
    def test_base_forms_name_the_same_commit(
        self, run_line: RunLine, in_repo: Path, base: str
    ) -> None:
        commit = git(in_repo, "rev-parse", "main")
        name = {"commit": commit, "short": commit[:9]}.get(base, base)
        data = diff_json(run_line, "--base", name, "--head", "feature")
        assert data["base"].endswith(f"({commit[:7]})") or data["base"] == commit[:7]
        assert data["summary"]["newWinners"] == 4
        assert data["summary"]["configsChanged"] == 4

    def test_default_base_is_the_merge_base_with_main(
        self, run_line: RunLine, in_repo: Path
    ) -> None:
        data = diff_json(run_line)
        assert data["base"].startswith("merge-base with main (")
        assert data["head"] == "working tree"
        assert data["summary"]["newWinners"] == 4

    def test_head_revision_against_base(self, run_line: RunLine, in_repo: Path) -> None:
        data = diff_json(run_line, "--base", "feature", "--head", "main")  # backwards
        volcano = by_path(data["configs"], "deploy/volcano.yaml")
        weight = next(s for s in volcano["settings"] if s["key"] == "binpack.weight")
        assert (weight["before"]["value"], weight["after"]["value"]) == ("10", "1")
        assert by_path(data["configs"], "deploy/retired.yaml")["change"] == "added"

    @pytest.mark.parametrize(
        "args, message",
        [
            pytest.param(
                ["--base", "no-such-branch"],
                "unknown revision 'no-such-branch': no branch, tag or commit of that name",
                id="missing-base",
            ),
            pytest.param(
                ["--base", "main", "--head", "0123456789abcdef0123456789abcdef01234567"],
                "unknown revision '0123456789abcdef0123456789abcdef01234567'",
                id="missing-head",
            ),
            pytest.param(
                ["--base", "--all"], "expected one argument", id="option-is-not-a-revision"
            ),
            pytest.param(
                ["--base", "main", "nowhere"],
                "path does not exist in main (",
                id="missing-path",
            ),
            pytest.param(["--base", "main", ".."], "is outside the repository", id="outside"),
        ],
    )
    def test_usage_errors(
        self, run_line: RunLine, in_repo: Path, args: list[str], message: str
    ) -> None:
        result = run_line(["diff", *args])
        assert result.exit_code == 2, result
        assert message in result.stderr
        assert result.stdout == ""

    def test_not_a_repository(
        self, run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.chdir(tmp_path)
        result = run_line(["diff"])
        assert result.exit_code == 2, result
        assert result.stderr.startswith("policytest: error: not inside a git repository")
        assert len(result.stderr.splitlines()) == 1


class TestFormats:
    def test_markdown(self, feature_diff: dict[str, str]) -> None:
        md = html.unescape(feature_diff["markdown"]).replace("\u2060", "")  # as GitHub shows it
        lines = md.splitlines()
        assert lines[0] == "<!-- policytest-diff -->"
        assert lines[1] == "### policytest diff"
        assert "4 new winners" in lines[3]
        summary, _, details = md.partition("<details")
        assert (
            "| <code>tests/gpu.policytest.yaml</code> | the busiest GPU node wins | new winner "
            "gpu-1 (was a tie of gpu-1, gpu-2, gpu-3); status failed → passed |" in summary
        )
        assert "{gpu-1: 1, gpu-2: 1, gpu-3: 1, gpu-4: 1} → {gpu-1: 2, gpu-2: 2}" in summary
        assert "<code>deploy/retired.yaml</code> (removed)" in summary
        assert "<code>deploy/spare.yaml</code> (new)" in summary
        assert "<code>deploy/volcano.yaml</code> (1 setting changed)" in summary
        assert "| <code>binpack.weight</code> | 1 | 10 |" in details
        assert (
            "| <code>profile bin-packing-scheduler: NodeResourcesFit scoringStrategy.type</code> "
            "| LeastAllocated | MostAllocated |" in details
        )
        assert "| gpu-3 | 1 → 4 | 487.75 → 656.50 | +168.75 |" in details
        assert "| gpu-3 | 1 | 0 |" in details  # pods before / after
        assert md.count("<details") == md.count("</details>")
        for block in md.split("<details>")[1:]:
            assert block.startswith("\n<summary>")
            assert "</summary>\n\n" in block  # a blank line, or GitHub renders no Markdown

    def test_markdown_when_nothing_changed_is_short(self, run_line: RunLine, in_repo: Path) -> None:
        md = run_line(["diff", "--base", "HEAD", "--format", "markdown"]).stdout
        assert "<details" not in md and "|" not in md
        assert (
            html.unescape(md)
            .splitlines()[-1]
            .endswith("no change in scheduling: 3 fixtures not run (nothing they use changed).")
        )

    def test_json(self, feature_diff: dict[str, str]) -> None:
        data = json.loads(feature_diff["json"])
        assert data["summary"] == {
            "changed": True,
            "configsChanged": 4,
            "fixturesRun": 2,
            "fixturesChanged": 2,
            "fixturesNotRun": 1,
            "casesChanged": 4,
            "newWinners": 4,
            "rankingChanges": 4,
            "placementChanges": 2,
            "statusChanges": 4,
            # KS047 (MostAllocated against default spreading) and VB015 (binpack.weight 10
            # against nodeorder's default spreading)
            "findingsIntroduced": 2,
            "errorsIntroduced": 0,
            "findingsResolved": 1,
            "findingsSuppressedByChange": 0,
            "settingsChanged": 0,
        }
        assert data["settings"] == [] and data["settingsPath"] is None
        gpu = by_path(data["fixtures"], "tests/gpu.policytest.yaml")
        assert gpu["reason"] == "its config changed: deploy/volcano.yaml"
        winner = by_case(gpu, "the busiest GPU node wins")
        assert winner["before"]["winner"] == ["gpu-1", "gpu-2", "gpu-3"]
        assert winner["after"]["winner"] == ["gpu-1"]
        gpu3 = next(node for node in winner["nodes"] if node["name"] == "gpu-3")
        assert gpu3["rank"] == {"before": 1, "after": 4}
        assert gpu3["score"] == {"before": 487.75, "after": 656.5}
        assert gpu3["plugins"]["after"] == {"nodeorder": 469, "binpack": 187.5}
        sequence = by_case(gpu, "four one-GPU training jobs fill two nodes")
        assert sequence["before"]["placements"] == {"gpu-1": 1, "gpu-2": 1, "gpu-3": 1, "gpu-4": 1}
        assert sequence["after"]["placements"] == {"gpu-1": 2, "gpu-2": 2}
        assert (sequence["before"]["nodesUsed"], sequence["after"]["nodesUsed"]) == (4, 2)
        volcano = by_path(data["configs"], "deploy/volcano.yaml")
        assert volcano["settings"] == [
            {
                "key": "binpack.weight",
                "before": {"value": "1", "written": None},
                "after": {"value": "10", "written": None},
                "cause": None,  # the edit: no settings file changed
            }
        ]
        assert volcano["fixtures"] == ["tests/gpu.policytest.yaml"]
        kube = by_path(data["fixtures"], "tests/kube.policytest.yaml")
        six = by_case(kube, "six pods one after another")
        assert six["placements"] == [
            {"node": "node-1", "before": 0, "after": 3},
            {"node": "node-2", "before": 2, "after": 3},
            {"node": "node-3", "before": 4, "after": 0},
        ]
        [resolved] = data["findings"]["resolved"]
        assert (resolved["path"], resolved["rule"]) == ("deploy/volcano.yaml", "VB012")
        assert data["notRun"] == ["tests/memory.policytest.yaml"]
        assert by_path(data["configs"], "deploy/retired.yaml")["change"] == "removed"
        spare = by_path(data["configs"], "deploy/spare.yaml")
        assert spare["change"] == "added"
        assert {
            "key": "binpack.weight",
            "before": None,
            "after": {"value": "5", "written": None},
            "cause": None,
        } in (spare["settings"])

    def test_output_is_stable(
        self, run_line: RunLine, in_repo: Path, feature_diff: dict[str, str]
    ) -> None:
        again = run_line(["diff", "--base", "main", "--format", "markdown"])
        assert again.stdout == feature_diff["markdown"]


class TestWorkingTree:
    def test_introduced_error_fails_and_shows_the_written_value(
        self, run_line: RunLine, clone: Path
    ) -> None:
        text = WEIGHT_10.replace(
            "          binpack.weight: 10\n",
            "          binpack.weight: 10\n"
            "          binpack.cpu: -5\n"
            '          binpack.memory: "3"\n',
        )
        write_files(clone, {"deploy/volcano.yaml": text})
        result = run_line(["diff"])
        assert result.exit_code == 1, result
        assert "binpack.cpu     1 -> 1 (written -5)" in result.stdout
        assert 'binpack.memory  1 -> 1 (written "3")' in result.stdout
        assert "Findings introduced (2):" in result.stdout
        assert "VB002 error: `binpack.cpu: -5` is negative" in result.stdout
        # scored as Volcano loads it (cpu 1, memory 1: as before), so nothing moves and
        # no case errors: the findings are the change
        assert "status passed -> error" not in result.stdout
        assert "Unchanged: 1 fixture (2 cases) rank and place as before" in result.stdout
        assert "new winner" not in result.stdout and "-> -" not in result.stdout
        assert run_line(["diff", "--fail-on", "never"]).exit_code == 0

    def test_moved_lines_are_not_new_findings(self, run_line: RunLine, clone: Path) -> None:
        git(clone, "checkout", "--quiet", "main")
        original = (clone / "deploy/volcano.yaml").read_text()
        write_files(clone, {"deploy/volcano.yaml": "# a comment\n\n" + original})
        result = run_line(["diff", "--base", "main"])
        assert result.exit_code == 0, result
        assert "Findings" not in result.stdout
        assert "Changed in text only" in result.stdout

    def test_fail_on_ranking_change(self, run_line: RunLine, clone: Path) -> None:
        write_files(clone, {"deploy/kube.yaml": LEAST})
        assert run_line(["diff"]).exit_code == 0
        result = run_line(["diff", "--fail-on", "ranking-change"])
        assert result.exit_code == 1, result
        assert "one pod: new winner node-3 (was node-1)" in result.stdout

    def test_untracked_fixture_is_new(self, run_line: RunLine, clone: Path) -> None:
        write_files(
            clone,
            {
                "tests/extra.policytest.yaml": bundled_fixture(
                    "kube-most-allocated.policytest.yaml", "../deploy/kube.yaml"
                )
            },
        )
        data = diff_json(run_line)
        extra = by_path(data["fixtures"], "tests/extra.policytest.yaml")
        assert extra["change"] == "added"
        assert extra["reason"] == "the fixture is new"
        assert [case["after"]["status"] for case in extra["cases"]] == ["passed", "passed"]
        text = run_line(["diff"]).stdout
        assert "Fixture tests/extra.policytest.yaml (the fixture is new): new fixture" in text

    def test_removed_fixture(self, run_line: RunLine, clone: Path) -> None:
        (clone / "tests/gpu.policytest.yaml").unlink()
        data = diff_json(run_line)
        gone = by_path(data["fixtures"], "tests/gpu.policytest.yaml")
        assert gone["change"] == "removed"
        assert all(case["after"] is None for case in gone["cases"])

    def test_config_link_leaving_the_repository_is_not_followed(
        self, run_line: RunLine, clone: Path, tmp_path: Path
    ) -> None:
        outside = tmp_path / "outside.yaml"
        outside.write_text(WEIGHT_1)
        (clone / "deploy/volcano.yaml").unlink()
        (clone / "deploy/volcano.yaml").symlink_to(outside)
        data = diff_json(run_line, "--fail-on", "never")
        gpu = by_path(data["fixtures"], "tests/gpu.policytest.yaml")
        after = by_case(gpu, "the busiest GPU node wins")["after"]
        assert after["status"] == "error"
        assert "is outside the root" in after["message"]
        assert "policytest-diff-" not in json.dumps(data)  # no temporary paths leak


def test_real_process(repo: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "policytest", "diff", "--base", "main", "--format", "json"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["summary"]["newWinners"] == 4
    missing = subprocess.run(
        [sys.executable, "-m", "policytest", "diff", "--base", "gone"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    assert missing.returncode == 2
    assert missing.stderr.splitlines() == [
        "policytest: error: unknown revision 'gone': no branch, tag or commit of that name "
        "in the repository"
    ]
