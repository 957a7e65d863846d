"""Time and peak memory of ``policytest`` rejecting hostile inputs (issue 9).

Usage (from the repository root)::

    python benchmarks/hostile_inputs.py [--repeat 3] [--big]

Each input runs in a fresh ``python -m policytest`` process, forked from a small
launcher (so its ``ru_maxrss`` is its own, not this process's); the figures are the wall
time of the whole process (interpreter start-up included) and its peak resident set
size from ``os.wait4``, best of ``--repeat`` runs. The target: every hostile input is
rejected within 2 s and 200 MB. ``--big`` adds the largest file the default limits
accept (16 MiB of one-item lines), to show what ``file-bytes`` alone allows, and the big
inputs of the second round (a snapshot of that file, a huge ``NotIn``, a ConfigMap whose
values share one node budget) and of the third (a 28,000-profile config, ten files each
just under ``yaml-nodes`` within one invocation's ``total-yaml-nodes``).

``--topology`` runs the fourth round instead: the seven attacks on the topology plugins'
work (``tests/topology_attacks.py``: bound pods' anti-affinity terms, an incoming pod's
preferred pod-affinity terms, host ports, spread constraints, Services, preferred node
affinity, bound pods' labels), each for kube-scheduler's default profile and Volcano's
predicates and nodeorder, through ``run``, ``diff`` (file mode: the fixture's config
against a changed one, so the fixture runs twice) and ``simulate``. Each process is
killed after ``--timeout`` seconds (the row then says so); ``--only NAME`` runs one
attack, ``--scheduler`` one scheduler.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.read.test_limits import HOSTILE, fixture, measure, measure_command  # noqa: E402
from tests.topology_attacks import ATTACKS, Scheduler, write_attack  # noqa: E402

Case = tuple[str, list[str], Callable[[], int | None]]


def run_case(argv: list[str], stdin: Callable[[], int | None]) -> tuple[float, float, int]:
    """Seconds, peak MB and exit code of one ``policytest`` process."""
    source = stdin()
    try:
        measured = measure(argv, source)
    finally:
        if source is not None:
            os.close(source)
    return measured.seconds, measured.peak_mb, measured.exit_code


def gigabyte_pipe() -> int:
    """The read end of a pipe that ``head`` fills with 1 GiB (it dies of SIGPIPE early)."""
    read, write = os.pipe()
    subprocess.Popen(
        ["head", "-c", str(1 << 30), "/dev/zero"], stdout=write, stderr=subprocess.DEVNULL
    )
    os.close(write)
    return read


def cases(directory: Path, big: bool) -> list[Case]:
    (directory / ".git").mkdir(exist_ok=True)
    found: list[Case] = []
    tiny = directory / "tiny.policytest.yaml"
    tiny.write_text(fixture())
    found.append(("baseline: a small valid fixture (validate)", ["validate", str(tiny)], _none))
    for name, data in sorted(HOSTILE.items()):
        path = directory / f"{name}.policytest.yaml"
        path.write_bytes(data)
        found.append((f"{name} ({len(data):,} bytes), validate", ["validate", str(path)], _none))
        found.append((f"{name}, run", ["run", str(path)], _none))
    found.append(("1 GiB stream on stdin, validate -", ["validate", "-"], gigabyte_pipe))
    billion = directory / "billion.policytest.yaml"
    billion.write_text(
        fixture(
            cases="- name: b\n  pods: [{requests: {cpu: 1m}, count: 1000000000}]\n  expect: {}\n"
        )
    )
    found.append(("count: 1000000000, run", ["run", str(billion)], _none))
    if big:
        flat = directory / "flat.yaml"
        line = b"- a\n"
        flat.write_bytes(b"kind: PolicyTest\nx:\n" + line * ((16 * 1024 * 1024 - 32) // len(line)))
        found.append(
            ("largest accepted file (16 MiB, 4M nodes), validate", ["validate", str(flat)], _none)
        )
        found += _round_two(directory, flat)
        found += _round_three(directory)
    return found


_FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
scheduler: {{volcano: {{actions: "enqueue, allocate", tiers: [{{plugins: [{{name: binpack}}]}}]}}}}
cluster:
  {cluster}
cases:
- name: one
  pod: {{requests: {{cpu: 1m}}{affinity}}}
  expect: {{}}
"""


