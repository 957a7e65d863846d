"""A realistic generated ``kubectl get nodes,pods -A -o json``, for fixtures and benchmarks.

What a real cluster dump holds, at any size: control-plane nodes tainted ``NoSchedule``
with their static pods (mirror pods: the kubelet's annotation, owned by the Node), one
cordoned worker (``spec.unschedulable`` and the taint ``kubectl cordon`` adds), GPU
nodes tainted for GPU jobs, DaemonSet pods on every node (tolerating everything, owned
by their DaemonSet), deployments spread over the workers (owned by one ReplicaSet each,
which the dump holds, created one after another: every pod has its
``creationTimestamp``, a few share one), completed and failed Job pods, and pending
pods (plain, GPU with a toleration and a ``nodeSelector``, one with required node
affinity on a zone). ``--stateful`` adds what keeps pods on their nodes or zones: a
StatefulSet whose pods claim zonal volumes, a database on a local persistent volume and
a cache on a ``hostPath``, with their PersistentVolumeClaims and PersistentVolumes.
Deterministic for a given size and seed.

    python benchmarks/cluster_dump.py --nodes 24 > cluster.json
    python benchmarks/cluster_dump.py --nodes 40 --stateful > repack.json
    python benchmarks/cluster_dump.py --nodes 5000 --pods 50000 --stateful > big.json

``--round-robin`` writes a huge dump as it goes (the ``List`` is never in memory): worker
nodes only, the deployments' pods placed on them in turn, and 100 pending pods. The
placement above looks for a node with room for every pod, which takes hours for a million.

    python benchmarks/cluster_dump.py --round-robin --nodes 10000 --pods 1000000 > huge.json
"""

from __future__ import annotations

import argparse
import bisect
import hashlib
import json
import random
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

