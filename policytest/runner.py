"""``policytest run``: fixtures through the reference scorers, compared with expectations.

A single-pod case ranks every node; a sequence places pods one by one (filter, score,
bind). Both schedulers pick at random among equally scored nodes, so ties are grouped
in rankings, broken deterministically in sequences (fixture node order) and flagged:
an outcome that depends on a tie fails unless the case says ``ties: allow``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from policytest.cluster import ClusterSpecError, Node, Pod, pods_from_dict
from policytest.engine import ClusterState, NodeScore, Scheduler
from policytest.findings import Finding
from policytest.fixture import Case, Expectation, Fixture, RankingSpec
from policytest.quantity import QuantityError
from policytest.scoring.fast import Choice, build_nodes, place_all

Status = Literal["passed", "failed", "error"]
Ranking = tuple[tuple[str, ...], ...]
FLOAT_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Step:
    """One placement of a sequence: where the pod went and whether a tie decided it.

    ``identical``: the tied nodes were indistinguishable at that moment (same allocatable,
    same pods), so the other choice would give the same run with their names swapped.
    """

    index: int
    node: str | None
    tied_with: tuple[str, ...] = ()
    identical: bool = False


@dataclass(frozen=True)
class CaseResult:
    """The outcome of one case, with everything a reporter or ``explain`` shows."""

    file: str
    case: str
    status: Status
    message: str = ""
    nodes: tuple[NodeScore, ...] = ()
    ranking: Ranking = ()
    placements: Mapping[str, int] | None = None
    pending: int | None = None
    steps: tuple[Step, ...] = ()
    findings: tuple[Finding, ...] = ()
    line: int = 1
    utilisation: Mapping[str, Mapping[str, tuple[int, int]]] = field(default_factory=dict)
    not_modelled: tuple[str, ...] = ()
    corrections: tuple[str, ...] = ()
    """How the scheduler loaded the config differently from how it is written."""

    @property
    def nodes_used(self) -> int:
        return sum(1 for count in (self.placements or {}).values() if count)


def rank(scores: Sequence[NodeScore]) -> Ranking:
    """Feasible nodes best first, nodes with equal totals grouped (in fixture order)."""
    groups: dict[float, list[str]] = {}
    for score in scores:
        if score.feasible:
            groups.setdefault(score.total, []).append(score.name)
    return tuple(tuple(groups[total]) for total in sorted(groups, reverse=True))


def expand_pods(entries: Sequence[Any], where: str) -> list[Pod]:
    """Incoming pod entries (short or full form, ``count`` expanded) as pods, with the
    API server's defaulting of requests from limits."""
    return [
        pod
        for entry in entries
        for pod in pods_from_dict(entry, default_requests_from_limits=True, where=where)
    ]


def cluster_nodes(fixture: Fixture) -> list[Node] | None:
    """The fixture's nodes, built once for all its cases; ``None`` when a node does not
    parse (each case then reports the error)."""
    try:
        return build_nodes((spec.name, spec.spec) for spec in fixture.nodes)
    except (ClusterSpecError, QuantityError):
        return None


def run_case(
    fixture: Fixture,
    case: Case,
    scheduler: Scheduler,
    findings: Sequence[Finding] = (),
    nodes: Sequence[Node] | None = None,
) -> CaseResult:
    """Run one case against a fresh cluster built from the fixture (from ``nodes`` when
    given: they are immutable, and every case starts from the same ones)."""
    result = CaseResult(
        fixture.document.path,
        case.name,
        "passed",
        line=fixture.document.position(case.node).line,
        findings=tuple(findings),
        not_modelled=scheduler.not_modelled,
        corrections=scheduler.corrections,
    )
    try:
        if nodes is None:
            nodes = build_nodes((spec.name, spec.spec) for spec in fixture.nodes)
        pods = expand_pods(case.pods, f"case `{case.name}`")
    except (ClusterSpecError, QuantityError) as error:
        return replace(result, status="error", message=str(error))
    state = scheduler.cluster(nodes)
    if not case.sequence:
        scores = state.score(pods[0])
        ranking = rank(scores)
        problems = list(_ranking_problems(case.expect, scores, ranking, scheduler, case))
        return replace(
            result,
            status="failed" if problems else "passed",
            message="\n".join(problems),
            nodes=tuple(scores),
            ranking=ranking,
        )
    sequence, first_scores = place_sequence(state, nodes, pods)
    problems = list(_sequence_problems(case, sequence))
    return replace(
        result,
        status="failed" if problems else "passed",
        message="\n".join(problems),
        nodes=tuple(first_scores),
        ranking=rank(first_scores),
        placements=sequence.placements,
        pending=sequence.pending,
        steps=sequence.steps,
        utilisation=state.utilisation(),
    )


