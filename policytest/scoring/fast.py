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
- :class:`SessionTotals` keeps the kinds of a Volcano session, which binds and takes back
  pods (a discarded gang) and switches kinds at every job: a kind is brought up to date
  from the nodes changed since it was last used, when it is used again.

Pods that differ only in what no verdict reads (a name; labels no topology plugin reads)
are one kind (the cluster's ``kind_key``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Final, Protocol, runtime_checkable

from policytest.scoring.cluster import Node, Pod
from policytest.scoring.protocol import ClusterState, NodeScore
from policytest.scoring.specs import node_from_dict, pods_of_entry
from policytest.scoring.spreading_sequence import (
    CycleScoring,
    Ranked,
    Spreading,
    SpreadingKind,
    spreading_only,
)
from policytest.scoring.verdicts import INFEASIBLE, Scores, Verdict

__all__ = ["Choice", "SessionTotals", "TopologyVersion", "build_nodes", "place_all"]

Choice = tuple[str | None, tuple[str, ...]]
"""Where one pod went (``None``: pending) and the nodes it tied with."""

MAX_KINDS: Final = 16
"""Pod kinds whose per-node totals are kept at once (each costs a float per node)."""
_UNASKED: Final = object()
"""A kind not yet asked whether its binds are local."""
_KEYS_KEPT: Final = 1 << 16
"""Pod objects whose kind is remembered (then forgotten all at once)."""


def build_nodes(specs: Iterable[tuple[str, Mapping[str, Any]]]) -> list[Node]:
    """``node_from_dict(spec, default_requests_from_limits=True, where=name)`` for every
    ``(name, spec)``, parsing each distinct pod description once (same errors too)."""
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
            pods.extend(pods_of_entry(entry, f"{name}.pods[{index}]"))
        nodes.append(replace(node, pods=tuple(pods)))
    return nodes


@runtime_checkable
class KeptScoring(Protocol):
    """A cluster that rescores a bound node from a kind's earlier verdict there."""

    def kept_total(self, pod: Pod, name: str, kept: Verdict) -> float | None: ...


@runtime_checkable
class KindKeys(Protocol):
    """A cluster that knows what of a pod its verdicts read (its labels or not)."""

    def kind_key(self, pod: Pod) -> Pod: ...


@runtime_checkable
class TopologyVersion(Protocol):
    """A cluster whose topology plugins' view counts what can move a pod's scores on
    nodes it was not bound to (``ClusterView.version``; ``None``: no such plugins)."""

    @property
    def topology_version(self) -> object: ...


class _Kind:
    """One pod kind's totals: per node (cluster order), and ranked by value; ``kept``:
    its verdicts from the full scoring, whose topology part a bind leaves as it is."""

    def __init__(
        self, pod: Pod, totals: list[float], kept: Sequence[Verdict] | None = None
    ) -> None:
        self.pod = pod
        """The pod the kind was scored for (the key it is kept under: the clusters
        remember their set-up per pod object)."""
        self.totals = totals
        self.kept = kept
        self.seen = 0
        """How many node changes of a session's log the totals include."""
        self.version: object = None
        """The topology plugins' view version the totals were last brought up to."""
        self.local_at: object = _UNASKED
        """The view version at which the kind's binds were last found local (the answer
        holds while it stays, for a pod without affinity terms: ``binds_locally``)."""
        self.ranked = Ranked.of(totals, INFEASIBLE)

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

    def first_best(self) -> list[int]:
        """The first two of :meth:`best` (a tie is told without listing every tied node)."""
        return self.ranked.lowest(self.ranked.top()) if self.ranked else []


class _Totals:
    """Kept pod kinds (the most recently used ones), the cluster's node order and the
    nodes bound so far (by position), from which a spreading kind catches up."""

    def __init__(self, state: ClusterState, max_kinds: int) -> None:
        self.state = state
        self.cycles = state if isinstance(state, CycleScoring) else None
        self.kept = state if isinstance(state, KeptScoring) else None
        self.keys = state if isinstance(state, KindKeys) else None
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
        self.versioned = state if isinstance(state, TopologyVersion) else None
        self.keyed: dict[int, tuple[Pod, object, Pod]] = {}
        """Per pod object placed: the pod (kept, so that its id is not reused), the
        topology version its key was made at (a key may keep labels once bound pods
        can read them), and its key."""
        self.canonical: dict[Pod, Pod] = {}
        """One key object per kind, so that a kind is found by identity: a repack's pods
        are a few thousand objects of a few hundred kinds, and every other lookup
        compared two equal pods field by field."""

    def of(self, pod: Pod) -> tuple[_Kind | SpreadingKind, Sequence[NodeScore] | None]:
        """The kind of ``pod``, and the full scores when they had to be computed."""
        last = self.last
        kept: _Kind | SpreadingKind | None
        if last is not None and last[0] is pod:
            _, key, kept = last
        else:
            key = self._key(pod)
            kept = self.kinds.get(key)
        if kept is not None:
            if self._current(kept):
                if last is None or last[2] is not kept:  # to the end: the last used
                    self.kinds[key] = self.kinds.pop(key)
                self.last = (pod, key, kept)
                return kept, None
            self._forget(key)
        scores, spreading = self._score(key)
        if not self.names:
            self.names = (
                list(scores.names)
                if isinstance(scores, Scores)
                else [score.name for score in scores]
            )
            self.index = {name: i for i, name in enumerate(self.names)}
        kind: _Kind | SpreadingKind
        if self.cycles is not None and spreading is not None and isinstance(scores, Scores):
            kind = SpreadingKind(self.cycles, key, scores, spreading, len(self.binds))
        else:
            verdicts = scores.verdicts if isinstance(scores, Scores) and self.kept else None
            kind = _Kind(key, _totals(scores), verdicts)
        self._new(kind)
        self.kinds[key] = kind
        self.last = (pod, key, kind)
        if len(self.kinds) > self.max_kinds:
            self._forget(next(iter(self.kinds)))
        return kind, scores

    def _current(self, kind: _Kind | SpreadingKind) -> bool:
        """Bring a kept kind up to date; ``False``: it cannot be, score it again. A
        plain kind is kept up to date at every bind."""
        return isinstance(kind, _Kind) or kind.catch_up(self.binds)

    def _key(self, pod: Pod) -> Pod:
        """The kind ``pod`` is of: the pod without what no verdict of it reads (its name:
        a snapshot's pending pods all have one), as the one object that stands for it."""
        version = self._version()
        known = self.keyed.get(id(pod))
        if known is not None and known[0] is pod and known[1] == version:
            return known[2]
        if self.keys is not None:
            made = self.keys.kind_key(pod)
        else:
            made = replace(pod, name="") if pod.name else pod
        if len(self.keyed) >= _KEYS_KEPT:
            self.keyed.clear()
            self.canonical.clear()
        key = self.canonical.setdefault(made, made)
        self.keyed[id(pod)] = (pod, version, key)
        return key

    def _version(self) -> object:
        return None if self.versioned is None else self.versioned.topology_version

    def _new(self, kind: _Kind | SpreadingKind) -> None:
        """A kind just scored on every node (a session marks what it includes)."""

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
        quadratic in its kinds. A node a kind could not go to stays so: the filters of a
        kind whose binds are local read of a node only what binds add to (requests, pod
        count, ports) and what never changes (labels, taints, cordon), so it is not
        rescored (a repack keeps many kinds that fit a zone or a single node)."""
        position = self.index[name]
        self.binds.append(position)
        version = self._version()
        for pod, kind in list(self.kinds.items()):
            if isinstance(kind, SpreadingKind):
                continue
            if kind.local_at != version:  # asked once per version, not after every bind
                if not self.state.local_binds(pod):
                    self._forget(pod)
                    continue
                if not pod.workload.affinity.any:
                    kind.local_at = version
            if kind.totals[position] != INFEASIBLE:
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
    """Kept pod kinds for a Volcano session, brought up to date when next used.

    A session switches kinds at every job, and binds and takes back (a discarded
    statement) many pods between two uses of a kind: a plain kind keeps the log
    position it was scored up to and, when used again, rescores each node changed
    since once (binpacking fills few nodes, so far fewer than the binds). A kind whose
    scores a change could have moved elsewhere (the view's version moved, or its binds
    are not local) is scored again on every node; a spreading kind catches up from the
    binds alone, so a node that lost pods forgets it."""

    def __init__(self, state: ClusterState) -> None:
        super().__init__(state, MAX_KINDS)
        self.changes: list[int] = []
        """Positions of the nodes whose pods changed, in order (a bind or an undo)."""

    def bound(self, name: str) -> None:
        """``name`` gained a pod: logged for the kinds to catch up when next used."""
        position = self.index.get(name)
        if position is None:  # nothing scored yet
            return
        self.binds.append(position)
        self.changes.append(position)

    def changed(self, name: str) -> None:
        """``name`` lost pods: logged, and every spreading kind forgotten."""
        position = self.index.get(name)
        if position is None:
            return
        self.changes.append(position)
        for pod, kind in list(self.kinds.items()):
            if isinstance(kind, SpreadingKind):
                self._forget(pod)

    def _new(self, kind: _Kind | SpreadingKind) -> None:
        if isinstance(kind, _Kind):
            kind.seen = len(self.changes)
            kind.version = self._version()

    def _current(self, kind: _Kind | SpreadingKind) -> bool:
        if isinstance(kind, SpreadingKind):
            return kind.catch_up(self.binds)
        if kind.seen == len(self.changes):
            return True
        if kind.version != self._version() or not self.state.local_binds(kind.pod):
            return False
        names = self.names
        for position in set(self.changes[kind.seen :]):
            kind.set(position, self._rescored(kind.pod, kind, names[position], position))
        kind.seen = len(self.changes)
        return True


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
    ties: bool = True,
) -> tuple[list[Choice], Sequence[NodeScore]]:
    """Place ``pods`` one by one (filter, score, bind the best; ties to the first node in
    cluster order). Returns each pod's choice and the first pod's full scores.
    ``progress`` is called with the number of pods placed so far. ``ties``: name every
    node a choice tied with; ``False``: only the first (what tells that a tie decided
    it: a big cluster ties a pod with hundreds of nodes, and listing them all took an
    eighth of a repack)."""
    cache = _Totals(state, max_kinds)
    choices: list[Choice] = []
    first: Sequence[NodeScore] = []
    for count, pod in enumerate(pods, 1):
        kind, scores = cache.of(pod)
        if count == 1 and scores is not None:
            first = scores
        best = kind.best() if ties else kind.first_best()
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
