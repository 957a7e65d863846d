"""``policytest diff OLD_FILE NEW_FILE --fixtures DIR``: two configs outside git."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

from tests.conftest import RunLine, write_files
from tests.diff.test_diff import BUNDLED, LEAST, MOST, bundled_fixture


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``old.yaml`` (LeastAllocated), ``new.yaml`` (MostAllocated), and fixtures: one uses
    ``old.yaml``, one its own Volcano config."""
    write_files(
        tmp_path,
        {
            "old.yaml": LEAST,
            "new.yaml": MOST,
            "memory.yaml": (BUNDLED / "configs/volcano-binpack-memory-weighted.yaml").read_text(),
            "fixtures/kube.policytest.yaml": bundled_fixture(
                "kube-least-allocated.policytest.yaml", "../old.yaml"
            ),
            "fixtures/memory.policytest.yaml": bundled_fixture(
                "volcano-three-nodes-memory-weighted.policytest.yaml", "../memory.yaml"
            ),
        },
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_fixtures_that_use_the_old_file_run_with_both(run_line: RunLine, files: Path) -> None:
    result = run_line(["diff", "old.yaml", "new.yaml", "--fixtures", "fixtures"])
    assert result.exit_code == 0, result
    out = result.stdout
    assert out.startswith("policytest diff: old.yaml -> new.yaml\n")
    assert "Config old.yaml -> new.yaml (kube-scheduler, ConfigMap scheduler-config" in out
    assert "scoringStrategy.type  LeastAllocated -> MostAllocated" in out
    assert "Fixture fixtures/kube.policytest.yaml (it uses old.yaml): 2 of 2 cases changed" in out
    assert "one pod: new winner node-1 (was node-3)" in out
    assert "placements {node-2: 2, node-3: 4} -> {node-1: 3, node-2: 3}" in out
    assert "Unchanged: 1 fixture not run (they use neither old.yaml nor new.yaml)." in out


def test_node_rows_show_the_decimals_of_runs_tables(run_line: RunLine, files: Path) -> None:
    """Volcano's float scores and their changes print with two decimals, as ``run`` prints
    them (they printed ten significant digits: ``72.91666667 -> 71.875  -1.041666667``)."""
    (files / "new.yaml").write_text(
        (files / "memory.yaml").read_text().replace("binpack.memory: 5", "binpack.memory: 3")
    )
    args = ["diff", "memory.yaml", "new.yaml", "--fixtures", "fixtures"]
    text = run_line(args).stdout
    assert "node-c  1 -> 1  72.92 -> 71.88  -1.04\n" in text
    assert "node-a  3 -> 3  45.83 -> 50     +4.17\n" in text
    markdown = run_line([*args, "--format", "markdown"]).stdout
    assert "| node-c | 1 → 1 | 72.92 → 71.88 | -1.04 |" in markdown


def test_cases_run_with_the_fixture_checks_of_run(run_line: RunLine, files: Path) -> None:
    """A pod with a feature the scorers do not simulate errors on both sides (PT003)."""
    fixture = files / "fixtures/kube.policytest.yaml"
    text = fixture.read_text()
    marked = text.replace("pod: {requests:", "pod: {schedulingGates: [{name: a}], requests:", 1)
    assert marked != text
    fixture.write_text(marked)
    data = json.loads(
        run_line(
            ["diff", "old.yaml", "new.yaml", "--fixtures", "fixtures", "--format", "json", "--all"]
        ).stdout
    )
    [kube] = [f for f in data["fixtures"] if f["path"] == "fixtures/kube.policytest.yaml"]
    first = kube["cases"][0]
    assert (first["before"]["status"], first["after"]["status"]) == ("error", "error")
    assert "PT003" in first["after"]["message"]


def test_json_and_markdown(run_line: RunLine, files: Path) -> None:
    data = json.loads(
        run_line(
            ["diff", "old.yaml", "new.yaml", "--fixtures", "fixtures", "--format", "json"]
        ).stdout
    )
    [fixture] = data["fixtures"]
    one_pod = fixture["cases"][0]
    assert (one_pod["before"]["winner"], one_pod["after"]["winner"]) == (["node-3"], ["node-1"])
    [config] = data["configs"]
    assert config["path"] == "old.yaml -> new.yaml"
    assert config["fixtures"] == ["fixtures/kube.policytest.yaml"]
    md = run_line(
        ["diff", "old.yaml", "new.yaml", "--fixtures", "fixtures", "--format", "markdown"]
    ).stdout
    md = html.unescape(md)  # the text as GitHub shows it
    assert "<code>old.yaml</code> → <code>new.yaml</code>: 2 new winners" in md
    assert "| one pod | new winner node-1 (was node-3); status passed → failed |" in md


def test_all_runs_every_fixture_of_their_scheduler_with_both_configs(
    run_line: RunLine, files: Path
) -> None:
    write_files(
        files,
        {
            "own.yaml": MOST,
            "fixtures/own.policytest.yaml": bundled_fixture(
                "kube-most-allocated.policytest.yaml", "../own.yaml"
            ),
        },
    )
    result = run_line(
        ["diff", "old.yaml", "new.yaml", "--fixtures", "fixtures", "--all", "--format", "json"]
    )
    data = json.loads(result.stdout)
    assert [f["path"] for f in data["fixtures"]] == [
        "fixtures/kube.policytest.yaml",
        "fixtures/own.policytest.yaml",
    ]
    assert data["fixtures"][1]["reason"] == "run with --all"
    assert data["notRun"] == ["fixtures/memory.policytest.yaml"]  # a Volcano fixture


def test_a_fixture_may_name_the_new_file(run_line: RunLine, files: Path) -> None:
    write_files(
        files,
        {
            "fixtures/most.policytest.yaml": bundled_fixture(
                "kube-most-allocated.policytest.yaml", "../new.yaml"
            )
        },
    )
    data = json.loads(
        run_line(
            ["diff", "old.yaml", "new.yaml", "--fixtures", "fixtures", "--format", "json"]
        ).stdout
    )
    most = next(f for f in data["fixtures"] if f["path"].endswith("most.policytest.yaml"))
    assert most["reason"] == "it uses new.yaml"
    assert [case["after"]["status"] for case in most["cases"]] == ["passed", "passed"]


def test_profile_missing_from_the_new_config_is_an_error_case(
    run_line: RunLine, files: Path
) -> None:
    write_files(files, {"new.yaml": MOST.replace("bin-packing-scheduler", "renamed")})
    result = run_line(["diff", "old.yaml", "new.yaml", "--fixtures", "fixtures"])
    assert "one pod: status passed -> error" in result.stdout
    assert "no profile with schedulerName `bin-packing-scheduler`" in result.stdout


@pytest.mark.parametrize(
    "fail_on, code",
    [("findings", 0), ("ranking-change", 1), ("never", 0)],
)
def test_fail_on(run_line: RunLine, files: Path, fail_on: str, code: int) -> None:
    result = run_line(
        ["diff", "old.yaml", "new.yaml", "--fixtures", "fixtures", "--fail-on", fail_on]
    )
    assert result.exit_code == code, result


@pytest.mark.parametrize(
    "args, message",
    [
        pytest.param(
            ["old.yaml", "gone.yaml", "--fixtures", "fixtures"],
            "path does not exist: gone.yaml",
            id="missing-new",
        ),
        pytest.param(
            ["old.yaml", "new.yaml", "--fixtures", "nowhere"],
            "path does not exist: nowhere",
            id="missing-fixtures",
        ),
        pytest.param(
            ["old.yaml", "--fixtures", "fixtures"],
            "with --fixtures, name exactly two config files: OLD_FILE NEW_FILE",
            id="one-file",
        ),
        pytest.param(
            ["old.yaml", "new.yaml", "--fixtures", "fixtures", "--base", "main"],
            "--base/--head compare git revisions and --fixtures compares two files",
            id="both-modes",
        ),
        pytest.param(
            ["old.yaml", "new.yaml", "--fixtures", "fixtures", "--fail-on", "sometimes"],
            "invalid choice: 'sometimes'",
            id="bad-fail-on",
        ),
    ],
)
def test_usage_errors(run_line: RunLine, files: Path, args: list[str], message: str) -> None:
    result = run_line(["diff", *args])
    assert result.exit_code == 2, result
    assert message in result.stderr


def test_fixtures_of_another_scheduler_are_left_out_and_named(
    run_line: RunLine, files: Path
) -> None:
    """Two Volcano ConfigMaps with ``--all``: the kube-scheduler fixtures (one names a
    profile) are not run against them, and the review says which and why."""
    volcano = (BUNDLED / "configs/volcano-nodeorder-binpack-weight-1.yaml").read_text()
    heavier = (BUNDLED / "configs/volcano-nodeorder-binpack-weight-10.yaml").read_text()
    write_files(
        files,
        {
            "volcano-old.yaml": volcano,
            "volcano-new.yaml": heavier,
            "fixtures/least.policytest.yaml": bundled_fixture(
                "kube-least-allocated.policytest.yaml", "../new.yaml"
            ),
        },
    )
    argv = ["diff", "volcano-old.yaml", "volcano-new.yaml", "--fixtures", "fixtures", "--all"]
    result = run_line(argv)
    assert result.exit_code == 0, result
    assert (
        "2 fixtures not run (their scheduler is not the configs', Volcano): "
        "fixtures/kube.policytest.yaml, fixtures/least.policytest.yaml." in result.stdout
    )
    assert "Fixture fixtures/memory.policytest.yaml (run with --all)" in result.stdout
    assert "bin-packing-scheduler" not in result.stdout  # no profile looked up in Volcano
    data = json.loads(run_line([*argv, "--format", "json"]).stdout)
    assert [f["path"] for f in data["fixtures"]] == ["fixtures/memory.policytest.yaml"]
    assert data["notRunReasons"] == [
        {
            "reason": "their scheduler is not the configs', Volcano",
            "fixtures": ["fixtures/kube.policytest.yaml", "fixtures/least.policytest.yaml"],
        }
    ]
    md = html.unescape(run_line([*argv, "--format", "markdown"]).stdout)
    assert "2 fixtures not run (their scheduler is not the configs', Volcano): " in md


def test_a_fixture_that_names_a_config_runs_with_it_whatever_its_scheduler(
    run_line: RunLine, files: Path
) -> None:
    """A kube-scheduler fixture of ``old.yaml`` runs when ``old.yaml`` becomes Volcano:
    it uses the file, and the review shows what that does to it."""
    volcano = (BUNDLED / "configs/volcano-nodeorder-binpack-weight-1.yaml").read_text()
    write_files(files, {"new.yaml": volcano})
    data = json.loads(
        run_line(
            ["diff", "old.yaml", "new.yaml", "--fixtures", "fixtures", "--all", "--format", "json"]
        ).stdout
    )
    assert [f["path"] for f in data["fixtures"]] == [
        "fixtures/kube.policytest.yaml",
        "fixtures/memory.policytest.yaml",
    ]
    assert data["notRun"] == []
