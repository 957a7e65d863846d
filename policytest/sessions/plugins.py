"""The session plugins that order and admit jobs: priority, gang and drf's job order,
proportion's queue share, overuse, allocatable check and enqueue check (the enqueue check
and the queues' claims shared with capacity, :mod:`policytest.sessions.capacity`), and
overcommit's enqueue check, each as the release's ``OnSessionOpen`` sets it up.

proportion's ``deserved`` loop sums over a Go map, in an order that changes from run to
run; here queues are visited by name, and a queue order that rests on two shares the
loop computes equal is reported (:attr:`Proportion.equal_shares`), as fact 9 of the
session oracle observed the real order change between runs there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from policytest.sessions.objects import Queue
from policytest.sessions.resource import (
    INFINITY,
    ZERO,
    Resource,
    exceeded_part,
    infinite_if_unset,
    share,
    total,
)
from policytest.sessions.state import ALLOCATED_STATUSES, PENDING, Job

__all__ = [
    "Drf",
    "Overcommit",
    "Proportion",
    "QueueAttr",
    "QueuePlugin",
    "elastic_resource",
    "queue_attrs",
    "queue_claim",
    "queue_resource",
    "resource_max",
]


def queue_resource(resources: Mapping[str, str]) -> Resource:
    """A queue's or PodGroup's resource list (quantities) in Volcano units."""
    from policytest.scoring.accounting import volcano_resource
    from policytest.scoring.cluster import ResourceList
    from policytest.scoring.quantity import parse_quantity

    parsed = ResourceList({n: parse_quantity(q) for n, q in resources.items()})
    return Resource.of(volcano_resource(parsed))


def inqueue_resource(job: Job, allocated: Resource) -> Resource:
    """``GetInqueueResource``: what the job's ``minResources`` still reserve beyond what
    it has allocated, for the resources ``minResources`` names."""
    minimum = queue_resource(job.group.min_resources or {})
    reserved = Resource()
    for name in job.group.min_resources or {}:
        if name == "cpu":
            reserved.cpu = max(minimum.cpu - allocated.cpu, 0.0)
        elif name == "memory":
            reserved.memory = max(minimum.memory - allocated.memory, 0.0)
        else:
            left = minimum.get(name) - allocated.get(name)
            if name in (minimum.scalars or {}) and left > 0:
                reserved.scalars = reserved.scalars or {}
                reserved.scalars[name] = left
    return reserved


def _running_claim(job: Job) -> bool:
    """A Running job whose ``minResources`` still count as claimed (what its tasks have
    not yet allocated): it has ``minMember`` tasks allocated (a job whose driver
    finished keeps its PodGroup Running without claiming again)."""
    if job.group.min_resources is None or job.phase != "Running":
        return False
    allocated = sum(1 for task in job.tasks if task.status in ALLOCATED_STATUSES)
    return allocated >= job.group.min_member


def queue_claim(job: Job, version: tuple[int, int]) -> Resource | None:
    """What an admitted job's ``minResources`` claim of its queue (proportion's
    ``inqueue``): an Inqueue job all of them before v1.15, from v1.15 what its allocated
    tasks do not cover yet (as a Running job always); ``None``: nothing."""
    if job.group.min_resources is None:
        return None
    if job.phase == "Inqueue":
        if version < (1, 15):
            return queue_resource(job.group.min_resources)
        return inqueue_resource(job, job.allocated())
    return inqueue_resource(job, job.allocated()) if _running_claim(job) else None


def elastic_resource(job: Job, version: tuple[int, int]) -> Resource:
    """``GetElasticResources``: what the job has allocated beyond its ``minResources``
    (a queue's elastic part, which enqueue does not count against its capability);
    before v1.11 nothing when some dimension is within them, else the difference."""
    allocated = job.allocated()
    minimum = queue_resource(job.group.min_resources or {})
    if version < (1, 11):
        if allocated.less_equal_partly(minimum, ZERO):
            return Resource()
        return allocated.clone().sub(minimum)
    return exceeded_part(allocated, minimum)


@dataclass
class QueueAttr:
    queue: Queue
    deserved: Resource = field(default_factory=Resource)
    allocated: Resource = field(default_factory=Resource)
    request: Resource = field(default_factory=Resource)
    elastic: Resource = field(default_factory=Resource)
    inqueue: Resource = field(default_factory=Resource)
    capability: Resource | None = None
    real_capability: Resource | None = None
    guarantee: Resource = field(default_factory=Resource)
    share: float = 0.0

    def update_share(self) -> None:
        self.share = max(
            (share(self.allocated.get(n), self.deserved.get(n)) for n in self.deserved.names()),
            default=0.0,
        )
        self.share = max(self.share, 0.0)


def queue_attrs(
    cluster_total: Resource, queues: Mapping[str, Queue], jobs: list[Job], version: tuple[int, int]
) -> dict[str, QueueAttr]:
    """Each queue with jobs as proportion and capacity read it when a session opens: its
    capability (a cpu or memory of 0 or less unlimited), its guarantee, its real
    capability (the cluster less every queue's guarantee, plus its own, within its
    capability), what its jobs have allocated and request, what admitted jobs claim
    (:func:`queue_claim`) and their elastic part."""
    attrs: dict[str, QueueAttr] = {}
    guarantees = total(queue_resource(q.guarantee) for q in queues.values() if q.guarantee)
    for job in jobs:
        attr = attrs.get(job.queue)
        if attr is None:
            queue = queues[job.queue]
            attr = attrs[job.queue] = QueueAttr(queue)
            if queue.guarantee:
                attr.guarantee = queue_resource(queue.guarantee)
            real = exceeded_part(cluster_total, guarantees).add(attr.guarantee)
            if queue.capability:
                attr.capability = infinite_if_unset(queue_resource(queue.capability))
                attr.real_capability = real.min_dimension(attr.capability, INFINITY)
            else:
                attr.capability = Resource()
                attr.real_capability = real
        for task in job.tasks:
            if task.status in ALLOCATED_STATUSES:
                attr.allocated.add(task.resreq)
                attr.request.add(task.resreq)
            elif task.status == PENDING:
                attr.request.add(task.resreq)
        claim = queue_claim(job, version)
        if claim is not None:
            attr.inqueue.add(claim)
        attr.elastic.add(elastic_resource(job, version))
    return attrs


class QueuePlugin:
    """What proportion and capacity do alike: each queue's attributes
    (:func:`queue_attrs`); a job admitted while its ``minResources``, with what its queue
    has allocated and admitted jobs claim, less the elastic part, stay within the
    queue's real capability in each resource it asks for; its claim counted when it is
    admitted (from v1.16 once every plugin admitted it, ``JobEnqueued``); the queue's
    allocated and share kept up at each allocation."""

    def __init__(
        self,
        cluster_total: Resource,
        queues: Mapping[str, Queue],
        jobs: list[Job],
        version: tuple[int, int],
    ) -> None:
        self.version = version
        self.reserves_when_enqueued = version >= (1, 16)
        self.attrs = queue_attrs(cluster_total, queues, jobs, version)
        self.deserve(cluster_total)

    def deserve(self, cluster_total: Resource) -> None:
        """What the plugin works out from the queues when the session opens (each
        queue's deserved and share)."""
        raise NotImplementedError

    def update_share(self, attr: QueueAttr) -> None:
        attr.update_share()

    def enqueueable(self, job: Job, queue: Queue) -> int:
        """+1 permit, -1 reject (neither plugin abstains)."""
        if queue.state != "Open":
            return -1
        if job.group.min_resources is None:
            return 1
        attr = self.attrs[queue.name]
        minimum = queue_resource(job.group.min_resources)
        wanted = minimum.clone().add(attr.allocated).add(attr.inqueue).sub(attr.elastic)
        if wanted.over_in_requested(attr.real_capability, minimum):
            return -1
        if not self.reserves_when_enqueued:
            attr.inqueue.add(minimum)
        return 1

    def enqueued(self, job: Job) -> None:
        """``JobEnqueued`` (from v1.16): the admitted job's ``minResources`` join its
        queue's claim."""
        attr = self.attrs.get(job.queue)
        if self.reserves_when_enqueued and attr is not None and job.group.min_resources:
            attr.inqueue.add(queue_resource(job.group.min_resources))

    def allocate(self, job: Job, request: Resource, sign: int) -> None:
        """The event handlers: the queue's allocated and share."""
        attr = self.attrs.get(job.queue)
        if attr is not None:
            (attr.allocated.add if sign > 0 else attr.allocated.sub)(request)
            self.update_share(attr)


class Proportion(QueuePlugin):
    """proportion's state for one session: each queue deserves what its weight earns of
    the cluster (within its real capability and request, at least its guarantee)."""

    equal_shares = False
    """Queues were ordered across shares the deserved loop computes equal."""

    def deserve(self, cluster_total: Resource) -> None:
        remaining = cluster_total.clone()
        met: set[str] = set()
        ordered = [self.attrs[name] for name in sorted(self.attrs)]
        while True:
            weight = sum(a.queue.weight for a in ordered if a.queue.name not in met)
            if weight == 0:
                break
            old_remaining = remaining.clone()
            increased, decreased = Resource(), Resource()
            for attr in ordered:
                if attr.queue.name in met:
                    continue
                old = attr.deserved.clone()
                attr.deserved.add(remaining.clone().multi(attr.queue.weight / weight))
                if attr.real_capability is not None:
                    attr.deserved.min_dimension(attr.real_capability, INFINITY)
                attr.deserved.min_dimension(attr.request, ZERO)
                attr.deserved = resource_max(attr.deserved, attr.guarantee)
                attr.update_share()
                if attr.request.less_equal(attr.deserved, ZERO) or attr.deserved.semantic_equal(
                    old
                ):
                    met.add(attr.queue.name)
                up, down = attr.deserved.diff(old, ZERO)
                increased.add(up)
                decreased.add(down)
            remaining = exceeded_part(remaining.clone().add(decreased), increased)
            if remaining.is_empty() or remaining.semantic_equal(old_remaining):
                break

    def compare(self, left: Queue, right: Queue) -> int:
        """The queue order: higher ``priority`` first, then the lower share."""
        if left.priority != right.priority:
            return right.priority - left.priority
        mine, theirs = self.attrs[left.name].share, self.attrs[right.name].share
        if mine == theirs:
            if mine and len(self.attrs) > 2:
                self.equal_shares = True
            return 0
        return -1 if mine < theirs else 1

    def overused(self, queue: Queue) -> bool:
        attr = self.attrs[queue.name]
        return attr.deserved.less_equal(attr.allocated, ZERO)

    def allocatable(self, queue: Queue, request: Resource) -> bool:
        if queue.state != "Open":
            return False
        attr = self.attrs[queue.name]
        return not attr.allocated.clone().add(request).over_in_requested(attr.deserved, request)


def resource_max(left: Resource, right: Resource) -> Resource:
    """``helpers.Max``: each dimension's larger value (scalars of either side)."""
    result = Resource(max(left.cpu, right.cpu), max(left.memory, right.memory))
    names = [
        *(left.scalars or {}),
        *(n for n in right.scalars or {} if n not in (left.scalars or {})),
    ]
    if left.scalars is not None or right.scalars is not None:
        result.scalars = {n: max(left.get(n), right.get(n)) for n in names}
    return result


class Drf:
    """drf's job shares: the dominant share of each job's allocated resources."""

    def __init__(self, cluster_total: Resource, jobs: Iterable[Job]) -> None:
        self.total = cluster_total
        self.allocated = {job.key: job.allocated() for job in jobs}
        self.shares = {key: self._share(alloc) for key, alloc in self.allocated.items()}

    def _share(self, allocated: Resource) -> float:
        best = 0.0
        for name in self.total.names():
            value = share(allocated.get(name), self.total.get(name))
            if value > best:
                best = value
        return best

    def compare(self, left: Job, right: Job) -> int:
        mine, theirs = self.shares[left.key], self.shares[right.key]
        return 0 if mine == theirs else -1 if mine < theirs else 1

    def allocate(self, job: Job, request: Resource, sign: int) -> None:
        allocated = self.allocated[job.key]
        (allocated.add if sign > 0 else allocated.sub)(request)
        self.shares[job.key] = self._share(allocated)


class Overcommit:
    """overcommit's enqueue check: the cluster's allocatable times the factor, less what
    is used and what admitted jobs' ``minResources`` claim."""

    def __init__(self, factor: float, cluster_total: Resource, used: Resource, jobs: list[Job]):
        self.idle = cluster_total.clone().multi(factor).sub(used)
        self.inqueue = Resource()
        for job in jobs:
            if job.phase == "Inqueue" and job.group.min_resources is not None:
                self.inqueue.add(queue_resource(job.group.min_resources))
            elif _running_claim(job):
                self.inqueue.add(inqueue_resource(job, job.allocated()))

    def enqueueable(self, job: Job) -> int:
        if job.group.min_resources is None:
            return 1
        minimum = queue_resource(job.group.min_resources)
        wanted = self.inqueue.clone().add(minimum)
        return -1 if wanted.over_in_requested(self.idle, minimum) else 1

    def enqueued(self, job: Job) -> None:
        if job.group.min_resources is not None:
            self.inqueue.add(queue_resource(job.group.min_resources))
