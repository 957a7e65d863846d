"""One Volcano scheduling session, as ``Scheduler.runOnce`` runs it, and several in a row.

A session opens the plugins over the cluster as it stands (proportion, drf and
overcommit compute their shares and room), runs the conf's actions in order and closes:
the gang plugin writes each job's condition and the job updater its phase.

- ``enqueue`` takes queues in queue order and one Pending job of each at a time (job
  order), and admits it (phase Inqueue) when every enqueue check of the first tier that
  has a say permits (overcommit's room, proportion's queue capability).
- ``allocate`` keeps a heap of queues and, per queue, a heap of its admitted jobs; each
  round pops the first queue (skipped when overused), its first job, and allocates that
  job's pending tasks in task order inside a statement: each task to the best node among
  those that pass the predicates and hold its request (the only one without scoring when
  only one does), until the job is ready (its gang complete). A ready job's statement is
  committed (its pods are bound) and the job goes back in its queue when tasks remain, so
  its extra tasks bind one per round, interleaved with other jobs; a job that cannot get
  ready is discarded whole and not tried again this session.
- ``backfill`` places best-effort tasks (no requests) of admitted jobs.

What differs between releases (the release row's version): before v1.10 allocate put the
queue back before allocating and stopped a job at its first task that fit nowhere; from
v1.10 a task whose role already failed is skipped and a job goes on past a failure when
its other tasks can still make it ready; v1.12 and v1.13 put a job with tasks left back
in its queue even when its statement was discarded; up to v1.12 a PodGroup is Running
once enough tasks are allocated, from v1.13 once they are bound (a session later).

Ties between equally scored nodes are broken by cluster order and recorded: the real
scheduler picks at random among them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Final

from policytest.core.limits import WorkMeter
from policytest.scoring.cluster import Node
from policytest.scoring.fast import SessionTotals
from policytest.scoring.schedulers import VolcanoCluster, VolcanoScheduler
from policytest.scoring.session_plan import SessionPlan
from policytest.scoring.verdicts import KeyTable
from policytest.scoring.workload import ClusterObjects
from policytest.sessions.capacity import Capacity
from policytest.sessions.diagnosis import never_start
from policytest.sessions.heap import PriorityQueue
from policytest.sessions.objects import Queue
from policytest.sessions.plugins import Drf, Overcommit, Proportion
from policytest.sessions.resource import Resource, total
from policytest.sessions.result import Bind, JobOutcome, SessionRecord, SessionsResult
from policytest.sessions.state import (
    ALLOCATED,
    BINDING,
    BOUND,
    BOUND_STATUSES,
    PENDING,
    READY_STATUSES,
    RUNNING,
    SCHEDULED_STATUSES,
    Job,
    Task,
)

__all__ = ["run_sessions"]

DEFAULT_OVERCOMMIT: Final = 1.2
_JOB_ORDERS: Final = ("priority", "gang", "drf")
"""The plugins whose job-order functions the session runs."""


@dataclass
class _Statement:
    """Allocations made for one job, committed or discarded as one."""

    operations: list[tuple[Task, str]] = field(default_factory=list)


@dataclass(frozen=True)
class _Choice:
    node: str
    tied_with: tuple[str, ...]
    identical: bool


class Session:
    """The state one session works on: the cluster (nodes being filled), jobs and queues."""

    def __init__(
        self,
        plan: SessionPlan,
        cluster: VolcanoCluster,
        jobs: list[Job],
        queues: Mapping[str, Queue],
        index: int,
        totals: Callable[[VolcanoCluster], SessionTotals] = SessionTotals,
    ) -> None:
        self.plan = plan
        self.cluster = cluster
        self.jobs = jobs
        self.queues = queues
        self.index = index
        self.version = plan.version
        self.names = list(cluster.infos)
        numbered = KeyTable()
        self.shapes = {name: numbered(_shape(node)) for name, node in cluster.nodes.items()}
        """Each node's shape as a number (a bind leaves a node's shape as it is)."""
        self.totals = totals(cluster)
        infos = cluster.infos.values()
        self.total = total(Resource.of(info.allocatable) for info in infos)
        self._choices: dict[str, _Choice] = {}
        self.by_key = {job.key: job for job in jobs}
        for job in jobs:  # what a session learns of a job is its own (the JobInfo is new)
            job.fit_errors.clear()
            job.failed_roles.clear()
            job.valid_reason = ""
            for task in job.tasks:
                task.last_allocated = False
        self.binds: list[Bind] = []
        self.discarded: list[tuple[str, str]] = []
        self.proportion = (
            Proportion(self.total, queues, jobs, plan.version) if plan.has("proportion") else None
        )
        self.queue_plugins: dict[str, Proportion | Capacity] = {}
        """The plugins that order queues and check them (proportion, capacity), by name."""
        if self.proportion is not None:
            self.queue_plugins["proportion"] = self.proportion
        if plan.simulates_capacity:
            self.queue_plugins["capacity"] = Capacity(self.total, queues, jobs, plan.version)
        self.drf = Drf(self.total, jobs) if plan.has("drf") else None
        self.overcommit = None
        if plan.has("overcommit"):
            used = total(Resource.of(info.used) for info in infos)
            self.overcommit = Overcommit(_overcommit_factor(plan), self.total, used, jobs)

        self._flags: dict[tuple[str, str], bool] = {}
        self.job_orders = tuple(
            plugin.name
            for tier in plan.tiers
            for plugin in tier
            if plugin.enabled("enableJobOrder") and plugin.name in _JOB_ORDERS
        )
        """The job-order functions in tier order (an entry listed twice asks twice)."""
        self.task_priority = self._each("enableTaskOrder", "priority")
        self.queue_orders = tuple(
            plugin.name
            for tier in plan.tiers
            for plugin in tier
            if plugin.enabled("enableQueueOrder") and plugin.name in self.queue_plugins
        )
        """The queue-order functions in tier order."""
        """priority's task order (the only task-order function simulated)."""

    # --- the plugins' functions, tier by tier ---------------------------------------------

    def job_order(self, left: Job, right: Job) -> bool:
        for plugin in self.job_orders:
            result = self._job_compare(plugin, left, right)
            if result:
                return result < 0
        if left.group.created == right.group.created:
            return left.key < right.key  # a job's UID is namespace/name
        return left.group.created < right.group.created

    def _job_compare(self, plugin: str, left: Job, right: Job) -> int:
        if plugin == "priority":
            return (
                0
                if left.priority == right.priority
                else -1
                if left.priority > right.priority
                else 1
            )
        if plugin == "gang":
            mine, theirs = left.is_ready(), right.is_ready()
            return 0 if mine == theirs else 1 if mine else -1
        if plugin == "drf" and self.drf is not None:
            return self.drf.compare(left, right)
        return 0

    def task_order(self, left: Task, right: Task) -> bool:
        if self.task_priority and left.priority != right.priority:
            return left.priority > right.priority
        if left.index is None or right.index is None or left.index == right.index:
            if left.created == right.created:
                return left.uid < right.uid
            return left.created < right.created
        return left.index < right.index

    def queue_order(self, left: Queue, right: Queue) -> bool:
        for plugin in self.queue_orders:
            result = self.queue_plugins[plugin].compare(left, right)
            if result:
                return result < 0
        if left.created == right.created:
            return left.name < right.name  # a queue's UID is its name
        return left.created < right.created

    def _each(self, flag: str, plugin: str) -> bool:
        """Whether an entry of ``plugin`` has ``flag`` on (the session registers its
        function then), asked once per session."""
        known = self._flags.get((flag, plugin))
        if known is None:
            tiers = self.plan.tiers
            known = any(p.name == plugin and p.enabled(flag) for tier in tiers for p in tier)
            self._flags[flag, plugin] = known
        return known

    def overused(self, queue: Queue) -> bool:
        return (
            self.proportion is not None
            and self._each("enabledOverused", "proportion")
            and (self.proportion.overused(queue))
        )

    def allocatable(self, queue: Queue, task: Task) -> bool:
        """``Session.Allocatable``: no plugin with the flag finds the queue full."""
        return all(
            plugin.allocatable(queue, task.resreq)
            for name, plugin in self.queue_plugins.items()
            if self._each("enabledAllocatable", name)
        )

    def job_ready(self, job: Job) -> bool:
        if not self._each("enableJobReady", "gang"):
            return True
        return job.check_task_ready() and job.is_ready()

    def job_valid(self, job: Job) -> bool:
        if not self.plan.has("gang"):
            return True
        if not job.check_task_valid():
            job.valid_reason = "Not enough valid pods of each task for gang-scheduling"
            return False
        valid = job.valid_num()
        if valid < job.min_available:
            job.valid_reason = (
                f"Not enough valid tasks for gang-scheduling, valid: {valid}, "
                f"min: {job.min_available}"
            )
            return False
        return True

    def enqueueable(self, job: Job) -> bool:
        found = False
        for tier in self.plan.tiers:
            for plugin in tier:
                if not plugin.enabled("enableJobEnqueued"):
                    continue
                if plugin.name == "overcommit" and self.overcommit is not None:
                    vote = self.overcommit.enqueueable(job)
                elif plugin.name in self.queue_plugins:
                    queue = self.queues[job.queue]
                    vote = self.queue_plugins[plugin.name].enqueueable(job, queue)
                else:
                    continue
                if vote < 0:
                    return False
                found = found or vote > 0
            if found:
                return True
        return True

    def enqueued(self, job: Job) -> None:
        """``JobEnqueued``: every plugin's, of every tier, once enqueue admits the job."""
        if self.overcommit is not None and self._each("enableJobEnqueued", "overcommit"):
            self.overcommit.enqueued(job)
        for name, plugin in self.queue_plugins.items():
            if self._each("enableJobEnqueued", name):
                plugin.enqueued(job)

    def _allocated(self, task: Task, sign: int) -> None:
        """The event handlers: the queue plugins' and drf's allocated resources."""
        job = self._job(task)
        for plugin in self.queue_plugins.values():
            plugin.allocate(job, task.resreq, sign)
        if self.drf is not None:
            self.drf.allocate(job, task.resreq, sign)

    def _job(self, task: Task) -> Job:
        return self.by_key[task.job]

    # --- actions --------------------------------------------------------------------------

    def run(self) -> None:
        for action in self.plan.actions:
            if action == "enqueue":
                self.enqueue()
            elif action == "allocate":
                self.allocate()
            elif action == "backfill":
                self.backfill()
        self.close()

    def enqueue(self) -> None:
        queues: PriorityQueue[Queue] = PriorityQueue(self.queue_order)
        seen: set[str] = set()
        pending: dict[str, PriorityQueue[Job]] = {}
        for job in self.jobs:
            queue = self.queues[job.queue]
            if queue.name not in seen:
                seen.add(queue.name)
                queues.push(queue)
            if job.is_pending():
                pending.setdefault(queue.name, PriorityQueue(self.job_order)).push(job)
        while queues:
            queue = queues.pop()
            jobs = pending.get(queue.name)
            if not jobs:
                continue
            job = jobs.pop()
            if job.group.min_resources is None or self.enqueueable(job):
                self.enqueued(job)
                job.phase = "Inqueue"
            queues.push(queue)

    def allocate(self) -> None:
        version = self.version
        queues: PriorityQueue[Queue] = PriorityQueue(self.queue_order)
        by_queue: dict[str, PriorityQueue[Job]] = {}
        tasks_of: dict[str, PriorityQueue[Task]] = {}
        enqueue = "enqueue" in self.plan.actions
        for job in self.jobs:
            if job.is_pending():
                if enqueue:
                    continue
                job.phase = "Inqueue"
            if not self.job_valid(job):
                continue
            tasks: PriorityQueue[Task] = PriorityQueue(self.task_order)
            for task in job.tasks:
                if task.status == PENDING and not task.best_effort:
                    tasks.push(task)
            if version >= (1, 14) and not tasks:
                continue
            if job.queue not in by_queue:
                by_queue[job.queue] = PriorityQueue(self.job_order)
                queues.push(self.queues[job.queue])
            by_queue[job.queue].push(job)
            tasks_of[job.key] = tasks
        while queues:
            queue = queues.pop()
            if self.overused(queue):
                continue
            jobs = by_queue.get(queue.name)
            if not jobs:
                continue
            job = jobs.pop()
            tasks = tasks_of[job.key]
            if version < (1, 14) and not tasks:
                queues.push(queue)
                continue
            if version < (1, 10):
                queues.push(queue)
            statement = self._allocate_tasks(job, queue, tasks)
            ready = self.job_ready(job)
            if ready:
                self._commit(statement)
            else:
                self._discard(statement)
            if tasks and (ready or (1, 12) <= version < (1, 14)):
                jobs.push(job)
            if version >= (1, 10):
                queues.push(queue)

    def _allocate_tasks(self, job: Job, queue: Queue, tasks: PriorityQueue[Task]) -> _Statement:
        statement = _Statement()
        version = self.version
        while tasks:
            task = tasks.pop()
            if not self.allocatable(queue, task):
                continue
            if version >= (1, 10) and task.role and task.role in job.failed_roles:
                job.fit_errors[task.key] = (
                    f"Task {task.name} with role spec {task.role} has already predicated "
                    "failed, skip"
                )
                continue
            choice = self._best_node(task, job)
            if choice is None:
                if version >= (1, 10) and job.need_continue():
                    continue
                break
            self._allocate(statement, task, choice)
            if self.job_ready(job) and (version >= (1, 14) or tasks):
                break
        return statement

    def _best_node(self, task: Task, job: Job) -> _Choice | None:
        """The node allocate picks for ``task`` (ties to the first in cluster order), or
        ``None`` with the reason kept as the task's fit error."""
        kind, _ = self.totals.of(task.pod)
        best = kind.best()
        if not best:
            job.fit_errors[task.key] = self._fit_error(task)
            if task.role:
                job.failed_roles.add(task.role)
            return None
        chosen = self.names[best[0]]
        tied = tuple(map(self.names.__getitem__, best[1:]))
        return _Choice(chosen, tied, bool(tied) and self._identical(chosen, tied))

    def _fit_error(self, task: Task) -> str:
        """``FitErrors.Error``: how many nodes failed, with each reason's count."""
        scores = self.cluster.score(task.pod)
        reasons: dict[str, int] = {}
        failed = 0
        for score in scores:
            if not score.feasible:
                failed += 1
                reasons[str(score.reason)] = reasons.get(str(score.reason), 0) + 1
        listed = ", ".join(sorted(f"{count} {reason}" for reason, count in reasons.items()))
        return f"0/{failed} nodes are unavailable: {listed}."

    def _identical(self, chosen: str, tied: Sequence[str]) -> bool:
        """Whether the tied nodes are indistinguishable from the chosen one: the same
        accounting (node key) and the same shape (allocatable, taints, labels but the
        hostname, images); the real scheduler's random pick then only swaps names."""
        keys = self.cluster.node_keys()
        shapes = self.shapes
        names = (chosen, *tied)
        states = zip(map(keys.__getitem__, names), map(shapes.__getitem__, names), strict=True)
        return len(set(states)) == 1

    def _allocate(self, statement: _Statement, task: Task, choice: _Choice) -> None:
        job = self._job(task)
        job.set_status(task, ALLOCATED)
        task.node = choice.node
        self.cluster.bind(choice.node, task.pod)
        self.totals.bound(choice.node)
        self._allocated(task, +1)
        statement.operations.append((task, choice.node))
        self._choices[task.key] = choice

    def _commit(self, statement: _Statement) -> None:
        for task, node in statement.operations:
            self._dispatch(task, node)

    def _dispatch(self, task: Task, node: str) -> None:
        self._job(task).set_status(task, BINDING)
        task.last_allocated = False
        choice = self._choices.get(task.key)
        tied = choice.tied_with if choice else ()
        identical = choice.identical if choice else False
        self.binds.append(Bind(task.key, node, self.index, tied, identical))

    def _discard(self, statement: _Statement) -> None:
        """Undo the statement's allocations, last first: each node as it was before."""
        for task, node in reversed(statement.operations):
            job = self._job(task)
            job.set_status(task, PENDING)
            task.node = None
            task.last_allocated = True
            self.cluster.unbind(node, task.pod)
            self.totals.changed(node)
            self._allocated(task, -1)
            self.discarded.append((task.key, node))
            self._choices.pop(task.key, None)

    def backfill(self) -> None:
        queues: PriorityQueue[Queue] = PriorityQueue(self.queue_order)
        by_queue: dict[str, PriorityQueue[Job]] = {}
        tasks_of: dict[str, PriorityQueue[Task]] = {}
        for job in self.jobs:
            if job.is_pending() or not self.job_valid(job):
                continue
            tasks: PriorityQueue[Task] = PriorityQueue(self.task_order)
            for task in job.tasks:
                if task.status == PENDING and task.best_effort:
                    tasks.push(task)
            if not tasks:
                continue
            if job.queue not in by_queue:
                queues.push(self.queues[job.queue])
                by_queue[job.queue] = PriorityQueue(self.job_order)
            by_queue[job.queue].push(job)
            tasks_of[job.key] = tasks
        ordered: list[Task] = []
        while queues:
            queue = queues.pop()
            jobs = by_queue[queue.name]
            while jobs:
                job = jobs.pop()
                tasks = tasks_of[job.key]
                while tasks:
                    ordered.append(tasks.pop())
        for task in ordered:
            job = self._job(task)
            choice = self._best_node(task, job)
            if choice is None:
                continue
            statement = _Statement()
            self._allocate(statement, task, choice)
            if self.job_ready(job):
                for other in job.tasks:
                    if other.status == ALLOCATED and other.node is not None:
                        self._dispatch(other, other.node)

    # --- closing ----------------------------------------------------------------------------

    def close(self) -> None:
        """gang's ``OnSessionClose`` (the Unschedulable condition of a job with tasks
        that is not ready), then each job's phase as the job updater writes it."""
        for job in self.jobs:
            job.unschedulable = ""
            if job.tasks and not job.is_ready():
                schedulable = (
                    sum(1 for t in job.tasks if t.status == PENDING and t.last_allocated)
                    + job.ready_num()
                )
                unready = job.min_available - schedulable
                job.unschedulable = (
                    f"{unready}/{len(job.tasks)} tasks in gang unschedulable: {fit_error(job)}"
                )
            job.phase = self._phase(job)

    def _phase(self, job: Job) -> str:
        """``getPodGroupPhase`` (``jobStatus`` before v1.13, which counted allocated
        tasks, not bound ones): Unknown for a job with running tasks that gang found
        unschedulable this session; Running once enough tasks count (Completed when
        none does: all would be finished, and none here ever is); else Pending, unless
        it was admitted (Inqueue stays)."""
        if job.unschedulable and self.plan.has("gang") and job.counts[RUNNING]:
            return "Unknown"
        statuses = READY_STATUSES if self.version < (1, 13) else SCHEDULED_STATUSES
        scheduled = sum(1 for task in job.tasks if task.status in statuses)
        if scheduled >= job.min_available:
            return "Completed" if scheduled == 0 else "Running"
        if job.phase != "Inqueue":
            return "Pending"
        return job.phase


