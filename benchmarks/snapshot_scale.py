"""Snapshots at scale: ``kubectl get nodes,pods -A -o json`` of 5,000 nodes and 50,000 pods.

Generates the dump (``cluster_dump.py``: control-plane taints, a cordoned node, GPU
nodes, DaemonSet pods on every node, completed and pending pods), then, each as a fresh
process: ``policytest snapshot`` reducing it to the compact file (throughput in MB of
kubectl JSON per second of wall time, and peak RSS), and ``policytest run`` and
``policytest simulate`` on a fixture naming that file (one case ranking one pod on
every node, one placing the snapshot's pending pods), for both schedulers. Run:

    python benchmarks/snapshot_scale.py [--nodes 5000] [--pods 50000] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

from workloads import calibration, median, policytest_command, runs, summary, write_configs

FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {{name: snapshot-{kind}}}
scheduler:
  config: configs/{kind}.yaml
cluster:
  snapshot: compact.json
cases:
- name: one pod ranked
  pod: {{requests: {{cpu: "1", memory: 2Gi}}}}
  expect: {{}}
- name: the pending pods placed
  ties: allow
  pods: {{fromSnapshot: pending}}
  expect: {{}}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5_000)
    parser.add_argument("--pods", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(calibration())
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run(["git", "init", "-q", scratch], check=True)
        source = os.path.join(scratch, "cluster.json")
        # in a child process: a forked child's peak RSS counts its parent's memory
        generator = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cluster_dump.py")
        with open(source, "w", encoding="utf-8") as handle:
            subprocess.run(
                [sys.executable, generator, "--nodes", str(args.nodes), "--pods", str(args.pods)],
                stdout=handle,
                check=True,
            )
        size = os.path.getsize(source) / 1e6
        compact = os.path.join(scratch, "compact.json")
        command = policytest_command("snapshot", source, "-o", compact)
        measured = runs(command, args.runs)
        assert all(r.returncode == 0 for r in measured), "the snapshot failed"
        label = f"policytest snapshot, {args.nodes:,} nodes, {args.pods:,} pods, {size:.1f} MB"
        print(summary(label, measured))
        wall = median([r.wall for r in measured])
        peak = max(r.peak_mb for r in measured)
        rate = size / wall
        met = rate >= 50 and peak <= 1500
        print(
            f"  {rate:.0f} MB/s; compact file {os.path.getsize(compact) / 1e6:.1f} MB; "
            f"target >= 50 MB/s and <= 1.5 GB -> {'met' if met else 'MISSED'}"
        )
        write_configs(scratch)
        for kind in ("kube", "volcano"):
            fixture = os.path.join(scratch, f"snapshot-{kind}.policytest.yaml")
            with open(fixture, "w", encoding="utf-8") as handle:
                handle.write(FIXTURE.format(kind=kind))
            for verb in ("run", "simulate"):
                measured = runs(policytest_command(verb, fixture), args.runs, cwd=scratch)
                assert all(r.returncode == 0 for r in measured), f"{verb} failed"
                print(summary(f"{kind}: policytest {verb} on the compact file", measured))
                wall = median([r.wall for r in measured])
                print(f"  target <= 2 s end to end -> {'met' if wall <= 2 else 'MISSED'}")


if __name__ == "__main__":
    main()
