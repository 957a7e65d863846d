"""The ``policytest`` entry point's own behaviour, whatever the command."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from policytest import cli
from policytest.commands import rules
from policytest.core.gctuning import OLDEST_GENERATION_THRESHOLD
from policytest.core.limits import limit_names
from tests.conftest import RunLine


def test_commands_run_without_full_collections_and_restore_the_thresholds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Full collections walk every live object: on a big fixture they took 5 of 12 s."""
    seen: list[tuple[int, int, int]] = []

    def execute(args: Any) -> int:
        seen.append(gc.get_threshold())
        return 0

    monkeypatch.setattr(rules, "execute", execute)
    before = gc.get_threshold()
    assert cli.main(["rules"]) == 0
    assert seen == [(before[0], before[1], OLDEST_GENERATION_THRESHOLD)]
    assert gc.get_threshold() == before


def test_the_command_leaves_its_objects_to_the_operating_system() -> None:
    """The console command returns main's code with every object frozen, so the
    interpreter's exit collects nothing (a fresh process: freezing is for good)."""
    probe = (
        "import gc, sys\n"
        "from policytest.cli import console_main\n"
        "sys.argv = ['policytest', 'schema', 'policytest-fixture']\n"
        "code = console_main()\n"
        "sys.stderr.write(f'{code} {gc.get_freeze_count() > 1000}')\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stderr == "0 True"
    assert json.loads(done.stdout)


def test_an_unexpected_exception_is_one_line_and_exit_3(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def execute(args: Any) -> int:
        raise ValueError("boom")

    monkeypatch.setattr(rules, "execute", execute)
    before = gc.get_threshold()
    assert cli.main(["rules"]) == 3
    assert capsys.readouterr().err == "policytest: internal error: ValueError: boom\n"
    assert gc.get_threshold() == before


@pytest.mark.parametrize("columns", ["", "0", "-3", "abc", "1", "47", "132"])
def test_help_is_as_wide_as_argparse_would_make_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], columns: str
) -> None:
    """The help is sized without ``shutil`` (kept off the hook's imports), to the width
    ``shutil.get_terminal_size`` gives argparse's own formatter."""
    import argparse
    import shutil

    monkeypatch.setenv("COLUMNS", columns)
    assert cli._terminal_columns() == shutil.get_terminal_size().columns
    for command in (None, "validate", "run"):
        ours = cli.build_parser(command)
        if command is not None:
            ours = ours._subparsers._group_actions[0].choices[command]  # type: ignore[union-attr]
        plain = argparse.ArgumentParser(
            prog=ours.prog, description=ours.description, epilog=ours.epilog
        )
        plain._actions, plain._action_groups = ours._actions, ours._action_groups
        plain._mutually_exclusive_groups = ours._mutually_exclusive_groups
        wraps = {"_split_lines": cli._HelpFormatter._split_lines}  # whole words, as below
        if command is not None:
            wraps["_fill_text"] = cli._HelpFormatter._fill_text
        base = argparse.RawDescriptionHelpFormatter if command is None else argparse.HelpFormatter
        plain.formatter_class = type("Plain", (base,), wraps)
        assert ours.format_help() == plain.format_help()


@pytest.mark.parametrize("command", ["upgrade", "snapshot", "completion", "diff"])
def test_a_help_pages_docs_link_is_never_broken(
    monkeypatch: pytest.MonkeyPatch, run_line: RunLine, command: str
) -> None:
    """argparse broke lines at hyphens: on an 80-column terminal `upgrade --help` ended
    with `.../ci.md#policytest-` and `upgrade` on the next line, a link nobody can click."""
    monkeypatch.setenv("COLUMNS", "60")
    shown = run_line([command, "--help"]).stdout
    link = f"https://github.com/policytest/policytest/blob/main/docs/{cli.DOCS_PAGES[command]}"
    assert f"\n{link}\n" in shown or f"docs: {link}\n" in shown


@pytest.mark.parametrize(
    ("command", "page"),
    [("validate", "validating.md"), ("run", "fixtures.md"), ("diff", "ci.md#policytest-diff")],
)
def test_help_ends_with_its_docs_page_and_no_limit_defaults(
    run_line: RunLine, command: str, page: str
) -> None:
    """issue 37: help pages had no docs link and ended with 13 limit defaults."""
    shown = run_line([command, "--help"])
    assert shown.exit_code == 0
    assert " ".join(shown.stdout.split()).endswith(
        f"docs: https://github.com/policytest/policytest/blob/main/docs/{page}"
    )
    assert "yaml-nodes" not in shown.stdout and "total-node-scores" not in shown.stdout
    assert "`--limit help` lists the limits" in " ".join(shown.stdout.split())


def test_limit_help_lists_every_limit_with_its_default(run_line: RunLine) -> None:
    shown = run_line(["run", "--limit", "help"])
    assert shown.exit_code == 0
    assert "  file-bytes                16,777,216  bytes read from one file\n" in shown.stdout
    assert shown.stdout.count("\n") == 1 + len(limit_names())  # a title and each limit
    assert "  total-topology-checks" in shown.stdout
    assert run_line(["run", "--limit", "nope=1"]).exit_code == 2


@pytest.mark.parametrize(
    ("flag", "environment", "coloured"),
    [
        ("auto", {}, False),  # not a terminal
        ("auto", {"FORCE_COLOR": "1"}, True),
        ("always", {"NO_COLOR": "1"}, True),
        ("never", {"FORCE_COLOR": "1"}, False),
    ],
)
def test_color_flag_beside_the_environment(
    run_line: RunLine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    flag: str,
    environment: dict[str, str],
    coloured: bool,
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    for key, value in environment.items():
        monkeypatch.setenv(key, value)
    conf = tmp_path / "volcano-scheduler.conf"
    conf.write_text("actions: [\n")
    shown = run_line(["validate", "--color", flag, conf])
    assert shown.exit_code == 1
    assert ("\x1b[" in shown.stdout) is coloured, shown