ZONES = ("eu-west-1a", "eu-west-1b", "eu-west-1c")
DAEMONSETS = (
    ("kube-system", "kube-proxy", {"cpu": "100m", "memory": "128Mi"}),
    ("kube-system", "calico-node", {"cpu": "250m", "memory": "256Mi"}),
    ("monitoring", "node-exporter", {"cpu": "50m", "memory": "64Mi"}),
)
STATIC = (
    ("etcd", {"cpu": "100m", "memory": "100Mi"}),
    ("kube-apiserver", {"cpu": "250m"}),
    ("kube-controller-manager", {"cpu": "200m"}),
    ("kube-scheduler", {"cpu": "100m"}),
)
DEPLOYMENTS = (
    ("shop", "web", {"cpu": "500m", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"}),
    ("shop", "api", {"cpu": "1", "memory": "2Gi"}, None),
    ("shop", "cache", {"cpu": "250m", "memory": "4Gi"}, {"memory": "4Gi"}),
    ("data", "ingest", {"cpu": "2", "memory": "4Gi"}, None),
    ("data", "reports", {"cpu": "100m", "memory": "256Mi"}, None),
)
CONTROL_PLANE_TAINT = {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
CORDON_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
TOLERATE_ALL = [{"operator": "Exists"}]
GPU_TOLERATION = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
CREATED = datetime(2026, 1, 6, 8, 0, 0, tzinfo=timezone.utc)
"""When the first application pod was created; DaemonSet and static pods come earlier."""
STATEFUL_REQUESTS = {"cpu": "1", "memory": "4Gi"}
"""Each replica of the StatefulSet ``--stateful`` adds (one per three workers)."""


def node(name: str, role: str, zone: str, rng: random.Random) -> dict[str, Any]:
    labels = {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "topology.kubernetes.io/zone": zone,
    }
    spec: dict[str, Any] = {"podCIDR": "10.244.0.0/24", "providerID": f"aws:///{zone}/{name}"}
    if role == "control-plane":
        cpu, memory, instance = "4", "15Gi", "m6i.xlarge"
        labels["node-role.kubernetes.io/control-plane"] = ""
        spec["taints"] = [CONTROL_PLANE_TAINT]
    elif role == "gpu":
        cpu, memory, instance = "48", "370Gi", "p4d.12xlarge"
        labels["nvidia.com/gpu.product"] = "A100-SXM4-40GB"
        labels["accelerator"] = "nvidia-a100"
        spec["taints"] = [GPU_TAINT]
    else:
        cpu, memory, instance = rng.choice(
            [("16", "62Gi", "m6i.4xlarge"), ("32", "126Gi", "m6i.8xlarge")]
        )
        labels["node-role.kubernetes.io/worker"] = ""
    allocatable = {
        "cpu": str(int(cpu) * 1000 - 100) + "m",
        "memory": memory,
        "pods": "110",
        "ephemeral-storage": "95Gi",
        "hugepages-2Mi": "0",
    }
    if role == "gpu":
        allocatable["nvidia.com/gpu"] = "8"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": f"{rng.getrandbits(64):016x}",
            "labels": {**labels, "node.kubernetes.io/instance-type": instance},
            "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
            "creationTimestamp": "2026-01-05T10:00:00Z",
        },
        "spec": spec,
        "status": {
            "capacity": dict(allocatable),
            "allocatable": allocatable,
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
            "nodeInfo": {"kubeletVersion": "v1.35.4", "osImage": "Ubuntu 24.04 LTS"},
            "images": [{"names": ["registry.k8s.io/pause:3.10"], "sizeBytes": 320368}],
        },
    }


def pod(
    namespace: str,
    name: str,
    requests: dict[str, str] | None,
    *,
    node_name: str | None = None,
    phase: str = "Running",
    limits: dict[str, str] | None = None,
    tolerations: list[dict[str, str]] | None = None,
    node_selector: dict[str, str] | None = None,
    affinity: dict[str, Any] | None = None,
    init: dict[str, str] | None = None,
    sidecar: dict[str, str] | None = None,
    owner: tuple[str, str, str] | None = None,
    created: datetime | None = None,
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
    volumes: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A v1 Pod as kubectl prints it; ``owner``: (apiVersion, kind, name) of its controller."""
    resources: dict[str, Any] = {}
    if requests:
        resources["requests"] = dict(requests)
    if limits:
        resources["limits"] = dict(limits)
        resources["requests"] = {**limits, **resources.get("requests", {})}
    spec: dict[str, Any] = {
        "containers": [
            {
                "name": name.rsplit("-", 2)[0],
                "image": f"registry.example.com/{namespace}/{name.rsplit('-', 2)[0]}:1.4.2",
                "resources": resources,
                "ports": [{"containerPort": 8080, "protocol": "TCP"}],
            }
        ],
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "serviceAccountName": "default",
        "volumes": [{"name": "kube-api-access", "projected": {"sources": []}}, *(volumes or [])],
        "tolerations": [
            {
                "key": "node.kubernetes.io/not-ready",
                "operator": "Exists",
                "effect": "NoExecute",
                "tolerationSeconds": 300,
            },
            *(tolerations or []),
        ],
    }
    if init:
        spec["initContainers"] = [
            {
                "name": "migrate",
                "image": "registry.example.com/tools/migrate:2",
                "resources": {"requests": init},
            }
        ]
    if sidecar:
        spec.setdefault("initContainers", []).append(
            {
                "name": "proxy",
                "image": "registry.example.com/mesh/proxy:1",
                "restartPolicy": "Always",
                "resources": {"requests": sidecar},
            }
        )
    if node_name:
        spec["nodeName"] = node_name
    if node_selector:
        spec["nodeSelector"] = node_selector
    if affinity:
        spec["affinity"] = affinity
    status: dict[str, Any] = {"phase": phase, "qosClass": "Burstable"}
    if phase == "Pending" and not node_name:
        status["conditions"] = [
            {"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}
        ]
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": namespace,
        "labels": {"app": name.rsplit("-", 2)[0], **(labels or {})},
        "creationTimestamp": stamp(created or CREATED),
    }
    if annotations:
        metadata["annotations"] = annotations
    if owner:
        api_version, kind, owner_name = owner
        metadata["ownerReferences"] = [
            {
                "apiVersion": api_version,
                "kind": kind,
                "name": owner_name,
                "uid": hashlib.sha256(f"{kind}/{owner_name}".encode()).hexdigest()[:32],
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec, "status": status}


def stamp(when: datetime) -> str:
    """A ``creationTimestamp`` as the API server writes it (UTC, whole seconds)."""
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def template_hash(app: str) -> str:
    """A Deployment's ``pod-template-hash`` (stable, so its ReplicaSet has one name)."""
    return hashlib.sha256(app.encode()).hexdigest()[:10]


def replica_set(namespace: str, app: str) -> dict[str, Any]:
    """The ReplicaSet of Deployment ``app`` (its selector: PodTopologySpread's default)."""
    labels = {"app": app, "pod-template-hash": template_hash(app)}
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": f"{app}-{template_hash(app)}",
            "namespace": namespace,
            "labels": labels,
            "ownerReferences": [
                {"apiVersion": "apps/v1", "kind": "Deployment", "name": app, "controller": True}
            ],
        },
        "spec": {"selector": {"matchLabels": labels}},
    }


