"""Placing a sequence whose pods spread: PodTopologySpread's score kept across binds.

Under kube-scheduler's default profile every pod of a Deployment gets the system default
spreading constraints (hostname maxSkew 3, zone maxSkew 5, ``ScheduleAnyway``). Binding
such a pod moves the spreading score of every node (its domain's count, the normalising
minimum and maximum), so :mod:`policytest.scoring.fast` cannot rescore only the bound
node: scoring every node again for every pod made a sequence cost pods x nodes.

For a pod kind whose only score a bind moves on other nodes is PodTopologySpread's (no
topology filter can keep it off a node, no pod affinity scores it), a node's total is
its *static part* (every other plugin's weighted score: the resource plugins, which a
bind changes on the bound node only, and TaintToleration, NodeAffinity and ImageLocality,
which stay while the feasible nodes stay) plus the weighted spreading score. The
spreading score depends on the node only through its *group*: per constraint its own
matching pods (hostname) or its domain (any other key), or its being left out. So
:class:`SpreadingKind` keeps, per group, the nodes ranked by static part and, per
constraint, the matching pods per domain; the best node is the best of each group's
best plus the group's spreading score (:func:`~policytest.scoring.plugins.spread.raw_from_counts`
and :func:`~policytest.scoring.plugins.spread.normalized`, the formulas the full scoring
uses). kube-scheduler's totals are int64 sums, so this split is exact.

A kind is brought up to date when it is next placed, from the nodes bound since (each
rescored on its own: its resource verdict, its matching pods). A node that no longer
fits leaves its group and its domains, and the spreading weights are worked out again.
Anything else a bind can change (TaintToleration's or NodeAffinity's normalising maximum,
moved by a node leaving; a pod with affinity terms or a newly implied owner, which the
view's ``version`` counts) makes the kind be scored again on every node: exact, and
rare. Volcano keeps the full scoring: nodeorder sums its scores as floats in its own
order, so a total is not a static part plus a spreading part.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Protocol, runtime_checkable

from policytest.scoring.cluster import Pod
from policytest.scoring.filters import NODE_AFFINITY, TAINT_TOLERATION, PodFilter
from policytest.scoring.plugins import spread
from policytest.scoring.plugins.profile import INTER_POD_AFFINITY, POD_TOPOLOGY_SPREAD, PodCycle
from policytest.scoring.plugins.view import ClusterView, ViewNode
from policytest.scoring.verdicts import Scores, Verdict

__all__ = ["CycleScoring", "Ranked", "Spreading", "SpreadingKind", "spreading_only"]

Group = tuple[int | str | None, ...] | None
"""A node's spreading group: per constraint its own matching pods (hostname) or its
domain (other keys), ``None`` where it lacks the key; ``None`` for a node left out."""


@runtime_checkable
class CycleScoring(Protocol):
    """A cluster that shows the topology plugins' cycle of a full scoring (kube-scheduler)."""

    def score_cycle(
        self, pod: Pod, only: Sequence[str] | None = None
    ) -> tuple[Scores, PodCycle | None]: ...

    def resource_verdict(self, pod: Pod, name: str) -> Verdict: ...


