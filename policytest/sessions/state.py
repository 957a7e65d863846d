"""The session's jobs and tasks: ``api.JobInfo`` and ``api.TaskInfo`` as the plugins read
them (ready, valid and pipelined counts, per-role checks, the fit errors kept per task).

A task's status moves Pending -> Allocated (inside a statement) -> Binding (committed) ->
Bound (the next session sees the pod's ``spec.nodeName``); a discarded allocation goes
back to Pending and is remembered as allocated in the last transaction (what gang's
message counts as schedulable).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Final

from policytest.scoring.cluster import Pod
from policytest.sessions.objects import PodGroup
from policytest.sessions.resource import Resource

__all__ = ["Job", "Task"]

PENDING: Final = "Pending"
ALLOCATED: Final = "Allocated"
BINDING: Final = "Binding"
BOUND: Final = "Bound"
RUNNING: Final = "Running"
ALLOCATED_STATUSES: Final = frozenset({BOUND, BINDING, RUNNING, ALLOCATED})
SCHEDULED_STATUSES: Final = frozenset({RUNNING, BOUND})
BOUND_STATUSES: Final = frozenset({BINDING, BOUND, RUNNING})
"""What a job's ``bound`` counts: its pods committed in a session or bound before."""
READY_STATUSES: Final = ALLOCATED_STATUSES
"""``ReadyTaskNum``: Bound, Binding, Running, Allocated (and Succeeded, never here)."""


@dataclass(eq=False)
class Task:
    """One pod of a job."""

    key: str
    """``namespace/name``."""
    name: str
    job: str
    role: str
    priority: int
    created: str
    uid: str
    pod: Pod
    """The pod as the scorers read it."""
    resreq: Resource
    best_effort: bool
    status: str = PENDING
    node: str | None = None
    last_allocated: bool = False
    """Allocated in the last (discarded) transaction: gang counts it as schedulable."""
    index: int | None = None
    """The index at the end of the pod's name (``GetPodIndexUnderTask``), if it parses."""

    def __post_init__(self) -> None:
        parts = self.name.split("-")
        if len(parts) >= 3:
            self.index = _atoi(parts[-1])


def _atoi(text: str) -> int | None:
    """Go's ``strconv.Atoi`` (a sign, then decimal digits)."""
    body = text[1:] if text[:1] in "+-" else text
    return int(text) if body.isascii() and body.isdigit() else None


@dataclass(eq=False)
class Job:
    """One PodGroup and its tasks."""

    group: PodGroup
    priority: int
    tasks: list[Task] = field(default_factory=list)
    phase: str = "Pending"
    counts: Counter[str] = field(default_factory=Counter)
    pending_best_effort: int = 0
    fit_errors: dict[str, str] = field(default_factory=dict)
    """Per task key: the reason no node fit (``FitErrors.Error``)."""
    failed_roles: set[str] = field(default_factory=set)
    unschedulable: str = ""
    """The gang's Unschedulable condition message written at the last close ("": none)."""
    valid_reason: str = ""

    @property
    def key(self) -> str:
        return self.group.key

    @property
    def min_available(self) -> int:
        return self.group.min_member

    @property
    def queue(self) -> str:
        return self.group.queue

    @property
    def task_min_total(self) -> int:
        return sum(self.group.min_task_member.values())

    def add(self, task: Task) -> None:
        self.tasks.append(task)
        self.counts[task.status] += 1
        if task.status == PENDING and task.best_effort:
            self.pending_best_effort += 1

    def set_status(self, task: Task, status: str) -> None:
        self.counts[task.status] -= 1
        if task.status == PENDING and task.best_effort:
            self.pending_best_effort -= 1
        task.status = status
        self.counts[status] += 1
        if status == PENDING and task.best_effort:
            self.pending_best_effort += 1

    def ready_num(self) -> int:
        counts = self.counts
        return counts[BOUND] + counts[BINDING] + counts[RUNNING] + counts[ALLOCATED]

    def is_ready(self) -> bool:
        return self.ready_num() + self.pending_best_effort >= self.min_available

    def valid_num(self) -> int:
        return self.ready_num() + self.counts[PENDING]

    def is_pending(self) -> bool:
        return self.phase in ("Pending", "")

    def allocated(self) -> Resource:
        """``job.Allocated``: the requests of its tasks in an allocated status."""
        total = Resource()
        for task in self.tasks:
            if task.status in ALLOCATED_STATUSES:
                total.add(task.resreq)
        return total

    def allocated_roles(self) -> Counter[str]:
        """``getJobAllocatedRoles``: allocated tasks per role, and pending best-effort ones."""
        roles: Counter[str] = Counter()
        for task in self.tasks:
            if task.status in ALLOCATED_STATUSES or (task.status == PENDING and task.best_effort):
                roles[task.role] += 1
        return roles

    def check_task_valid(self) -> bool:
        if self.min_available < self.task_min_total:
            return True
        actual = Counter(task.role for task in self.tasks)
        return all(
            actual[role] >= minimum
            for role, minimum in self.group.min_task_member.items()
            if minimum
        )

    def check_task_ready(self) -> bool:
        if self.min_available < self.task_min_total:
            return True
        roles = self.allocated_roles()
        return all(roles[role] >= minimum for role, minimum in self.group.min_task_member.items())

    def need_continue(self) -> bool:
        """``NeedContinueAllocating``: whether a predicate failure lets the job go on."""
        if self.min_available == len(self.tasks):
            return False
        if self.min_available >= len(self.tasks):  # the default sub-job's own size
            return False
        pending = Counter(task.role for task in self.tasks if task.status == PENDING)
        if self.min_available < self.task_min_total:
            left = sum(count for role, count in pending.items() if role not in self.failed_roles)
            return self.ready_num() + left >= self.min_available
        allocated = self.allocated_roles()
        for role in self.failed_roles:
            minimum = self.group.min_task_member.get(role, 0)
            if minimum and allocated[role] < minimum:
                return False
        return True
