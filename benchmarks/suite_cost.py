"""What the project's own test suite costs: duration, each xdist worker's peak memory, and
the slowest and most memory-hungry tests (docs/performance.md, "The test suite").

A pytest plugin and its runner in one file. The plugin reads ``/proc/self/status`` (no
psutil): each process's peak resident set (``VmHWM``) and its CPU time (its own and its
waited-for children's: the ``policytest`` and ``pre-commit`` processes tests start) at the
end of the session, and per
test its duration and how much the resident set grew during it (``VmRSS`` after minus
before: a test that keeps what it built shows here, one that frees it shows as its peak
only in ``VmHWM``). Each process writes ``cost-<worker>.json`` into ``SUITE_COST_DIR``.
Run from the repository's top:

    python benchmarks/suite_cost.py [-n 2] [--top 15] [-- PYTEST ARGS...]

which runs ``python -m pytest -n 2 -q -p no:cacheprovider -p suite_cost`` and prints the
wall time, the CPU time of the whole run, the load average before and after (the machine's
other work stretches the wall time, not the CPU time), each worker's peak and CPU time,
the slowest tests, the tests the resident set grew most during and those that raised a
worker's peak most.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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


def _cpu(who: int) -> float:
    """User and system CPU seconds of this process (``RUSAGE_SELF``) or of its children
    it waited for (``RUSAGE_CHILDREN``)."""
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


_TESTS = pytest.StashKey[list[tuple[str, float, int, int]]]()
"""Each test of the session: its id, seconds, KiB the resident set grew, and KiB it
raised the process's peak by (a test that builds much and frees it shows only there)."""


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_TESTS] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    before, peak, started = _status("VmRSS"), _status("VmHWM"), time.perf_counter()
    yield
    grown, raised = _status("VmRSS") - before, _status("VmHWM") - peak
    item.config.stash[_TESTS].append((item.nodeid, time.perf_counter() - started, grown, raised))


def pytest_sessionfinish(session: pytest.Session) -> None:
    directory = os.environ.get("SUITE_COST_DIR")
    if not directory:
        return
    tests = session.config.stash[_TESTS]
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    slowest = sorted(tests, key=lambda test: -test[1])[:_KEEP]
    growing = sorted(tests, key=lambda test: -test[2])[:_KEEP]
    raising = sorted(tests, key=lambda test: -test[3])[:_KEEP]
    report = {
        "worker": worker,
        "tests": len(tests),
        "peakKiB": _status("VmHWM"),
        "cpuSeconds": _cpu(resource.RUSAGE_SELF) + _cpu(resource.RUSAGE_CHILDREN),
        "seconds": sum(test[1] for test in tests),
        "slowest": slowest,
        "growing": growing,
        "raising": raising,
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
        load_before, started = os.getloadavg(), time.perf_counter()
        done = subprocess.run(command, env=env, check=False, capture_output=True, text=True)
        wall, load_after = time.perf_counter() - started, os.getloadavg()
        cpu = _cpu(resource.RUSAGE_CHILDREN)
        reports = [json.loads(p.read_text()) for p in sorted(Path(directory).glob("*.json"))]
    said = done.stdout.strip().splitlines() or done.stderr[-2000:].splitlines()
    print("\n".join(line for line in said if line.startswith(("FAILED", "ERROR"))))
    print(said[-1] if said else "(pytest said nothing)")
    print(
        f"load average (1, 5, 15 min) before {_load(load_before)}, after {_load(load_after)}; "
        f"CPU of the whole run {cpu / 60:.1f} min"
    )
    _print(reports, wall, args.top)
    return done.returncode


def _load(averages: tuple[float, float, float]) -> str:
    return "/".join(f"{average:.1f}" for average in averages)


def _print(reports: list[dict[str, Any]], wall: float, top: int) -> None:
    print(f"wall time {wall / 60:.1f} min")
    for report in reports:
        print(
            f"  worker {report['worker']}: {report['tests']} tests, "
            f"peak RSS {report['peakKiB'] / 1024:.0f} MiB, CPU {report['cpuSeconds']:.0f} s, "
            f"{report['seconds']:.0f} s of wall time in tests"
        )
    slowest = sorted((t for r in reports for t in r["slowest"]), key=lambda t: -t[1])
    print(f"slowest {top} tests:")
    for nodeid, seconds, _, _ in slowest[:top]:
        print(f"  {seconds:7.1f} s  {nodeid}")
    growing = sorted((t for r in reports for t in r["growing"]), key=lambda t: -t[2])
    print(f"the {top} tests the resident set grew most during:")
    for nodeid, _, grown, _ in growing[:top]:
        print(f"  {grown / 1024:7.0f} MiB  {nodeid}")
    raising = sorted((t for r in reports for t in r["raising"]), key=lambda t: -t[3])
    print(f"the {top} tests that raised a worker's peak most:")
    for nodeid, _, _, raised in raising[:top]:
        print(f"  {raised / 1024:7.0f} MiB  {nodeid}")


if __name__ == "__main__":
    sys.exit(main())