class Ranked:
    """Indices by value, the best value found without a scan (a heap of the values, its
    stale entries skipped), and the lowest indices of a value without a scan either."""

    __slots__ = ("heap", "lows", "members")

    def __init__(self) -> None:
        self.members: dict[float, set[int]] = {}
        self.heap: list[float] = []
        self.lows: dict[float, list[int]] = {}
        """Per value whose lowest indices were asked for: a heap of its indices, stale
        entries skipped (made at the first question: most values are never the best)."""

    @classmethod
    def of(cls, values: Sequence[float], left_out: float) -> Ranked:
        """Each index of ``values`` under its value, but those of value ``left_out``:
        grouped by sorting rather than added one by one (a repack scores 833 GPU jobs on
        5,000 nodes each, and adding every node took a tenth of its placing)."""
        ranked = cls()
        kept = [index for index, value in enumerate(values) if value != left_out]
        kept.sort(key=values.__getitem__)
        for value, indices in itertools.groupby(kept, key=values.__getitem__):
            ranked.members[value] = set(indices)
        ranked.heap = [-value for value in ranked.members]
        heapq.heapify(ranked.heap)
        return ranked

    def add(self, index: int, value: float) -> None:
        group = self.members.get(value)
        if group is None:
            group = self.members[value] = set()
            heapq.heappush(self.heap, -value)
        group.add(index)
        lows = self.lows.get(value)
        if lows is not None:
            heapq.heappush(lows, index)

    def remove(self, index: int, value: float) -> None:
        group = self.members[value]
        group.discard(index)
        if not group:
            del self.members[value]
            self.lows.pop(value, None)

    def __bool__(self) -> bool:
        return bool(self.members)

    def top(self) -> float:
        """The highest value (some index must have one)."""
        while -self.heap[0] not in self.members:
            heapq.heappop(self.heap)
        return -self.heap[0]

    def lowest(self, value: float) -> list[int]:
        """The two lowest indices holding ``value`` (one when it is the only one): a big
        cluster ties a pod with hundreds of nodes, and ``min`` of them all per pod took
        a tenth of a repack."""
        group = self.members[value]
        lows = self.lows.get(value)
        if lows is None:
            lows = self.lows[value] = list(group)
            heapq.heapify(lows)
        while lows[0] not in group:
            heapq.heappop(lows)
        if len(group) == 1:
            return [lows[0]]
        first = heapq.heappop(lows)
        while lows[0] == first or lows[0] not in group:  # an index added again is twice in
            heapq.heappop(lows)
        second = lows[0]
        heapq.heappush(lows, first)
        return [first, second]


def _first_two(found: Sequence[list[int]]) -> list[int]:
    """The two lowest of disjoint groups' lowest indices (:meth:`Ranked.lowest`)."""
    return sorted(index for lowest in found for index in lowest)[:2]


@dataclass(frozen=True)
class Spreading:
    """What a full scoring leaves for keeping a kind's spreading score across binds."""

    state: spread.ScoreState
    """PodTopologySpread's PreScore state (constraints, weights, counts per domain)."""
    weight: int
    """PodTopologySpread's weight in the profile."""
    others: tuple[str, ...]
    """The other topology score plugins, whose weighted scores stay while the feasible
    nodes stay."""
    normalised: tuple[Mapping[str, int], ...]
    """The raw scores, per feasible node, of those normalised by their maximum over the
    feasible nodes (TaintToleration, NodeAffinity), where they differ between nodes."""
    pod_filter: PodFilter
    view: ClusterView


def spreading_only(cycle: PodCycle, scores: Scores) -> Spreading | None:
    """The cycle's spreading state when PodTopologySpread's score is the only thing a
    bind moves on nodes other than the bound one (``None``: not so)."""
    explained = cycle.explained
    state = explained.get(POD_TOPOLOGY_SPREAD, (None, {}))[0]
    if (
        not isinstance(state, spread.ScoreState)
        or cycle.filters_nodes  # a spreading or affinity filter, ports, a node name
        or cycle.workload.affinity.any
        or INTER_POD_AFFINITY in explained  # bound pods' terms score it
        or not any(verdict[0] for verdict in scores.verdicts)  # PreScore failed, or none fit
    ):
        return None
    weights = dict(cycle.plugins.scores)
    others = tuple(plugin for plugin in weights if plugin != POD_TOPOLOGY_SPREAD)
    normalised = tuple(
        raws
        for plugin in (TAINT_TOLERATION, NODE_AFFINITY)
        if len(raws := explained.get(plugin, (None, {}))[1]) > 1  # one: the same everywhere
    )
    return Spreading(
        state,
        weights[POD_TOPOLOGY_SPREAD],
        others,
        normalised,
        cycle.filter_of,
        cycle.view,
    )


