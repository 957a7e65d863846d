"""Fixtures whose topology plugins' work grows with what ``count:`` multiplies for free.

Seven shapes of attack on the whole-profile plugins (InterPodAffinity, NodePorts,
PodTopologySpread and its system defaults, NodeAffinity's score, and the bound pods'
labels every plugin reads), each a small text that asks for a lot of work when one pod
is placed. Shared by the bounded tests (small sizes: the work counted, never timed) and
``benchmarks/hostile_inputs.py --topology`` (the sizes of the attack, run through the
real ``policytest run``, ``diff`` and ``simulate``).

Every generator writes a fixture that names its config (``configs/<scheduler>.yaml``,
so ``diff`` in file mode can run it against a changed config) for kube-scheduler's
default profile or Volcano's ``predicates`` + ``nodeorder`` + ``binpack``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Scheduler = Literal["kube", "volcano"]

CONFIGS: dict[Scheduler, tuple[str, str]] = {
    "kube": (
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n",
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "profiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n"
        "  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n"
        "        type: MostAllocated\n        resources: [{name: cpu, weight: 1}]\n",
    ),
    "volcano": (
        'actions: "enqueue, allocate"\ntiers:\n'
        "- plugins: [{name: predicates}, {name: nodeorder}, {name: binpack}]\n",
        'actions: "enqueue, allocate"\ntiers:\n'
        "- plugins: [{name: predicates}, {name: nodeorder}, "
        "{name: binpack, arguments: {binpack.weight: 10}}]\n",
    ),
}
"""Per scheduler: the config the fixtures name, and a changed one for ``diff``."""

_HEAD = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {{name: {name}}}
scheduler: {{config: configs/{scheduler}.yaml}}
cluster:
"""
_ALLOCATABLE = '{cpu: "1000", memory: 4000Gi, pods: "1000000"}'


def _nodes(count: int, pods: Callable[[int], str] = lambda _: "", zones: int = 10) -> str:
    """``count`` nodes with hostname and zone labels; ``pods(i)``: node i's ``pods:`` lines."""
    lines = ["  nodes:"]
    for index in range(count):
        lines.append(
            f"  - name: n{index}\n    allocatable: {_ALLOCATABLE}\n"
            f"    labels: {{kubernetes.io/hostname: n{index}, "
            f"topology.kubernetes.io/zone: z{index % zones}}}"
        )
        bound = pods(index)
        if bound:
            lines.append(bound)
    return "\n".join(lines) + "\n"


def _spread_count(total: int, nodes: int, index: int) -> int:
    """Node ``index``'s share of ``total`` pods over ``nodes`` nodes."""
    return total // nodes + (1 if index < total % nodes else 0)


def _case(pod: str, count: int = 1) -> str:
    if count == 1:
        return f"cases:\n- name: one pod\n  pod: {pod}\n  expect: {{}}\n"
    return f"cases:\n- name: {count} pods\n  pods: [{{count: {count}, {pod[1:]}]\n  expect: {{}}\n"


def _terms(count: int, shape: Callable[[int], str]) -> str:
    return "[" + ", ".join(shape(index) for index in range(count)) + "]"


def required_anti_affinity(
    scheduler: Scheduler, *, pods: int = 200_000, terms: int = 1_000, nodes: int = 20
) -> str:
    """Bound pods (``pods`` by ``count``, on ``nodes`` nodes) carrying ``terms`` required
    anti-affinity terms each, none of which matches the incoming pod: InterPodAffinity's
    filter checks every term of every bound pod against it."""
    anti = _terms(
        terms,
        lambda i: (
            f"{{labelSelector: {{matchLabels: {{app: a{i}}}}}, "
            "topologyKey: kubernetes.io/hostname}"
        ),
    )
    entry = (
        "    pods:\n    - requests: {cpu: 1m}\n      count: {count}\n"
        "      labels: {app: bound}\n"
        f"      affinity: {{podAntiAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: "
        f"{anti}}}}}"
    )
    body = _nodes(nodes, lambda i: entry.replace("{count}", str(_spread_count(pods, nodes, i))))
    return _fixture(
        "required-anti-affinity", scheduler, body, "{requests: {cpu: 1m}, labels: {app: web}}"
    )


def preferred_pod_affinity(
    scheduler: Scheduler, *, pods: int = 290_000, terms: int = 2_000, nodes: int = 29
) -> str:
    """An incoming pod with ``terms`` preferred pod-affinity terms over ``pods`` bound
    pods: InterPodAffinity's PreScore matches every term against every bound pod."""
    entry = "    pods: [{requests: {cpu: 1m}, labels: {app: bound}, count: {count}}]"
    body = _nodes(nodes, lambda i: entry.replace("{count}", str(_spread_count(pods, nodes, i))))
    preferred = _terms(
        terms,
        lambda i: (
            f"{{weight: {1 + i % 100}, podAffinityTerm: {{labelSelector: "
            f"{{matchExpressions: [{{key: app, operator: In, values: [bound, x{i}]}}]}}, "
            "topologyKey: kubernetes.io/hostname}}"
        ),
    )
    pod = (
        "{requests: {cpu: 1m}, affinity: {podAffinity: "
        f"{{preferredDuringSchedulingIgnoredDuringExecution: {preferred}}}}}}}"
    )
    return _fixture("preferred-pod-affinity", scheduler, body, pod)


