"""One Volcano session at scale, end to end through ``policytest run``: 1,000 jobs (8,000
tasks, gangs of 1 to 32), three queues, three priorities, CPU and GPU tasks, on 2,000
nodes of varied shapes, under the Helm chart's default conf.

    python benchmarks/session_scale.py [--jobs 1000] [--nodes 2000]

Prints the wall time of the run (the fixture is written to a temporary directory first)
and how many pods bound. Figures: docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--nodes", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        (root / ".git").mkdir()
        (root / "volcano-scheduler.conf").write_text(CONF)
        path = root / "scale.policytest.yaml"
        path.write_text(json.dumps(fixture(args.jobs, args.nodes)))
        command = [sys.executable, "-m", "policytest", "run", "--format", "json", str(path)]
        command += ["--limit", "pods=1000000", "--limit", "node-scores=1000000000"]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, cwd=root, check=False)
        elapsed = time.perf_counter() - started
        if done.returncode not in (0, 1):
            raise SystemExit(done.stderr or done.stdout)
        result = json.loads(done.stdout)["results"][0]
        print(
            f"{args.jobs} jobs on {args.nodes} nodes: {elapsed:.2f} s end to end, "
            f"{len(result.get('binds', []))} pods bound, {result.get('pending')} pending "
            f"({result['status']}: {result['message'][:120]})"
        )


if __name__ == "__main__":
    main()
