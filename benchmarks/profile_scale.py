"""The whole default profile at scale: spreading, affinity, taints, images (issue 27).

Two targets, on clusters whose nodes differ (three sizes, three zones and some nodes
without one, PreferNoSchedule taints on a tenth, images on some):

- ranking: one pod of a 500-replica Deployment on 10,000 nodes carrying 50,000 pods of
  100 Deployments, under the default profile (target 50 ms): the in-process time of
  ``ClusterState.score`` on a freshly built cluster, and again on the same cluster,
  with the oldest generation left uncollected as the commands run (a full collection
  walks the 50,000 pods, and building a fresh cluster state makes one due);
- sequence: 10,000 Deployment pods (20 Deployments of 500) placed one by one on 5,000
  nodes under the default profile (target 3 s end to end): ``policytest run`` as a fresh
  process.

    python benchmarks/profile_scale.py [--nodes 10000] [--bound 50000]
        [--seq-nodes 5000] [--seq-pods 10000] [--runs 3] [--skip-ranking | --skip-sequence]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time

from workloads import calibration, median, policytest_command, runs, summary

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from policytest.core.gctuning import young_collections_only  # noqa: E402
from policytest.harness.load import scheduler_from_file  # noqa: E402
from policytest.scoring.fast import build_nodes  # noqa: E402
from policytest.scoring.specs import pod_from_dict  # noqa: E402

CONFIG = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
SIZES = (
    {"cpu": "32", "memory": "128Gi", "pods": "250"},
    {"cpu": "64", "memory": "256Gi", "pods": "250"},
    {"cpu": "16", "memory": "64Gi", "pods": "250"},
)
SHAPES = (
    {"cpu": "250m", "memory": "512Mi"},
    {"cpu": "500m", "memory": "1Gi"},
    {"cpu": "1", "memory": "2Gi"},
    {"cpu": "100m", "memory": "128Mi"},
)


def node_specs(count: int, bound: int, deployments: int, seed: int = 11) -> list[dict[str, object]]:
    """``count`` varied nodes carrying ``bound`` pods of ``deployments`` Deployments."""
    rng = random.Random(seed)
    nodes: list[dict[str, object]] = []
    for index in range(count):
        name = f"node-{index:05d}"
        labels = {"kubernetes.io/hostname": name}
        if index % 20:  # one node in twenty has no zone label
            labels["topology.kubernetes.io/zone"] = f"zone-{index % 3}"
        node: dict[str, object] = {"name": name, "allocatable": SIZES[index % 3], "labels": labels}
        if index % 10 == 3:
            node["taints"] = [{"key": "spot", "value": "true", "effect": "PreferNoSchedule"}]
        if index % 4 == 0:
            node["images"] = {"registry.example.com/app-0:1": "300Mi"}
        node["pods"] = []
        nodes.append(node)
    for replica in range(bound):
        deployment = replica % deployments
        pod = {"requests": SHAPES[deployment % len(SHAPES)], "deployment": f"app-{deployment}"}
        pods = nodes[rng.randrange(count)]["pods"]
        assert isinstance(pods, list)
        pods.append(pod)
    return nodes


def ranking(args: argparse.Namespace, scratch: str) -> None:
    path = os.path.join(scratch, "default.yaml")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(CONFIG)
    scheduler = scheduler_from_file(path)
    nodes = build_nodes((n["name"], n) for n in node_specs(args.nodes, args.bound, 100))  # type: ignore[misc]
    pod = pod_from_dict(
        {"requests": SHAPES[0], "deployment": "app-0", "image": "registry.example.com/app-0:1"},
        default_requests_from_limits=True,
    )
    first: list[tuple[float, float]] = []
    again: list[tuple[float, float]] = []
    for _ in range(args.runs):
        state = scheduler.cluster(nodes)
        with young_collections_only():
            started = time.perf_counter(), time.process_time()
            scores = state.score(pod)
            first.append((time.perf_counter() - started[0], time.process_time() - started[1]))
            started = time.perf_counter(), time.process_time()
            state.score(pod)
            again.append((time.perf_counter() - started[0], time.process_time() - started[1]))
    feasible = sum(1 for score in scores if score.feasible)
    print(
        f"ranking: {args.nodes:,} nodes, {args.bound:,} bound pods of 100 Deployments, one "
        f"replica of a 500-replica Deployment ({feasible:,} feasible): first "
        f"{_ms(first)}, again {_ms(again)} (median of {args.runs}; target 50 ms)"
    )


def _ms(timings: list[tuple[float, float]]) -> str:
    """Median wall and CPU milliseconds (CPU time is less moved by a loaded machine)."""
    wall = median([t[0] for t in timings]) * 1000
    cpu = median([t[1] for t in timings]) * 1000
    return f"{wall:.0f} ms ({cpu:.0f} ms CPU)"


def sequence(args: argparse.Namespace, scratch: str) -> None:
    import json

    subprocess.run(["git", "init", "-q", scratch], check=True)
    with open(os.path.join(scratch, "default.yaml"), "w", encoding="utf-8") as handle:
        handle.write(CONFIG)
    per = args.seq_pods // 20
    fixture = {
        "apiVersion": "policytest/v1",
        "kind": "PolicyTest",
        "scheduler": {"config": "default.yaml"},
        "cluster": {"nodes": node_specs(args.seq_nodes, 0, 1)},
        "cases": [
            {
                "name": "deployments placed",
                "ties": "allow",
                "pods": [
                    {"requests": SHAPES[d % len(SHAPES)], "deployment": f"web-{d}", "count": per}
                    for d in range(20)
                ],
                "expect": {"pending": 0},
            }
        ],
    }
    path = os.path.join(scratch, "sequence.policytest.yaml")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(fixture, handle)
    command = policytest_command("run", path, "--limit", "node-scores=1000000000", "--quiet")
    measured = runs(command, args.runs, cwd=scratch, warm=0)
    print(
        summary(
            f"sequence: {args.seq_pods:,} Deployment pods on {args.seq_nodes:,} nodes (target 3 s)",
            measured,
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--bound", type=int, default=50_000)
    parser.add_argument("--seq-nodes", type=int, default=5_000)
    parser.add_argument("--seq-pods", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-ranking", action="store_true")
    parser.add_argument("--skip-sequence", action="store_true")
    args = parser.parse_args()
    print(calibration())
    with tempfile.TemporaryDirectory() as scratch:
        if not args.skip_ranking:
            ranking(args, scratch)
        if not args.skip_sequence:
            sequence(args, scratch)


if __name__ == "__main__":
    main()
