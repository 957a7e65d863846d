"""Figure 1, hook latency: ``policytest validate`` on one small config, fresh process.

Wall time and CPU time (user + system, from ``wait4``) per run; the CPU time is the
figure with a target (60 ms), as it depends less on what else the machine is doing.

Compared in the same run (runs interleaved, so machine load hits both alike) with
``check-jsonschema --schemafile <our bundled schema>`` on the same file. Run:

    python benchmarks/validate_latency.py [--runs 21] [FILE]

check-jsonschema is a benchmark-only tool (``pip install check-jsonschema``); without
it the comparison is skipped. It also lists the slowest imports of the validate path
(``python -X importtime``), so a heavy import creeping onto the hook path shows up by
name, and checks that jsonschema and NumPy are not imported for a valid file.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from importlib import resources

from workloads import (
    ENVIRONMENT,
    calibration,
    configmap,
    median,
    policytest_command,
    run_process,
    volcano_conf,
)

RAW_CONF = volcano_conf(gpu=None)
CONFIGMAP = configmap("volcano-scheduler-configmap", "volcano-scheduler.conf", RAW_CONF)
HEAVY = ("jsonschema", "numpy")


def imports(command: list[str]) -> list[tuple[int, str]]:
    """(cumulative microseconds, module) for every import the command makes."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *command[1:]],
        capture_output=True,
        text=True,
        check=False,
        env=ENVIRONMENT,
    )
    rows = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = (part.strip() for part in line[12:].split("|"))
            if cumulative.isdigit():
                rows.append((int(cumulative), name))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", help="a raw Volcano conf (default: a small one)")
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    print(calibration())
    with tempfile.TemporaryDirectory() as scratch:
        raw = args.file or os.path.join(scratch, "volcano-scheduler.yaml")
        configmap = os.path.join(scratch, "volcano-scheduler-configmap.yaml")
        if not args.file:
            with open(raw, "w", encoding="utf-8") as handle:
                handle.write(RAW_CONF)
        with open(configmap, "w", encoding="utf-8") as handle:
            handle.write(CONFIGMAP)
        schema = os.path.join(scratch, "volcano-scheduler-conf.schema.json")
        with open(schema, "w", encoding="utf-8") as handle:
            handle.write(
                (
                    resources.files("policytest.schemas") / "volcano-scheduler-conf.schema.json"
                ).read_text("utf-8")
            )
        commands = {
            "policytest validate (raw conf)": policytest_command("validate", raw),
            "policytest validate (ConfigMap)": policytest_command("validate", configmap),
            "python -c pass": [sys.executable, "-c", "pass"],
        }
        checker = shutil.which("check-jsonschema")
        if checker:
            commands["check-jsonschema --schemafile (raw conf)"] = [
                checker,
                "--schemafile",
                schema,
                raw,
            ]
        for command in commands.values():  # warm OS caches and .pyc files
            run_process(command)
        walls: dict[str, list[float]] = {label: [] for label in commands}
        cpus: dict[str, list[float]] = {label: [] for label in commands}
        for _ in range(args.runs):
            for label, command in commands.items():
                run = run_process(command)
                walls[label].append(run.wall)
                cpus[label].append(run.cpu)
        for label, values in walls.items():
            print(
                f"{label}: median {median(values) * 1000:.0f} ms "
                f"(min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f}; {args.runs} runs); "
                f"CPU median {median(cpus[label]) * 1000:.0f} ms (min "
                f"{min(cpus[label]) * 1000:.0f})"
            )
        ours = median(walls["policytest validate (raw conf)"])
        print(f"target: median <= 120 ms -> {'met' if ours <= 0.12 else 'MISSED'}")
        cpu = median(cpus["policytest validate (raw conf)"])
        bare = median(cpus["python -c pass"])
        print(
            f"target: CPU median <= 60 ms -> {'met' if cpu <= 0.06 else 'MISSED'} "
            f"({cpu / bare:.1f}x a bare interpreter's {bare * 1000:.0f} ms)"
        )
        if checker:
            theirs = median(walls["check-jsonschema --schemafile (raw conf)"])
            print(f"ratio policytest / check-jsonschema: {ours / theirs:.2f} (target <= 1.00)")
        rows = imports(commands["policytest validate (ConfigMap)"])
        heavy = sorted({name.split(".")[0] for _, name in rows} & set(HEAVY))
        print(f"heavy modules imported on the hook path: {', '.join(heavy) or 'none'}")
        print("slowest cumulative imports:")
        for microseconds, name in sorted(rows, reverse=True)[:8]:
            print(f"  {microseconds / 1000:7.1f} ms  {name}")


if __name__ == "__main__":
    main()
