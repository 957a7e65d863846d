"""Cases that Volcano schedules as jobs: ``jobs:``, ``sessions: N``, or incoming pods
that name a PodGroup (a snapshot's pending pods of a Volcano job), and under a Volcano
conf a repack that moves pods Volcano schedules (every pod it moves then goes through
the sessions, a pod naming no PodGroup in its own, as Volcano's PodGroup controller
makes for it, whatever scheduler the pod names). The case runs the
conf's sessions (:mod:`policytest.sessions.session`) and checks ``expect.jobs`` (per
PodGroup, its pods bound and its phase) and ``expect.binds`` (pod -> node), besides the
sequence expectations (``placements``, ``nodesUsed``, ``pending``) over every bind.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from policytest.core.limits import WorkMeter
from policytest.core.suggest import did_you_mean
from policytest.harness.counts import count_problems
from policytest.harness.fragmentation import Pending
from policytest.harness.model import Case, Fixture
from policytest.scoring.cluster import Node, Pod
from policytest.scoring.specs import pods_from_dict
from policytest.scoring.workload import ClusterObjects
from policytest.sessions.objects import VOLCANO, SchedulingObjects
from policytest.sessions.result import Bind, SessionsResult
from policytest.sessions.state import BOUND_STATUSES, PENDING, Job

__all__ = [
    "SessionCase",
    "SessionWork",
    "deciding_ties",
    "expectation_names",
    "is_session_case",
    "lookup",
    "run_session_case",
    "session_work",
]


def is_session_case(case: Case) -> bool:
    """Whether Volcano runs the case as sessions of jobs (a repack: when it moves a pod
    Volcano schedules, naming a PodGroup or Volcano as its scheduler)."""
    return (
        bool(case.jobs)
        or case.sessions is not None
        or any(_names_group(entry) for entry in case.pods)
        or (case.repack is not None and any(_names_volcano(entry) for entry in case.pods))
    )


def _names_volcano(entry: object) -> bool:
    if not isinstance(entry, Mapping):
        return False
    spec = entry.get("spec")
    return (spec if isinstance(spec, Mapping) else entry).get("schedulerName") == VOLCANO


def _names_group(entry: object) -> bool:
    if not isinstance(entry, Mapping):
        return False
    metadata = entry.get("metadata")
    annotations = (metadata if isinstance(metadata, Mapping) else entry).get("annotations")
    return isinstance(annotations, Mapping) and "scheduling.k8s.io/group-name" in annotations


@dataclass(frozen=True)
class SessionCase:
    """What a session case came to, for the runner's result: ``failed`` or ``passed``
    with its problems, or ``error`` with the one that stopped it; the placements and
    pending pods over every bind, and the sessions run."""

    status: Literal["passed", "failed", "error"]
    problems: tuple[str, ...] = ()
    placements: Mapping[str, int] | None = None
    pending: int | None = None
    sessions: SessionsResult | None = None
    waiting: tuple[Pending, ...] = ()
    """The jobs that did not start, with their pending pods and how many they need."""


def run_session_case(
    fixture: Fixture,
    case: Case,
    scheduler: Any,
    nodes: Sequence[Node],
    objects: ClusterObjects,
    meter: WorkMeter | None = None,
) -> SessionCase:
    """Run the case's sessions and judge its expectations (the topology plugins charge
    ``meter``)."""
    from policytest.sessions.objects import SchedulingSpecError

    if getattr(scheduler, "session", None) is None:
        return SessionCase(
            "error",
            (
                f"case `{case.name}` schedules Volcano jobs (`jobs`, `sessions` or pods "
                "naming a PodGroup), but the config is not a Volcano conf",
            ),
        )
    try:
        work = session_work(fixture, case)
    except (SchedulingSpecError, ValueError) as error:
        return SessionCase("error", (str(error),))
    done = work.run(scheduler, nodes, objects, meter)
    problems = tuple(_problems(case, done.sessions, done.placements, done.pending))
    return SessionCase(
        "failed" if problems else "passed",
        problems,
        done.placements,
        done.pending,
        done.sessions,
        done.waiting,
    )


@dataclass(frozen=True)
class SessionsDone:
    """A case's sessions run: what they did, pods per node (every node), the pods left
    pending, and the jobs that did not start (with what they still need)."""

    sessions: SessionsResult
    placements: Mapping[str, int]
    pending: int
    waiting: tuple[Pending, ...]


@dataclass(frozen=True)
class SessionWork:
    """A session case's jobs and pods, read once, runnable under any Volcano conf (``run``
    runs the fixture's; ``simulate`` each config it compares)."""

    scheduling: SchedulingObjects
    pods: tuple[tuple[Mapping[str, Any], Pod], ...]
    sessions: int
    adopt: bool = False
    """A repack's: every pod is Volcano's, whatever scheduler it names."""

    def run(
        self,
        scheduler: Any,
        nodes: Sequence[Node],
        objects: ClusterObjects,
        meter: WorkMeter | None = None,
    ) -> SessionsDone:
        """Run the sessions on fresh jobs (a session changes its jobs' state; the topology
        plugins charge ``meter``)."""
        from policytest.sessions.build import build_jobs
        from policytest.sessions.session import run_sessions

        bound = ((node.name, pod) for node in nodes for pod in node.pods)
        built = build_jobs(
            self.scheduling, list(self.pods), scheduler.overhead_first, bound, self.adopt
        )
        run = run_sessions(
            scheduler.session,
            scheduler,
            nodes,
            objects,
            built.jobs,
            built.queues,
            self.sessions,
            meter=meter,
        )
        run = replace(run, notes=built.notes + run.notes)
        placements = {node.name: 0 for node in nodes}
        for bind in run.binds:
            placements[bind.node] += 1
        pending = len(self.pods) - len(run.binds)
        return SessionsDone(run, placements, pending, not_started(built.jobs))


