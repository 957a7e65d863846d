"""Inputs for the benchmarks, generated into a directory (never committed).

Clusters are deterministic (seeded) and realistic in shape: a few node types, bound
pods drawn from a handful of deployment-like request shapes, each pod written out on
its own (no ``count:``), as a dump of a real cluster would be.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence

NODE_TYPES = (
    '{cpu: "32", memory: 128Gi, pods: "110"}',
    '{cpu: "64", memory: 256Gi, pods: "110"}',
    '{cpu: "16", memory: 64Gi, pods: "110", nvidia.com/gpu: "4"}',
)
POD_SHAPES = (
    "{requests: {cpu: 250m, memory: 512Mi}}",
    "{requests: {cpu: 500m, memory: 1Gi}}",
    '{requests: {cpu: "1", memory: 2Gi}}',
    '{requests: {cpu: "2", memory: 4Gi}}',
    "{requests: {cpu: 100m, memory: 128Mi}}",
    '{requests: {cpu: "4", memory: 8Gi}}',
    "{containers: [{name: app, resources: {requests: {cpu: 300m, memory: 600Mi}}}]}",
    "{requests: {cpu: 750m, memory: 3Gi}}",
)
POD_SIZES = (
    (250, 512),
    (500, 1024),
    (1000, 2048),
    (2000, 4096),
    (100, 128),
    (4000, 8192),
    (300, 600),
    (750, 3072),
)
"""Each of ``POD_SHAPES``' requests: (cpu millicores, memory MiB)."""


def volcano_conf(weight: int = 10, least: int = 1, gpu: int | None = 2) -> str:
    """A raw ``volcano-scheduler.conf``: binpack (GPU weighted unless ``gpu`` is None)
    after nodeorder, whose ``leastrequested.weight`` is ``least``."""
    gpu_lines = (
        f"      binpack.resources: nvidia.com/gpu\n      binpack.resources.nvidia.com/gpu: {gpu}\n"
        if gpu is not None
        else ""
    )
    return (
        'actions: "enqueue, allocate, backfill"\ntiers:\n- plugins:\n  - name: priority\n'
        "  - name: gang\n- plugins:\n  - name: predicates\n  - name: nodeorder\n"
        f"    arguments:\n      leastrequested.weight: {least}\n"
        f"  - name: binpack\n    arguments:\n      binpack.weight: {weight}\n{gpu_lines}"
    )


def configmap(name: str, key: str, body: str) -> str:
    """``body`` as the ``key`` of a ConfigMap called ``name`` (as GitOps repos keep it)."""
    indented = "".join(f"    {line}\n" for line in body.splitlines())
    return (
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  {key}: |\n{indented}"
    )


VOLCANO_CONFIG = configmap("volcano-scheduler-configmap", "volcano-scheduler.conf", volcano_conf())

KUBE_CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: bin-packing-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
        - name: cpu
          weight: 1
        - name: memory
          weight: 1
