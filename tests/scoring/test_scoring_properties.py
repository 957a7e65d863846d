"""Properties every reference scorer must keep, whatever the cluster (Hypothesis).

Clusters are drawn as plain integers (millicores, bytes, GPUs) so that the fit checks
below can be judged without the accounting under test.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from policytest.scoring.accounting import (
    kube_node_info,
    kube_node_info_with_pod,
    volcano_node_info,
    volcano_node_info_with_pod,
)
from policytest.scoring.cluster import Node, Pod
from policytest.scoring.kube import (
    STRATEGIES,
    BalancedArgs,
    FitScoring,
    balanced_allocation_score,
    fit_filter,
    fit_resources,
    fit_score,
)
from policytest.scoring.specs import node_from_dict, pod_from_dict
from policytest.scoring.volcano import (
    binpack_score,
    nodeorder_scores,
    predicates_filter,
)
from policytest.scoring.weights import BinpackWeights, NodeOrderWeights

GPU = "nvidia.com/gpu"
MI = 1024**2
PROPERTY_SETTINGS = settings(max_examples=150)


@dataclass(frozen=True)
class Demand:
    """One pod's requests: millicores, bytes, GPUs (all explicit, so no defaults apply)."""

    cpu: int
    memory: int
    gpu: int

    def pod(self) -> Pod:
        requests = {"cpu": f"{self.cpu}m", "memory": str(self.memory)}
        if self.gpu:
            requests[GPU] = str(self.gpu)
        return pod_from_dict({"requests": requests}, default_requests_from_limits=True)


@dataclass(frozen=True)
class Machine:
    """A node as integers, with the pods already bound to it."""

    name: str
    cpu: int
    memory: int
    gpu: int
    pods: int
    bound: tuple[Demand, ...]

    def node(self) -> Node:
        allocatable = {"cpu": f"{self.cpu}m", "memory": str(self.memory), "pods": str(self.pods)}
        if self.gpu:
            allocatable[GPU] = str(self.gpu)
        spec = {"name": self.name, "allocatable": allocatable}
        node = node_from_dict(spec, default_requests_from_limits=True)
        return Node(node.name, node.allocatable, tuple(d.pod() for d in self.bound))

    def fits(self, demand: Demand) -> bool:
        """Judged from the integers alone: a resource the pod does not request is not
        checked (a node may already be overcommitted on it)."""
        return (
            len(self.bound) < self.pods
            and sum(d.cpu for d in self.bound) + demand.cpu <= self.cpu
            and sum(d.memory for d in self.bound) + demand.memory <= self.memory
            and (demand.gpu == 0 or sum(d.gpu for d in self.bound) + demand.gpu <= self.gpu)
        )


demands = st.builds(
    Demand,
    cpu=st.integers(1, 16_000),
    memory=st.integers(1, 64 * 1024).map(lambda m: m * MI),
    gpu=st.integers(0, 2),
)


@st.composite
def machines(draw: st.DrawFn, name: str = "node") -> Machine:
    return Machine(
        name=name,
        cpu=draw(st.integers(1, 64_000)),
        memory=draw(st.integers(1, 256 * 1024)) * MI,
        gpu=draw(st.integers(0, 8)),
        pods=draw(st.integers(0, 8)),
        bound=tuple(draw(st.lists(demands, max_size=5))),
    )


@st.composite
def fitting(
    draw: st.DrawFn, extras: int = 0, gpu: bool = False
) -> tuple[Machine, Demand, tuple[Demand, ...]]:
    """A machine, a demand that fits on it, and ``extras`` more pods that fit with it.
    (Random machines and demands rarely fit: properties about fitting pods need this.)"""
    demand = draw(demands.filter(lambda d: d.gpu > 0) if gpu else demands)
    more = tuple(draw(demands) for _ in range(extras))
    bound = tuple(draw(st.lists(demands, max_size=5)))
    wanted = (*bound, *more, demand)
    machine = Machine(
        name="node",
        cpu=sum(d.cpu for d in wanted) + draw(st.integers(0, 32_000)),
        memory=sum(d.memory for d in wanted) + draw(st.integers(0, 64 * 1024)) * MI,
        gpu=sum(d.gpu for d in wanted) + draw(st.integers(0, 4)),
        pods=len(wanted) + draw(st.integers(0, 8)),
        bound=bound,
    )
    return machine, demand, more


