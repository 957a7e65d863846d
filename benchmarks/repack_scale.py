"""Repack and sweeps at scale: 5,000 nodes holding 50,000 bound pods (Deployments,
DaemonSets, StatefulSets on zonal and local volumes; ``cluster_dump.py --stateful``).

Generates the kubectl dump, then, each as a fresh process:

1. ``policytest simulate --snapshot DUMP --repack --config kube.yaml`` on the kubectl JSON
   itself (the one command from a cluster to the answer) and on the compact file
   ``policytest snapshot`` writes, with kube-scheduler's default profile; target 10 s;
2. a sweep of 32 variants of it (``--vary NodeResourcesFit.scoringStrategy.type=...
   --vary NodeResourcesFit.weight=1..16``) on ``--workers 1`` and ``--workers 2``: the
   speed-up (target 1.8x on 2 cores), and on ``--dask local`` with 2 workers (target:
   under 10% more than the local pool). The reports must be the same.

    python benchmarks/repack_scale.py [--nodes 5000] [--pods 50000] [--runs 3] [--no-sweep]
"""

from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile

from workloads import calibration, median, policytest_command, run_process, runs, summary

DEFAULT_PROFILE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
"""
WEIGHTS = [str(weight) for weight in range(1, 17)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5_000)
    parser.add_argument("--pods", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-sweep", action="store_true", help="measure the repack only")
    args = parser.parse_args()
    print(calibration())
    with tempfile.TemporaryDirectory() as scratch:
        dump = os.path.join(scratch, "cluster.json")
        generator = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cluster_dump.py")
        with open(dump, "w", encoding="utf-8") as handle:
            command = [sys.executable, generator, "--nodes", str(args.nodes), "--pods"]
            subprocess.run([*command, str(args.pods), "--stateful"], stdout=handle, check=True)
        compact = os.path.join(scratch, "compact.json")
        subprocess.run(policytest_command("snapshot", dump, "-o", compact), check=True)
        config = os.path.join(scratch, "kube.yaml")
        with open(config, "w", encoding="utf-8") as handle:
            handle.write(DEFAULT_PROFILE)
        size = os.path.getsize(dump) / 1e6
        for label, source in (("kubectl JSON", dump), ("compact file", compact)):
            command = policytest_command(
                "simulate", "--snapshot", source, "--repack", "--config", config, "--quiet"
            )
            measured = runs(command, args.runs)
            assert all(r.returncode == 0 for r in measured), f"the repack of the {label} failed"
            wall = median([r.wall for r in measured])
            print(summary(f"repack, {label} ({size:.1f} MB dump)", measured))
            print(f"  target 10 s -> {'met' if wall <= 10 else 'MISSED'}")
        if args.no_sweep:
            return
        sweep = [
            "simulate", "--snapshot", compact, "--repack", "--config", config, "--quiet",
            "--vary", "NodeResourcesFit.scoringStrategy.type=MostAllocated,LeastAllocated",
            "--vary", "NodeResourcesFit.weight=" + ",".join(WEIGHTS), "--format", "json",
        ]  # fmt: skip
        walls = {}
        for engine in (
            ["--workers", "1"],
            ["--workers", "2"],
            ["--workers", "2", "--dask", "local"],
        ):
            out = os.path.join(scratch, "-".join(engine) + ".json")
            measured = [run_process(policytest_command(*sweep, *engine), output=out)]
            assert measured[0].returncode == 0, f"the sweep on {engine} failed"
            walls[" ".join(engine)] = median([r.wall for r in measured])
            print(summary(f"sweep of 32 variants, {' '.join(engine)}", measured))
        outputs = [
            os.path.join(scratch, name) for name in os.listdir(scratch) if name.startswith("--")
        ]
        same = all(filecmp.cmp(outputs[0], other, shallow=False) for other in outputs[1:])
        speedup = walls["--workers 1"] / walls["--workers 2"]
        dask = walls["--workers 2 --dask local"] / walls["--workers 2"] - 1
        print(f"  reports identical on all three: {same}")
        print(
            f"  2 workers: {speedup:.2f}x (target 1.8x) -> {'met' if speedup >= 1.8 else 'MISSED'}"
        )
        verdict = "met" if dask < 0.1 else "MISSED"
        print(f"  --dask local: {dask:+.1%} against the pool (target < 10%) -> {verdict}")


if __name__ == "__main__":
    main()
