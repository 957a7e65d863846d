"""Why a job can never start, in plain words.

Volcano gives every gang that does not start the same message ("3/3 tasks in gang
unschedulable: pod group is not ready, 3 Pending, 3 minAvailable"), whether the cluster
is busy today or the job cannot start on any day: its queue is closed, its ``minMember``
is above the pods it has, or its ``minResources`` ask for more than the whole cluster
holds. These notes name that fact of the input, beside the scheduler's own words.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from policytest.core.amounts import format_amount
from policytest.sessions.objects import Queue
from policytest.sessions.plugins import queue_resource
from policytest.sessions.resource import MEMORY, PODS, Resource
from policytest.sessions.state import BOUND_STATUSES, Job

__all__ = ["never_start"]

_SHOWN = 3
"""Jobs named in a note before the rest are counted."""


def never_start(
    jobs: Sequence[Job],
    queues: Mapping[str, Queue],
    queue_plugins: Sequence[str],
    cluster: Resource,
) -> tuple[str, ...]:
    """The notes for the jobs that did not start and never can: ``queue_plugins`` are the
    plugins that check a queue's state (proportion, capacity) as the session runs them,
    ``cluster`` the whole cluster's allocatable (Volcano units)."""
    waiting = [job for job in jobs if _bound(job) < job.min_available]
    notes = list(_closed_queues(waiting, queues, queue_plugins))
    for job in waiting:
        if 0 < len(job.tasks) < job.min_available:
            notes.append(
                f"PodGroup {job.key} has minMember {job.min_available:,} but "
                f"{len(job.tasks):,} pod{'s' * (len(job.tasks) != 1)}: Volcano never "
                "starts a gang with fewer pods than its minMember"
            )
        over = _beyond(job, cluster)
        if over:
            notes.append(
                f"PodGroup {job.key}'s minResources ask for more than the whole cluster's "
                f"allocatable ({over}): it can never start"
            )
    return tuple(notes)


def _bound(job: Job) -> int:
    return sum(1 for task in job.tasks if task.status in BOUND_STATUSES)


def _closed_queues(
    waiting: Iterable[Job], queues: Mapping[str, Queue], queue_plugins: Sequence[str]
) -> Iterable[str]:
    if not queue_plugins:
        return
    by_queue: dict[str, list[str]] = {}
    for job in waiting:
        queue = queues.get(job.queue)
        if queue is not None and queue.state != "Open":
            by_queue.setdefault(queue.name, []).append(job.key)
    plugins = " and ".join(queue_plugins)
    admit, allocate = ("admit", "allocate") if len(queue_plugins) > 1 else ("admits", "allocates")
    for name, keys in by_queue.items():
        named = ", ".join(keys[:_SHOWN]) + (
            f" and {len(keys) - _SHOWN:,} more" if len(keys) > _SHOWN else ""
        )
        yield (
            f"queue {name!r} is {queues[name].state}, not Open: {plugins} {admit} none of "
            f"its PodGroups and {allocate} none of their pods ({named})"
        )


def _beyond(job: Job, cluster: Resource) -> str:
    """``cpu 24, the cluster has 16`` for each resource ``minResources`` asks more of
    than the cluster's allocatable; "" when none."""
    if not job.group.min_resources:
        return ""
    minimum = queue_resource(job.group.min_resources)
    parts = []
    for name in minimum.names():
        if name != PODS and minimum.get(name) > cluster.get(name):
            milli = name not in (MEMORY, PODS)
            wanted = format_amount(int(minimum.get(name)), milli, name)
            has = format_amount(int(cluster.get(name)), milli, name)
            parts.append(f"{name} {wanted}, the cluster has {has}")
    return "; ".join(parts)
