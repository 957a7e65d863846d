"""Shared test helpers: run the real CLI entry point in-process and capture its output."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from policytest.cli import main
from policytest.read import bigload

DATA = Path(__file__).parent / "data"

# A small Volcano conf that loads cleanly (binpack with its recommended weight).
VOLCANO_CONF = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: binpack
    arguments: {binpack.weight: 10}
"""


@dataclass(frozen=True)
class CliResult:
    exit_code: int
    stdout: str
    stderr: str

    def __str__(self) -> str:  # shown by pytest when an assertion about the result fails
        return f"exit {self.exit_code}\n--- stdout\n{self.stdout}--- stderr\n{self.stderr}"


RunLine = Callable[..., CliResult]


@pytest.fixture
def run_line(capsys: pytest.CaptureFixture[str]) -> RunLine:
    """``run_line(["validate", path])`` runs ``policytest`` through ``main(argv)``."""

    def run(argv: list[str]) -> CliResult:
        code = main([str(arg) for arg in argv])
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


pytest_plugins = ["pytester"]

# Each in-process pytester run drops the modules it imported; libyaml's extension keeps
# the ruamel.yaml node classes it first saw, so both are imported here, once, for good.
bigload.available()
