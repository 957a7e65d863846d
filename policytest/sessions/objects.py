"""The scheduling objects beside nodes and pods: PriorityClasses, Volcano Queues and
PodGroups, and what a pod says of the group it belongs to.

Each is read from the Kubernetes object (``scheduling.k8s.io/v1`` PriorityClass,
``scheduling.volcano.sh/v1beta1`` Queue and PodGroup) or from the fixture's short form,
which is also what a compact snapshot holds:

- ``priorityClasses: [{name, value, globalDefault}]``;
- ``queues: [{name, weight, capability, deserved, guarantee, state, priority}]``
  (``weight`` 1 and ``state: Open`` unless given, as the API server defaults them);
- ``podGroups: [{name, namespace, minMember, minTaskMember, minResources, queue,
  priorityClassName, phase, creationTimestamp, uid}]`` (``queue: default``,
  ``minMember: 1``, ``phase: Pending`` unless given).

A pod belongs to the PodGroup its annotation ``scheduling.k8s.io/group-name`` names in
its own namespace; Volcano reads its task role from ``volcano.sh/task-spec`` (the
annotation, else the label) and its task priority from ``spec.priority`` or the
``volcano.sh/task-priority`` annotation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from policytest.core.errors import PolicytestError
from policytest.scoring.quantity import QuantityError, parse_quantity
from policytest.scoring.snapshot import DEFAULT_QUEUE

__all__ = [
    "GROUP_NAME",
    "SCHEDULING_KEYS",
    "PodGroup",
    "PodMembership",
    "PriorityClass",
    "Queue",
    "SchedulingObjects",
    "SchedulingSpecError",
    "membership",
    "scheduling_objects",
]

GROUP_NAME: Final = "scheduling.k8s.io/group-name"
"""The annotation that puts a pod in a PodGroup (``v1beta1.KubeGroupNameAnnotationKey``)."""
TASK_SPEC: Final = "volcano.sh/task-spec"
TASK_INDEX: Final = "volcano.sh/task-index"
JOB_NAME: Final = "volcano.sh/job-name"
TASK_PRIORITY: Final = "volcano.sh/task-priority"
QUEUE_NAME: Final = "scheduling.volcano.sh/queue-name"
"""The queue of the PodGroup the PodGroup controller makes for a pod naming none
(``v1beta1.QueueNameAnnotationKey``)."""
VOLCANO: Final = "volcano"
SCHEDULING_KEYS: Final = ("priorityClasses", "queues", "podGroups")
"""The cluster's keys for the scheduling objects (fixture and compact snapshot)."""
QUEUE_STATES: Final = ("Open", "Closed", "Closing", "Unknown")
PHASES: Final = ("Pending", "Inqueue", "Running", "Unknown", "Completed")


class SchedulingSpecError(PolicytestError, ValueError):
    """A PriorityClass, Queue or PodGroup of the wrong shape (one line, saying where);
    ``key``: the cluster key that lists it, when known."""

    key = ""


@dataclass(frozen=True)
class PriorityClass:
    name: str
    value: int
    global_default: bool = False


@dataclass(frozen=True)
class Queue:
    """A Volcano Queue as the scheduler's plugins read it; resource lists stay as
    Kubernetes quantities (text), as the object has them."""

    name: str
    weight: int = 1
    capability: Mapping[str, str] = field(default_factory=dict)
    deserved: Mapping[str, str] = field(default_factory=dict)
    guarantee: Mapping[str, str] = field(default_factory=dict)
    state: str = "Open"
    priority: int = 0
    created: str = ""
    uid: str = ""

    @property
    def key(self) -> str:
        """The queue's UID as the scheduler keys it (the cache uses its name)."""
        return self.name