def session_work(fixture: Fixture, case: Case) -> SessionWork:
    """The case's jobs expanded into PodGroups and pods, beside the cluster's
    PriorityClasses, Queues and PodGroups; raises
    :class:`~policytest.sessions.objects.SchedulingSpecError` or ``ValueError`` (a pod
    of the wrong shape) for bad input."""
    from policytest.harness.checks import scheduling_objects_of
    from policytest.sessions.jobs import expand_jobs

    scheduling = scheduling_objects_of(fixture)
    entries: list[Mapping[str, Any]] = list(case.pods)
    if case.jobs:
        expanded = expand_jobs(case.jobs, scheduling, f"case `{case.name}`: jobs")
        scheduling = replace(
            scheduling,
            pod_groups=(*scheduling.pod_groups, *(job.group for job in expanded)),
        )
        entries += [pod for job in expanded for pod in job.pods]
    pods = tuple(
        (entry, pod)
        for entry in entries
        for pod in pods_from_dict(
            entry, default_requests_from_limits=True, where=f"case `{case.name}`"
        )
    )
    return SessionWork(scheduling, pods, case.sessions or 1, adopt=case.repack is not None)


def not_started(jobs: Sequence[Job]) -> tuple[Pending, ...]:
    """The jobs that did not reach their ``minMember`` after the last session, each with
    its pending pods and how many more of them it needs bound to start."""
    waiting = []
    for job in jobs:
        bound = sum(1 for task in job.tasks if task.status in BOUND_STATUSES)
        if bound < job.min_available:
            pods = tuple(task.pod for task in job.tasks if task.status == PENDING)
            waiting.append(Pending(job.key, "job", pods, job.min_available - bound))
    return tuple(waiting)


def _problems(
    case: Case, run: SessionsResult, placements: Mapping[str, int], pending: int
) -> Iterator[str]:
    expect = case.expect
    yield from count_problems(expect, placements, pending, f"{len(run.binds)} pods bound, ")
    groups = run.pod_groups
    jobs = lookup(groups)
    for name, wanted in (expect.jobs or {}).items():
        key = jobs.get(name)
        if key is None:
            yield f"jobs: no job `{name}`{did_you_mean(name, _shown(groups))}"
            continue
        outcome = groups[key]
        if "bound" in wanted and wanted["bound"] != outcome.bound:
            yield f"jobs: {name} expected {wanted['bound']} bound, got {outcome.bound}" + (
                f" ({outcome.reason})" if outcome.reason else ""
            )
        if "phase" in wanted and wanted["phase"] != outcome.phase:
            yield f"jobs: {name} expected phase {wanted['phase']}, got {outcome.phase}"
    nodes_of = {bind.pod: bind.node for bind in run.binds}
    pods = lookup(nodes_of)
    for pod, node in (expect.binds or {}).items():
        key = pods.get(pod)
        if key is None:
            yield f"binds: pod `{pod}` was not bound{did_you_mean(pod, _shown(nodes_of))}"
        elif nodes_of[key] != node:
            yield f"binds: {pod} expected on {node}, got {nodes_of[key]}"
    if not case.ties_allowed:
        deciding = deciding_ties(run, bool(expect.binds) or expect.placements is not None)
        if deciding and not expect.asserts_nothing():
            first = deciding[0]
            yield (
                f"ties: {len(deciding)} of {len(run.binds)} binds "
                f"{'was' if len(deciding) == 1 else 'were'} decided by a tie that this "
                f"expectation depends on (first: {first.pod} went to {first.node}, tied with "
                f"{', '.join(first.tied_with)}); the real scheduler picks at random, so this "
                "outcome is not guaranteed (set `ties: allow` to accept)"
            )
    if run.equal_shares and not case.ties_allowed and not expect.asserts_nothing():
        yield (
            "queues: queues with equal shares were ordered; the real scheduler sums their "
            "shares in a random order and may serve them in either order (set `ties: allow` "
            "to accept)"
        )


def deciding_ties(run: SessionsResult, by_node: bool) -> list[Bind]:
    """The binds a tie decided that an expectation depends on: every tie when it checks
    which node a pod or count went to (``by_node``), else the ties between nodes that
    differ (a tie between identical nodes only swaps names: job counts stand)."""
    return [bind for bind in run.ties if by_node or not bind.identical]


def expectation_names(keys: Iterable[str]) -> dict[str, str]:
    """How an expectation names each ``namespace/name`` (a PodGroup, a pod): by its name
    alone where no other namespace has that name, else by the whole key."""
    keys = list(keys)
    names = Counter(key.split("/", 1)[1] for key in keys)
    return {key: key.split("/", 1)[1] if names[key.split("/", 1)[1]] == 1 else key for key in keys}


def lookup(keys: Iterable[str]) -> dict[str, str]:
    """The ``namespace/name`` each name an expectation may give stands for: the whole
    key, and the name alone where no other namespace has it."""
    shown = expectation_names(keys)
    return {**{key: key for key in shown}, **{name: key for key, name in shown.items()}}


def _shown(keys: Iterable[str]) -> list[str]:
    """The names an expectation may give, for a did-you-mean."""
    return sorted(expectation_names(keys).values())