def _round_two(directory: Path, flat: Path) -> list[Case]:
    """The inputs of the second round (docs/robustness.md): a snapshot past the node limit,
    a 500,000-value ``NotIn`` on 2,000 nodes, three 500,000-node values of one ConfigMap."""
    snapshot = directory / "snapshot.policytest.yaml"
    snapshot.write_text(_FIXTURE.format(cluster=f"snapshot: {flat.name}", affinity=""))
    nodes = "".join(
        f'  - {{name: n{i}, allocatable: {{cpu: "8", pods: "110"}}, labels: {{z: z{i % 7}}}}}\n'
        for i in range(2_000)
    )
    values = ", ".join(f"v{i}" for i in range(500_000))
    affinity = (
        ", affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
        f"{{nodeSelectorTerms: [{{matchExpressions: [{{key: z, operator: NotIn, values: "
        f"[{values}]}}]}}]}}}}}}"
    )
    selector = directory / "selector.policytest.yaml"
    selector.write_text(_FIXTURE.format(cluster=f"nodes:\n{nodes}", affinity=affinity))
    configmap = directory / "configmap.yaml"
    lines = ["apiVersion: v1", "kind: ConfigMap", "metadata: {name: c}", "data:"]
    for index in range(3):
        lines += [f"  k{index}.conf: |", *(["    - a"] * 500_000)]
    configmap.write_text("\n".join(lines) + "\n")
    return [
        ("cluster.snapshot of 16 MiB of `- a`, run", ["run", str(snapshot)], _none),
        ("500,000-value NotIn on 2,000 nodes, run", ["run", str(selector)], _none),
        ("ConfigMap: three 500,000-node values, validate", ["validate", str(configmap)], _none),
    ]


def _round_three(directory: Path) -> list[Case]:
    """The inputs of the third round: a KubeSchedulerConfiguration with 28,000 profiles
    (within ``yaml-nodes``; refused by ``profile-plugins``), and ten files of 599,990
    nodes each in one ``validate`` whose ``total-yaml-nodes`` holds two of them."""
    profiles = directory / "profiles.yaml"
    lines = ["apiVersion: kubescheduler.config.k8s.io/v1", "kind: KubeSchedulerConfiguration"]
    lines.append("profiles:")
    for index in range(28_000):
        lines += [f"- schedulerName: s{index}", "  plugins:", "    score:", "      enabled:"]
        lines.append("      - {name: NodeResourcesFit, weight: 2}")
    profiles.write_text("\n".join(lines) + "\n")
    many = directory / "many"
    many.mkdir()
    for index in range(10):
        (many / f"f{index}.yaml").write_bytes(b"kind: PolicyTest\nx:\n" + b"- a\n" * 599_985)
    total = ["--limit", "total-yaml-nodes=1_200_000"]
    return [
        (
            "KubeSchedulerConfiguration with 28,000 profiles, validate",
            ["validate", str(profiles)],
            _none,
        ),
        (
            "ten files of 599,990 nodes, validate (total-yaml-nodes 1,200,000)",
            ["validate", *total, str(many)],
            _none,
        ),
    ]


def _none() -> None:
    return None


def _round_four(
    directory: Path, timeout: float, only: str | None, schedulers: list[Scheduler]
) -> list[Case]:
    """The topology attacks at full size: ``run``, ``diff`` and ``simulate`` of each, for
    each scheduler, killed after ``timeout`` seconds (``timeout --foreground -s KILL``,
    which waits for it: its exit is 137, and the peak is the process's until then)."""
    (directory / ".git").mkdir(exist_ok=True)
    found: list[Case] = []
    killer = ["timeout", "--foreground", "-s", "KILL", str(timeout)]
    for attack in ATTACKS:
        if only is not None and attack.name != only:
            continue
        for scheduler in schedulers:
            path = write_attack(directory, attack, scheduler)
            size = path.stat().st_size
            label = f"{attack.summary} ({scheduler}, {size / 1e6:.2f} MB)"
            configs = directory / "configs"
            diff = [
                "diff",
                str(configs / f"{scheduler}.yaml"),
                str(configs / f"{scheduler}-head.yaml"),
                "--fixtures",
                str(path),
            ]
            for command, argv in (
                ("run", ["run", str(path)]),
                ("diff", diff),
                ("simulate", ["simulate", str(path)]),
            ):
                found.append(
                    (
                        f"{label}, {command}",
                        [*killer, sys.executable, "-m", "policytest", *argv],
                        _none,
                    )
                )
    return found


def _run_command(argv: list[str], stdin: Callable[[], int | None]) -> tuple[float, float, int]:
    """``run_case``, or for the topology round's whole command lines (``timeout ...
    python -m policytest ...``) the same measure of the command as given."""
    if argv[0] != "timeout":
        return run_case(argv, stdin)
    measured = measure_command(argv)
    return measured.seconds, measured.peak_mb, measured.exit_code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--big", action="store_true", help="also the largest accepted file")
    parser.add_argument(
        "--topology", action="store_true", help="the topology plugins' attacks instead"
    )
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per process")
    parser.add_argument("--only", help="one topology attack, by name")
    parser.add_argument("--scheduler", choices=["kube", "volcano"], action="append")
    args = parser.parse_args(argv)
    print("| input | exit | time (s) | peak RSS (MB) |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="policytest-hostile-") as scratch:
        directory = Path(scratch)
        found = (
            _round_four(directory, args.timeout, args.only, args.scheduler or ["kube", "volcano"])
            if args.topology
            else cases(directory, args.big)
        )
        for label, command, stdin in found:
            runs = [_run_command(command, stdin) for _ in range(args.repeat)]
            elapsed = min(run[0] for run in runs)
            peak = min(run[1] for run in runs)
            print(f"| {label} | {runs[0][2]} | {elapsed:.2f} | {peak:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
