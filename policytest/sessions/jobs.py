"""A case's ``jobs:``, and ``batch.volcano.sh/v1alpha1`` Jobs, as the Volcano job
controller turns them into a PodGroup and pods.

Short form::

    jobs:
    - name: train                 # namespace: default unless given
      queue: research             # default: the queue `default`
      priority: high              # a PriorityClass name (the PodGroup's and every pod's)
      minAvailable: 4             # default: the sum of the tasks' minAvailable
      tasks:
      - {name: worker, replicas: 4, requests: {nvidia.com/gpu: "8"}}   # + any pod short form
      - {name: ps, replicas: 1, minAvailable: 1, requests: {cpu: "4"}}

The controller's PodGroup: ``minMember`` the job's ``minAvailable``, ``minTaskMember``
each task's ``minAvailable`` (its replicas unless given, as the admission webhook
defaults it), ``minResources`` the requests of the first ``minAvailable`` pods with the
higher-priority tasks first (``calcPGMinResources``), the job's queue and
PriorityClass. Its pods are named ``<job>-<task>-<index>`` with the annotations the
controller writes (group name, task spec, task index, job name), ``schedulerName:
volcano`` and ``spec.priority`` the class's value (what admission fills in). Jobs are
created in the order listed (a second apart): job order falls back to creation time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from policytest.scoring.quantity import Quantity, QuantityError, parse_quantity
from policytest.sessions.objects import (
    GROUP_NAME,
    JOB_NAME,
    TASK_INDEX,
    TASK_SPEC,
    PodGroup,
    SchedulingObjects,
    SchedulingSpecError,
)

__all__ = ["JobSpec", "expand_jobs"]

EPOCH: Final = "2026-01-01T00:{:02d}:{:02d}Z"
_TASK_KEYS: Final = frozenset({"name", "replicas", "minAvailable", "template", "count"})


@dataclass(frozen=True)
class JobSpec:
    """A job expanded: its PodGroup and its pods (fixture pod entries, full form)."""

    group: PodGroup
    pods: tuple[Mapping[str, Any], ...]


def expand_jobs(
    entries: Sequence[Mapping[str, Any]], scheduling: SchedulingObjects, where: str = "jobs"
) -> tuple[JobSpec, ...]:
    """Each ``jobs:`` entry (short form or a Volcano Job object) as its PodGroup and pods;
    :class:`SchedulingSpecError` for a malformed one."""
    return tuple(
        _expand(entry, scheduling, index, f"{where}[{index}]")
        for index, entry in enumerate(entries)
    )


def _expand(
    entry: Mapping[str, Any], scheduling: SchedulingObjects, index: int, where: str
) -> JobSpec:
    if not isinstance(entry, Mapping):
        raise SchedulingSpecError(f"{where}: expected a mapping")
    full = entry.get("kind") == "Job"
    metadata = entry.get("metadata") or {} if full else entry
    spec = entry.get("spec") or {} if full else entry
    name = metadata.get("name")
    if not isinstance(name, str) or not name:
        raise SchedulingSpecError(f"{where}: needs a `name`")
    namespace = str(metadata.get("namespace") or "default")
    priority_class = str((spec.get("priorityClassName") if full else spec.get("priority")) or "")
    tasks = spec.get("tasks")
    if not isinstance(tasks, list) or not tasks:
        raise SchedulingSpecError(f"{where}.tasks: a list of tasks, each {{name, replicas}}")
    created = EPOCH.format(index // 60, index % 60)
    pods: list[Mapping[str, Any]] = []
    members: dict[str, int] = {}
    shaped: list[tuple[int, int, int, Mapping[str, Any]]] = []
    for position, task in enumerate(tasks):
        at = f"{where}.tasks[{position}]"
        if not isinstance(task, Mapping) or not isinstance(task.get("name"), str):
            raise SchedulingSpecError(f"{at}: needs a `name`")
        replicas = _count(task.get("replicas", 1), f"{at}.replicas")
        minimum = _count(task.get("minAvailable", replicas), f"{at}.minAvailable")
        members[task["name"]] = minimum
        template = _template(task, full, at)
        pod_class = str(template.get("priorityClassName") or priority_class)
        found = scheduling.priority_class(pod_class)
        value = found.value if found else scheduling.default_priority
        shaped.append((value, replicas, minimum, template))
        for replica in range(replicas):
            pod_name = f"{name}-{task['name']}-{replica}"
            pods.append(
                {
                    "metadata": {
                        "name": pod_name,
                        "namespace": namespace,
                        "uid": f"{namespace}/{pod_name}",
                        "creationTimestamp": created,
                        "annotations": {
                            GROUP_NAME: name,
                            TASK_SPEC: task["name"],
                            TASK_INDEX: str(replica),
                            JOB_NAME: name,
                        },
                        "labels": {JOB_NAME: name, TASK_SPEC: task["name"]},
                    },
                    "spec": {
                        **template,
                        "schedulerName": "volcano",
                        "priority": value,
                        **({"priorityClassName": pod_class} if pod_class else {}),
                    },
                }
            )
    total_minimum = sum(members.values())
    min_available = _count(spec.get("minAvailable", total_minimum), f"{where}.minAvailable")
    group = PodGroup(
        name=name,
        namespace=namespace,
        min_member=min_available,
        min_task_member=members,
        min_resources=_min_resources(shaped, min_available, total_minimum, where),
        queue=str(spec.get("queue") or "default"),
        priority_class=priority_class,
        created=created,
        uid=f"{namespace}/{name}",
    )
    return JobSpec(group, tuple(pods))


def _template(task: Mapping[str, Any], full: bool, where: str) -> dict[str, Any]:
    """The task's PodSpec: ``template.spec`` of a Job's task, else the pod short form."""
    if full or "template" in task:
        template = task.get("template") or {}
        spec = template.get("spec") if isinstance(template, Mapping) else None
        if not isinstance(spec, Mapping):
            raise SchedulingSpecError(f"{where}.template.spec: the task's PodSpec")
        return dict(spec)
    short = {key: value for key, value in task.items() if key not in _TASK_KEYS}
    if "requests" in short or "limits" in short:
        resources = {k: short.pop(k) for k in ("requests", "limits") if k in short}
        short["containers"] = [{"name": "main", "resources": resources}]
    return short


def _min_resources(
    tasks: list[tuple[int, int, int, Mapping[str, Any]]],
    min_available: int,
    total_minimum: int,
    where: str,
) -> dict[str, str]:
    """``calcPGMinResources``: higher-priority tasks first (a stable sort, as Go's
    insertion sort is for a few tasks); below the tasks' own minimums, the first
    ``minAvailable`` pods; else each task's minimum, then what is left, topped up."""
    ordered = sorted(tasks, key=lambda item: -item[0])
    summed: dict[str, Quantity] = {}

    def add(template: Mapping[str, Any], count: int) -> None:
        for resource, quantity in _requests(template, where).items():
            scaled = Quantity(quantity.nanos * count)
            summed[resource] = summed[resource] + scaled if resource in summed else scaled

    if min_available < total_minimum:
        left = min_available
        for _, replicas, _, template in ordered:
            if left <= replicas:
                add(template, left)
                break
            add(template, replicas)
            left -= replicas
    else:
        count = 0
        for _, _, minimum, template in ordered:
            valid = min(minimum, min_available - count)
            add(template, valid)
            count += valid
            if count >= min_available:
                break
        left = min_available - count
        for _, replicas, minimum, template in ordered if left > 0 else ():
            if minimum == replicas:
                continue
            extra = replicas - minimum
            take = extra if left >= extra else left
            add(template, take)
            left -= take
            if left <= 0:
                break
    return {name: _text(quantity) for name, quantity in summed.items()}


def _text(quantity: Quantity) -> str:
    """A quantity as the shortest exact text: whole units, milli-units or nano-units."""
    nanos = quantity.nanos
    if nanos % 10**9 == 0:
        return str(nanos // 10**9)
    if nanos % 10**6 == 0:
        return f"{nanos // 10**6}m"
    return f"{nanos}n"


def _requests(template: Mapping[str, Any], where: str) -> dict[str, Quantity]:
    """One pod's requests: its containers summed (limits where a request is missing)."""
    summed: dict[str, Quantity] = {}
    for container in template.get("containers") or ():
        resources = container.get("resources") or {} if isinstance(container, Mapping) else {}
        merged = {**(resources.get("limits") or {}), **(resources.get("requests") or {})}
        for name, text in merged.items():
            try:
                quantity = parse_quantity(text)
            except QuantityError as error:
                raise SchedulingSpecError(f"{where}: {name}: {error}") from None
            summed[name] = summed[name] + quantity if name in summed else quantity
    return summed


def _count(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SchedulingSpecError(f"{where}: a whole number, 0 or more")
    return value
