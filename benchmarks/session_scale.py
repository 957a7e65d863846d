"""Figure 8: one Volcano session at scale, end to end through ``policytest run``: 1,000
jobs (8,000 tasks, gangs of 1 to 32), three queues, three priorities, CPU and GPU tasks,
on 2,000 nodes of varied shapes, under the Helm chart's default conf.

    python benchmarks/session_scale.py [--jobs 1000] [--nodes 2000] [--runs 3] [--phases]

Prints the machine's calibration line, then the median wall time, CPU time and peak RSS
of fresh ``policytest run --format json`` processes (the fixture is written to a
temporary directory first) and how many pods bound. ``--phases`` also runs it once in
process and prints the CPU time of each phase: reading and checking the fixture,
building the jobs, the session itself, the JSON report. Figures: docs/performance.md.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import os
import random
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from workloads import calibration, median, policytest_command, runs, summary

CONF = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
"""
SHAPES = (
    {"cpu": "32", "memory": "128Gi", "pods": "110"},
    {"cpu": "64", "memory": "256Gi", "pods": "110"},
    {"cpu": "96", "memory": "512Gi", "pods": "110"},
    {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": "8", "pods": "110"},
)
GANGS = (1, 1, 2, 4, 4, 8, 8, 8, 16, 32)


def fixture(jobs: int, nodes: int, seed: int = 20261129) -> dict[str, object]:
    rng = random.Random(seed)
    node_list = [
        {"name": f"node-{index:04d}", "allocatable": SHAPES[index % len(SHAPES)]}
        for index in range(nodes)
    ]
    job_list = []
    total = 0
    for index in range(jobs):
        size = rng.choice(GANGS)
        gpu = rng.random() < 0.3
        requests = (
            {"cpu": "4", "memory": "32Gi", "nvidia.com/gpu": str(rng.choice((1, 2, 4, 8)))}
            if gpu
            else {"cpu": str(rng.choice((1, 2, 4))), "memory": f"{rng.choice((2, 4, 8))}Gi"}
        )
        job_list.append(
            {
                "name": f"job-{index:04d}",
                "queue": f"q{index % 3}",
                "priority": ("high", "mid", "low")[rng.randrange(3)],
                "tasks": [{"name": "worker", "replicas": size, "requests": requests}],
            }
        )
        total += size
    return {
        "apiVersion": "policytest/v1",
        "kind": "PolicyTest",
        "metadata": {"name": "session-scale"},
        "scheduler": {"config": "volcano-scheduler.conf"},
        "cluster": {
            "nodes": node_list,
            "priorityClasses": [
                {"name": "high", "value": 1000},
                {"name": "mid", "value": 100},
                {"name": "low", "value": 10},
            ],
            "queues": [{"name": "q0", "weight": 2}, {"name": "q1"}, {"name": "q2"}],
        },
        "cases": [
            {
                "name": f"{jobs} jobs, {total} tasks",
                "jobs": job_list,
                "ties": "allow",
                "expect": {"pending": 0},
            }
        ],
    }


LIMITS = ["--limit", "pods=1000000", "--limit", "node-scores=1000000000"]


def phases(path: Path) -> dict[str, float]:
    """CPU seconds of each phase of one in-process ``policytest run`` of ``path``."""
    from policytest import cli
    from policytest.reporters.run import json as json_report
    from policytest.sessions import build, session

    spent: dict[str, float] = {}

    def timed(module: Any, name: str, phase: str) -> Callable[[], None]:
        original = getattr(module, name)

        @functools.wraps(original)
        def measured(*args: Any, **kwargs: Any) -> Any:
            started = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                spent[phase] = spent.get(phase, 0.0) + time.process_time() - started

        setattr(module, name, measured)
        return lambda: setattr(module, name, original)

    undo = [
        timed(build, "build_jobs", "jobs built"),
        timed(session, "run_sessions", "session"),
        timed(json_report, "render", "JSON report"),
    ]
    started = time.process_time()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        cli.main(["run", "--format", "json", str(path), *LIMITS])
    spent["total"] = time.process_time() - started
    spent["reading, checking, pods"] = spent["total"] - sum(
        value for phase, value in spent.items() if phase != "total"
    )
    for restore in undo:
        restore()
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--phases", action="store_true", help="CPU time per phase, in process")
    args = parser.parse_args()
    print(calibration())
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        (root / ".git").mkdir()
        (root / "volcano-scheduler.conf").write_text(CONF)
        path = root / "scale.policytest.yaml"
        path.write_text(json.dumps(fixture(args.jobs, args.nodes)))
        command = [*policytest_command("run", "--format", "json", str(path)), *LIMITS]
        done = subprocess.run(command, capture_output=True, text=True, cwd=root, check=False)
        if done.returncode not in (0, 1):
            raise SystemExit(done.stderr or done.stdout)
        result = json.loads(done.stdout)["results"][0]
        print(
            f"{args.jobs} jobs on {args.nodes} nodes: {len(result.get('binds', []))} pods "
            f"bound, {result.get('pending')} pending ({result['status']})"
        )
        measured = runs(command, args.runs, cwd=str(root))
        print(summary("  policytest run --format json", measured))
        wall = median([r.wall for r in measured])
        print(f"  target <= 3 s end to end -> {'met' if wall <= 3 else 'MISSED'}")
        if args.phases:
            os.chdir(root)
            spent = phases(path)
            print("  in process, CPU: " + ", ".join(f"{k} {v:.2f} s" for k, v in spent.items()))


if __name__ == "__main__":
    main()