def _milli(cpu: str) -> int:
    return int(cpu[:-1]) if cpu.endswith("m") else int(cpu) * 1000


def _mebi(memory: str) -> int:
    return int(memory[:-2]) * (1024 if memory.endswith("Gi") else 1)


def dump(
    nodes: int = 24, pods: int | None = None, seed: int = 7, stateful: bool = False
) -> dict[str, Any]:
    """A ``List`` of Nodes then Pods: 3 control-plane nodes, about a sixth GPU nodes,
    one cordoned worker; ``pods`` application pods (default: 6 per worker); with
    ``stateful``, the pods of :func:`stateful_pods` and their volumes."""
    rng = random.Random(seed)
    items: list[dict[str, Any]] = []
    gpu_count = max(1, nodes // 6)
    workers = nodes - 3 - gpu_count
    names: dict[str, list[str]] = {"control-plane": [], "gpu": [], "worker": []}
    for index in range(nodes):
        role = "control-plane" if index < 3 else "gpu" if index < 3 + gpu_count else "worker"
        number = len(names[role]) + 1
        name = {"control-plane": f"cp-{number}", "gpu": f"gpu-{number}"}.get(
            role, f"worker-{number}"
        )
        names[role].append(name)
        items.append(node(name, role, ZONES[index % 3], rng))
    cordoned = names["worker"][-1]
    for item in items:
        if item["metadata"]["name"] == cordoned:
            item["spec"]["unschedulable"] = True
            item["spec"]["taints"] = [CORDON_TAINT]
    all_nodes = [item["metadata"]["name"] for item in items]
    for number, (namespace, daemon, requests) in enumerate(DAEMONSETS):
        for node_name in all_nodes:
            suffix = f"{rng.getrandbits(20):05x}"
            items.append(
                pod(
                    namespace,
                    f"{daemon}-{suffix}",
                    requests,
                    node_name=node_name,
                    tolerations=TOLERATE_ALL,
                    owner=("apps/v1", "DaemonSet", daemon),
                    created=CREATED - timedelta(hours=2, minutes=-number),
                )
            )
    for cp in names["control-plane"]:
        for static, requests in STATIC:
            items.append(
                pod(
                    "kube-system",
                    f"{static}-{cp}",
                    requests,
                    node_name=cp,
                    tolerations=TOLERATE_ALL,
                    owner=("v1", "Node", cp),
                    created=CREATED - timedelta(hours=3),
                    annotations={"kubernetes.io/config.mirror": template_hash(static + cp)},
                )
            )
    app_pods = pods if pods is not None else 6 * max(1, workers)
    ready = names["worker"][:-1] or names["worker"]
    # what is left on each worker (milli-cpu, MiB), so that no node is over-committed
    free = {}
    for item in items:
        if item["metadata"]["name"] in ready:
            allocatable = item["status"]["allocatable"]
            free[item["metadata"]["name"]] = [
                _milli(allocatable["cpu"]) - 400,
                _mebi(allocatable["memory"]) - 448,
            ]
    room = Room(ready, free)
    for index in range(app_pods):
        namespace, app, requests, limits = DEPLOYMENTS[index % len(DEPLOYMENTS)]
        name = f"{app}-{rng.getrandbits(32):08x}-{rng.getrandbits(20):05x}"
        extra: dict[str, Any] = {}
        cpu, memory = _milli(requests["cpu"]), _mebi(requests["memory"])
        if app == "api":
            extra["sidecar"] = {"cpu": "100m", "memory": "128Mi"}
            cpu, memory = cpu + 100, memory + 128
        if app == "ingest":
            extra["init"] = {"cpu": "4", "memory": "1Gi"}
            cpu = max(cpu, 4000)
        fitting = room.nodes(cpu, memory)
        if not fitting:
            continue
        chosen = ready[rng.choice(fitting)]
        room.take(chosen, cpu, memory)
        items.append(
            pod(
                namespace,
                name,
                requests,
                node_name=chosen,
                limits=limits,
                owner=("apps/v1", "ReplicaSet", f"{app}-{template_hash(app)}"),
                labels={"pod-template-hash": template_hash(app)},
                created=CREATED + timedelta(seconds=index // 3),
                **extra,
            )
        )
    items += [replica_set(namespace, app) for namespace, app, _, _ in DEPLOYMENTS]
    if stateful:
        items += stateful_pods(names["worker"][:-1] or names["worker"], items, free, seed)
    for index, gpu in enumerate(names["gpu"]):
        for job in range(1 + index % 3):
            items.append(
                pod(
                    "ml",
                    f"train-{index}-{job}-{rng.getrandbits(20):05x}",
                    {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": "2"},
                    node_name=gpu,
                    tolerations=GPU_TOLERATION,
                    node_selector={"accelerator": "nvidia-a100"},
                )
            )
    for index in range(max(3, app_pods // 10)):
        phase = "Failed" if index % 5 == 4 else "Succeeded"
        items.append(
            pod(
                "batch",
                f"nightly-{index}-{rng.getrandbits(20):05x}",
                {"cpu": "2", "memory": "2Gi"},
                node_name=rng.choice(ready),
                phase=phase,
            )
        )
    for index in range(4):
        items.append(
            pod(
                "shop",
                f"web-pending-{index}",
                {"cpu": "500m", "memory": "1Gi"},
                phase="Pending",
                limits={"cpu": "1", "memory": "1Gi"},
            )
        )
    for index in range(2):
        items.append(
            pod(
                "ml",
                f"train-pending-{index}",
                {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": "4"},
                phase="Pending",
                tolerations=GPU_TOLERATION,
                node_selector={"accelerator": "nvidia-a100"},
            )
        )
    zone_affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {
                                "key": "topology.kubernetes.io/zone",
                                "operator": "In",
                                "values": [ZONES[1]],
                            }
                        ]
                    }
                ]
            },
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 10,
                    "preference": {
                        "matchExpressions": [
                            {
                                "key": "node.kubernetes.io/instance-type",
                                "operator": "In",
                                "values": ["m6i.8xlarge"],
                            }
                        ]
                    },
                }
            ],
        }
    }
    items.append(
        pod(
            "data",
            "ingest-pending-0",
            {"cpu": "2", "memory": "4Gi"},
            phase="Pending",
            affinity=zone_affinity,
        )
    )
    return {"apiVersion": "v1", "kind": "List", "items": items, "metadata": {"resourceVersion": ""}}


