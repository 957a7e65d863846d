"""Figure 3d, sequences on a cluster whose nodes differ: 10,000 pods on 5,000 nodes.

The uniform clusters of ``sequence_scale.py`` repeat three node types, so nodes share
states and their verdicts (``policytest.scoring.verdicts``). A real cluster does not:
here every node has its own size (cpu, memory, pod limit, some GPUs), its own uneven
usage (10,000 bound pods of random shapes spread unevenly) and its own labels. The same
mixed sequence as ``sequence_scale.py``, ``policytest run`` as a fresh process, both
schedulers. Run:

    python benchmarks/varied_scale.py [--nodes 5000] [--pods 10000] [--runs 3]
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile

from workloads import (
    calibration,
    median,
    policytest_command,
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
    parser.add_argument("--keep", help="write the fixtures into this directory and keep them")
    args = parser.parse_args()
    print(calibration())
    with tempfile.TemporaryDirectory() as scratch:
        directory = args.keep or scratch
        subprocess.run(["git", "init", "-q", directory], check=True)
        for kind in ("kube", "volcano"):
            fixture = write_fixture(
                directory,
                kind,
                args.nodes,
                args.nodes * 2,
                [sequence_case(args.pods)],
                varied_cluster_yaml,
            )
            measured = runs(policytest_command("run", fixture, *LIMIT), args.runs)
            assert all(r.returncode == 0 for r in measured), "the run failed"
            label = f"{kind}: {args.pods:,} pods on {args.nodes:,} varied nodes, policytest run"
            print(summary(label, measured))
            wall = median([r.wall for r in measured])
            print(f"  target <= 2 s -> {'met' if wall <= 2 else 'MISSED'}")


if __name__ == "__main__":
    main()
