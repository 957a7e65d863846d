"""The code stays lint-clean, formatted and strictly typed (ruff and mypy, as configured)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
SOURCES = ["policytest", "tests", "benchmarks"]


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_check() -> None:
    done = run("ruff", "check", "--output-format", "concise", *SOURCES)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format() -> None:
    done = run("ruff", "format", "--check", *SOURCES)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict() -> None:
    done = run("mypy", "--no-incremental", "policytest")
    assert done.returncode == 0, done.stdout + done.stderr


BENCHMARKS = sorted(p.name for p in (ROOT / "benchmarks").glob("*.py") if p.name != "workloads.py")


@pytest.mark.parametrize("script", BENCHMARKS)
def test_every_benchmark_script_still_starts(script: str) -> None:
    """The benchmarks import the package and tests by module path: a move must not
    leave one broken until the next time somebody measures."""
    done = subprocess.run(
        [sys.executable, f"benchmarks/{script}", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "usage" in done.stdout, done.stderr
