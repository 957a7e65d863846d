"""Figure 3b, sequences: 10,000 pods placed one by one on 5,000 nodes.

The nodes already carry 10,000 pods; the sequence mixes four pod shapes (one with a
GPU). Both schedulers as the issue names them: kube-scheduler MostAllocated +
BalancedAllocation (the default score plugins keep BalancedAllocation on) and Volcano
binpack + nodeorder. ``policytest run`` as a fresh process, wall time and peak RSS;
then ``policytest simulate`` on the same fixture for the packing report.

``--varied --owned`` gives the bound pods Deployment owners, so the default spreading
reads them while the pods placed (without owners) are not spread.

``--varied`` (figure 3d) builds a cluster whose nodes all differ, as a real one's do:
each its own size (cpu, memory, pod limit, some GPUs), its own uneven usage and its own
labels, so no two nodes share a state (and a shared verdict). Run:

    python benchmarks/sequence_scale.py [--nodes 5000] [--pods 10000] [--runs 3] [--varied]
"""

from __future__ import annotations

import argparse
import functools
import subprocess
import tempfile

from workloads import (
    calibration,
    cluster_yaml,
    median,
    policytest_command,
    record_expectations,
    runs,
    sequence_case,
    summary,
    varied_cluster_yaml,
    write_fixture,
)

LIMIT = ["--limit", "node-scores=1000000000"]  # the default guards fixtures from PRs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5_000)
    parser.add_argument("--pods", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--varied", action="store_true", help="nodes that all differ")
    parser.add_argument(
        "--owned",
        action="store_true",
        help="with --varied: the bound pods belong to 20 Deployments (those placed have none)",
    )
    args = parser.parse_args()
    cluster = varied_cluster_yaml if args.varied else cluster_yaml
    if args.owned:
        cluster = functools.partial(varied_cluster_yaml, deployments=20)
    print(calibration())
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run(["git", "init", "-q", scratch], check=True)
        for kind in ("kube", "volcano"):
            fixture = write_fixture(
                scratch, kind, args.nodes, args.nodes * 2, [sequence_case(args.pods)], cluster
            )
            record_expectations(fixture, *LIMIT)
            measured = runs(policytest_command("run", fixture, *LIMIT), args.runs)
            assert all(r.returncode == 0 for r in measured), "the run failed"
            label = f"{kind}: {args.pods:,} pods on {args.nodes:,} nodes, policytest run"
            print(summary(label, measured))
            wall = median([r.wall for r in measured])
            peak = max(r.peak_mb for r in measured)
            met = wall <= 2 and peak <= 500
            print(f"  target <= 2 s and <= 500 MB -> {'met' if met else 'MISSED'}")
            print(
                f"  kube-scheduler's scheduler_perf floor for this size, 680 pods/s: "
                f"{args.pods / 680:.1f} s; policytest is {args.pods / 680 / wall:.1f}x faster"
            )
            (simulated,) = runs(policytest_command("simulate", fixture, *LIMIT), 1, warm=0)
            print(f"  policytest simulate on the same fixture: {simulated.wall:.2f} s")
        report = subprocess.run(
            policytest_command(
                "simulate", fixture, "--config", "configs/kube.yaml", "--config", "fixture", *LIMIT
            ),
            cwd=scratch,
            capture_output=True,
            text=True,
            check=True,
        )
        print("packing report, kube MostAllocated vs Volcano binpack on one workload:")
        print(report.stdout)


if __name__ == "__main__":
    main()