@st.composite
def shapes(draw: st.DrawFn) -> tuple[tuple[int, int], ...]:
    utilizations = sorted(draw(st.sets(st.integers(0, 100), min_size=1, max_size=5)))
    return tuple((u, draw(st.integers(0, 10))) for u in utilizations)


weights_1_100 = st.integers(1, 100)


@st.composite
def fit_args(draw: st.DrawFn) -> FitScoring:
    names = draw(st.lists(st.sampled_from(["cpu", "memory", GPU]), min_size=1, max_size=3))
    resources = tuple((name, draw(weights_1_100)) for name in names)
    strategy = draw(st.sampled_from(STRATEGIES))
    shape = draw(shapes()) if strategy == "RequestedToCapacityRatio" else ()
    return FitScoring(strategy, resources, shape)


@st.composite
def binpack_weights(draw: st.DrawFn) -> BinpackWeights:
    cpu, memory, gpu = draw(st.integers(0, 20)), draw(st.integers(0, 20)), draw(st.integers(0, 20))
    return BinpackWeights(
        weight=draw(st.integers(1, 10)),
        cpu=cpu,
        memory=memory,
        resources={"cpu": cpu, "memory": memory, GPU: gpu},
    )


# --- ranges ----------------------------------------------------------------------------------


@PROPERTY_SETTINGS
@given(fit_args(), machines(), demands)
def test_fit_scores_stay_in_range(args: FitScoring, machine: Machine, demand: Demand) -> None:
    assert 0 <= fit_score(args, demand.pod(), kube_node_info(machine.node())) <= 100


@PROPERTY_SETTINGS
@given(machines(), demands)
def test_balanced_allocation_stays_in_range(machine: Machine, demand: Demand) -> None:
    args = BalancedArgs((("cpu", 1), ("memory", 1), (GPU, 1)))
    assert 0 <= balanced_allocation_score(args, demand.pod(), kube_node_info(machine.node())) <= 100


@PROPERTY_SETTINGS
@given(binpack_weights(), machines(), demands)
def test_binpack_stays_in_range(weights: BinpackWeights, machine: Machine, demand: Demand) -> None:
    score = binpack_score(weights, demand.pod(), volcano_node_info(machine.node()))
    assert 0 <= score <= 100 * weights.weight


@PROPERTY_SETTINGS
@given(
    st.builds(
        NodeOrderWeights,
        leastrequested=st.integers(0, 5),
        mostrequested=st.integers(0, 5),
        balancedresource=st.integers(0, 5),
    ),
    machines(),
    demands,
)
def test_nodeorder_stays_in_range(
    weights: NodeOrderWeights, machine: Machine, demand: Demand
) -> None:
    scores = nodeorder_scores(weights, demand.pod(), kube_node_info(machine.node()))
    ceiling = 100 * (weights.leastrequested + weights.mostrequested + weights.balancedresource)
    assert 0 <= scores.total <= ceiling


# --- monotonicity and symmetry ---------------------------------------------------------------


@PROPERTY_SETTINGS
@given(fit_args(), machines(), demands, demands)
def test_most_allocated_never_falls_as_a_node_fills(
    args: FitScoring, machine: Machine, demand: Demand, extra: Demand
) -> None:
    most = FitScoring("MostAllocated", args.resources)
    pod, info = demand.pod(), kube_node_info(machine.node())
    fuller = kube_node_info_with_pod(info, extra.pod())
    assert fit_score(most, pod, fuller) >= fit_score(most, pod, info)


@PROPERTY_SETTINGS
@given(binpack_weights(), fitting(extras=1))
def test_binpack_never_falls_as_a_node_fills_while_the_task_fits(
    weights: BinpackWeights, case: tuple[Machine, Demand, tuple[Demand, ...]]
) -> None:
    machine, demand, (extra,) = case
    pod, info = demand.pod(), volcano_node_info(machine.node())
    fuller = volcano_node_info_with_pod(info, extra.pod())
    assert binpack_score(weights, pod, fuller) >= binpack_score(weights, pod, info)


