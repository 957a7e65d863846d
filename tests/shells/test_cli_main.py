"""The ``policytest`` entry point's own behaviour, whatever the command."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from policytest import cli
from policytest.commands import rules
from policytest.core.gctuning import OLDEST_GENERATION_THRESHOLD


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
        plain = argparse.ArgumentParser(prog=ours.prog, description=ours.description)
        plain._actions, plain._action_groups = ours._actions, ours._action_groups
        plain._mutually_exclusive_groups = ours._mutually_exclusive_groups
        plain.formatter_class = (
            argparse.RawDescriptionHelpFormatter if command is None else argparse.HelpFormatter
        )
        assert ours.format_help() == plain.format_help()