_OFF: Final = 0
"""A node the kind did not fit when it was scored in full (it never will)."""
_LEFT_OUT: Final = 1
"""A feasible node PodTopologySpread leaves out (it lacks a key all are required)."""
_KEPT: Final = 2
"""A node PodTopologySpread scores, and whose matching pods count in its domains."""


class SpreadingKind:
    """One spreading pod kind's nodes: static parts ranked within spreading groups, the
    matching pods per domain, and how far into the sequence's binds it is up to date."""

    def __init__(
        self, cluster: CycleScoring, pod: Pod, scores: Scores, spreading: Spreading, cursor: int
    ) -> None:
        self.cluster = cluster
        self.pod = pod
        """The pod the kind was scored for: its nodes are rescored for it, whichever pod of
        the kind is placed (the cluster prepares a pod's scoring once per pod object, and a
        snapshot's pods are all distinct objects)."""
        self.spreading = spreading
        self.cursor = cursor
        """The number of the sequence's binds already taken into account."""
        self.version = spreading.view.version
        state = spreading.state
        self.constraints = state.constraints
        self.weights = list(state.weights)
        self.counts = [dict(domains) for domains in state.counts]
        """Per constraint: matching pods per domain of the feasible nodes kept."""
        self.members: list[dict[str, int]] = [{} for _ in state.constraints]
        """Per constraint (not hostname): feasible nodes kept per domain."""
        self.kept = 0
        """Feasible nodes not left out."""
        self.normalisers = [(raws, Counter(raws.values())) for raws in spreading.normalised]
        """Per normalised plugin: raw score per node, how many feasible nodes have each."""
        self.status: list[int] = []
        self.static: list[float | None] = []
        """Per node (cluster order): the total without the spreading score (``None``:
        filtered out)."""
        self.others: dict[int, float] = {}
        """Per node rescored: the other topology plugins' weighted scores (the static
        part less the resource plugins'), read from ``verdicts`` when first needed."""
        self.verdicts = scores.verdicts
        self.group: list[Group] = []
        self.groups: dict[Group, Ranked] = {}
        self.raws: dict[Group, int] = {}
        """Each group's raw spreading score, while the counts and weights it was made
        of stay (a group's entry is dropped when one of its domains' counts moves)."""
        self.by_domain: dict[tuple[int, str], set[Group]] = {}
        """Per (constraint, domain): the groups in it."""
        selectors = {id(c.selector): c.selector for c in self.constraints}
        self.selectors = list(selectors.values())
        self.slots = tuple(list(selectors).index(id(c.selector)) for c in self.constraints)
        """Per constraint: its selector's position in ``selectors`` (the system default
        constraints share one: counted once)."""
        self.zeros = (0,) * len(self.constraints)
        self.nodes = [spreading.view.by_name[name] for name in scores.names]
        matching = self._matching()
        self.own = [self._own(node, matching) for node in self.nodes]
        """Per node, per constraint: its matching pods."""
        ignored = state.ignored
        for index, (node, verdict, own) in enumerate(
            zip(self.nodes, scores.verdicts, self.own, strict=True)
        ):
            if not verdict[0]:
                self.status.append(_OFF)
                self.static.append(None)
                self.group.append(None)
                continue
            static = verdict[2] - verdict[3][POD_TOPOLOGY_SPREAD]
            self.static.append(static)
            group = None
            if node.name in ignored:
                self.status.append(_LEFT_OUT)
            else:
                self.status.append(_KEPT)
                group = self._group(node.labels, own)
                self._enter(node.labels, 1)
            self.group.append(group)
            self._add(index, group, static)

    def _matching(self) -> list[Mapping[str, int]]:
        """Per selector: the matching bound pods per node name, from the view's index
        as it is now (read before the next bind, which may change them)."""
        namespace, view = self.spreading.state.namespace, self.spreading.view
        return [
            spread.matching_counts(view, selector, namespace, keep=False)
            for selector in self.selectors
        ]

    def _own(self, node: ViewNode, matching: Sequence[Mapping[str, int]]) -> tuple[int, ...]:
        """Per constraint: the node's matching pods (``countPodsMatchSelector``), from
        ``_matching`` (looked up once for all the nodes a catch-up rescores)."""
        if not node.groups:
            return self.zeros
        name = node.name
        counts = [found.get(name, 0) for found in matching]
        return tuple(map(counts.__getitem__, self.slots))

    def _group(self, labels: dict[str, str], own: tuple[int, ...]) -> Group:
        group: list[int | str | None] = []
        for c, count in zip(self.constraints, own, strict=True):
            value = labels.get(c.topology_key)
            group.append(
                None if value is None else count if c.topology_key == spread.HOSTNAME else value
            )
        return tuple(group)

    def _enter(self, labels: dict[str, str], change: int) -> None:
        """A node kept enters (1) or leaves (-1) the feasible nodes: its domains' nodes
        (``prescore``'s domains: a missing key is the domain ``""``)."""
        self.kept += change
        for c, members in zip(self.constraints, self.members, strict=True):
            if c.topology_key != spread.HOSTNAME:
                domain = labels.get(c.topology_key, "")
                members[domain] = members.get(domain, 0) + change

    def _add(self, index: int, group: Group, static: float) -> None:
        ranked = self.groups.get(group)
        if ranked is None:
            ranked = self.groups[group] = Ranked()
            for key in self._domains(group):
                self.by_domain.setdefault(key, set()).add(group)
        ranked.add(index, static)

    def _remove(self, index: int, group: Group, static: float) -> None:
        ranked = self.groups[group]
        ranked.remove(index, static)
        if not ranked:
            del self.groups[group]
            self.raws.pop(group, None)
            for key in self._domains(group):
                self.by_domain[key].discard(group)

    @staticmethod
    def _domains(group: Group) -> list[tuple[int, str]]:
        """The (constraint, domain) pairs whose counts a group's raw score reads."""
        if group is None:
            return []
        return [(position, value) for position, value in enumerate(group) if isinstance(value, str)]

    def catch_up(self, binds: Sequence[int]) -> bool:
        """Take the binds made since ``cursor`` (node positions in cluster order) into
        account; ``False``: the kind must be scored again on every node (the view's
        version moved, a normalising maximum moved, or so many nodes changed that a
        full scoring is cheaper)."""
        if self.spreading.view.version != self.version:
            return False
        if len(binds) - self.cursor > len(self.static):
            return False
        touched = set(binds[self.cursor :])
        self.cursor = len(binds)
        if len(touched) > len(self.static) // 2:
            return False
        matching = self._matching()
        return all(self._rescore(index, matching) for index in sorted(touched))

    def _rescore(self, index: int, matching: Sequence[Mapping[str, int]]) -> bool:
        """Bring node ``index`` up to date: its matching pods and its domains' counts,
        its static part and its group, or its leaving the feasible nodes (``False``:
        the kind must be scored in full). A node the kind could not go to stays so
        (binds only add to what its filters read), so its verdict is not asked again."""
        node = self.nodes[index]
        own, old_own = self._own(node, matching), self.own[index]
        status = self.status[index]
        if status == _OFF:  # filtered out for good; its matching pods still count
            if own != old_own:
                self.own[index] = own
                if spread.counts_on(self.spreading.state, node):
                    self._recount(node, own, old_own)
            return True
        if own != old_own:
            self.own[index] = own
            if status == _KEPT:
                self._recount(node, own, old_own)
        old_static, old_group = self.static[index], self.group[index]
        if old_static is None:  # left the feasible nodes before
            return True
        verdict = self.cluster.resource_verdict(self.pod, node.name)
        if not verdict[0]:
            return self._drop(index, node, old_group, old_static)
        static = verdict[2] + self._others(index)
        group = self._group(node.labels, own) if status == _KEPT else None
        if (group, static) != (old_group, old_static):
            self._remove(index, old_group, old_static)
            self._add(index, group, static)
            self.static[index] = static
            self.group[index] = group
        return True

    def _others(self, index: int) -> float:
        others = self.others.get(index)
        if others is None:
            plugins = self.verdicts[index][3]
            others = self.others[index] = sum(plugins[p] for p in self.spreading.others)
        return others

    def _recount(self, node: ViewNode, own: tuple[int, ...], old_own: tuple[int, ...]) -> None:
        """The matching pods on ``node`` changed: so do its domains' counts."""
        pod_filter = self.spreading.pod_filter
        for position, (c, counts, count, before) in enumerate(
            zip(self.constraints, self.counts, own, old_own, strict=True)
        ):
            if count != before:
                domain = spread.counted_domain(c, node, pod_filter)
                if domain is not None and domain in counts:
                    counts[domain] += count - before
                    for group in self.by_domain.get((position, domain), ()):
                        self.raws.pop(group, None)

    def _drop(self, index: int, node: ViewNode, group: Group, static: float) -> bool:
        """Node ``index`` no longer fits the kind: it leaves its group, its domains'
        nodes (a domain with none left is no longer counted) and the weights change
        (``False``: a normalising maximum moved, the kind must be scored in full)."""
        self._remove(index, group, static)
        self.static[index] = None
        for raws, counter in self.normalisers:
            high = max([0, *counter])
            raw = raws[node.name]
            counter[raw] -= 1
            if not counter[raw]:
                del counter[raw]
            if max([0, *counter]) != high:
                return False
        if self.status[index] == _KEPT:
            self._enter(node.labels, -1)
            for members, counts in zip(self.members, self.counts, strict=True):
                for domain in [domain for domain, nodes in members.items() if not nodes]:
                    del members[domain]
                    del counts[domain]
            self.weights = [
                spread.constraint_weight(c, self.kept, len(counts))
                for c, counts in zip(self.constraints, self.counts, strict=True)
            ]
            self.raws.clear()
        return True

    def best(self) -> list[int]:
        """The feasible nodes with the highest total, in cluster order (empty: none)."""
        return sorted(i for ranked, top in self._winners() for i in ranked.members[top])

    def first_best(self) -> list[int]:
        """The first two of :meth:`best` (a tie is told without listing every tied node)."""
        return _first_two([ranked.lowest(top) for ranked, top in self._winners()])

    def _winners(self) -> list[tuple[Ranked, float]]:
        """The groups holding the highest total, with their best static part (none: no
        node fits)."""
        raws = self.raws
        kept = []
        for group in self.groups:
            if group is not None:
                raw = raws.get(group)
                if raw is None:
                    raw = raws[group] = self._raw(group)
                kept.append(raw)
        low, high = min(kept, default=0), max([0, *kept])
        weight = self.spreading.weight
        # groups share raw scores (a domain's nodes with as many matching pods)
        scores = {raw: weight * spread.normalized(raw, low, high) for raw in set(kept)}
        best = -math.inf
        winners: list[tuple[Ranked, float]] = []
        for group, ranked in self.groups.items():  # one pass: the best total and its groups
            top = ranked.top()
            total = top + (0 if group is None else scores[raws[group]])
            if total > best:
                best, winners = total, [(ranked, top)]
            elif total == best:
                winners.append((ranked, top))
        return winners

    def _raw(self, group: tuple[int | str | None, ...]) -> int:
        counts = [
            None
            if value is None
            else value
            if isinstance(value, int)
            else self.counts[position][value]
            for position, value in enumerate(group)
        ]
        return spread.raw_from_counts(self.constraints, self.weights, counts)
