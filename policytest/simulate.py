"""Packing metrics for a workload: replay a fixture's pods through one or more configs.

Capacity planners compare configs on one workload: how many nodes end up in use, how
full they are per resource, what capacity is stranded (free, but on nodes where no
pod of the workload fits any more, e.g. GPUs left on a node whose CPU is full), and
how many pods stay pending. Placement is the runner's (:func:`place_all`), so the
numbers are the ones ``policytest run`` would assert on.

Stranded capacity, per resource, is the free capacity left on *full* nodes: nodes on
which a pod of the workload fitted before it was placed and none fits any more (GPUs
left on a node whose CPU the workload filled). A node on which no pod of the workload
ever fits (a CPU-only node for a GPU workload) is not full and strands nothing: its
capacity was never usable by this workload, whatever the config.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from policytest.cluster import ClusterSpecError, Node, Pod
from policytest.engine import ClusterState, Scheduler
from policytest.findings import Finding, Severity
from policytest.options import CheckOptions
from policytest.quantity import QuantityError
from policytest.recognise import Kind, kind_of
from policytest.runner import expand_pods
from policytest.scoring.fast import MAX_KINDS, build_nodes, place_all
from policytest.source import read_file
from policytest.suite import checked_cases, load_fixture, load_scheduler, refusal
from policytest.suppression import visible

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
    """The fixture's own scheduler, as the scheduler loads its config (``None`` when the
    scheduler refuses it)."""
    findings: tuple[Finding, ...] = ()
    """The shown findings of the fixture's own config (suppressions applied)."""
    refusal: str = ""
    """Why the scheduler refuses the fixture's config, when it does."""


@dataclass(frozen=True)
class ResourceUse:
    """One resource after the workload: totals, utilisation over the nodes in use, and
    the free capacity stranded on full nodes (see the module docstring), in ``unit``."""

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
    """Nodes on which a pod of the workload fitted before it was placed and none fits
    any more."""
    tie_decided: int
    resources: tuple[ResourceUse, ...]

    @property
    def placed(self) -> int:
        return self.pods - self.pending


def load_workloads(
    path: str, options: CheckOptions, root: str, case: str | None = None
) -> list[Workload]:
    """Every case of the fixture at ``path`` (only ``case`` when given) as a workload."""
    source = read_file(path, options.limits)
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
        errors = [f for f in findings if f.severity is Severity.ERROR]
        refused = "" if scheduler is not None else _refused(errors)
        shown = tuple(visible(findings, options))
        try:
            nodes = tuple(build_nodes((spec.name, spec.spec) for spec in fixture.nodes))
            for item in fixture.cases:
                if case is not None and item.name != case:
                    continue
                pods = tuple(expand_pods(item.pods, f"case `{item.name}`"))
                workloads.append(Workload(path, item.name, nodes, pods, scheduler, shown, refused))
        except (ClusterSpecError, QuantityError) as error:
            raise SimulationError(str(error)) from error
    if not workloads:
        raise SimulationError(f"no case named `{case}`" if case else "no fixture cases")
    return workloads


def _refused(errors: Sequence[Finding]) -> str:
    described = "; ".join(f"{f.path}:{f.line}:{f.column}: {f.rule} {f.message}" for f in errors)
    return f"{refusal(errors)}: {described}" if described else refusal(errors)


def simulate(
    scheduler: Scheduler,
    workload: Workload,
    label: str,
    progress: Callable[[int], None] | None = None,
) -> PackingReport:
    """Place the workload's pods with ``scheduler`` and measure the packing."""
    state = scheduler.cluster(workload.nodes)
    kinds = _kinds(workload.pods)
    usable = _fitting(state, kinds, [node.name for node in workload.nodes])
    choices, _ = place_all(state, workload.pods, progress)
    placed = Counter(node for node, _ in choices if node is not None)
    in_use = [node.name for node in workload.nodes if node.pods or placed[node.name]]
    full = usable - _fitting(state, kinds, sorted(usable))
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


def _kinds(pods: Sequence[Pod]) -> list[Pod]:
    """The workload's pod kinds (the most frequent ones, as the runner bounds them)."""
    return [pod for pod, _ in Counter(pods).most_common(MAX_KINDS)]


def _fitting(state: ClusterState, kinds: Sequence[Pod], names: Sequence[str]) -> set[str]:
    """The nodes among ``names`` on which at least one of the pod kinds fits now."""
    fitting: set[str] = set()
    rest = list(names)
    for kind in kinds:
        if not rest:
            break
        fitting |= {score.name for score in state.score(kind, only=rest) if score.feasible}
        rest = [name for name in rest if name not in fitting]
    return fitting


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
