"""Scoring many nodes without repeating work: verdicts shared by nodes in equal states.

A node's verdict for a pod (filtered out and why, or its total and per-plugin scores)
is a function of the pod and of what the scorers read from the node: its accounting
(allocatable, what its pods request, how many pods) and, for the pod filters, its
taints, cordon and labels. A cluster repeats a few node types carrying a few pod
shapes, so many nodes are in equal states. The clusters therefore

- key every node by its accounting (:func:`kube_key`, :func:`volcano_key`), once when
  the cluster is built and again when a pod is bound to it;
- compute a verdict once per key for each pod, and only for nodes no pod filter can
  tell apart by anything but the key (no filtering taint, no cordon; a pod without
  selector or required node affinity, whatever its tolerations): every other node is
  scored on its own;
- return the verdicts as :class:`Scores`, which makes a node's
  :class:`~policytest.scoring.protocol.NodeScore` only when it is read (ranking reads
  totals, a report shows a few nodes).

Nothing is rounded or reordered: a shared verdict is the tuple the scalar path made for
the first node with that key, and it would have made the same tuple for the others
(``tests/scoring/test_verdicts.py`` checks this against scoring each node on its own).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterator, Mapping, Sequence
from typing import Final, cast, overload

from policytest.scoring.accounting import KubeNodeInfo, VolcanoNodeInfo
from policytest.scoring.protocol import BalanceDetail, NodeScore, ResourceDetail

__all__ = [
    "INFEASIBLE",
    "MEMO_LIMIT",
    "KeyTable",
    "Scores",
    "Verdict",
    "every_verdict",
    "filtered",
    "kube_key",
    "one_verdict",
    "verdicts_around",
    "volcano_key",
]

INFEASIBLE: Final = float("-inf")
"""The total a sequence ranks a node the pod does not fit at (below every node)."""

Verdict = tuple[
    bool,
    "str | None",
    float,
    Mapping[str, float],
    Mapping[str, tuple[ResourceDetail, ...]],
    Mapping[str, Mapping[str, float]],
    Mapping[str, BalanceDetail],
]
"""A ``NodeScore`` without its name: feasible, reason, total, plugins, resources,
parts, balance."""

MEMO_LIMIT: Final = 1 << 16
"""Verdicts kept per pod before the memo starts afresh (bounds memory on long sequences)."""


class KeyTable:
    """Node keys as small integers (a tuple does not keep its hash; an int is its own)."""

    __slots__ = ("ids",)

    def __init__(self) -> None:
        self.ids: dict[Hashable, int] = {}

    def __call__(self, key: Hashable) -> int:
        ids = self.ids
        found = ids.get(key)
        if found is None:
            found = ids[key] = len(ids)
        return found


def every_verdict(
    names: list[str],
    keys: list[int],
    guarded: frozenset[str],
    guarded_at: list[int],
    memo: dict[int, Verdict],
    plain: Callable[[str], Verdict],
    own: Callable[[str], Verdict],
) -> list[Verdict]:
    """Each node's verdict in cluster order (``keys[i]`` is ``names[i]``'s key): ``own``
    for the ``guarded`` nodes (at positions ``guarded_at``), which a filter may keep the
    pod off; ``plain`` once per key not in ``memo`` for the others, shared by the nodes
    with that key. The memo is kept for the pod's next scoring only when nodes share
    states (at most one key for every two nodes)."""
    missing = set(keys).difference(memo)
    if missing:
        if len(memo) + len(missing) > MEMO_LIMIT:
            memo.clear()
            missing = set(keys)
        for name, key in zip(names, keys, strict=True):
            if key in missing and name not in guarded:
                memo[key] = plain(name)
                missing.discard(key)
                if not missing:
                    break
    # a key left missing belongs to guarded nodes only, each of them replaced below
    verdicts = cast(list[Verdict], list(map(memo.get, keys)))
    for index in guarded_at:
        verdicts[index] = own(names[index])
    if len(memo) > len(keys) // 2:
        memo.clear()  # few nodes share a state: keeping the verdicts would save little
    return verdicts


def verdicts_around(
    fixed: list[Verdict | None],
    open_at: list[int],
    names: list[str],
    keys: Mapping[str, int],
    memo: dict[int, Verdict],
    plain: Callable[[str], Verdict],
) -> list[Verdict]:
    """Each node's verdict in cluster order: ``fixed``'s where it has one (the nodes a
    pod's placement keeps it off), and at the positions ``open_at`` the node state's
    (``plain`` once per key not in ``memo``): a pod that fits a few nodes of a big
    cluster costs those few."""
    verdicts = fixed.copy()
    for index in open_at:
        verdicts[index] = one_verdict(names[index], keys, _NO_NODES, memo, plain, plain)
    return cast(list[Verdict], verdicts)


_NO_NODES: Final = frozenset[str]()


def node_scores(
    order: Collection[str],
    only: Sequence[str] | None,
    keys: Mapping[str, int],
    guarded: frozenset[str] | None,
    guarded_at: list[int],
    memo: dict[int, Verdict] | None,
    plain: Callable[[str], Verdict],
    own: Callable[[str], Verdict],
) -> Scores:
    """The pod's scores on the nodes ``only`` (default: every node, in cluster ``order``;
    rescoring one node in a sequence must not copy the order of them all).

    Without ``guarded`` or ``memo`` (a pod the filters may keep off plain nodes, or
    sharing switched off) every node is scored on its own; otherwise plain nodes share
    the verdict of their key (:func:`every_verdict` for a whole cluster)."""
    if only is None and guarded is not None and memo is not None:
        every = list(order)
        shared = every_verdict(
            every, [keys[name] for name in every], guarded, guarded_at, memo, plain, own
        )
        return Scores(every, shared)
    names = list(order if only is None else only)
    return Scores(names, [one_verdict(name, keys, guarded, memo, plain, own) for name in names])


def one_verdict(
    name: str,
    keys: Mapping[str, int],
    guarded: frozenset[str] | None,
    memo: dict[int, Verdict] | None,
    plain: Callable[[str], Verdict],
    own: Callable[[str], Verdict],
) -> Verdict:
    """The pod's verdict on node ``name`` alone: ``own`` on a guarded node (or on every
    node without ``guarded``), else its key's (``plain`` once per key with ``memo``)."""
    if guarded is None or name in guarded:
        return own(name)
    if memo is None:
        return plain(name)
    key = keys[name]
    verdict = memo.get(key)
    if verdict is None:
        if len(memo) >= MEMO_LIMIT:
            memo.clear()
        verdict = memo[key] = plain(name)
    return verdict


