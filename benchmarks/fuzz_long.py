"""The long fuzz run: the fuzz targets of ``tests/fuzzing.py`` for a time budget.

Usage (from the repository root)::

    python benchmarks/fuzz_long.py --minutes 25 --workers 2 --report fuzz-report.json

Each worker process loops over the targets (reader, validate, raw bytes through
validate, fixture loader and runner, CLI), running each with Hypothesis for a chunk of
examples at a time, until the budget is spent. Every input is counted. A failure is
recorded (target, exception, the input, the traceback's last frames) and the run goes
on; failures with the same exception type and innermost policytest frame count as one.
Network access raises in the workers, and warnings are errors (findings of their own).
A watchdog in the parent kills a worker that makes no progress for ``--hang-seconds``
and records the input it was stuck on as a hang. Shrinking is off unless ``--shrink``
is given (a shrink can take minutes); rerun a recorded input with ``--replay``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import socket
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests import fuzzing  # noqa: E402

Check = Callable[[fuzzing.Workspace, Any], None]

TARGETS: dict[str, tuple[Callable[[], st.SearchStrategy[Any]], Check, int]] = {
    # name: (strategy, check, examples per chunk)
    "reader": (fuzzing.documents_strategy, lambda ws, data: fuzzing.check_reader(data), 200),
    "validate": (fuzzing.documents_strategy, fuzzing.check_validate, 60),
    "raw-bytes": (lambda: st.binary(max_size=4096), fuzzing.check_validate, 60),
    "run": (fuzzing.fixture_cases, lambda ws, case: fuzzing.check_run(ws, *case), 40),
    "cli": (fuzzing.fixture_cases, lambda ws, case: fuzzing.check_cli(ws, *case), 20),
}


def _no_network(*args: object, **kwargs: object) -> None:
    raise OSError("network access attempted during fuzzing")


def _signature(target: str, error: BaseException) -> str:
    """Exception type and the innermost frame inside policytest (else the innermost)."""
    frames = traceback.extract_tb(error.__traceback__)
    ours = [f for f in frames if "/policytest/" in f.filename] or frames[-1:]
    where = f"{Path(ours[-1].filename).name}:{ours[-1].lineno}" if ours else "?"
    return f"{target}: {type(error).__name__} at {where}"


def worker(
    index: int, workdir: Path, deadline: float, shrink: bool, counts: Any, beat: Any
) -> None:
    """Fuzz until ``deadline``; count inputs in ``counts`` (one row of targets per worker)."""
    socket.socket.connect = _no_network  # type: ignore[method-assign]
    socket.create_connection = _no_network  # type: ignore[assignment]
    warnings.simplefilter("error")  # as the test suite does: a warning is a finding
    workspace = fuzzing.Workspace(workdir / "repo")
    out = workdir / "failures.json"
    failures: dict[str, dict[str, Any]] = {}
    names = list(TARGETS)
    round_ = 0
    while time.time() < deadline:
        name = names[(round_ + index) % len(names)]
        round_ += 1
        slot = index * len(names) + names.index(name)
        failure = chunk(name, workspace, workdir / "current.json", shrink, counts, slot, beat)
        if failure is not None:
            entry = failures.setdefault(failure["signature"], {**failure, "seen": 0})
            entry["seen"] += 1
        out.write_text(json.dumps(list(failures.values()), indent=1))


def chunk(
    name: str,
    workspace: fuzzing.Workspace,
    current: Path,
    shrink: bool,
    counts: Any,
    slot: int,
    beat: Any,
) -> dict[str, Any] | None:
    """One Hypothesis run of a target; the failure it ended with, if any."""
    strategy, check, examples = TARGETS[name]
    last: dict[str, Any] = {}

    @settings(
        max_examples=examples,
        deadline=timedelta(seconds=10),
        database=None,
        phases=[Phase.generate, Phase.shrink] if shrink else [Phase.generate],
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
    )
    @given(strategy())
    def run(data: Any) -> None:
        current.write_text(json.dumps({"target": name, "input": repr(data)}))
        counts[slot] += 1
        beat.value = time.time()
        try:
            with workspace.inside():
                check(workspace, data)
        except BaseException as error:
            last.update(error=error, input=repr(data), trace=traceback.format_exc())
            raise

    try:
        run()
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # the whole point: record it, then go on
        cause = last.get("error", error)
        return {
            "signature": _signature(name, cause),
            "target": name,
            "error": f"{type(cause).__name__}: {cause}"[:2000],
            "input": last.get("input", "?"),  # whole: --replay evaluates it
            "traceback": last.get("trace", traceback.format_exc())[-4000:],
        }
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=25.0)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--report", default="fuzz-report.json", help="JSON summary written here")
    parser.add_argument("--hang-seconds", type=float, default=120.0)
    parser.add_argument("--shrink", action="store_true", help="shrink failing inputs (slow)")
    parser.add_argument("--replay", metavar="REPORT", help="re-run the inputs of a report")
    args = parser.parse_args(argv)
    if args.replay:
        return replay(args.replay)
    started = time.time()
    deadline = started + args.minutes * 60
    counts = multiprocessing.Array("q", len(TARGETS) * args.workers)
    scratch = Path(tempfile.mkdtemp(prefix="policytest-fuzz-"))
    workers: dict[int, tuple[multiprocessing.Process, Any, Path]] = {}
    hangs: list[dict[str, Any]] = []
    restarts = 0

    def start(index: int) -> None:
        beat = multiprocessing.Value("d", time.time())
        workdir = scratch / f"worker-{index}-{restarts}"
        workdir.mkdir()
        process = multiprocessing.Process(
            target=worker,
            args=(index, workdir, deadline, args.shrink, counts, beat),
            daemon=True,
        )
        process.start()
        workers[index] = (process, beat, workdir)

    for index in range(args.workers):
        start(index)
    while any(process.is_alive() for process, _, _ in workers.values()):
        time.sleep(5)
        for index, (process, beat, workdir) in list(workers.items()):
            stuck = time.time() - beat.value
            if process.is_alive() and stuck > args.hang_seconds:
                stuck_on = _stuck_input(workdir)
                process.kill()
                hangs.append({"signature": "hang", "stuck_seconds": stuck, **stuck_on})
                restarts += 1
                if time.time() < deadline - 10:
                    start(index)
        if time.time() > deadline + args.hang_seconds:
            for process, _, _ in workers.values():
                process.kill()
            break
    failures: dict[str, dict[str, Any]] = {}
    for path in scratch.glob("worker-*/failures.json"):
        for entry in json.loads(path.read_text()):
            merged = failures.setdefault(entry["signature"], {**entry, "seen": 0})
            merged["seen"] += entry["seen"]
    totals = [sum(counts[i :: len(TARGETS)]) for i in range(len(TARGETS))]
    report = {
        "minutes": round((time.time() - started) / 60, 1),
        "workers": args.workers,
        "inputs": dict(zip(TARGETS, totals, strict=True)),
        "total_inputs": sum(totals),
        "failures": list(failures.values()) + hangs,
    }
    Path(args.report).write_text(json.dumps(report, indent=1))
    print(f"{report['total_inputs']:,} inputs in {report['minutes']} min: {report['inputs']}")
    for failure in report["failures"]:
        print(f"- {failure['signature']} (seen {failure.get('seen', 1)}x): {failure.get('error')}")
    return 1 if report["failures"] else 0


def _stuck_input(workdir: Path) -> dict[str, Any]:
    try:
        return dict(json.loads((workdir / "current.json").read_text()))
    except (OSError, ValueError):
        return {}


def replay(report_path: str) -> int:
    """Re-run every recorded input once, in this process, and print what happens."""
    from ast import literal_eval

    report = json.loads(Path(report_path).read_text())
    workspace = fuzzing.Workspace(Path(tempfile.mkdtemp(prefix="policytest-replay-")))
    for failure in report["failures"]:
        target = failure.get("target")
        if target not in TARGETS or "input" not in failure:
            continue
        _, check, _ = TARGETS[target]
        try:
            with workspace.inside():
                check(workspace, literal_eval(failure["input"]))
        except Exception as error:
            print(f"{failure['signature']}: still fails: {type(error).__name__}: {error}")
        else:
            print(f"{failure['signature']}: fixed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