@dataclass(frozen=True)
class Placement:
    """Where a sequence of pods went: pods per node (every node, in cluster order), the
    pods left pending, and each placement as a step (with the ties that decided it)."""

    placements: Mapping[str, int]
    pending: int
    steps: tuple[Step, ...]

    @property
    def nodes_used(self) -> int:
        return sum(1 for count in self.placements.values() if count)


def place_sequence(
    state: ClusterState, nodes: Sequence[Node], pods: Sequence[Pod]
) -> tuple[Placement, list[NodeScore]]:
    """Place ``pods`` one by one into ``state`` (built from ``nodes``): filter, score,
    bind, ties broken in cluster order; also the first pod's scores on every node."""
    choices, first_scores = place_all(state, pods)  # incremental, equal to rank() each step
    steps = _steps(nodes, pods, choices)
    placements = {node.name: 0 for node in nodes}
    for step in steps:
        if step.node is not None:
            placements[step.node] += 1
    pending = sum(1 for step in steps if step.node is None)
    return Placement(placements, pending, tuple(steps)), first_scores


def _steps(nodes: Sequence[Node], pods: Sequence[Pod], choices: Sequence[Choice]) -> list[Step]:
    """The choices as steps, each tie marked ``identical`` or not (replaying the binds;
    pod names are left out: no scorer reads them)."""
    allocatable = {node.name: node.allocatable for node in nodes}
    bound = {node.name: Counter(replace(p, name="") for p in node.pods) for node in nodes}
    steps = []
    for index, (pod, (node, tied)) in enumerate(zip(pods, choices, strict=True)):
        if node is None:  # pending: nothing tied, nothing bound
            steps.append(Step(index, node))
            continue
        identical = bool(tied) and all(
            allocatable[other] == allocatable[node] and bound[other] == bound[node]
            for other in tied
        )
        steps.append(Step(index, node, tied, identical))
        bound[node][replace(pod, name="")] += 1
    return steps


def error_result(
    fixture_path: str, case: str, message: str, line: int = 1, findings: Sequence[Finding] = ()
) -> CaseResult:
    """A case that could not run (bad config, missing file, invalid fixture)."""
    return CaseResult(fixture_path, case, "error", message, line=line, findings=tuple(findings))


def _ranking_problems(
    expect: Expectation,
    scores: Sequence[NodeScore],
    ranking: Ranking,
    scheduler: Scheduler,
    case: Case,
) -> Iterator[str]:
    by_name = {score.name: score for score in scores}
    if expect.ranking is not None and not _ranking_matches(expect.ranking, ranking):
        yield (
            f"ranking: expected {format_ranking(expect.ranking)}, "
            f"got {format_ranking(ranking[: max(len(expect.ranking), 1)])}"
        )
    if expect.top is not None:
        top = ranking[0] if ranking else ()
        if expect.top not in top:
            yield f"top: expected {expect.top}, got {format_ranking(top[:1] and (top,)) or 'none'}"
        elif len(top) > 1 and not case.ties_allowed:
            yield (
                f"top: {expect.top} ties with {', '.join(n for n in top if n != expect.top)}; "
                "the scheduler picks one of them at random (set `ties: allow` to accept)"
            )
    tolerance = _tolerance(expect, scheduler)
    for name, wanted in expect.scores.items():
        actual = by_name[name]
        if not actual.feasible:
            yield f"scores: {name} is filtered out ({actual.reason}), expected score {wanted}"
        elif not close_enough(actual.total, wanted, tolerance):
            yield f"scores: {name} expected {wanted}, got {format_score(actual.total)}"
    for name, plugins in expect.plugins.items():
        actual = by_name[name]
        for plugin, wanted in plugins.items():
            got = actual.plugins.get(plugin)
            if got is None:
                yield (
                    f"plugins: {name} has no {plugin} score "
                    f"(scored: {', '.join(actual.plugins) or 'none'})"
                )
            elif not close_enough(got, wanted, tolerance):
                yield f"plugins: {name} {plugin} expected {wanted}, got {format_score(got)}"
    if expect.unschedulable is not None:
        actual_out = sorted(score.name for score in scores if not score.feasible)
        if sorted(expect.unschedulable) != actual_out:
            yield (
                f"unschedulable: expected [{', '.join(sorted(expect.unschedulable))}], "
                f"got [{', '.join(actual_out)}]"
            )


