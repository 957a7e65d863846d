"""Where the small-file reader stops paying: its compose time against libyaml's plus the
import of ruamel.yaml that libyaml needs.

:mod:`policytest.read.blockyaml` reads plain block YAML in pure Python; libyaml
(:mod:`policytest.read.bigload`) composes faster per byte but needs ruamel.yaml and its C
extension imported first, once per process. This prints, for configs and fixtures of
growing size, the CPU of one compose by each reader (best of several, warm), and the CPU
that importing ruamel.yaml adds to a fresh interpreter (median of fresh processes);
``policytest.read.source`` tries the small reader first on texts up to the size where the
two meet. Run:

    python benchmarks/small_reader.py [--runs 11]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable

from workloads import ENVIRONMENT, KUBE_CONFIG, VOLCANO_CONFIG, calibration, cluster_yaml, median

from policytest.core.limits import NodeCounter
from policytest.read import bigload, blockyaml

RUAMEL = "import ruamel.yaml, ruamel.yaml.events, ruamel.yaml.error, _ruamel_yaml"


def fixture(nodes: int) -> str:
    """A fixture-shaped text: a cluster of ``nodes`` nodes and a case."""
    return (
        "apiVersion: policytest/v1\nkind: PolicyTest\nscheduler:\n  config: c.yaml\n"
        + cluster_yaml(nodes, nodes * 3)
        + "cases:\n- name: one pod\n  pod: {requests: {cpu: 500m, memory: 1Gi}}\n"
        "  expect:\n    top: node-00001\n"
    )


def compose_cpu(compose: Callable[[str, int, NodeCounter], object], text: str) -> float:
    """The least CPU seconds of a few composes of ``text``."""
    best = float("inf")
    repeats = max(3, min(200, 200_000 // max(len(text), 1)))
    for _ in range(repeats):
        started = time.process_time()
        assert compose(text, 200, NodeCounter(1 << 30)) is not None
        best = min(best, time.process_time() - started)
    return best


def import_cpu(statement: str, runs: int) -> float:
    """Median CPU seconds of a fresh interpreter running ``statement``."""
    spent = []
    for _ in range(runs):
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                f"{statement}\nimport os; t = os.times(); print(t.user + t.system)",
            ],
            capture_output=True,
            text=True,
            check=True,
            env=ENVIRONMENT,
        )
        spent.append(float(done.stdout))
    return median(spent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    options = parser.parse_args()
    print(calibration())
    bare = import_cpu("pass", options.runs)
    ruamel = import_cpu(RUAMEL, options.runs) - bare
    print(
        f"importing ruamel.yaml and libyaml's extension: {ruamel * 1000:.1f} ms CPU "
        f"(median of {options.runs} fresh processes, less a bare interpreter's)"
    )
    inputs = {
        "Volcano ConfigMap": VOLCANO_CONFIG,
        "KubeSchedulerConfiguration": KUBE_CONFIG,
        **{f"fixture, {n} nodes": fixture(n) for n in (10, 100, 500, 1000, 2000, 5000)},
    }
    print(f"{'input':32} {'bytes':>8} {'small reader':>13} {'libyaml':>9} {'libyaml+import':>15}")
    for name, text in inputs.items():
        ours = compose_cpu(blockyaml.compose_all, text)
        theirs = compose_cpu(bigload.compose_all, text)
        print(
            f"{name:32} {len(text):8,} {ours * 1000:10.2f} ms {theirs * 1000:6.2f} ms "
            f"{(theirs + ruamel) * 1000:12.2f} ms"
        )


if __name__ == "__main__":
    main()