def fit_error(job: Job) -> str:
    """``JobInfo.FitError``: the job's readiness and its tasks' statuses, the pending
    tasks' reasons, and the first task's fit error (in task order)."""
    reasons: dict[str, int] = {}
    for task in job.tasks:
        reasons[task.status] = reasons.get(task.status, 0) + 1
    reasons["minAvailable"] = job.min_available
    ready = "pod group is ready" if job.is_ready() else "pod group is not ready"
    message = f"{ready}, {', '.join(sorted(f'{v} {k}' for k, v in reasons.items()))}"
    pending: dict[str, int] = {}
    for task in job.tasks:
        if task.status == PENDING:
            reason = "Schedulable" if task.last_allocated else "Unschedulable"
            pending[reason] = pending.get(reason, 0) + 1
    if pending:
        message += f"; Pending: {', '.join(sorted(f'{v} {k}' for k, v in pending.items()))}"
    for task in job.tasks:
        if task.key in job.fit_errors:
            message += f". Origin reason is {task.name}: {job.fit_errors[task.key]}"
            break
    return message


def _shape(node: Node) -> object:
    traits = node.traits
    labels = tuple(label for label in traits.labels if label[0] != "kubernetes.io/hostname")
    return (node.allocatable, replace(traits, labels=labels), node.images)


