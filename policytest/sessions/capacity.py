"""The capacity plugin's part in a session (v1.13 to v1.16, queues not hierarchical):
each queue's ``deserved`` as written (within its real capability, at least its
guarantee), its queue order, its allocatable check and its enqueue check.

Unlike proportion, capacity does not share the cluster out by weight: a queue deserves
what its ``spec.deserved`` says, and may grow to its real capability (the cluster less
every queue's guarantee, plus its own, within its ``capability``). Queues are served by
``priority``, then by share (allocated over deserved; from v1.14 a queue that deserves
nothing has share 1, and of two equal shares the queue that deserves something goes
first). A task fits its queue while the queue's allocated and the task's request stay
within the real capability in every resource the task asks for; a job is admitted while
its ``minResources``, with what the queue has allocated and admitted jobs claim (less
the elastic part), stay within it. ``enableHierarchy`` (hierarchical queues) and
releases before v1.13 are not simulated: the plan names them.
"""

from __future__ import annotations

from typing import Final

from policytest.sessions.objects import Queue
from policytest.sessions.plugins import QueueAttr, QueuePlugin, queue_resource, resource_max
from policytest.sessions.resource import INFINITY, Resource

__all__ = ["Capacity"]

BEST_EFFORT_QUEUES: Final = (1, 14)
"""From v1.14 a queue that deserves nothing has share 1 and yields to equal shares."""


class Capacity(QueuePlugin):
    """capacity's state for one session."""

    def deserve(self, cluster_total: Resource) -> None:
        """Each queue's deserved as written, within its real capability, at least its
        guarantee."""
        for attr in self.attrs.values():
            written = attr.queue.deserved
            deserved = queue_resource(written) if written else Resource()
            assert attr.real_capability is not None
            deserved.min_dimension(attr.real_capability, INFINITY)
            attr.deserved = resource_max(deserved, attr.guarantee)
            self.update_share(attr)

    def update_share(self, attr: QueueAttr) -> None:
        """``updateQueueAttrShare``: from v1.14 a queue that deserves nothing has share 1."""
        if self.version >= BEST_EFFORT_QUEUES and attr.deserved.is_empty():
            attr.share = 1.0
        else:
            attr.update_share()

    def compare(self, left: Queue, right: Queue) -> int:
        """The queue order: higher ``priority`` first, then the lower share (from v1.14,
        of equal shares the queue that deserves something)."""
        if left.priority != right.priority:
            return right.priority - left.priority
        mine, theirs = self.attrs[left.name], self.attrs[right.name]
        if mine.share == theirs.share:
            if self.version < BEST_EFFORT_QUEUES:
                return 0
            deserves, other = not mine.deserved.is_empty(), not theirs.deserved.is_empty()
            if deserves == other:
                return 0
            return -1 if deserves else 1
        return -1 if mine.share < theirs.share else 1

    def allocatable(self, queue: Queue, request: Resource) -> bool:
        """The task fits its queue: open, and its allocated with the request within its
        real capability in each resource the task asks for."""
        if queue.state != "Open":
            return False
        attr = self.attrs[queue.name]
        return (
            not attr.allocated.clone().add(request).over_in_requested(attr.real_capability, request)
        )
