"""What a run of Volcano sessions did, for the reporters: per session the binds (commit
order), each job's outcome and the allocations a failed gang discarded; over all of
them the binds, the PodGroups after the last session, and what was not simulated.

Immutable values: the reporters (text, explain, HTML, PR comment, JSON) only read them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from policytest.scoring.cluster import Node

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policytest.scoring.session_plan import SessionPlan

__all__ = ["Bind", "JobOutcome", "SessionRecord", "SessionsResult"]


@dataclass(frozen=True)
class Bind:
    """One pod bound: ``namespace/name`` to a node, in the session that bound it; the
    nodes its node tied with (the real scheduler picks one of them at random), and
    whether they were identical (another choice only swaps node names)."""

    pod: str
    node: str
    session: int
    tied_with: tuple[str, ...] = ()
    identical: bool = False


@dataclass(frozen=True)
class JobOutcome:
    """A PodGroup after a session: its phase, its pods bound so far, and the
    scheduler's own words when it could not start (gang's Unschedulable message)."""

    key: str
    queue: str
    phase: str
    bound: int
    min_member: int
    tasks: int
    reason: str = ""
    pods: tuple[str, ...] = ()
    """The job's pods (``namespace/name``), in task order: what binds and discarded
    allocations name, so that a report can say per job which of its pods went where."""


@dataclass(frozen=True)
class SessionRecord:
    """One session."""

    index: int
    binds: tuple[Bind, ...]
    jobs: Mapping[str, JobOutcome]
    discarded: tuple[tuple[str, str], ...] = ()
    """(pod, node) allocations made for a gang that could not get ready, undone."""
    equal_shares: bool = False
    """Queues were ordered across equal proportion shares, which the real scheduler
    computes with float sums in a random order (their order may differ between runs)."""


@dataclass(frozen=True)
class SessionsResult:
    """Every session of a case, in order."""

    sessions: tuple[SessionRecord, ...]
    unsimulated_plugins: tuple[str, ...] = ()
    """``plugin: what it decides`` for plugins whose part in a session is not simulated."""
    notes: tuple[str, ...] = ()
    """What the scheduler does with input it cannot use (a pod naming a missing PodGroup,
    a PodGroup in a missing queue) and why a job can never start (a closed queue, a gang
    above its pods or the cluster), in plain words."""
    nodes: tuple[Node, ...] = field(default=(), compare=False, repr=False)
    """The nodes after the last session, every bind on them: what utilisation and the
    capacity left free (fragmentation) are measured on."""

    @classmethod
    def of(
        cls,
        sessions: tuple[SessionRecord, ...],
        plan: SessionPlan,
        nodes: tuple[Node, ...] = (),
        notes: tuple[str, ...] = (),
    ) -> SessionsResult:
        return cls(sessions, plan.unsimulated_plugins, notes, nodes)

    @property
    def binds(self) -> tuple[Bind, ...]:
        return tuple(bind for record in self.sessions for bind in record.binds)

    @property
    def pod_groups(self) -> Mapping[str, JobOutcome]:
        """Each PodGroup after the last session."""
        return self.sessions[-1].jobs if self.sessions else {}

    @property
    def ties(self) -> tuple[Bind, ...]:
        return tuple(bind for bind in self.binds if bind.tied_with)

    @property
    def equal_shares(self) -> bool:
        return any(record.equal_shares for record in self.sessions)
