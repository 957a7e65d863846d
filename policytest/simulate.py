"""Packing metrics for a workload: replay a fixture's pods through one or more configs.

Capacity planners compare configs on one workload: how many nodes end up in use, how
full they are per resource, what capacity is stranded (free, but on nodes where no
pod of the workload fits any more, e.g. GPUs left on a node whose CPU is full), and
how many pods stay pending. Placement is the runner's (:func:`place_all`), so the
numbers are the ones ``policytest run`` would assert on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from policytest.cluster import ClusterSpecError, Node, Pod
from policytest.engine import ClusterState, Scheduler
from policytest.findings import Severity
from policytest.options import CheckOptions
from policytest.quantity import QuantityError
from policytest.recognise import Kind, kind_of
from policytest.runner import expand_pods
from policytest.scoring.fast import MAX_KINDS, build_nodes, place_all
from policytest.source import read_file
from policytest.suite import checked_cases, load_fixture, load_scheduler

__all__ = [
    "PackingReport",
    "ResourceUse",
    "SimulationError",
    "Workload",
    "load_workloads",
    "simulate",
]

_GIB = 1 << 30
_UNITS = {"cpu": ("cores", 1000.0), "memory": ("GiB", _GIB), "ephemeral-storage": ("GiB", _GIB)}


class SimulationError(Exception):
    """The fixture cannot be simulated (unreadable, invalid, or its config refused)."""


@dataclass(frozen=True)
class Workload:
    """One fixture case as a workload: the cluster, its pods in order, its own config."""

    path: str
    case: str
    nodes: tuple[Node, ...]
    pods: tuple[Pod, ...]
    scheduler: Scheduler | None
    """The fixture's own scheduler (``None`` when its config would not load)."""


@dataclass(frozen=True)
class ResourceUse:
    """One resource after the workload: totals, utilisation over the nodes in use, and
    the free capacity stranded on full nodes, in ``unit``."""

    name: str
    unit: str
    requested: float
    allocatable: float
    mean_utilisation: float
    max_utilisation: float
    stranded: float


@dataclass(frozen=True)
class PackingReport:
    """What one config made of one workload."""

    label: str
    path: str
    case: str
    pods: int
    pending: int
    nodes: int
    nodes_used: int
    """Nodes that received at least one pod of the workload."""
    nodes_in_use: int
    """Nodes holding any pod afterwards (bound before, or placed)."""
    full_nodes: int
    """Nodes in use on which no pod kind of the workload fits any more."""
    tie_decided: int
    resources: tuple[ResourceUse, ...]

    @property
    def placed(self) -> int:
        return self.pods - self.pending


def load_workloads(
    path: str, options: CheckOptions, root: str, case: str | None = None
) -> list[Workload]:
    """Every case of the fixture at ``path`` (only ``case`` when given) as a workload."""
    source = read_file(path, options.limits, root)
    if source.problems:
        raise SimulationError("; ".join(problem.message for problem in source.problems))
    workloads = []
    for document in source.documents:
        if kind_of(document.root) is not Kind.FIXTURE:
            continue
        fixture, problems = load_fixture(document, options)
        if fixture is None:
            raise SimulationError("; ".join(f"{p.line}:{p.column}: {p.message}" for p in problems))
        for item, problems in checked_cases(fixture):
            if problems and case in (None, item.name):
                raise SimulationError(
                    "; ".join(f"{p.line}:{p.column}: {p.rule} {p.message}" for p in problems)
                )
        scheduler, findings = load_scheduler(fixture, options, root)
        if any(finding.severity is Severity.ERROR for finding in findings):
            scheduler = None
        try:
            nodes = tuple(build_nodes((spec.name, spec.spec) for spec in fixture.nodes))
            for item in fixture.cases:
                if case is not None and item.name != case:
                    continue
                pods = tuple(expand_pods(item.pods, f"case `{item.name}`"))
                workloads.append(Workload(path, item.name, nodes, pods, scheduler))
        except (ClusterSpecError, QuantityError) as error:
            raise SimulationError(str(error)) from error
    if not workloads:
        raise SimulationError(f"no case named `{case}`" if case else "no fixture cases")
    return workloads


def simulate(
    scheduler: Scheduler,
    workload: Workload,
    label: str,
    progress: Callable[[int], None] | None = None,
) -> PackingReport:
    """Place the workload's pods with ``scheduler`` and measure the packing."""
    state = scheduler.cluster(workload.nodes)
    choices, _ = place_all(state, workload.pods, progress)
    placed = Counter(node for node, _ in choices if node is not None)
    in_use = [node.name for node in workload.nodes if node.pods or placed[node.name]]
    full = _full_nodes(state, workload.pods, in_use)
    usage = state.utilisation()
    return PackingReport(
        label=label,
        path=workload.path,
        case=workload.case,
        pods=len(workload.pods),
        pending=sum(1 for node, _ in choices if node is None),
        nodes=len(workload.nodes),
        nodes_used=len(placed),
        nodes_in_use=len(in_use),
        full_nodes=len(full),
        tie_decided=sum(1 for _, tied in choices if tied),
        resources=_resources(usage, workload.nodes, in_use, full),
    )


def _full_nodes(state: ClusterState, pods: Sequence[Pod], in_use: Sequence[str]) -> set[str]:
    """Nodes in use where none of the workload's (most frequent) pod kinds fits."""
    kinds = [pod for pod, _ in Counter(pods).most_common(MAX_KINDS)]
    full = set(in_use)
    for kind in kinds:
        if not full:
            break
        full -= {score.name for score in state.score(kind, only=sorted(full)) if score.feasible}
    return full


def _resources(
    usage: Mapping[str, Mapping[str, tuple[int, int]]],
    nodes: Sequence[Node],
    in_use: Sequence[str],
    full: set[str],
) -> tuple[ResourceUse, ...]:
    names = sorted({name for per_node in usage.values() for name in per_node}, key=_order)
    result = []
    for name in names:
        unit, divisor = _unit(name, usage, nodes)
        ratios = [
            usage[node][name][0] / usage[node][name][1]
            for node in in_use
            if usage[node].get(name, (0, 0))[1] > 0
        ]
        result.append(
            ResourceUse(
                name=name,
                unit=unit,
                requested=sum(per[name][0] for per in usage.values() if name in per) / divisor,
                allocatable=sum(per[name][1] for per in usage.values() if name in per) / divisor,
                mean_utilisation=sum(ratios) / len(ratios) if ratios else 0.0,
                max_utilisation=max(ratios, default=0.0),
                stranded=sum(
                    max(0, usage[node][name][1] - usage[node][name][0])
                    for node in full
                    if name in usage[node]
                )
                / divisor,
            )
        )
    return tuple(result)


def _order(name: str) -> tuple[int, str]:
    return (0 if name == "cpu" else 1 if name == "memory" else 2, name)


def _unit(
    name: str, usage: Mapping[str, Mapping[str, tuple[int, int]]], nodes: Sequence[Node]
) -> tuple[str, float]:
    """Display unit and divisor: the scheduler may count a resource in milli-units."""
    if name in _UNITS:
        return _UNITS[name]
    for node in nodes:
        quantity = node.allocatable.get(name)
        counted = usage.get(node.name, {}).get(name, (0, 0))[1]
        if quantity is not None and quantity.value() > 0 and counted > 0:
            return "", counted / quantity.value()
    return "", 1.0
