"""Figure 1, hook latency: ``policytest validate`` on one small config, fresh process.

Measured the way pre-commit runs the hook: pre-commit ``pip install``s the repository
into a virtualenv of its own and runs the ``policytest`` console script there. So this
script installs the checkout (not editable: an editable install's import finder costs
every process) into a temporary venv, with the bytecode pip compiles, and runs
``<venv>/bin/policytest validate FILE`` next to ``<venv>/bin/python -c pass`` (the bare
interpreter of the same venv). ``--baseline DIR`` installs a second checkout (e.g. the
previous ``main``) into its own venv and interleaves its runs with ours, so machine load
hits both alike.

CPU time (user + system, from ``wait4``) is the figure with a target (60 ms where a bare
interpreter costs about 17 ms): it depends less than wall time on what else the machine
is doing. Run:

    python benchmarks/validate_latency.py [--runs 21] [--baseline DIR] [--venv DIR]

``--venv DIR`` reuses (or creates) the venv for this checkout instead of a temporary
one (``pip install`` then runs again, so the code measured is the checkout's).
``--siblings N`` writes N application manifests (a Deployment and its Service, 2.6 KB,
with a ``schedulerName`` and an image of their own) beside the configs, as in a GitOps
directory: ``validate`` reads the files beside a config for the scheduler that runs it.
With check-jsonschema on the ``PATH`` (``pip install check-jsonschema``, a benchmark-only
tool) its ``--schemafile`` run on the raw conf is compared too. It also lists the slowest
imports of the validate path (``python -X importtime``), so a heavy import creeping onto
the hook path shows up by name, and checks that jsonschema and NumPy are not imported.
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
    KUBE_CONFIG,
    calibration,
    configmap,
    median,
    run_process,
    volcano_conf,
)

RAW_CONF = volcano_conf(gpu=None)
CONFIGMAP = configmap("volcano-scheduler-configmap", "volcano-scheduler.conf", RAW_CONF)
INPUTS = {
    "raw conf": ("volcano-scheduler.conf", RAW_CONF),
    "ConfigMap": ("volcano-scheduler-configmap.yaml", CONFIGMAP),
    "KubeSchedulerConfiguration": ("kube-scheduler.yaml", KUBE_CONFIG),
}
HEAVY = ("jsonschema", "numpy")
ENV_VARS = 40
"""Environment variables per application manifest (2.6 KB each)."""
CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def installed(checkout: str, venv: str) -> str:
    """``checkout`` pip-installed (not editable) into ``venv``; returns its bin directory."""
    if not os.path.exists(os.path.join(venv, "bin", "python")):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    bin_dir = os.path.join(venv, "bin")
    subprocess.run(
        [os.path.join(bin_dir, "python"), "-m", "pip", "install", "--quiet", checkout],
        check=True,
        env=ENVIRONMENT,  # pip compiles the bytecode, as it does for pre-commit
    )
    return bin_dir


def imports(command: list[str]) -> list[tuple[int, str]]:
    """(cumulative microseconds, module) for every import the command makes."""
    done = subprocess.run(
        [command[0], "-X", "importtime", *command[1:]],
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


def application(number: int) -> str:
    """An application's Deployment and Service: no scheduler runs in it."""
    env = "".join(
        f'        - {{name: VAR_{index}, value: "setting {index} of app {number}"}}\n'
        for index in range(ENV_VARS)
    )
    return (
        f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-{number}\n"
        f"spec:\n  replicas: 3\n  selector: {{matchLabels: {{app: app-{number}}}}}\n"
        f"  template:\n    metadata: {{labels: {{app: app-{number}}}}}\n    spec:\n"
        f"      schedulerName: volcano\n      containers:\n      - name: main\n"
        f"        image: ghcr.io/example/app-{number}:v1.{number}.0\n"
        f"        resources: {{requests: {{cpu: 500m, memory: 1Gi}}}}\n        env:\n{env}"
        f"---\napiVersion: v1\nkind: Service\nmetadata:\n  name: app-{number}\n"
        f"spec:\n  selector: {{app: app-{number}}}\n  ports: [{{port: 80}}]\n"
    )


