"""A case's pods and the cluster's scheduling objects as the session's jobs and queues,
the way Volcano's cache builds them, and what it does with input it cannot use:

- a pod whose ``scheduling.k8s.io/group-name`` names a PodGroup that does not exist
  belongs to a job without a PodGroup: the scheduler never schedules it;
- a Volcano pod naming no group gets the PodGroup the PodGroup controller makes for it
  (``podgroup-<pod>``, ``minMember`` 1, the queue its ``scheduling.volcano.sh/queue-name``
  annotation names or ``default``, the pod's class), created when the pod was (the
  controller makes it as it sees the pod);
- a PodGroup in a queue that does not exist is left out of every session;
- a PriorityClass that does not exist gives the global default priority (0 without one);
- a pod of another scheduler is not Volcano's to schedule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from policytest.scoring.accounting import volcano_pod_request
from policytest.scoring.cluster import Pod
from policytest.scoring.snapshot import DEFAULT_QUEUE
from policytest.sessions.objects import (
    GROUP_NAME,
    TASK_SPEC,
    VOLCANO,
    PodGroup,
    Queue,
    SchedulingObjects,
    membership,
)
from policytest.sessions.resource import Resource
from policytest.sessions.state import RUNNING, Job, Task

__all__ = ["Jobs", "build_jobs"]


@dataclass
class Jobs:
    """The session's jobs and queues, and the notes about input the scheduler skips."""

    jobs: list[Job]
    queues: dict[str, Queue]
    notes: tuple[str, ...]


def build_jobs(
    scheduling: SchedulingObjects,
    pods: Sequence[tuple[Mapping[str, Any], Pod]],
    overhead_first: bool,
    running: Iterable[tuple[str, Pod]] = (),
    adopt: bool = False,
) -> Jobs:
    """Jobs from the PodGroups, the case's pods (each its entry and its scorer pod) and
    the cluster's bound pods (``running``: node name and pod): a bound pod naming a
    PodGroup is one of its tasks, Running on its node, so it counts towards the gang,
    the job's and its queue's allocated resources as the scheduler's cache counts it.
    Every PodGroup is a job, with or without pods (enqueue admits a PodGroup before
    the job controller makes its pods). ``adopt``: every pod is Volcano's, whatever
    scheduler it names (a repack under a Volcano conf places every pod it moves)."""
    notes: list[str] = []
    queues = {queue.name: queue for queue in scheduling.queues}
    groups = {group.key: group for group in scheduling.pod_groups}
    made: dict[str, Job] = {}
    missing: dict[str, list[str]] = {}
    interned: dict[Pod, Pod] = {}  # a job's tasks of one shape share one scorer pod

    def job_of(group: PodGroup) -> Job:
        job = made.get(group.key)
        if job is None:
            job = made[group.key] = Job(group, _priority(scheduling, group.priority_class))
            job.phase = group.phase
        return job

    def resources(pod: Pod) -> tuple[Pod, Resource]:
        scored = _scored(pod)
        return interned.setdefault(scored, scored), Resource.of(
            volcano_pod_request(pod, overhead_first)
        )

    width = len(str(len(pods) - 1))
    adopted = 0
    for position, (entry, pod) in enumerate(pods):
        member = membership(entry if isinstance(entry, Mapping) else {})
        # a pod without a name is named by its place, digits padded, so that the name
        # (a job's UID, its order's last tie-breaker) keeps the pods' order
        name = pod.name or f"pod-{position:0{width}d}"
        key = f"{member.namespace}/{name}"
        adopted += member.scheduler_name != VOLCANO
        if member.scheduler_name != VOLCANO and not adopt:
            notes.append(
                f"pod {key}: schedulerName {member.scheduler_name!r}, not volcano: "
                "not Volcano's to schedule (left pending)"
            )
            continue
        job_key = member.job or f"{member.namespace}/podgroup-{member.uid or name}"
        group = groups.get(job_key)
        if group is None and not member.group:
            group = groups[job_key] = PodGroup(
                f"podgroup-{member.uid or name}",
                member.namespace,
                queue=member.queue or DEFAULT_QUEUE,
                priority_class=member.priority_class,
                created=member.created,
                uid=job_key,
            )
        if group is None:
            missing.setdefault(job_key, []).append(key)
            continue
        priority = member.priority
        if priority is None:
            found = scheduling.priority_class(member.priority_class)
            priority = found.value if found else scheduling.default_priority
        scored, resreq = resources(pod)
        job_of(group).add(
            Task(
                key=key,
                name=name,
                job=job_key,
                role=member.role,
                priority=priority,
                created=member.created,
                uid=member.uid or key,
                pod=scored,
                resreq=resreq,
                best_effort=resreq.is_empty(),
            )
        )
    for index, (node, pod) in enumerate(running):
        annotations = dict(pod.annotations)
        group = groups.get(f"{pod.workload.namespace}/{annotations.get(GROUP_NAME)}")
        if group is None or GROUP_NAME not in annotations:
            continue  # load on its node only, as for the scheduler
        job = job_of(group)
        key = f"{group.namespace}/{pod.name or f'(bound on {node}, #{index})'}"
        scored, resreq = resources(pod)
        task = Task(
            key=key,
            name=pod.name,
            job=group.key,
            role=annotations.get(TASK_SPEC) or dict(pod.workload.labels).get(TASK_SPEC, ""),
            priority=job.priority,
            created="",
            uid=key,
            pod=scored,
            resreq=resreq,
            best_effort=resreq.is_empty(),
            status=RUNNING,
            node=node,
        )
        job.add(task)
    for group in groups.values():
        job_of(group)
    for job_key, keys in missing.items():
        notes.append(
            f"PodGroup {job_key} does not exist: Volcano never schedules its "
            f"{len(keys)} pod{'s' if len(keys) != 1 else ''} ({', '.join(keys[:3])}"
            f"{', ...' if len(keys) > 3 else ''})"
        )
    if adopt and adopted:
        notes.append(
            f"{adopted:,} pod{'s' if adopted != 1 else ''} moved name{'s' if adopted == 1 else ''} "
            "another scheduler than volcano: the repack places "
            f"{'it' if adopted == 1 else 'them'} through Volcano's sessions too, each in "
            "a PodGroup of its own, as the conf would if Volcano scheduled every pod"
        )
    jobs = []
    for job in made.values():
        group = job.group
        if group.queue not in queues:
            if group.queue == "default" and not scheduling.queues:
                queues["default"] = Queue("default")  # Volcano creates it at start-up
            else:
                notes.append(
                    f"PodGroup {job.key} is in queue {group.queue!r}, which does not exist: "
                    "Volcano leaves it out of every session"
                )
                continue
        if group.priority_class and scheduling.priority_class(group.priority_class) is None:
            notes.append(
                f"PodGroup {job.key}: PriorityClass {group.priority_class!r} does not exist: "
                f"the job gets priority {job.priority} (the API server refuses such pods)"
            )
        jobs.append(job)
    return Jobs(jobs, queues, tuple(notes))


def _priority(scheduling: SchedulingObjects, name: str) -> int:
    found = scheduling.priority_class(name)
    return found.value if found else scheduling.default_priority


def _scored(pod: Pod) -> Pod:
    """The pod as the scorers read it: without the group annotations and its name, so
    that the tasks of one shape share their scores (no scorer reads either)."""
    from dataclasses import replace

    annotations = tuple(
        (key, value)
        for key, value in pod.annotations
        if key != GROUP_NAME and not key.startswith("volcano.sh/")
    )
    return replace(pod, name="", annotations=annotations)