"""

CONFIGS = {"volcano": VOLCANO_CONFIG, "kube": KUBE_CONFIG}


def write_configs(directory: str) -> dict[str, str]:
    """Both scheduler configs in ``directory/configs``; returns kind -> path."""
    os.makedirs(os.path.join(directory, "configs"), exist_ok=True)
    paths = {}
    for kind, text in CONFIGS.items():
        path = os.path.join(directory, "configs", f"{kind}.yaml")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        paths[kind] = path
    return paths


def cluster_yaml(nodes: int, bound_pods: int, seed: int = 7) -> str:
    """A ``cluster:`` block: ``nodes`` nodes carrying ``bound_pods`` pods in total."""
    rng = random.Random(seed)
    lines = ["cluster:", "  nodes:"]
    per_node = [bound_pods // nodes + (1 if i < bound_pods % nodes else 0) for i in range(nodes)]
    for index, count in enumerate(per_node):
        lines.append(f"  - name: node-{index:05d}")
        lines.append(f"    allocatable: {NODE_TYPES[index % len(NODE_TYPES)]}")
        if count:
            lines.append("    pods:")
            lines.extend(f"    - {rng.choice(POD_SHAPES)}" for _ in range(count))
    return "\n".join(lines) + "\n"


def varied_cluster_yaml(nodes: int, bound_pods: int, seed: int = 11, deployments: int = 0) -> str:
    """A ``cluster:`` block whose nodes differ as a real cluster's do: each its own size
    (cpu, memory, pod limit, some with GPUs), its own usage (an uneven number of bound
    pods of random shapes) and its own labels (zone, pool, instance type). With
    ``deployments``, the bound pods belong to that many Deployments in turn."""
    rng = random.Random(seed)
    lines = ["cluster:", "  nodes:"]
    cuts = sorted(rng.randrange(bound_pods + 1) for _ in range(nodes - 1))
    per_node = [b - a for a, b in zip([0, *cuts], [*cuts, bound_pods], strict=True)]
    carried = 0  # pods that did not fit on the nodes before: a kubelet admits no more
    for index, wanted in enumerate(per_node):
        cpu = rng.choice((4, 8, 16, 24, 32, 48, 64, 96)) * 1000 - rng.randrange(0, 400, 10)
        memory = rng.choice((16, 32, 64, 128, 192, 256)) * 1024 - rng.randrange(0, 2048)
        gpu = f', nvidia.com/gpu: "{rng.choice((1, 2, 4, 8))}"' if rng.random() < 0.15 else ""
        pods = rng.choice((58, 110, 110, 250))
        shapes = _fitting_shapes(rng, wanted + carried, cpu, memory, pods)
        carried = wanted + carried - len(shapes)
        lines.append(f"  - name: node-{index:05d}")
        lines.append(
            f"    labels: {{topology.kubernetes.io/zone: zone-{rng.randrange(3)}, "
            f"pool: pool-{rng.randrange(12)}, node.kubernetes.io/instance-type: t{cpu}}}"
        )
        lines.append(f'    allocatable: {{cpu: {cpu}m, memory: {memory}Mi, pods: "{pods}"{gpu}}}')
        if shapes:
            lines.append("    pods:")
            lines.extend(f"    - {_owned(POD_SHAPES[shape], deployments, rng)}" for shape in shapes)
    return "\n".join(lines) + "\n"


def _owned(shape: str, deployments: int, rng: random.Random) -> str:
    """``shape`` as a pod of one of ``deployments`` Deployments (unchanged when 0)."""
    if not deployments:
        return shape
    return f"{shape[:-1]}, deployment: app-{rng.randrange(deployments)}}}"


def _fitting_shapes(rng: random.Random, count: int, cpu: int, memory: int, pods: int) -> list[int]:
    """Up to ``count`` random pod shapes (indexes) that fit together within ``cpu``
    millicores, ``memory`` MiB and ``pods`` (a kubelet admits no more than that)."""
    shapes: list[int] = []
    for _ in range(min(count, pods)):
        shape = rng.randrange(len(POD_SHAPES))
        shape_cpu, shape_memory = POD_SIZES[shape]
        if shape_cpu > cpu or shape_memory > memory:
            break
        cpu -= shape_cpu
        memory -= shape_memory
        shapes.append(shape)
    return shapes


def fixture_yaml(
    config: str,
    nodes: int,
    bound_pods: int,
    cases: Sequence[str],
    name: str = "scale",
    cluster: Callable[[int, int], str] = cluster_yaml,
) -> str:
    """A whole fixture: header, ``cluster``, then the given ``cases:`` items (YAML text)."""
    header = (
        "apiVersion: policytest/v1\nkind: PolicyTest\n"
        f"metadata: {{name: {name}}}\nscheduler:\n  config: {config}\n"
    )
    return header + cluster(nodes, bound_pods) + "cases:\n" + "".join(cases)


ONE_POD_CASE = """\
- name: one pod ranked
  pod: {requests: {cpu: "1", memory: 2Gi}}
  expect: {pending: 0}
