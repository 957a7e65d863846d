"""The cluster a scorer sees: nodes, the pods bound to them, and incoming pods.

Quantities are parsed once, here, so scorers never touch strings. Every value is
immutable and hashable, which lets the accounting cache per-pod totals (a fixture's
``count: 500`` is one ``Pod`` object repeated, computed once).

Pods are read from three spellings of the same thing:

- a real ``v1.Pod`` (``{metadata, spec: {...}}``) or PodSpec fragment whose containers
  carry ``resources: {requests, limits}``, as in manifests pasted into fixtures;
- the oracle's compact form, whose containers carry ``requests`` / ``limits`` directly;
- the fixture shorthand ``{requests: {...}}`` (one container), with ``count: N`` on any form.

Reading those spellings is :mod:`policytest.scoring.specs`; this module is the model.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, KeysView, Mapping, Sequence, ValuesView
from dataclasses import dataclass, field, fields
from typing import Final, TypeVar, overload

from policytest.scoring.filters import NO_PLACEMENT, PLAIN_NODE, NodeTraits, Placement
from policytest.scoring.quantity import Quantity
from policytest.scoring.workload import NO_WORKLOAD, NodeImage, PodWorkload

__all__ = ["Container", "Node", "Pod", "ResourceList", "pod_runs"]

SIDECAR_RESTART_POLICY: Final = "Always"


_T = TypeVar("_T")


class ResourceList(Mapping[str, Quantity]):
    """An immutable, hashable ``v1.ResourceList``: resource name -> parsed quantity."""

    __slots__ = ("_hash", "_items")

    def __init__(self, items: Mapping[str, Quantity] | None = None) -> None:
        self._items: dict[str, Quantity] = dict(items or {})
        self._hash: int | None = None

    def __getitem__(self, name: str) -> Quantity:
        return self._items[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._items.items()))
        return self._hash

    # The Mapping mixins work through __getitem__; the accounting's caches compare and
    # walk resource lists constantly, so delegate straight to the dict.
    def __eq__(self, other: object) -> bool:
        if isinstance(other, ResourceList):
            return self._items == other._items
        return super().__eq__(other)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    @overload
    def get(self, name: str, /) -> Quantity | None: ...
    @overload
    def get(self, name: str, /, default: Quantity | _T) -> Quantity | _T: ...
    def get(self, name: str, /, default: object = None) -> object:
        return self._items.get(name, default)

    def items(self) -> ItemsView[str, Quantity]:
        return self._items.items()

    def keys(self) -> KeysView[str]:
        return self._items.keys()

    def values(self) -> ValuesView[Quantity]:
        return self._items.values()

    def __repr__(self) -> str:
        body = ", ".join(f"{name!r}: {q.nanos}n" for name, q in self._items.items())
        return f"ResourceList({{{body}}})"


EMPTY: Final = ResourceList()


@dataclass(frozen=True, slots=True)
class Container:
    """A container's requests and limits; ``restart_policy`` "Always" on an init container
    makes it a sidecar."""

    requests: ResourceList = EMPTY
    limits: ResourceList = EMPTY
    restart_policy: str | None = None
    name: str = ""

    @property
    def is_sidecar(self) -> bool:
        return self.restart_policy == SIDECAR_RESTART_POLICY


@dataclass(frozen=True, slots=True)
class Pod:
    """What the schedulers read from a pod: containers, init containers, overhead, the
    pod-level requests (``spec.resources.requests``; ``None`` when not set), the
    annotations (``metadata.annotations``, sorted pairs; Volcano's resource-strategy-fit
    reads two of them), what the node filters read (tolerations, node selector,
    required node affinity), and what the topology plugins read (``workload``:
    namespace, labels, owners, spread constraints, pod affinity, images, host ports)."""

    containers: tuple[Container, ...] = ()
    init_containers: tuple[Container, ...] = ()
    overhead: ResourceList = EMPTY
    pod_level_requests: ResourceList | None = None
    name: str = ""
    annotations: tuple[tuple[str, str], ...] = ()
    placement: Placement = NO_PLACEMENT
    workload: PodWorkload = NO_WORKLOAD
    _hash: int | None = field(default=None, init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        """Computed once per pod: pods key the scorers' memos and a sequence's kept
        kinds, and hashing the nested values again on every lookup cost a long sequence
        about a tenth of its time."""
        cached = self._hash
        if cached is None:
            cached = hash(tuple(getattr(self, name) for name in _POD_FIELDS))
            object.__setattr__(self, "_hash", cached)
        return cached

    def __getstate__(self) -> list[object]:
        """Pickled without the cached hash (string hashes differ between processes)."""
        return [*(getattr(self, name) for name in _POD_FIELDS), None]


_POD_FIELDS: Final = tuple(f.name for f in fields(Pod) if f.compare)


def pod_runs(pods: Sequence[Pod]) -> list[tuple[Pod, int]]:
    """Each run of one pod object in ``pods`` (an entry's ``count`` repeats one object),
    with its length: what a node's pods add up to is asked once per run, not once per
    pod (asking a memo for each copy compared it with an equal pod field by field)."""
    runs: list[tuple[Pod, int]] = []
    for pod in pods:
        if runs and runs[-1][0] is pod:
            runs[-1] = (pod, runs[-1][1] + 1)
        else:
            runs.append((pod, 1))
    return runs


@dataclass(frozen=True, slots=True)
class Node:
    """A node: its allocatable resources, the pods already bound to it (in order), and
    what the node filters read (labels, taints, ``unschedulable``), and the images it
    holds (``status.images``, for ImageLocality)."""

    name: str
    allocatable: ResourceList = EMPTY
    pods: tuple[Pod, ...] = field(default=())
    traits: NodeTraits = PLAIN_NODE
    images: tuple[NodeImage, ...] = ()