def commands_of(bin_dir: str, files: dict[str, str], suffix: str) -> dict[str, list[str]]:
    """The hook as pre-commit runs it on each input, and the venv's bare interpreter."""
    commands = {
        f"policytest validate ({label}){suffix}": [
            os.path.join(bin_dir, "policytest"),
            "validate",
            path,
        ]
        for label, path in files.items()
    }
    commands[f"python -c pass{suffix}"] = [os.path.join(bin_dir, "python"), "-c", "pass"]
    return commands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--baseline", metavar="DIR", help="another checkout, interleaved")
    parser.add_argument("--venv", metavar="DIR", help="the venv for this checkout")
    parser.add_argument(
        "--siblings", type=int, default=0, metavar="N", help="application manifests beside"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        files = {}
        for label, (name, text) in INPUTS.items():
            files[label] = os.path.join(scratch, name)
            with open(files[label], "w", encoding="utf-8") as handle:
                handle.write(text)
        for number in range(args.siblings):
            with open(os.path.join(scratch, f"app-{number}.yaml"), "w", encoding="utf-8") as out:
                out.write(application(number))
        ours = installed(CHECKOUT, args.venv or os.path.join(scratch, "venv"))
        commands = commands_of(ours, files, "")
        if args.baseline:
            baseline = installed(os.path.abspath(args.baseline), os.path.join(scratch, "base"))
            commands.update(commands_of(baseline, files, " [baseline]"))
        checker = shutil.which("check-jsonschema")
        if checker:
            schema = os.path.join(scratch, "volcano-scheduler-conf.schema.json")
            with open(schema, "w", encoding="utf-8") as handle:
                handle.write(
                    (
                        resources.files("policytest.schemas") / "volcano-scheduler-conf.schema.json"
                    ).read_text("utf-8")
                )
            label = "check-jsonschema --schemafile (raw conf)"
            commands[label] = [checker, "--schemafile", schema, files["raw conf"]]
        print(calibration())
        if args.siblings:
            print(f"beside the configs: {args.siblings} application manifests")
        for command in commands.values():  # warm OS caches
            run_process(command)
        walls: dict[str, list[float]] = {label: [] for label in commands}
        cpus: dict[str, list[float]] = {label: [] for label in commands}
        for _ in range(args.runs):
            for label, command in commands.items():
                run = run_process(command)
                walls[label].append(run.wall)
                cpus[label].append(run.cpu)
        print(calibration())
        for label, values in walls.items():
            print(
                f"{label}: CPU median {median(cpus[label]) * 1000:.1f} ms (min "
                f"{min(cpus[label]) * 1000:.1f}); wall median {median(values) * 1000:.0f} ms "
                f"(min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f}; {args.runs} runs)"
            )
        bare = median(cpus["python -c pass"])
        scaled = 0.060 * bare / 0.017
        print(
            f"target: CPU median <= 60 ms where a bare interpreter costs 17 ms (3.5x), "
            f"i.e. <= {scaled * 1000:.1f} ms here (bare {bare * 1000:.1f} ms):"
        )
        for name in INPUTS:
            cpu = median(cpus[f"policytest validate ({name})"])
            verdict = "met" if cpu <= scaled else "MISSED"
            print(f"  {name}: {cpu * 1000:.1f} ms, {cpu / bare:.2f}x -> {verdict}")
        if checker:
            theirs = median(walls["check-jsonschema --schemafile (raw conf)"])
            ratio = median(walls["policytest validate (raw conf)"]) / theirs
            print(f"wall ratio policytest / check-jsonschema: {ratio:.2f} (target <= 1.00)")
        rows = imports(  # the console script, as pre-commit runs it (not -m: runpy's imports)
            [
                os.path.join(ours, "python"),
                os.path.join(ours, "policytest"),
                "validate",
                files["ConfigMap"],
            ]
        )
        heavy = sorted({name.split(".")[0] for _, name in rows} & set(HEAVY))
        print(f"heavy modules imported on the hook path: {', '.join(heavy) or 'none'}")
        print("slowest cumulative imports (ConfigMap):")
        for microseconds, name in sorted(rows, reverse=True)[:8]:
            print(f"  {microseconds / 1000:7.1f} ms  {name}")


if __name__ == "__main__":
    main()