@dataclass(frozen=True)
class PodGroup:
    """A PodGroup (a job, to the scheduler)."""

    name: str
    namespace: str = "default"
    min_member: int = 1
    min_task_member: Mapping[str, int] = field(default_factory=dict)
    min_resources: Mapping[str, str] | None = None
    queue: str = DEFAULT_QUEUE
    priority_class: str = ""
    phase: str = "Pending"
    created: str = ""
    uid: str = ""

    @property
    def key(self) -> str:
        """``namespace/name``: the job's ID in the scheduler."""
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True)
class SchedulingObjects:
    """The cluster's PriorityClasses, Queues and PodGroups, in input order."""

    priority_classes: tuple[PriorityClass, ...] = ()
    queues: tuple[Queue, ...] = ()
    pod_groups: tuple[PodGroup, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.priority_classes or self.queues or self.pod_groups)

    def priority_class(self, name: str) -> PriorityClass | None:
        return next((pc for pc in self.priority_classes if pc.name == name), None)

    @property
    def default_priority(self) -> int:
        """The value of the ``globalDefault`` PriorityClass (the highest when several),
        else 0: what a pod or PodGroup without a known class gets."""
        defaults = [pc.value for pc in self.priority_classes if pc.global_default]
        return max(defaults) if defaults else 0


NO_SCHEDULING_OBJECTS: Final = SchedulingObjects()


@dataclass(frozen=True)
class PodMembership:
    """What a pod tells the Volcano scheduler about its job and task."""

    group: str
    """The PodGroup name (the annotation), "" when the pod names none."""
    namespace: str
    scheduler_name: str
    priority: int | None
    """``spec.priority`` (the task-priority annotation wins when it parses), ``None``
    when unset."""
    priority_class: str
    role: str
    created: str
    uid: str
    queue: str = ""
    """The queue annotation: the queue of the PodGroup made for a pod naming none."""

    @property
    def job(self) -> str:
        return f"{self.namespace}/{self.group}" if self.group else ""


def membership(data: Mapping[str, Any], where: str = "pod") -> PodMembership:
    """A pod's group, role, priority and scheduler, from the Kubernetes object or the
    fixture short form (``namespace``, ``annotations``, ``labels``, ``priority``,
    ``priorityClassName``, ``schedulerName`` at the top)."""
    metadata = _map(data.get("metadata"), f"{where}.metadata")
    spec = _map(data.get("spec"), f"{where}.spec") if "spec" in data else data
    annotations = _map(metadata.get("annotations", data.get("annotations")), where)
    labels = _map(metadata.get("labels", data.get("labels")), where)
    namespace = metadata.get("namespace", data.get("namespace")) or "default"
    priority = spec.get("priority")
    if priority is not None and (isinstance(priority, bool) or not isinstance(priority, int)):
        raise SchedulingSpecError(f"{where}.priority: must be an integer")
    task_priority = annotations.get(TASK_PRIORITY)
    if isinstance(task_priority, str):
        parsed = _go_int32(task_priority)
        if parsed is not None:
            priority = parsed
    role = annotations.get(TASK_SPEC) or labels.get(TASK_SPEC) or ""
    return PodMembership(
        group=str(annotations.get(GROUP_NAME) or ""),
        namespace=str(namespace),
        scheduler_name=str(spec.get("schedulerName") or "default-scheduler"),
        priority=priority,
        priority_class=str(spec.get("priorityClassName") or ""),
        role=str(role),
        created=str(metadata.get("creationTimestamp") or data.get("creationTimestamp") or ""),
        uid=str(metadata.get("uid") or data.get("uid") or ""),
        queue=str(annotations.get(QUEUE_NAME) or ""),
    )