"""


def sequence_case(pods: int) -> str:
    """A mixed sequence of ``pods`` pods (four shapes, interleaved, one GPU shape)."""
    per_shape = pods // 4
    return f"""\
- name: {pods} pods placed
  ties: allow
  pods:
  - {{requests: {{cpu: 500m, memory: 1Gi}}, count: {per_shape}}}
  - {{requests: {{cpu: "2", memory: 8Gi}}, count: {per_shape}}}
  - {{requests: {{cpu: "1", memory: 1Gi, nvidia.com/gpu: "1"}}, count: {per_shape}}}
  - {{requests: {{cpu: 250m, memory: 4Gi}}, count: {pods - 3 * per_shape}}}
  expect: {{}}
"""


def write_fixture(
    directory: str,
    kind: str,
    nodes: int,
    bound_pods: int,
    cases: Sequence[str],
    cluster: Callable[[int, int], str] = cluster_yaml,
) -> str:
    """Write configs and one fixture using the ``kind`` config; returns the fixture path."""
    write_configs(directory)
    path = os.path.join(directory, f"{kind}-{nodes}-nodes.policytest.yaml")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(fixture_yaml(f"configs/{kind}.yaml", nodes, bound_pods, cases, kind, cluster))
    return path


# --- measuring -------------------------------------------------------------------------------


class Run:
    """One fresh-process run: wall seconds, CPU seconds (user + sys), peak RSS in MB."""

    def __init__(self, wall: float, cpu: float, peak_mb: float, returncode: int) -> None:
        self.wall = wall
        self.cpu = cpu
        self.peak_mb = peak_mb
        self.returncode = returncode


# An installed policytest has compiled bytecode (pip writes it); a process that may not
# write .pyc files recompiles every module at every start. Measure as users run it.
ENVIRONMENT = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_process(command: Sequence[str], cwd: str | None = None, output: str | None = None) -> Run:
    """Run ``command`` to completion, its standard output written to ``output`` (else
    discarded); its own rusage via wait4."""
    started = time.perf_counter()
    with open(output or os.devnull, "wb") as sink:
        process = subprocess.Popen(
            command, cwd=cwd, env=ENVIRONMENT, stdout=sink, stderr=subprocess.DEVNULL
        )
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, process.returncode)


def runs(command: Sequence[str], count: int, cwd: str | None = None, warm: int = 1) -> list[Run]:
    """``count`` measured runs after ``warm`` unmeasured ones (OS caches, .pyc files)."""
    for _ in range(warm):
        run_process(command, cwd)
    return [run_process(command, cwd) for _ in range(count)]


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def summary(label: str, measured: Sequence[Run]) -> str:
    """``label: median wall (min..max), median CPU, max peak RSS``."""
    walls = [r.wall for r in measured]
    return (
        f"{label}: median {median(walls):.3f} s (min {min(walls):.3f}, max {max(walls):.3f}; "
        f"CPU {median([r.cpu for r in measured]):.3f} s; peak RSS "
        f"{max(r.peak_mb for r in measured):.0f} MB; {len(measured)} runs)"
    )


def calibration() -> str:
    """How fast this machine is right now: a fixed pure-Python loop, and the load."""
    started = time.process_time()
    sum(range(10**7))
    spent = time.process_time() - started
    load = os.getloadavg()[0]
    return f"machine: sum(range(10**7)) took {spent:.3f} s CPU; load average {load:.2f}"


def policytest_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "policytest", *args]


def record_expectations(fixture: str, *args: str) -> None:
    """Fill the fixture's empty ``expect: {}`` with what the scheduler did (``run
    --update``, not measured), so the measured runs pass however full the cluster gets."""
    subprocess.run(
        policytest_command("run", "--update", fixture, *args),
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
