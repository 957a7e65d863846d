"""The order kube-scheduler takes a case's pending pods in: PrioritySort.

kube-scheduler keeps pending pods in a priority queue ordered by its queue-sort plugin;
the default one, PrioritySort (``plugins/queuesort/priority_sort.go``), pops the pod of
highest ``spec.priority`` first (0 when unset) and, between equal priorities, the one
that entered the queue first (``QueuedPodInfo.Timestamp``, the time the pod was added,
i.e. when it was created for a running scheduler). A case's pods are taken as all
pending together: arrival is their creation time (``metadata.creationTimestamp``) when
every pod of the case has one, as a snapshot's pods do, else the order they are listed
in; equal times keep the listed order.

``spec.priority`` is what the API server's Priority admission plugin wrote when the pod
was created (``plugin/pkg/admission/priority``): the value of the pod's PriorityClass
(``priorityClassName``), or of the ``globalDefault`` class (the lowest when several) when
it names none, or 0. A fixture's pods are created, so they are admitted so: one the
plugin refuses (a class that does not exist, a written ``priority`` that is not the
value it computes) is an error, as it never reaches the scheduler. A snapshot's pods
were admitted long ago: their stored ``spec.priority`` is what the scheduler reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cached_property
from typing import Any, Final, Protocol

from policytest.core.errors import PolicytestError

__all__ = [
    "SYSTEM_CLASSES",
    "PodQueue",
    "PriorityClassLike",
    "QueueSpecError",
    "admitted_priority",
    "pod_queue",
    "stored_priority",
]

SYSTEM_CLASSES: Final = {"system-cluster-critical": 2000000000, "system-node-critical": 2000001000}
"""The PriorityClasses every API server creates at start-up (``SystemPriorityClasses``)."""
_INT32: Final = (-(1 << 31), (1 << 31) - 1)


class QueueSpecError(PolicytestError, ValueError):
    """A pod the API server would not admit for its priority, or a bad creation time."""


class PriorityClassLike(Protocol):
    """What admission reads of a PriorityClass."""

    @property
    def name(self) -> str: ...

    @property
    def value(self) -> int: ...

    @property
    def global_default(self) -> bool: ...


@dataclass(frozen=True)
class PodQueue:
    """A case's pods as the queue takes them."""

    priorities: tuple[int, ...]
    """Each pod's priority, in the order the case lists them (``count`` expanded)."""
    arrival: tuple[int, ...]
    """The listed positions in the order the pods arrived."""
    by_creation: bool = False
    """Arrival is the pods' creation times (else their listed order)."""
    priority_sort: bool = True
    """The queue sort is PrioritySort (else the pods are taken as they arrived)."""

    @cached_property
    def order(self) -> tuple[int, ...]:
        """The listed positions in the order the queue pops them (``sorted`` is stable:
        equal priorities keep their arrival order)."""
        if not self.priority_sort:
            return self.arrival
        return tuple(sorted(self.arrival, key=lambda position: -self.priorities[position]))

    @property
    def reordered(self) -> bool:
        """The queue takes the pods in another order than listed."""
        return self.order != tuple(range(len(self.order)))

    @property
    def plain(self) -> bool:
        """The pods share one priority and are taken as listed: nothing to report."""
        return not self.reordered and len(set(self.priorities)) <= 1


def pod_queue(
    entries: Sequence[Mapping[str, Any]],
    classes: Sequence[PriorityClassLike] = (),
    *,
    priority_sort: bool = True,
    admitted: bool = False,
    where: str = "case",
) -> PodQueue:
    """The queue of a case's pod entries (each repeated ``count`` times, as the cluster
    model expands them): by priority, then arrival, under PrioritySort; in arrival order
    under another queue sort (``priority_sort`` false). ``admitted``: the pods are a
    snapshot's, admitted already (their stored priority is read); else they are created,
    and the admission plugin gives them theirs."""
    priorities: list[int] = []
    created: list[datetime | None] = []
    read: dict[int, tuple[int, int, datetime | None]] = {}  # a repack lists one per pod
    for index, entry in enumerate(entries):
        known = read.get(id(entry))
        if known is None:
            at = f"{where}.pods[{index}]"
            priority = (
                stored_priority(entry, at) if admitted else admitted_priority(entry, classes, at)
            )
            known = read[id(entry)] = (_count(entry), priority, _created(entry, at))
        count, priority, time = known
        priorities += [priority] * count
        created += [time] * count
    by_creation = bool(created) and all(time is not None for time in created)
    if not by_creation:  # in the order they are listed
        return PodQueue(tuple(priorities), tuple(range(len(priorities))), False, priority_sort)

    def arrival(position: int) -> tuple[datetime, int]:
        time = created[position]
        assert time is not None
        return time, position

    arrived = tuple(sorted(range(len(priorities)), key=arrival))
    return PodQueue(tuple(priorities), arrived, True, priority_sort)