def _go_int32(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 32)``: ``None`` where Go returns an error."""
    body = text[1:] if text[:1] in "+-" else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    value = int(text)
    return value if -(1 << 31) <= value < (1 << 31) else None


def scheduling_objects(cluster: Mapping[str, Any], where: str = "cluster") -> SchedulingObjects:
    """The cluster's ``priorityClasses``, ``queues`` and ``podGroups`` (each item the
    Kubernetes object or the short form); :class:`SchedulingSpecError` for a bad one."""
    return SchedulingObjects(
        _items(cluster, "priorityClasses", _priority_class, where),
        _items(cluster, "queues", _queue, where),
        _items(cluster, "podGroups", _pod_group, where),
    )


_T = TypeVar("_T")


def _items(
    cluster: Mapping[str, Any], key: str, read: Callable[[object, str], _T], where: str
) -> tuple[_T, ...]:
    try:
        items = _list(cluster.get(key), f"{where}.{key}")
        return tuple(read(item, f"{where}.{key}[{index}]") for index, item in enumerate(items))
    except SchedulingSpecError as error:
        error.key = key
        raise


def _priority_class(item: object, where: str) -> PriorityClass:
    entry = _map(item, where)
    metadata = _map(entry.get("metadata"), f"{where}.metadata")
    name = _name(metadata.get("name", entry.get("name")), where)
    value = entry.get("value", 0)
    if isinstance(value, bool) or not isinstance(value, int):
        raise SchedulingSpecError(f"{where}.value: must be an integer")
    return PriorityClass(name, value, bool(entry.get("globalDefault")))


def _parts(item: object, where: str) -> tuple[Mapping[str, Any], ...]:
    """An object's metadata, spec and status: its own keys for the Kubernetes object,
    the one mapping of the short form for each."""
    entry = _map(item, where)
    if "metadata" not in entry and "spec" not in entry:
        return entry, entry, entry, entry
    return (
        entry,
        _map(entry.get("metadata"), f"{where}.metadata"),
        _map(entry.get("spec"), f"{where}.spec"),
        _map(entry.get("status"), f"{where}.status"),
    )


def _queue(item: object, where: str) -> Queue:
    entry, metadata, spec, status = _parts(item, where)
    full = spec is not entry
    guarantee = spec.get("guarantee")
    if full:
        guarantee = _map(guarantee, f"{where}.spec.guarantee").get("resource")
    state = status.get("state") or "Open"
    if state not in QUEUE_STATES:
        raise SchedulingSpecError(f"{where}.state: one of {', '.join(QUEUE_STATES)}")
    return Queue(
        name=_name(metadata.get("name"), where),
        weight=_integer(spec.get("weight", 1), f"{where}.weight"),
        capability=_resources(spec.get("capability"), f"{where}.capability"),
        deserved=_resources(spec.get("deserved"), f"{where}.deserved"),
        guarantee=_resources(guarantee, f"{where}.guarantee"),
        state=str(state),
        priority=_integer(spec.get("priority", 0), f"{where}.priority"),
        created=str(metadata.get("creationTimestamp") or ""),
        uid=str(metadata.get("uid") or ""),
    )


def _pod_group(item: object, where: str) -> PodGroup:
    _, metadata, spec, status = _parts(item, where)
    phase = status.get("phase") or "Pending"
    if phase not in PHASES:
        raise SchedulingSpecError(f"{where}.phase: one of {', '.join(PHASES)}")
    tasks = _map(spec.get("minTaskMember"), f"{where}.minTaskMember")
    min_resources = spec.get("minResources")
    return PodGroup(
        name=_name(metadata.get("name"), where),
        namespace=str(metadata.get("namespace") or "default"),
        min_member=_integer(spec.get("minMember", 1), f"{where}.minMember"),
        min_task_member={
            str(role): _integer(count, f"{where}.minTaskMember.{role}")
            for role, count in tasks.items()
        },
        min_resources=None
        if min_resources is None
        else _resources(min_resources, f"{where}.minResources"),
        queue=str(spec.get("queue") or DEFAULT_QUEUE),
        priority_class=str(spec.get("priorityClassName") or ""),
        phase=str(phase),
        created=str(metadata.get("creationTimestamp") or ""),
        uid=str(metadata.get("uid") or ""),
    )


def _resources(data: object, where: str) -> dict[str, str]:
    mapping = _map(data, where)
    kept = {}
    for name, quantity in mapping.items():
        try:
            parse_quantity(quantity)
        except QuantityError as error:
            raise SchedulingSpecError(f"{where}.{name}: {error}") from None
        kept[str(name)] = str(quantity)
    return kept


def _name(data: object, where: str) -> str:
    if not isinstance(data, str) or not data:
        raise SchedulingSpecError(f"{where}: needs a `name`")
    return data


def _integer(data: object, where: str) -> int:
    if isinstance(data, bool) or not isinstance(data, int):
        raise SchedulingSpecError(f"{where}: must be an integer")
    return data


def _map(data: object, where: str) -> Mapping[str, Any]:
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise SchedulingSpecError(f"{where}: expected a mapping, got {type(data).__name__}")
    return data


def _list(data: object, where: str) -> Sequence[Any]:
    if data is None:
        return ()
    if not isinstance(data, list):
        raise SchedulingSpecError(f"{where}: expected a list, got {type(data).__name__}")
    return data
