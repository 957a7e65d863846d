"""Fast paths for big clusters and long sequences, exactly equal to the reference path.

Nothing here scores differently: every number still comes from the scalar scorers
behind :class:`~policytest.scoring.protocol.ClusterState`. What is saved is repeated work:

- :func:`build_nodes` parses each distinct bound-pod description once. A cluster dump
  repeats a few deployment shapes thousands of times; the reference builds the same
  ``Pod`` again for every line.
- :func:`place_all` places a sequence incrementally. Binding a pod changes only the
  chosen node, so each pod kind's per-node totals are kept (for the few most recent
  kinds) and only the bound node is rescored; the best node and its ties come from a
  heap of totals instead of building and ranking a ``NodeScore`` per node.
  Ties are broken exactly as :func:`policytest.harness.runner.rank` orders them (cluster order).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Final, Protocol, runtime_checkable

from policytest.scoring.cluster import Node, Pod
from policytest.scoring.protocol import ClusterState, NodeScore
from policytest.scoring.specs import node_from_dict, pod_shape_key, pods_from_dict
from policytest.scoring.spreading_sequence import (
    CycleScoring,
    Ranked,
    Spreading,
    SpreadingKind,
    spreading_only,
)
from policytest.scoring.verdicts import INFEASIBLE, Scores, Verdict

__all__ = ["Choice", "SessionTotals", "build_nodes", "place_all"]

Choice = tuple[str | None, tuple[str, ...]]
"""Where one pod went (``None``: pending) and the nodes it tied with."""

MAX_KINDS: Final = 16
"""Pod kinds whose per-node totals are kept at once (each costs a float per node)."""


def build_nodes(specs: Iterable[tuple[str, Mapping[str, Any]]]) -> list[Node]:
    """``node_from_dict(spec, default_requests_from_limits=True, where=name)`` for every
    ``(name, spec)``, parsing each distinct pod description once (same errors too)."""
    cache: dict[object, tuple[Pod, ...]] = {}
    nodes = []
    for name, spec in specs:
        entries = spec.get("pods") if isinstance(spec, Mapping) else None
        if not isinstance(entries, list) or not entries:
            nodes.append(node_from_dict(spec, default_requests_from_limits=True, where=name))
            continue
        bare = {key: value for key, value in spec.items() if key != "pods"}
        node = node_from_dict(bare, default_requests_from_limits=True, where=name)
        pods = list(node.pods)
        for index, entry in enumerate(entries):
            key = pod_shape_key(entry)
            parsed = cache.get(key)
            if parsed is None:
                parsed = pods_from_dict(
                    entry, default_requests_from_limits=True, where=f"{name}.pods[{index}]"
                )
                cache[key] = parsed
            pods.extend(parsed)
        nodes.append(replace(node, pods=tuple(pods)))
    return nodes


@runtime_checkable
class KeptScoring(Protocol):
    """A cluster that rescores a bound node from a kind's earlier verdict there."""

    def kept_total(self, pod: Pod, name: str, kept: Verdict) -> float | None: ...


class _Kind:
    """One pod kind's totals: per node (cluster order), and ranked by value; ``kept``:
    its verdicts from the full scoring, whose topology part a bind leaves as it is."""

    def __init__(self, totals: list[float], kept: Sequence[Verdict] | None = None) -> None:
        self.totals = totals
        self.kept = kept
        self.ranked = Ranked()
        for index, total in enumerate(totals):
            if total != INFEASIBLE:
                self.ranked.add(index, total)

    def set(self, index: int, total: float) -> None:
        old = self.totals[index]
        if old == total:
            return
        self.totals[index] = total
        if old != INFEASIBLE:
            self.ranked.remove(index, old)
        if total != INFEASIBLE:
            self.ranked.add(index, total)

    def best(self) -> list[int]:
        """The feasible nodes with the highest total, in cluster order (empty: none)."""
        return sorted(self.ranked.members[self.ranked.top()]) if self.ranked else []