def host_ports(
    scheduler: Scheduler, *, pods: int = 200_000, ports: int = 5_000, nodes: int = 2
) -> str:
    """Bound pods (``pods`` by ``count``) each holding ``ports`` host ports, and an
    incoming pod wanting one: NodePorts gathers every bound pod's ports on each node."""
    held = "[" + ", ".join(str(10_000 + index) for index in range(ports)) + "]"
    entry = f"    pods: [{{requests: {{cpu: 1m}}, hostPorts: {held}, count: {{count}}}}]"
    body = _nodes(nodes, lambda i: entry.replace("{count}", str(_spread_count(pods, nodes, i))))
    return _fixture("host-ports", scheduler, body, "{requests: {cpu: 1m}, hostPorts: [80]}")


def spread_constraints(
    scheduler: Scheduler, *, constraints: int = 2_000, nodes: int = 5_000
) -> str:
    """An incoming pod with ``constraints`` topology spread constraints (half
    ``DoNotSchedule``, half ``ScheduleAnyway``) on ``nodes`` nodes: PodTopologySpread
    counts and checks every constraint on every node."""
    spread = _terms(
        constraints,
        lambda i: (
            f"{{maxSkew: 1, topologyKey: "
            f"{'kubernetes.io/hostname' if i % 2 else 'topology.kubernetes.io/zone'}, "
            f"whenUnsatisfiable: {'DoNotSchedule' if i % 4 < 2 else 'ScheduleAnyway'}, "
            f"labelSelector: {{matchLabels: {{app: c{i}}}}}}}"
        ),
    )
    pod = f"{{requests: {{cpu: 1m}}, labels: {{app: web}}, topologySpreadConstraints: {spread}}}"
    return _fixture("spread-constraints", scheduler, _nodes(nodes), pod)


def many_services(
    scheduler: Scheduler, *, services: int = 20_000, replicas: int = 5_000, nodes: int = 100
) -> str:
    """``services`` Services in the pods' namespace, none selecting them, and a sequence
    of ``replicas`` pods of one Deployment: the system default spreading looks for the
    Services selecting each pod."""
    listed = "\n".join(
        f"  - {{name: s{index}, selector: {{app: s{index}, tier: t{index}}}}}"
        for index in range(services)
    )
    body = _nodes(nodes) + "  services:\n" + listed + "\n"
    return _fixture(
        "many-services", scheduler, body, "{requests: {cpu: 1m}, deployment: web}", replicas
    )


def preferred_node_affinity(
    scheduler: Scheduler, *, terms: int = 2_000, nodes: int = 10_000
) -> str:
    """An incoming pod with ``terms`` preferred node-affinity terms on ``nodes`` nodes:
    NodeAffinity's score matches every term against every node."""
    preferred = _terms(
        terms,
        lambda i: (
            f"{{weight: {1 + i % 100}, preference: {{matchExpressions: "
            f"[{{key: topology.kubernetes.io/zone, operator: In, values: [z{i % 10}, q{i}]}}]}}}}"
        ),
    )
    pod = (
        "{requests: {cpu: 1m}, affinity: {nodeAffinity: "
        f"{{preferredDuringSchedulingIgnoredDuringExecution: {preferred}}}}}}}"
    )
    return _fixture("preferred-node-affinity", scheduler, _nodes(nodes), pod)


def many_labels(
    scheduler: Scheduler, *, pods: int = 290_000, labels: int = 30_000, nodes: int = 1
) -> str:
    """Bound pods (``pods`` by ``count``) carrying ``labels`` labels each, and a pod of a
    Deployment (spread by the system defaults) to place: every plugin that reads the
    bound pods' labels hashes and matches them."""
    written = "{" + ", ".join(f"l{index}: v{index}" for index in range(labels)) + "}"
    entry = f"    pods: [{{requests: {{cpu: 1m}}, labels: {written}, count: {{count}}}}]"
    body = _nodes(nodes, lambda i: entry.replace("{count}", str(_spread_count(pods, nodes, i))))
    return _fixture("many-labels", scheduler, body, "{requests: {cpu: 1m}, deployment: web}")


def _fixture(name: str, scheduler: Scheduler, cluster: str, pod: str, count: int = 1) -> str:
    return _HEAD.format(name=name, scheduler=scheduler) + cluster + _case(pod, count)


@dataclass(frozen=True)
class Attack:
    """One attack: its name, what it is, its generator."""

    name: str
    summary: str
    generate: Callable[..., str]


ATTACKS = (
    Attack(
        "required-anti-affinity",
        "200,000 bound pods x 1,000 required anti-affinity terms",
        required_anti_affinity,
    ),
    Attack(
        "preferred-pod-affinity",
        "2,000 preferred pod-affinity terms over 290,000 bound pods",
        preferred_pod_affinity,
    ),
    Attack("host-ports", "5,000 hostPorts on each of 200,000 bound pods", host_ports),
    Attack(
        "spread-constraints", "2,000 topologySpreadConstraints on 5,000 nodes", spread_constraints
    ),
    Attack("many-services", "20,000 Services, 5,000 replicas", many_services),
    Attack(
        "preferred-node-affinity",
        "2,000 preferred node-affinity terms on 10,000 nodes",
        preferred_node_affinity,
    ),
    Attack("many-labels", "290,000 bound pods carrying 30,000 labels", many_labels),
)


def write_attack(directory: Path, attack: Attack, scheduler: Scheduler, **sizes: int) -> Path:
    """The attack's fixture and its scheduler's two configs (``configs/<scheduler>.yaml``
    and ``configs/<scheduler>-head.yaml``) under ``directory``; the fixture's path."""
    configs = directory / "configs"
    configs.mkdir(parents=True, exist_ok=True)
    base, head = CONFIGS[scheduler]
    (configs / f"{scheduler}.yaml").write_text(base)
    (configs / f"{scheduler}-head.yaml").write_text(head)
    path = directory / f"{attack.name}-{scheduler}.policytest.yaml"
    path.write_text(attack.generate(scheduler, **sizes))
    return path
