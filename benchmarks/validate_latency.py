"""Median wall time of ``policytest validate`` on one small config, as a fresh process.

This is the pre-commit hook's cost per commit. Run:

    python benchmarks/validate_latency.py [--runs 21] [FILE]

It also reports the import time of the validate path (``python -X importtime``),
so a heavy import creeping onto the hook path shows up by name.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

SMALL_CONF = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: volcano-scheduler-configmap
data:
  volcano-scheduler.conf: |
    actions: "enqueue, allocate, backfill"
    tiers:
    - plugins:
      - name: priority
      - name: gang
    - plugins:
      - name: predicates
      - name: nodeorder
      - name: binpack
        arguments:
          binpack.weight: 10
"""


def time_command(command: list[str], runs: int) -> list[float]:
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        timings.append(time.perf_counter() - started)
    return timings


def slowest_imports(command: list[str], count: int = 8) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *command], capture_output=True, text=True, check=False
    )
    rows = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = (part.strip() for part in line[12:].split("|"))
            if cumulative.isdigit():
                rows.append((int(cumulative), name))
    return [f"{us / 1000:7.1f} ms  {name}" for us, name in sorted(rows, reverse=True)[:count]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?")
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        path = args.file or os.path.join(scratch, "volcano-scheduler-configmap.yaml")
        if not args.file:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(SMALL_CONF)
        command = [sys.executable, "-m", "policytest", "validate", path]
        time_command(command, 2)  # warm the OS file cache
        timings = time_command(command, args.runs)
        baseline = time_command([sys.executable, "-c", "pass"], args.runs)
        print(
            f"policytest validate (fresh process, {args.runs} runs): "
            f"median {statistics.median(timings) * 1000:.0f} ms, "
            f"min {min(timings) * 1000:.0f} ms, max {max(timings) * 1000:.0f} ms"
        )
        print(
            f"python -c pass (interpreter start): median "
            f"{statistics.median(baseline) * 1000:.0f} ms"
        )
        print("slowest cumulative imports:")
        for row in slowest_imports(["-m", "policytest", "validate", path]):
            print("  " + row)


if __name__ == "__main__":
    main()
