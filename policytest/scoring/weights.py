"""Effective plugin weights, exactly as Volcano holds them after its own parsing.

These are the values the scorer consumes. How they are derived from a conf (every
reset, override and ignore Volcano performs) lives in the Volcano model; this module
only states their shape and Volcano's defaults, as frozen records
(:mod:`policytest.core.records`: the hook defines them on every commit).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from policytest.core.records import field, record


def _frozen(mapping: Mapping[str, int]) -> Mapping[str, int]:
    return MappingProxyType(dict(mapping))


_NO_RESOURCES: Mapping[str, int] = MappingProxyType({})


@record(frozen=True)
class BinpackWeights:
    """binpack's ``calculateWeight`` result.

    ``resources`` is Volcano's ``BinPackingResources`` map: every resource that scores,
    including ``cpu`` and ``memory``, whose weights are always ``cpu`` / ``memory`` (as
    ``calculateWeight`` ends by setting them, so the constructor does too).
    ``weight`` is ``binpack.weight``; 0 means the node-order function is not registered.
    Hashable, so that callers can cache per weights.
    """

    weight: int = 1
    cpu: int = 1
    memory: int = 1
    resources: Mapping[str, int] = field(default_factory=lambda: _frozen({"cpu": 1, "memory": 1}))

    def __post_init__(self) -> None:
        resources = {**self.resources, "cpu": self.cpu, "memory": self.memory}
        object.__setattr__(self, "resources", _frozen(resources))

    def __hash__(self) -> int:
        return hash((self.weight, self.cpu, self.memory, tuple(sorted(self.resources.items()))))


@record(frozen=True)
class NodeOrderWeights:
    """The ``nodeorder`` plugin's weights (read as integers, never clamped)."""

    leastrequested: int = 1
    mostrequested: int = 0
    balancedresource: int = 1
    nodeaffinity: int = 2
    podaffinity: int = 2
    tainttoleration: int = 3
    imagelocality: int = 1
    podtopologyspread: int = 2


# --- resource-strategy-fit -------------------------------------------------------------

RSF = "resource-strategy-fit"
DEFAULT_WEIGHT = 10
MOST = "MostAllocated"
LEAST = "LeastAllocated"
TYPES = (MOST, LEAST)
TYPE_ANNOTATION = "volcano.sh/resource-strategy-scoring-type"
WEIGHT_ANNOTATION = "volcano.sh/resource-strategy-weight"


@record(frozen=True)
class Strategy:
    """How one resource (or resource prefix ``name*``) scores."""

    type: str
    weight: int


@record(frozen=True)
class Sra:
    """The scarce-resource-avoidance part: ``weight`` 0 means it is off. ``resources``
    keeps each listed name once; ``weight_sum`` counts every listed item."""

    weight: int = 0
    # the one shared read-only mapping (a record refuses an unhashable default)
    resources: Mapping[str, int] = field(default_factory=lambda: _NO_RESOURCES)
    weight_sum: int = 0

    def __hash__(self) -> int:
        return hash((self.weight, tuple(self.resources.items()), self.weight_sum))


@record(frozen=True)
class Rates:
    """The proportional filter's rates for one resource: cpu (milli per milli-unit) and
    memory (MB per milli-unit)."""

    cpu: float = 1.0
    memory: float = 1.0


DEFAULT_RESOURCES: Mapping[str, Strategy] = MappingProxyType(
    {"cpu": Strategy(LEAST, 1), "memory": Strategy(LEAST, 1)}
)


@record(frozen=True)
class ResourceStrategyFitArgs:
    """The plugin as ``New`` leaves it. ``fatal`` is the klog message when ``New`` exits
    the scheduler (the other fields are then what was decoded before that)."""

    weight: int = DEFAULT_WEIGHT
    # the one shared read-only mapping (a record refuses an unhashable default)
    resources: Mapping[str, Strategy] = field(default_factory=lambda: DEFAULT_RESOURCES)
    sra: Sra = Sra()
    proportional: Mapping[str, Rates] | None = None
    fatal: str | None = None
    dropped: tuple[str, ...] = ()

    @property
    def registers_node_order(self) -> bool:
        return self.weight > 0 or self.sra.weight > 0

    def __hash__(self) -> int:
        proportional = None if self.proportional is None else tuple(self.proportional.items())
        return hash(
            (self.weight, tuple(self.resources.items()), self.sra, proportional, self.fatal)
        )