def _sequence_problems(case: Case, sequence: Placement) -> Iterator[str]:
    expect = case.expect
    if expect.placements is not None:
        got = {name: count for name, count in sequence.placements.items() if count}
        wanted = {name: count for name, count in expect.placements.items() if count}
        if got != wanted:
            yield f"placements: expected {_counts(wanted)}, got {_counts(got)}"
    if expect.nodes_used is not None and expect.nodes_used != sequence.nodes_used:
        yield f"nodesUsed: expected {expect.nodes_used}, got {sequence.nodes_used}"
    if expect.pending is not None and expect.pending != sequence.pending:
        yield f"pending: expected {expect.pending}, got {sequence.pending}"
    if not case.ties_allowed:
        deciding = _deciding_ties(expect, sequence.placements, sequence.steps)
        if deciding:
            first = deciding[0]
            yield (
                f"ties: {len(deciding)} of {len(sequence.steps)} placements were decided by a tie "
                f"that this expectation depends on (first: pod {first.index + 1} went to "
                f"{first.node}, tied with {', '.join(first.tied_with)}); the real scheduler "
                "picks at random, so this outcome is not guaranteed (set `ties: allow` to "
                "accept)"
            )


def _deciding_ties(
    expect: Expectation, placements: Mapping[str, int], steps: Sequence[Step]
) -> list[Step]:
    """The tie steps whose other choice could change what ``expect`` checks.

    A tie between identical nodes only swaps names for the rest of the run (every other
    outcome is the actual one under a product of such swaps), so node counts and
    pending pods stand, and per-node placements stand if the swapped nodes end with
    equal counts. A tie between different nodes can change anything.
    """
    ties = [step for step in steps if step.tied_with]
    if expect.placements is not None:
        return [
            step
            for step in ties
            if not step.identical
            or any(placements[other] != placements[step.node or ""] for other in step.tied_with)
        ]
    if expect.nodes_used is not None or expect.pending is not None:
        return [step for step in ties if not step.identical]
    return []


def _ranking_matches(expected: RankingSpec, actual: Ranking) -> bool:
    """Expected groups equal the first ``len(expected)`` actual groups (order within a tie free)."""
    if len(expected) > len(actual):
        return False
    return all(set(e) == set(a) for e, a in zip(expected, actual[: len(expected)], strict=True))


def _tolerance(expect: Expectation, scheduler: Scheduler) -> float:
    if expect.tolerance is not None:
        return expect.tolerance
    return 0.0 if scheduler.integer_scores else FLOAT_TOLERANCE


def close_enough(actual: float, wanted: float, tolerance: float) -> bool:
    """An expected score matches: within ``tolerance`` (absolute), or exactly equal."""
    return math.isclose(actual, wanted, rel_tol=0.0, abs_tol=tolerance) or actual == wanted


def _counts(counts: Mapping[str, int]) -> str:
    return "{" + ", ".join(f"{name}: {count}" for name, count in sorted(counts.items())) + "}"


def format_ranking(ranking: Sequence[Sequence[str]]) -> str:
    """``[node-a, [node-b, node-c]]``: the fixture's own notation."""
    parts = [group[0] if len(group) == 1 else f"[{', '.join(group)}]" for group in ranking]
    return f"[{', '.join(parts)}]"


def plain_number(value: float) -> float | int:
    """A score as JSON and YAML should show it: integral values as integers."""
    return int(value) if float(value).is_integer() else value


def format_score(value: float) -> str:
    """Integers as integers; floats with enough digits to tell neighbours apart."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.10g}"