class Room:
    """The nodes of ``order`` with room for a pod of each size, kept as pods are placed:
    for each size, the positions ``[n for n in order if it fits]`` would list, without
    scanning every node for every pod (50,000 pods on 5,000 nodes in seconds, and the
    very same choices)."""

    def __init__(self, order: list[str], free: dict[str, list[int]]) -> None:
        self.order = order
        self.free = free
        self.position = {name: index for index, name in enumerate(order)}
        self.fitting: dict[tuple[int, int], list[int]] = {}

    def nodes(self, cpu: int, memory: int) -> list[int]:
        key = (cpu, memory)
        if key not in self.fitting:
            self.fitting[key] = [
                i
                for i, n in enumerate(self.order)
                if self.free[n][0] >= cpu and self.free[n][1] >= memory
            ]
        return self.fitting[key]

    def take(self, node: str, cpu: int, memory: int) -> None:
        free = self.free[node]
        free[0] -= cpu
        free[1] -= memory
        position = self.position[node]
        for (need_cpu, need_memory), positions in self.fitting.items():
            if free[0] < need_cpu or free[1] < need_memory:
                at = bisect.bisect_left(positions, position)
                if at < len(positions) and positions[at] == position:
                    del positions[at]


def stateful_pods(
    workers: list[str], items: list[dict[str, Any]], free: dict[str, list[int]], seed: int
) -> list[dict[str, Any]]:
    """A StatefulSet ``db`` (one replica per three workers) whose pods claim volumes that
    only their zone reaches, a ``ledger`` pod on a local persistent volume and a
    ``cache`` pod on a ``hostPath``: each on a worker with room, created last (a random
    stream of its own, so the rest of the dump is what it is without them)."""
    rng = random.Random(seed + 1)
    zone_of = {
        item["metadata"]["name"]: item["metadata"]["labels"]["topology.kubernetes.io/zone"]
        for item in items
        if item["kind"] == "Node"
    }
    added: list[dict[str, Any]] = [
        {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": {"name": "db", "namespace": "data"},
            "spec": {"selector": {"matchLabels": {"app": "db"}}},
        }
    ]
    cpu, memory = _milli(STATEFUL_REQUESTS["cpu"]), _mebi(STATEFUL_REQUESTS["memory"])
    later = CREATED + timedelta(hours=1)
    for index in range(max(1, len(workers) // 3) + 2):
        fitting = [n for n in workers if free[n][0] >= cpu and free[n][1] >= memory]
        if not fitting:
            break
        chosen = rng.choice(fitting)
        free[chosen][0] -= cpu
        free[chosen][1] -= memory
        if index == 0:  # the ledger: a local volume on its node's disk
            name, claim, volume = "ledger-0", "ledger-data", "local-ledger"
            source: dict[str, Any] = {"local": {"path": "/mnt/disks/ssd0"}}
            term = {"key": "kubernetes.io/hostname", "operator": "In", "values": [chosen]}
            owner = None
        elif index == 1:  # the cache: a hostPath, no claim
            name, claim, volume, source, term = "cache-0", "", "", {}, {}
            owner = None
        else:
            name = f"db-{index - 2}"
            claim, volume = f"data-{name}", f"pvc-{template_hash(name)}"
            source = {"csi": {"driver": "ebs.csi.aws.com", "volumeHandle": f"vol-{volume}"}}
            term = {
                "key": "topology.kubernetes.io/zone",
                "operator": "In",
                "values": [zone_of[chosen]],
            }
            owner = ("apps/v1", "StatefulSet", "db")
        mounts = (
            [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]
            if claim
            else [{"name": "cache", "hostPath": {"path": "/var/cache/app"}}]
        )
        added.append(
            pod(
                "data",
                name,
                STATEFUL_REQUESTS,
                node_name=chosen,
                owner=owner,
                created=later + timedelta(seconds=index),
                volumes=mounts,
            )
        )
        if not claim:
            continue
        added.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {"name": claim, "namespace": "data"},
                "spec": {"volumeName": volume, "accessModes": ["ReadWriteOnce"]},
                "status": {"phase": "Bound"},
            }
        )
        added.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolume",
                "metadata": {"name": volume},
                "spec": {
                    **source,
                    "capacity": {"storage": "100Gi"},
                    "nodeAffinity": {
                        "required": {"nodeSelectorTerms": [{"matchExpressions": [term]}]}
                    },
                },
                "status": {"phase": "Bound"},
            }
        )
    return added


