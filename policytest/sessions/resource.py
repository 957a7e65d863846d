"""Volcano's ``api.Resource``: milli-cpu, memory and scalar resources as float64, with the
comparisons and arithmetic the session's plugins use (proportion's deserved shares,
overcommit's idle, drf's shares, the queue checks of allocate and enqueue).

The scalar map keeps Go's distinction between a nil map and an empty one, which
``MinDimensionResource`` and ``LessEqualWithDimensionAndResourcesName`` read; ``pods`` is a
scalar (a count) that ``IsEmpty`` and the dimension checks ignore.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from typing import Final

__all__ = ["INFINITY", "MIN_RESOURCE", "ZERO", "Resource", "exceeded_part", "share"]

MIN_RESOURCE: Final = 0.1
ZERO: Final = 0
INFINITY: Final = -1
"""``DimensionDefaultValue``: what a dimension one side lacks counts as (0, or no limit)."""
MAX_FLOAT: Final = sys.float_info.max
PODS: Final = "pods"
CPU: Final = "cpu"
MEMORY: Final = "memory"


def _le(left: float, right: float) -> bool:
    return left < right or abs(left - right) < MIN_RESOURCE


class Resource:
    """One ``*api.Resource`` (mutable, as the Go methods mutate their receiver)."""

    __slots__ = ("cpu", "memory", "scalars")

    def __init__(
        self, cpu: float = 0.0, memory: float = 0.0, scalars: dict[str, float] | None = None
    ) -> None:
        self.cpu = cpu
        self.memory = memory
        self.scalars = scalars

    @classmethod
    def of(cls, values: Mapping[str, float]) -> Resource:
        """From Volcano units by name (``volcano_pod_request``, a node's allocatable)."""
        scalars = {name: value for name, value in values.items() if name not in (CPU, MEMORY)}
        return cls(values.get(CPU, 0.0), values.get(MEMORY, 0.0), scalars or None)

    def clone(self) -> Resource:
        return Resource(self.cpu, self.memory, None if self.scalars is None else dict(self.scalars))

    def get(self, name: str) -> float:
        if name == CPU:
            return self.cpu
        if name == MEMORY:
            return self.memory
        return (self.scalars or {}).get(name, 0.0)

    def names(self) -> list[str]:
        """``ResourceNames``: the dimensions of at least 0.1 (pods among them)."""
        names = [n for n, v in ((CPU, self.cpu), (MEMORY, self.memory)) if v >= MIN_RESOURCE]
        return names + [n for n, v in (self.scalars or {}).items() if v >= MIN_RESOURCE]

    def is_empty(self) -> bool:
        if not (self.cpu < MIN_RESOURCE and self.memory < MIN_RESOURCE):
            return False
        return all(v < MIN_RESOURCE for n, v in (self.scalars or {}).items() if n != PODS)

    def add(self, other: Resource) -> Resource:
        self.cpu += other.cpu
        self.memory += other.memory
        for name, value in (other.scalars or {}).items():
            if self.scalars is None:
                self.scalars = {}
            self.scalars[name] = self.scalars.get(name, 0.0) + value
        return self

    def sub(self, other: Resource) -> Resource:
        """``sub`` (without the assertion, whose failure the session never reaches)."""
        self.cpu -= other.cpu
        self.memory -= other.memory
        if self.scalars is None:
            return self
        for name, value in (other.scalars or {}).items():
            self.scalars[name] = self.scalars.get(name, 0.0) - value
        return self

    def multi(self, ratio: float) -> Resource:
        self.cpu *= ratio
        self.memory *= ratio
        if self.scalars is not None:
            for name in self.scalars:
                self.scalars[name] *= ratio
        return self

    def less_equal(self, other: Resource, default: int) -> bool:
        if not _le(self.cpu, other.cpu) or not _le(self.memory, other.memory):
            return False
        theirs = other.scalars or {}
        mine = self.scalars or {}
        if default == INFINITY and any(name not in mine for name in theirs):
            return False
        for name, value in mine.items():
            if name not in theirs:
                if default == INFINITY:
                    continue
                if not _le(value, 0.0):
                    return False
            elif not _le(value, theirs[name]):
                return False
        return True

    def less_equal_partly(self, other: Resource, default: int) -> bool:
        """``LessEqualPartly``: some dimension is at most ``other``'s (a scalar only
        ``other`` has counts when ``default`` is zero, one only this has when infinity)."""
        if _le(self.cpu, other.cpu) or _le(self.memory, other.memory):
            return True
        theirs = other.scalars or {}
        mine = self.scalars or {}
        if default == ZERO and any(name not in mine for name in theirs):
            return True
        for name, value in mine.items():
            if name not in theirs and default == INFINITY:
                return True
            if _le(value, theirs.get(name, 0.0)):
                return True
        return False

    def less_equal_names(self, other: Resource, default: int) -> list[str]:
        """``LessEqualWithResourcesName``: the dimensions over ``other`` (none: fits)."""
        over = [CPU] if not _le(self.cpu, other.cpu) else []
        if not _le(self.memory, other.memory):
            over.append(MEMORY)
        theirs = other.scalars or {}
        for name, value in (self.scalars or {}).items():
            if name not in theirs and default == INFINITY:
                continue
            if not _le(value, theirs.get(name, 0.0)):
                over.append(name)
        return over

    def over_in_requested(self, other: Resource | None, request: Resource) -> list[str]:
        """``LessEqualWithDimensionAndResourcesName``: the dimensions ``request`` asks for
        in which this is strictly over ``other`` (none: fits; pods never count)."""
        if other is None:
            return self.names()
        over = [CPU] if request.cpu > 0 and self.cpu > other.cpu else []
        if request.memory > 0 and self.memory > other.memory:
            over.append(MEMORY)
        if self.scalars is None:
            return over
        theirs = other.scalars or {}
        for name, quantity in (request.scalars or {}).items():
            if (
                name != PODS
                and quantity > 0
                and self.scalars.get(name, 0.0) > theirs.get(name, 0.0)
            ):
                over.append(name)
        return over

    def min_dimension(self, other: Resource, default: int) -> Resource:
        """``MinDimensionResource``: each dimension the smaller of the two."""
        self.cpu = min(self.cpu, other.cpu)
        self.memory = min(self.memory, other.memory)
        if self.scalars is None:
            return self
        if other.scalars is None:
            if default != INFINITY:
                for name in self.scalars:
                    self.scalars[name] = 0.0
            return self
        for name, value in self.scalars.items():
            if name in other.scalars:
                self.scalars[name] = min(value, other.scalars[name])
            elif default != INFINITY:
                self.scalars[name] = 0.0
        return self

    def diff(self, other: Resource, default: int) -> tuple[Resource, Resource]:
        """``Diff``: what this has over ``other``, and what ``other`` has over this."""
        left = dict(self.scalars or {})
        right = dict(other.scalars or {})
        for name in list(left):
            right.setdefault(name, float(default))
        for name in list(right):
            left.setdefault(name, float(default))
        increased, decreased = Resource(scalars={}), Resource(scalars={})
        if self.cpu > other.cpu:
            increased.cpu = self.cpu - other.cpu
        else:
            decreased.cpu = other.cpu - self.cpu
        if self.memory > other.memory:
            increased.memory = self.memory - other.memory
        else:
            decreased.memory = other.memory - self.memory
        assert increased.scalars is not None and decreased.scalars is not None
        for name, value in left.items():
            theirs = right[name]
            if value == float(INFINITY):
                increased.scalars[name] = value
            elif theirs == float(INFINITY):
                decreased.scalars[name] = theirs
            elif value > theirs:
                increased.scalars[name] = value - theirs
            else:
                decreased.scalars[name] = theirs - value
        return increased, decreased

    def semantic_equal(self, other: Resource) -> bool:
        """``equality.Semantic.DeepEqual``: exact values, a nil map equal to an empty one."""
        return (
            self.cpu == other.cpu
            and self.memory == other.memory
            and (self.scalars or {}) == (other.scalars or {})
        )

    def __repr__(self) -> str:
        return f"Resource(cpu={self.cpu}, memory={self.memory}, scalars={self.scalars})"


def exceeded_part(left: Resource, right: Resource) -> Resource:
    """``ExceededPart``: what ``left`` has over ``right``, dimension by dimension."""
    return left.diff(right, ZERO)[0]


def share(allocated: float, deserved: float) -> float:
    """``helpers.Share``."""
    if deserved == 0:
        return 0.0 if allocated == 0 else 1.0
    return allocated / deserved


def total(resources: Iterable[Resource]) -> Resource:
    summed = Resource()
    for resource in resources:
        summed.add(resource)
    return summed


def infinite_if_unset(capability: Resource) -> Resource:
    """proportion: a queue capability's cpu or memory of 0 or less is unlimited."""
    if capability.cpu <= 0:
        capability.cpu = MAX_FLOAT
    if capability.memory <= 0:
        capability.memory = MAX_FLOAT
    return capability
