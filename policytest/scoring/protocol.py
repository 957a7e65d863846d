"""The seam between the runner and the reference scorers.

A :class:`Scheduler` is built once from a config model; it turns fixture nodes into
a :class:`ClusterState` that can score an incoming pod on every node and bind it.
The runner only speaks this protocol, so Volcano and kube-scheduler look alike to it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from policytest.core.limits import WorkMeter
from policytest.scoring.cluster import Node, Pod
from policytest.scoring.workload import NO_OBJECTS, ClusterObjects

K = TypeVar("K")
V = TypeVar("V")


@dataclass(frozen=True)
class ResourceDetail:
    """One resource on one node, for ``explain``: what the score was made of."""

    name: str
    requested: int
    allocatable: int
    weight: int
    milli: bool
    """Whether ``requested``/``allocatable`` are in milli-units (cpu always is)."""
    score: float | None = None
    """This resource's score times its weight (what the plugin sums), where the plugin
    has one to show; ``None``: the resource is left out of the plugin's mean."""
    own_score: float | None = None
    """The resource's own score before its weight (kube-scheduler: 0-100)."""
    plugin_weight: int | None = None
    """The weight the plugin's score is multiplied by (profile weight, binpack.weight)."""
    division: str = ""
    """How the plugin divides the sum by the sum of weights: ``int64`` (truncating),
    ``round`` (math.Round of a float64 quotient) or ``float``."""
    note: str | None = None
    """How the plugin scored it, where that varies per resource (resource-strategy-fit:
    the strategy and the rule that chose it)."""


class LazyMapping(Mapping[K, V]):
    """A mapping computed on first use: a ranking of thousands of nodes is shown (by
    ``explain``, by the HTML report) for a few of them at most."""

    __slots__ = ("_compute", "_value")

    def __init__(self, compute: Callable[[], Mapping[K, V]]) -> None:
        self._compute = compute
        self._value: Mapping[K, V] | None = None

    def _details(self) -> Mapping[K, V]:
        if self._value is None:
            self._value = self._compute()
        return self._value

    def __getitem__(self, key: K) -> V:
        return self._details()[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._details())

    def __len__(self) -> int:
        return len(self._details())

    def __repr__(self) -> str:
        return repr(dict(self._details()))


LazyDetails = LazyMapping[str, tuple[ResourceDetail, ...]]
"""Per-plugin resource details, computed on first use."""


@dataclass(frozen=True)
class NodeScore:
    """A node's verdict for one pod: filtered out (with the reason) or scored."""

    name: str
    feasible: bool
    reason: str | None = None
    total: float = 0
    plugins: Mapping[str, float] = field(default_factory=dict)
    resources: Mapping[str, tuple[ResourceDetail, ...]] = field(default_factory=dict)
    parts: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """Per plugin made of several scores, each one's weighted score (Volcano's nodeorder:
    ``leastrequested``, ``mostrequested``, ``balancedresource``), for ``explain``."""
    balance: Mapping[str, BalanceDetail] = field(default_factory=dict)
    """BalancedAllocation's terms (kube-scheduler's plugin, nodeorder's balancedresource),
    unweighted, for ``explain``."""
    notes: Mapping[str, str] = field(default_factory=dict, compare=False)
    """Per topology plugin, why it scored the node so (the spreading skew and its
    constraints, the affinity terms matched, the images found, the taints counted), for
    ``explain``; made when read."""


@dataclass(frozen=True)
class BalanceDetail:
    """BalancedAllocation on one node: S with the pod, S without it, and the score the
    release's formula makes of them (``with-pod``: S(with); ``balance-change``, 1.36:
    ``50 + (50 + S(with) - S(without)) / 2`` in int64)."""

    with_pod: int
    without_pod: int
    score: int
    formula: str


@dataclass(frozen=True)
class NotSimulated:
    """Something the config makes the scheduler do that policytest does not simulate:
    an action that evicts running pods, a gang or workload plugin, a queue sort of a
    custom build. Every report names it beside the result, which shows the scheduler
    without it, so that no one reads the result as the whole story."""

    name: str
    """As the config names it: ``preempt``, ``GangScheduling``."""
    kind: str
    """``action`` (Volcano) or the kube-scheduler extension points it runs at."""
    effect: str
    """What it does on a real cluster, and so what the result leaves out."""

    def describe(self) -> str:
        """``preempt (action): evicts ...``: one line for any report."""
        return f"{self.name} ({self.kind}): {self.effect}"


class ClusterState(Protocol):
    """A cluster being scheduled into: score a pod on every node, then bind it."""

    def score(self, pod: Pod, only: Sequence[str] | None = None) -> Sequence[NodeScore]:
        """Every node's verdict for ``pod`` in cluster order (only the nodes ``only``
        names, in that order, when given: a fast path rescoring what a bind changed)."""
        ...

    def bind(self, node_name: str, pod: Pod) -> None: ...

    def local_binds(self, pod: Pod) -> bool:
        """Whether binding any pod changes ``pod``'s scores on the bound node only (not
        so when ``pod`` spreads or has affinity: its other nodes' scores move too)."""
        ...

    def utilisation(self) -> Mapping[str, Mapping[str, tuple[int, int]]]:
        """Per node, per resource: (requested, allocatable), for utilisation bars."""
        ...


class Scheduler(Protocol):
    """A scheduler config made executable."""

    @property
    def name(self) -> str:
        """``volcano`` or ``kube-scheduler``."""
        ...

    @property
    def integer_scores(self) -> bool:
        """True when scores are integers (exact comparison by default)."""
        ...

    @property
    def not_modelled(self) -> tuple[str, ...]:
        """Score plugins that are neutral for fixture clusters and therefore not computed."""
        ...

    @property
    def not_simulated(self) -> tuple[NotSimulated, ...]:
        """What the config makes the scheduler do beyond placing pods where they fit
        (evicting, gang scheduling), which policytest does not simulate."""
        ...

    @property
    def priority_sort(self) -> bool:
        """Whether pending pods leave the queue by priority, then arrival (kube-scheduler's
        PrioritySort), rather than in arrival order."""
        ...

    @property
    def corrections(self) -> tuple[str, ...]:
        """The scheduler's silent corrections of the config, one line each
        (``binpack.cpu: written -1, Volcano uses 1``)."""
        ...

    def cluster(
        self,
        nodes: Sequence[Node],
        objects: ClusterObjects = NO_OBJECTS,
        meter: WorkMeter | None = None,
    ) -> ClusterState:
        """The nodes (with their bound pods) and the cluster's workload objects and
        namespaces (what PodTopologySpread's default constraints and affinity's
        ``namespaceSelector`` read) as a cluster to schedule into, whose topology
        plugins charge ``meter`` with the checks they make (``None``: not counted)."""
        ...

    def utilisation(self, nodes: Sequence[Node]) -> Mapping[str, Mapping[str, tuple[int, int]]]:
        """``cluster(nodes).utilisation()``, without making what placing pods needs (the
        topology plugins' view of every bound pod): a repack's today, at every run."""
        ...
