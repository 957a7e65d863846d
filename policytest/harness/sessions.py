"""Cases that Volcano schedules as jobs: ``jobs:``, ``sessions: N``, or incoming pods
that name a PodGroup (a snapshot's pending pods of a Volcano job). The case runs the
conf's sessions (:mod:`policytest.sessions.session`) and checks ``expect.jobs`` (per
PodGroup, its pods bound and its phase) and ``expect.binds`` (pod -> node), besides the
sequence expectations (``placements``, ``nodesUsed``, ``pending``) over every bind.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from policytest.core.suggest import did_you_mean
from policytest.harness.counts import count_problems
from policytest.harness.model import Case, Fixture
from policytest.scoring.cluster import Node
from policytest.scoring.specs import pods_from_dict
from policytest.scoring.workload import ClusterObjects
from policytest.sessions.result import Bind, SessionsResult

__all__ = [
    "SessionCase",
    "deciding_ties",
    "expectation_names",
    "is_session_case",
    "lookup",
    "run_session_case",
]


def is_session_case(case: Case) -> bool:
    """Whether Volcano runs the case as sessions of jobs."""
    return (
        bool(case.jobs)
        or case.sessions is not None
        or any(_names_group(entry) for entry in case.pods)
    )


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


def run_session_case(
    fixture: Fixture,
    case: Case,
    scheduler: Any,
    nodes: Sequence[Node],
    objects: ClusterObjects,
) -> SessionCase:
    """Run the case's sessions and judge its expectations."""
    from policytest.harness.checks import scheduling_objects_of
    from policytest.sessions.build import build_jobs
    from policytest.sessions.jobs import expand_jobs
    from policytest.sessions.objects import SchedulingSpecError
    from policytest.sessions.session import run_sessions

    plan = getattr(scheduler, "session", None)
    if plan is None:
        return SessionCase(
            "error",
            (
                f"case `{case.name}` schedules Volcano jobs (`jobs`, `sessions` or pods "
                "naming a PodGroup), but the config is not a Volcano conf",
            ),
        )
    try:
        scheduling = scheduling_objects_of(fixture)
        entries: list[Mapping[str, Any]] = list(case.pods)
        if case.jobs:
            expanded = expand_jobs(case.jobs, scheduling, f"case `{case.name}`: jobs")
            scheduling = replace(
                scheduling,
                pod_groups=(*scheduling.pod_groups, *(job.group for job in expanded)),
            )
            entries += [pod for job in expanded for pod in job.pods]
        pods = [
            (entry, pod)
            for entry in entries
            for pod in pods_from_dict(
                entry, default_requests_from_limits=True, where=f"case `{case.name}`"
            )
        ]
    except (SchedulingSpecError, ValueError) as error:
        return SessionCase("error", (str(error),))
    bound = ((node.name, pod) for node in nodes for pod in node.pods)
    built = build_jobs(scheduling, pods, scheduler.overhead_first, bound)
    sessions = case.sessions or 1
    run = run_sessions(plan, scheduler, nodes, objects, built.jobs, built.queues, sessions)
    run = replace(run, notes=built.notes)
    placements = {node.name: 0 for node in nodes}
    for bind in run.binds:
        placements[bind.node] += 1
    pending = len(pods) - len(run.binds)
    problems = tuple(_problems(case, run, placements, pending))
    return SessionCase("failed" if problems else "passed", problems, placements, pending, run)


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
