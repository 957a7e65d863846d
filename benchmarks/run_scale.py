"""Figure 3a, scoring at scale: ``policytest run`` on 10,000 nodes carrying 50,000 pods.

One pod is ranked. Measured end to end as a fresh process (reading the 3 MB fixture
YAML, checking it, building the cluster, scoring every node, reporting), and the
ranking alone with the cluster already loaded (score every node, then rank). Both
scheduler kinds: Volcano binpack + nodeorder, kube-scheduler MostAllocated. Run:

    python benchmarks/run_scale.py [--nodes 10000] [--pods 50000] [--runs 3]
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import tempfile
import time

from workloads import (
    ONE_POD_CASE,
    calibration,
    median,
    policytest_command,
    runs,
    summary,
    write_fixture,
)


def ranking_seconds(fixture: str, repeats: int) -> tuple[list[float], list[float]]:
    """CPU seconds of score + rank of one pod with the cluster loaded (in this process),
    and of loading the cluster state (``scheduler.cluster``: each node's accounting and
    key; Volcano's kube view of each node for nodeorder)."""
    from policytest.core.options import CheckOptions
    from policytest.harness.load import load_fixture, load_scheduler
    from policytest.harness.runner import rank
    from policytest.read.source import read_file
    from policytest.scoring.fast import build_nodes
    from policytest.scoring.specs import pod_from_dict

    options = CheckOptions()
    document = read_file(fixture, options.limits).documents[0]
    loaded, problems = load_fixture(document, options)
    assert loaded is not None, problems
    scheduler, _ = load_scheduler(loaded, options, os.path.dirname(fixture))
    assert scheduler is not None
    nodes = build_nodes((spec.name, spec.spec) for spec in loaded.nodes)
    pod = pod_from_dict(loaded.cases[0].pods[0], default_requests_from_limits=True)
    gc.freeze()  # as the commands run: the loaded fixture is never collected
    timings, loading = [], []
    for _ in range(repeats):
        started = time.process_time()
        state = scheduler.cluster(nodes)  # fresh state: nothing cached from the last round
        loading.append(time.process_time() - started)
        started = time.process_time()
        rank(state.score(pod))
        timings.append(time.process_time() - started)
    return timings, loading


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--pods", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(calibration())
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run(["git", "init", "-q", scratch], check=True)  # the repository root
        for kind in ("volcano", "kube"):
            fixture = write_fixture(scratch, kind, args.nodes, args.pods, [ONE_POD_CASE])
            size = os.path.getsize(fixture) / 1e6
            measured = runs(policytest_command("run", fixture), args.runs)
            assert all(r.returncode == 0 for r in measured), "the run failed"
            print(summary(f"{kind}: policytest run, {args.nodes:,} nodes, {size:.1f} MB", measured))
            wall = median([r.wall for r in measured])
            print(f"  target <= 2 s end to end -> {'met' if wall <= 2 else 'MISSED'}")
            timings, loading = ranking_seconds(fixture, 7)
            ranking = median(timings)
            print(
                f"{kind}: ranking with the cluster loaded: median {ranking * 1000:.1f} ms CPU "
                f"(7 runs; loading the cluster state {median(loading) * 1000:.0f} ms); "
                f"target <= 20 ms -> {'met' if ranking <= 0.02 else 'MISSED'}"
            )


if __name__ == "__main__":
    main()