class _Totals:
    """Kept pod kinds (the most recently used ones), the cluster's node order and the
    nodes bound so far (by position), from which a spreading kind catches up."""

    def __init__(self, state: ClusterState, max_kinds: int) -> None:
        self.state = state
        self.cycles = state if isinstance(state, CycleScoring) else None
        self.kept = state if isinstance(state, KeptScoring) else None
        self.max_kinds = max_kinds
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        self.kinds: dict[Pod, _Kind | SpreadingKind] = {}
        """In order of use, the last used last. A plain dict: walking an ``OrderedDict``
        hashes each key again, and a pod's hash walks its whole description."""
        self.last: tuple[Pod, Pod, _Kind | SpreadingKind] | None = None
        """The kind used last: the pod object it was used for (a sequence repeats one
        object ``count`` times: the same object needs no lookup), its key, the kind."""
        self.binds: list[int] = []

    def of(self, pod: Pod) -> tuple[_Kind | SpreadingKind, Sequence[NodeScore] | None]:
        """The kind of ``pod``, and the full scores when they had to be computed."""
        last = self.last
        kept: _Kind | SpreadingKind | None
        if last is not None and last[0] is pod:
            _, key, kept = last
        else:  # no scorer reads a pod's name: a snapshot's pending pods all have one
            key = replace(pod, name="") if pod.name else pod
            kept = self.kinds.get(key)
        if kept is not None:
            if isinstance(kept, _Kind) or kept.catch_up(pod, self.binds):
                if last is None or last[2] is not kept:  # to the end: the last used
                    self.kinds[key] = self.kinds.pop(key)
                self.last = (pod, key, kept)
                return kept, None
            self._forget(key)
        scores, spreading = self._score(pod)
        if not self.names:
            self.names = (
                list(scores.names)
                if isinstance(scores, Scores)
                else [score.name for score in scores]
            )
            self.index = {name: i for i, name in enumerate(self.names)}
        kind: _Kind | SpreadingKind
        if self.cycles is not None and spreading is not None and isinstance(scores, Scores):
            kind = SpreadingKind(self.cycles, scores, spreading, len(self.binds))
        else:
            verdicts = scores.verdicts if isinstance(scores, Scores) and self.kept else None
            kind = _Kind(_totals(scores), verdicts)
        self.kinds[key] = kind
        self.last = (pod, key, kind)
        if len(self.kinds) > self.max_kinds:
            self._forget(next(iter(self.kinds)))
        return kind, scores

    def _forget(self, pod: Pod) -> None:
        kind = self.kinds.pop(pod)
        if self.last is not None and self.last[2] is kind:
            self.last = None

    def _score(self, pod: Pod) -> tuple[Sequence[NodeScore], Spreading | None]:
        """``pod`` scored on every node, and its spreading state if binds move its
        scores elsewhere through PodTopologySpread's score only."""
        if self.cycles is None:
            return self.state.score(pod), None
        scores, cycle = self.cycles.score_cycle(pod)
        return scores, None if cycle is None else spreading_only(cycle, scores)

    def bound(self, name: str) -> None:
        """``name`` changed: rescore it for every kept pod kind. A spreading kind catches
        up when it is next placed; another kind whose scores on other nodes a bind can
        move (affinity) is forgotten, and scored on every node when it is next placed:
        rescoring each such kind in full after every bind made a sequence of Deployments
        quadratic in its kinds."""
        position = self.index[name]
        self.binds.append(position)
        for pod, kind in list(self.kinds.items()):
            if isinstance(kind, SpreadingKind):
                continue
            if not self.state.local_binds(pod):
                self._forget(pod)
                continue
            kind.set(position, self._rescored(pod, kind, name, position))

    def _rescored(self, pod: Pod, kind: _Kind, name: str, position: int) -> float:
        """``pod``'s total on node ``name`` after a bind there: its resource verdict
        with the topology part the bind left as it was (a pod whose topology filters
        cannot reject the node), or a one-node scoring."""
        if kind.kept is not None and self.kept is not None:
            total = self.kept.kept_total(pod, name, kind.kept[position])
            if total is not None:
                return total
        (score,) = self.state.score(pod, only=[name])
        return score.total if score.feasible else INFEASIBLE


class SessionTotals(_Totals):
    """Kept pod kinds for a Volcano session, which also takes binds back (a discarded
    statement): a node whose pods were taken off is rescored for the kinds that can be
    (a spreading kind catches up from binds alone, so it is forgotten)."""

    def __init__(self, state: ClusterState) -> None:
        super().__init__(state, MAX_KINDS)

    def changed(self, name: str) -> None:
        """``name`` lost pods: rescore it for every kept kind that allows it."""
        if not self.index:
            return
        position = self.index[name]
        for pod, kind in list(self.kinds.items()):
            if isinstance(kind, SpreadingKind) or not self.state.local_binds(pod):
                self._forget(pod)
            else:
                kind.set(position, self._rescored(pod, kind, name, position))


def _totals(scores: Sequence[NodeScore]) -> list[float]:
    """Each node's total, in cluster order (``-inf``: filtered out)."""
    if isinstance(scores, Scores):  # the same totals, without a NodeScore per node
        return [v[2] if v[0] else INFEASIBLE for v in scores.verdicts]
    return [score.total if score.feasible else INFEASIBLE for score in scores]


def place_all(
    state: ClusterState,
    pods: Sequence[Pod],
    progress: Callable[[int], None] | None = None,
    max_kinds: int = MAX_KINDS,
) -> tuple[list[Choice], Sequence[NodeScore]]:
    """Place ``pods`` one by one (filter, score, bind the best; ties to the first node in
    cluster order). Returns each pod's choice and the first pod's full scores.
    ``progress`` is called with the number of pods placed so far."""
    cache = _Totals(state, max_kinds)
    choices: list[Choice] = []
    first: Sequence[NodeScore] = []
    for count, pod in enumerate(pods, 1):
        kind, scores = cache.of(pod)
        if count == 1 and scores is not None:
            first = scores
        best = kind.best()
        if not best:
            choices.append((None, ()))
        else:
            chosen = cache.names[best[0]]
            state.bind(chosen, pod)
            cache.bound(chosen)
            choices.append((chosen, tuple(map(cache.names.__getitem__, best[1:]))))
        if progress is not None:
            progress(count)
    return choices, first