def round_robin(nodes: int, pods: int, seed: int = 7) -> Iterator[dict[str, Any]]:
    """The items of a huge dump, one by one: ``nodes`` workers, ``pods`` deployment pods
    placed on them in turn, and 100 pending pods."""
    rng = random.Random(seed)
    names = [f"worker-{index + 1}" for index in range(nodes)]
    for index, name in enumerate(names):
        yield node(name, "worker", ZONES[index % 3], rng)
    for index in range(pods):
        namespace, app, requests, limits = DEPLOYMENTS[index % len(DEPLOYMENTS)]
        name = f"{app}-{rng.getrandbits(32):08x}-{rng.getrandbits(20):05x}"
        yield pod(namespace, name, requests, node_name=names[index % nodes], limits=limits)
    for index in range(100):
        yield pod("shop", f"web-pending-{index}", {"cpu": "500m", "memory": "1Gi"}, phase="Pending")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=24)
    parser.add_argument("--pods", type=int, default=None, help="application pods")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--round-robin", action="store_true", help="stream a huge dump")
    parser.add_argument(
        "--stateful", action="store_true", help="add pods on zonal, local and hostPath volumes"
    )
    args = parser.parse_args()
    if not args.round_robin:
        json.dump(dump(args.nodes, args.pods, args.seed, args.stateful), sys.stdout, indent=4)
        sys.stdout.write("\n")
        return
    sys.stdout.write('{"apiVersion": "v1", "kind": "List", "metadata": {}, "items": [\n')
    items = round_robin(args.nodes, args.pods or 6 * args.nodes, args.seed)
    for index, item in enumerate(items):
        sys.stdout.write(("" if index == 0 else ",\n") + json.dumps(item, indent=4))
    sys.stdout.write("\n]}\n")


if __name__ == "__main__":
    main()
