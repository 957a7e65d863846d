"""Figure 4, suites: 1,000 fixture cases through the pytest plugin, serial and ``-n 2``.

100 fixture files of 10 cases each (small clusters of 4 to 8 nodes with bound pods;
single-pod rankings and short sequences, both scheduler kinds), generated into a temp
dir. Each run is a fresh ``python -m pytest`` process (collection included, cache
plugin off). ``--nodes 200`` makes each case heavier (the speed-up of ``-n 2`` grows
with the work per case: every xdist worker starts pytest and collects every file).
Run:

    python benchmarks/pytest_suite.py [--files 100] [--nodes 8] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile

from workloads import POD_SHAPES, calibration, median, runs, write_configs

NODE = (
    '  - name: node-{index}\n    allocatable: {{cpu: "{cpu}", memory: {memory}Gi, pods: "110"}}\n'
)
CASE_RANK = "- name: case {index} ranks\n  pod: {pod}\n  expect: {{}}\n"
CASE_SEQUENCE = (
    "- name: case {index} places\n  ties: allow\n  pods:\n  - {pod}\n  - {pod}\n"
    "  - {pod}\n  expect: {{}}\n"
)


def fixture_text(rng: random.Random, config: str, cases: int, nodes: int) -> str:
    lines = [
        "apiVersion: policytest/v1\nkind: PolicyTest\nmetadata: {name: suite}\n",
        f"scheduler:\n  config: {config}\ncluster:\n  nodes:\n",
    ]
    for index in range(rng.randint(max(1, nodes // 2), nodes)):
        lines.append(NODE.format(index=index, cpu=rng.choice([4, 8, 16]), memory=32))
        bound = rng.randint(0, 4)
        if bound:
            lines.append("    pods:\n")
            lines.extend(f"    - {rng.choice(POD_SHAPES)}\n" for _ in range(bound))
    lines.append("cases:\n")
    for index in range(cases):
        template = CASE_RANK if index % 2 else CASE_SEQUENCE
        lines.append(template.format(index=index, pod=rng.choice(POD_SHAPES)))
    return "".join(lines)


def write_suite(root: str, files: int, cases: int, nodes: int) -> None:
    rng = random.Random(11)
    write_configs(root)
    with open(os.path.join(root, "pytest.ini"), "w", encoding="utf-8") as handle:
        handle.write("[pytest]\naddopts = -p no:cacheprovider\n")
    for index in range(files):
        config = "configs/volcano.yaml" if index % 2 else "configs/kube.yaml"
        path = os.path.join(root, f"suite-{index:03d}.policytest.yaml")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(fixture_text(rng, config, cases, nodes))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--cases", type=int, default=10)
    parser.add_argument("--nodes", type=int, default=8, help="nodes per fixture, at most")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(calibration())
    total = args.files * args.cases
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run(["git", "init", "-q", scratch], check=True)
        write_suite(scratch, args.files, args.cases, args.nodes)
        pytest = [sys.executable, "-m", "pytest", "-q", scratch]
        serial = runs(pytest, args.runs, cwd=scratch)
        parallel = runs([*pytest, "-n", "2"], args.runs, cwd=scratch)
        assert all(r.returncode == 0 for r in serial + parallel), "the suite failed"
        one = median([r.wall for r in serial])
        two = median([r.wall for r in parallel])
        print(
            f"pytest, {total:,} fixture cases (<= {args.nodes} nodes each), serial: "
            f"median {one:.2f} s "
            f"({args.runs} runs); target <= 5 s -> {'met' if one <= 5 else 'MISSED'}"
        )
        print(f"pytest -n 2: median {two:.2f} s; speed-up {one / two:.2f}x (aim >= 1.6x)")


if __name__ == "__main__":
    main()
