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
