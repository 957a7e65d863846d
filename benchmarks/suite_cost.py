"""What the project's own test suite costs: duration, each xdist worker's peak memory, and
the slowest and most memory-hungry tests (docs/performance.md, "The test suite").

A pytest plugin and its runner in one file. The plugin reads ``/proc/self/status`` (no
psutil): each process's peak resident set (``VmHWM``) at the end of the session, and per
test its duration and how much the resident set grew during it (``VmRSS`` after minus
before: a test that keeps what it built shows here, one that frees it shows as its peak
only in ``VmHWM``). Each process writes ``cost-<worker>.json`` into ``SUITE_COST_DIR``.
Run from the repository's top:

    python benchmarks/suite_cost.py [-n 2] [--top 15] [-- PYTEST ARGS...]

which runs ``python -m pytest -n 2 -q -p no:cacheprovider -p suite_cost`` and prints the
wall time, each worker's peak, the slowest tests and the tests that grew the most.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_KEEP = 40
"""Tests kept per worker in each list (the runner shows the top of all workers')."""


def _status(field: str) -> int:
    """A ``/proc/self/status`` field in KiB (0 where there is no /proc)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


_TESTS = pytest.StashKey[list[tuple[str, float, int]]]()
"""Each test of the session: its id, seconds, and KiB the resident set grew."""


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_TESTS] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    before, started = _status("VmRSS"), time.perf_counter()
    yield
    tests = item.config.stash[_TESTS]
    tests.append((item.nodeid, time.perf_counter() - started, _status("VmRSS") - before))


def pytest_sessionfinish(session: pytest.Session) -> None:
    directory = os.environ.get("SUITE_COST_DIR")
    if not directory:
        return
    tests = session.config.stash[_TESTS]
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    slowest = sorted(tests, key=lambda test: -test[1])[:_KEEP]
    growing = sorted(tests, key=lambda test: -test[2])[:_KEEP]
    report = {
        "worker": worker,
        "tests": len(tests),
        "peakKiB": _status("VmHWM"),
        "seconds": sum(test[1] for test in tests),
        "slowest": slowest,
        "growing": growing,
    }
    Path(directory, f"cost-{worker}.json").write_text(json.dumps(report), encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", default="2", help="xdist workers (default 2; 0 runs serially)")
    parser.add_argument("--top", type=int, default=15, help="tests listed per table")
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        env = {
            **os.environ,
            "SUITE_COST_DIR": directory,
            "PYTHONPATH": os.pathsep.join(
                [str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")]
            ),
        }
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        command += ["-p", "suite_cost", "-n", args.n, *args.pytest_args]
        started = time.perf_counter()
        done = subprocess.run(command, env=env, check=False, capture_output=True, text=True)
        wall = time.perf_counter() - started
        reports = [json.loads(p.read_text()) for p in sorted(Path(directory).glob("*.json"))]
    said = done.stdout.strip().splitlines() or done.stderr[-2000:].splitlines()
    print("\n".join(line for line in said if line.startswith(("FAILED", "ERROR"))))
    print(said[-1] if said else "(pytest said nothing)")
    _print(reports, wall, args.top)
    return done.returncode


def _print(reports: list[dict[str, Any]], wall: float, top: int) -> None:
    print(f"wall time {wall / 60:.1f} min; CPU in tests {sum(r['seconds'] for r in reports):.0f} s")
    for report in reports:
        print(
            f"  worker {report['worker']}: {report['tests']} tests, "
            f"peak RSS {report['peakKiB'] / 1024:.0f} MiB, {report['seconds']:.0f} s in tests"
        )
    slowest = sorted((t for r in reports for t in r["slowest"]), key=lambda t: -t[1])
    print(f"slowest {top} tests:")
    for nodeid, seconds, _ in slowest[:top]:
        print(f"  {seconds:7.1f} s  {nodeid}")
    growing = sorted((t for r in reports for t in r["growing"]), key=lambda t: -t[2])
    print(f"the {top} tests the resident set grew most during:")
    for nodeid, _, grown in growing[:top]:
        print(f"  {grown / 1024:7.0f} MiB  {nodeid}")


if __name__ == "__main__":
    sys.exit(main())