@PROPERTY_SETTINGS
@given(fit_args(), machines(), demands)
def test_least_allocated_mirrors_most_allocated(
    args: FitScoring, machine: Machine, demand: Demand
) -> None:
    info = kube_node_info(machine.node())
    pod = demand.pod()
    least = fit_score(FitScoring("LeastAllocated", args.resources), pod, info)
    most = fit_score(FitScoring("MostAllocated", args.resources), pod, info)
    overcommitted = any(
        info.non_zero_requested.get(name, info.requested.get(name, 0)) + size
        > info.allocatable.get(name, 0)
        for name, size in (("cpu", demand.cpu), ("memory", demand.memory), (GPU, demand.gpu))
        if info.allocatable.get(name, 0) and size
    )
    if not overcommitted and least + most:
        # Per resource the two truncated scores add up to 99 or 100; each weighted
        # mean truncates once more.
        assert 98 <= least + most <= 100


@PROPERTY_SETTINGS
@given(fit_args(), machines(), demands)
def test_explained_resource_scores_add_up_to_the_fit_score(
    args: FitScoring, machine: Machine, demand: Demand
) -> None:
    """What ``explain`` shows per resource is what Fit averages: sum(score x weight) over
    the resources that count, divided by their weights (truncated; the shape rounds)."""
    pod, info = demand.pod(), kube_node_info(machine.node())
    counted = [(s, w) for _, _, _, w, s in fit_resources(args, pod)(info) if s is not None]
    total, weights = sum(s * w for s, w in counted), sum(w for _, w in counted)
    if args.strategy == "RequestedToCapacityRatio":
        expected = int(total / weights + 0.5) if weights else 0  # math.Round, positive
    else:
        expected = total // weights if weights else 0
    assert fit_score(args, pod, info) == expected


# --- filters -----------------------------------------------------------------------------------


@PROPERTY_SETTINGS
@given(st.lists(machines(), min_size=1, max_size=6), demands, fit_args(), binpack_weights())
def test_no_scheduler_picks_a_node_the_pod_does_not_fit(
    cluster: list[Machine], demand: Demand, args: FitScoring, weights: BinpackWeights
) -> None:
    pod = demand.pod()
    kube = [kube_node_info(machine.node()) for machine in cluster]
    volcano = [volcano_node_info(machine.node()) for machine in cluster]
    schedulers: dict[str, list[tuple[float, bool]]] = {
        "kube-scheduler": [
            (fit_score(args, pod, info), fit_filter(pod, info) is None) for info in kube
        ],
        "volcano": [
            (binpack_score(weights, pod, info), predicates_filter(pod, info) is None)
            for info in volcano
        ],
    }
    for name, verdicts in schedulers.items():
        feasible = [m for m, (_, fits) in zip(cluster, verdicts, strict=True) if fits]
        assert feasible == [m for m in cluster if m.fits(demand)], name
        ranked = sorted(zip(verdicts, cluster, strict=True), key=lambda pair: -pair[0][0])
        chosen = next((machine for (_, fits), machine in ranked if fits), None)
        assert chosen is None or chosen.fits(demand), name


# --- binpack and MostAllocated agree ----------------------------------------------------------


@PROPERTY_SETTINGS
@given(binpack_weights(), st.data())
def test_binpack_per_weight_is_most_allocated_within_two_points(
    weights: BinpackWeights, data: st.DataObject
) -> None:
    weighted = [name for name, weight in weights.resources.items() if weight]
    if not weighted:
        return
    # the pod requests every weighted resource (else the two read different resources)
    machine, demand, _ = data.draw(fitting(gpu=GPU in weighted))
    pod = demand.pod()
    most = FitScoring("MostAllocated", tuple((name, weights.resources[name]) for name in weighted))
    kube = fit_score(most, pod, kube_node_info(machine.node()))
    volcano = binpack_score(weights, pod, volcano_node_info(machine.node())) / weights.weight
    assert abs(volcano - kube) < 2
