"""Effective plugin weights, exactly as Volcano holds them after its own parsing.

These are the values the scorer consumes. How they are derived from a conf (every
reset, override and ignore Volcano performs) lives in the Volcano model; this module
only states their shape and Volcano's defaults.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


def _frozen(mapping: Mapping[str, int]) -> Mapping[str, int]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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