def _overcommit_factor(plan: SessionPlan) -> float:
    """``overcommit-factor`` (``GetFloat64``; below 1.0 the default 1.2)."""
    for tier in plan.tiers:
        for plugin in tier:
            if plugin.name == "overcommit" and plugin.arguments:
                value = plugin.arguments.get("overcommit-factor")
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    return float(value) if value >= 1.0 else DEFAULT_OVERCOMMIT
    return DEFAULT_OVERCOMMIT


def run_sessions(
    plan: SessionPlan,
    scheduler: VolcanoScheduler,
    nodes: Sequence[Node],
    objects: ClusterObjects,
    jobs: list[Job],
    queues: Mapping[str, Queue],
    sessions: int,
    totals: Callable[[VolcanoCluster], SessionTotals] = SessionTotals,
    meter: WorkMeter | None = None,
) -> SessionsResult:
    """Run ``sessions`` sessions: binds of one are bound pods in the next (their tasks
    Bound, their pods on the nodes), PodGroup phases carry over. ``totals`` keeps the
    pod kinds' totals per node as the cluster fills (the tests hold the fast one to
    scoring every node for every task); the topology plugins charge ``meter``."""
    records = []
    current = list(nodes)
    session = None
    for index in range(1, sessions + 1):
        cluster = scheduler.cluster(current, objects, meter)
        session = Session(plan, cluster, jobs, queues, index, totals)
        session.run()
        records.append(_record(session))
        for job in jobs:
            for task in job.tasks:
                if task.status == BINDING:
                    job.set_status(task, BOUND)
        current = list(cluster.nodes.values())
    notes = (
        ()
        if session is None
        else never_start(jobs, queues, [*session.queue_plugins], session.total)
    )
    return SessionsResult.of(tuple(records), plan, tuple(current), notes)


def _record(session: Session) -> SessionRecord:
    outcomes = {job.key: _outcome(job) for job in session.jobs}
    return SessionRecord(
        session.index,
        tuple(session.binds),
        outcomes,
        tuple(session.discarded),
        equal_shares=session.proportion is not None and session.proportion.equal_shares,
    )


def _outcome(job: Job) -> JobOutcome:
    bound = sum(1 for task in job.tasks if task.status in BOUND_STATUSES)
    return JobOutcome(
        job.key,
        job.queue,
        job.phase,
        bound,
        job.min_available,
        len(job.tasks),
        "; ".join(filter(None, (job.unschedulable, job.valid_reason))),
        tuple(task.key for task in job.tasks),
    )