def admitted_priority(
    pod: Mapping[str, Any], classes: Sequence[PriorityClassLike] = (), where: str = "pod"
) -> int:
    """``spec.priority`` of ``pod`` (a v1.Pod, a PodSpec fragment or the short form) as
    the Priority admission plugin sets it when the pod is created: its class's value, or
    the ``globalDefault`` class's (the lowest of several), or 0; a pod that names a class
    that does not exist, or writes a priority its class does not give, is refused."""
    spec = _spec(pod)
    stored = _stored(spec, where)
    name = spec.get("priorityClassName")
    if name is not None and not isinstance(name, str):
        raise QueueSpecError(f"{where}.priorityClassName: must be a string")
    if name:
        value = _class_value(name, classes)
        if value is None:
            raise QueueSpecError(
                f"{where}.priorityClassName: no PriorityClass with name {name} was found, so "
                "the API server refuses the pod (Priority admission); add it to the "
                "cluster's `priorityClasses`"
            )
    else:
        defaults = [known.value for known in classes if known.global_default]
        value = min(defaults) if defaults else 0
    if stored is not None and stored != value:
        raise QueueSpecError(
            f"{where}.priority: the integer value of priority ({stored}) must not be provided "
            f"in pod spec; priority admission controller computed {value} from the given "
            "PriorityClass name: the API server refuses the pod; remove `priority`"
        )
    return value


def stored_priority(pod: Mapping[str, Any], where: str = "pod") -> int:
    """``spec.priority`` of a pod the API server already holds (a snapshot's), as the
    scheduler reads it (``PodPriority``: 0 when unset); its class is not looked up again."""
    stored = _stored(_spec(pod), where)
    return 0 if stored is None else stored


def _spec(pod: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = pod.get("spec")
    return spec if isinstance(spec, Mapping) else pod


def _stored(spec: Mapping[str, Any], where: str) -> int | None:
    stored = spec.get("priority")
    if stored is not None and (
        isinstance(stored, bool) or not isinstance(stored, int) or not _in_int32(stored)
    ):
        raise QueueSpecError(f"{where}.priority: must be a 32-bit integer")
    return stored


def _class_value(name: str, classes: Sequence[PriorityClassLike]) -> int | None:
    for known in classes:
        if known.name == name:
            return known.value
    return SYSTEM_CLASSES.get(name)


def _created(entry: Mapping[str, Any], where: str) -> datetime | None:
    """``metadata.creationTimestamp`` (RFC 3339), ``None`` when not written."""
    metadata = entry.get("metadata")
    written = metadata.get("creationTimestamp") if isinstance(metadata, Mapping) else None
    if written is None:
        written = entry.get("creationTimestamp")
    if written is None:
        return None
    if isinstance(written, datetime):
        return written if written.tzinfo else written.replace(tzinfo=timezone.utc)
    try:
        parsed = datetime.fromisoformat(str(written).replace("Z", "+00:00"))
    except ValueError:
        raise QueueSpecError(
            f"{where}.metadata.creationTimestamp: {written!r} is not an RFC 3339 time "
            "(such as 2026-01-31T12:00:00Z)"
        ) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def _count(entry: Mapping[str, Any]) -> int:
    """How many pods the entry stands for (the cluster model refuses a bad ``count``
    before the queue is made)."""
    count = entry.get("count", 1)
    return count if isinstance(count, int) and not isinstance(count, bool) else 1


def _in_int32(value: int) -> bool:
    return _INT32[0] <= value <= _INT32[1]