def filtered(reason: str) -> Verdict:
    """The verdict of a node the filters keep the pod off."""
    return (False, reason, 0, {}, {}, {}, {})


def kube_key(info: KubeNodeInfo) -> Hashable:
    """Everything kube-scheduler's resource filter and scorers read from a node."""
    return (
        tuple(info.allocatable.items()),
        tuple(info.requested.items()),
        tuple(info.non_zero_requested.items()),
        info.pod_count,
        info.allowed_pod_number,
    )


def volcano_key(info: VolcanoNodeInfo, kube: KubeNodeInfo | None) -> Hashable:
    """Everything Volcano's fit check and node-order functions read from a node (the kube
    view too when nodeorder scores: its per-pod rounding differs from Volcano's)."""
    return (
        tuple(info.allocatable.items()),
        tuple(info.used.items()),
        info.pod_count,
        info.max_task_num,
        None if kube is None else kube_key(kube),
    )


class Scores(Sequence[NodeScore]):
    """Every node's verdict for one pod, in cluster order; a ``NodeScore`` is made when
    read. Equal to any sequence of equal ``NodeScore`` objects (a list, a tuple)."""

    __slots__ = ("names", "notes", "verdicts")

    def __init__(
        self,
        names: list[str],
        verdicts: list[Verdict],
        notes: Callable[[str], Mapping[str, str]] | None = None,
    ) -> None:
        self.names = names
        self.verdicts = verdicts
        self.notes = notes
        """Each feasible node's notes (``NodeScore.notes``), by node name."""

    def _node(self, name: str, verdict: Verdict) -> NodeScore:
        if self.notes is None or not verdict[0]:
            return NodeScore(name, *verdict)
        return NodeScore(name, *verdict, notes=self.notes(name))

    def __len__(self) -> int:
        return len(self.names)

    @overload
    def __getitem__(self, index: int) -> NodeScore: ...
    @overload
    def __getitem__(self, index: slice) -> list[NodeScore]: ...
    def __getitem__(self, index: int | slice) -> NodeScore | list[NodeScore]:
        if isinstance(index, slice):
            return [
                self._node(name, verdict)
                for name, verdict in zip(self.names[index], self.verdicts[index], strict=True)
            ]
        return self._node(self.names[index], self.verdicts[index])

    def __iter__(self) -> Iterator[NodeScore]:
        for name, verdict in zip(self.names, self.verdicts, strict=True):
            yield self._node(name, verdict)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Scores({list(self)!r})"

    def ranked(self) -> tuple[tuple[str, ...], ...]:
        """Feasible nodes best first, equal totals grouped in cluster order (what
        ``policytest.harness.runner.rank`` makes of the ``NodeScore`` objects)."""
        groups: dict[float, list[str]] = {}
        for name, verdict in zip(self.names, self.verdicts, strict=True):
            if verdict[0]:
                total = verdict[2]
                group = groups.get(total)
                if group is None:
                    groups[total] = [name]
                else:
                    group.append(name)
        return tuple(tuple(groups[total]) for total in sorted(groups, reverse=True))
