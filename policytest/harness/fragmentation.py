"""Capacity that is free but stranded: in pieces smaller than what pending work needs.

The story of the bin-packing documents: "an 8-GPU training job cannot start because
every node has 2 GPUs free". After a case, for each job that did not start (and each
kind of pod left pending), and each resource its pods request: the free capacity of
that resource on the nodes its pods may run on (the node filters: cordon, taints, node
selector and required affinity) would hold the pods it still needs, but the pieces,
one per node, are too small to hold them: fewer of its pods fit, node by node, than it
needs. That is said as a fact of the cluster after the case ("24 nvidia.com/gpu free,
no node with 8 free"), never as the scheduler's reason: the job may also wait for
something else, which the scheduler's own message says.

Amounts are kube-scheduler's units (``kube_node_info``: cpu in millicores, everything
else in units), free meaning allocatable less the requests of the pods bound.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from policytest.scoring.accounting import kube_node_info, kube_pod_requests
from policytest.scoring.cluster import Node, Pod
from policytest.scoring.filters import pod_filter, volcano_filter

__all__ = ["Pending", "Stranded", "stranded"]

_NOT_CAPACITY: Final = frozenset({"pods"})
"""Counted by the scheduler, but a node's pod count is not capacity a job is short of."""


@dataclass(frozen=True)
class Pending:
    """Work left pending after a case: a job that did not start (``kind`` ``job``,
    ``needed`` the pods it still needs bound to reach its ``minMember``), or pods of one
    shape left pending (``kind`` ``pods``, each placed on its own)."""

    name: str
    kind: str
    pods: tuple[Pod, ...]
    needed: int


@dataclass(frozen=True)
class Stranded:
    """One resource a pending job or pod kind is short of only because the free capacity
    is in pieces too small (amounts in :mod:`policytest.scoring.accounting` units)."""

    name: str
    kind: str
    resource: str
    per_pod: int
    """The most one of the pods it needs requests."""
    needed: int
    free: int
    """Free on the nodes its pods may run on, in all."""
    largest: int
    """The most free on one such node."""
    roomy: int
    """Nodes with at least ``per_pod`` free."""
    fits: int
    """How many of the pods it needs the free pieces hold, node by node."""


def stranded(nodes: Sequence[Node], pending: Iterable[Pending]) -> tuple[Stranded, ...]:
    """For each pending job or pod kind, each resource whose free capacity would hold
    what it needs but whose free pieces, node by node, hold fewer of its pods."""
    infos = [kube_node_info(node) for node in nodes]
    free = [
        {
            name: max(0, amount - info.requested.get(name, 0))
            for name, amount in info.allocatable.items()
            if name not in _NOT_CAPACITY
        }
        for info in infos
    ]
    usable: dict[object, list[int]] = {}
    measured: dict[tuple[object, str, tuple[int, ...]], tuple[int, int, int, int]] = {}
    found: list[Stranded] = []
    for work in pending:
        if work.needed <= 0 or not work.pods:
            continue
        requests = [kube_pod_requests(pod) for pod in work.pods]
        smallest = sorted(requests, key=lambda r: sorted(r.items()))[: work.needed]
        placement = work.pods[0].placement
        if placement not in usable:
            usable[placement] = _usable(nodes, work.pods[0])
        for resource in sorted({name for r in smallest for name in r if r[name] > 0}):
            if resource in _NOT_CAPACITY:
                continue
            wanted = tuple(sorted((r.get(resource, 0) for r in smallest), reverse=True))
            key = (placement, resource, wanted)
            if key not in measured:  # jobs of one shape are measured once
                pieces = [free[i].get(resource, 0) for i in usable[placement]]
                measured[key] = (
                    sum(pieces),
                    max(pieces, default=0),
                    sum(1 for piece in pieces if piece >= wanted[0]),
                    _fits(wanted, pieces),
                )
            total, largest, roomy, fits = measured[key]
            if total >= sum(wanted) and fits < len(wanted):  # else short, not stranded
                found.append(
                    Stranded(
                        work.name,
                        work.kind,
                        resource,
                        wanted[0],
                        len(wanted),
                        total,
                        largest,
                        roomy,
                        fits,
                    )
                )
    return tuple(found)


def _usable(nodes: Sequence[Node], pod: Pod) -> list[int]:
    """The positions of the nodes the pod passes the node filters of (cordon, taints,
    node selector, required node affinity), whatever their free capacity."""
    compiled = pod_filter(pod.placement)
    return [
        index
        for index, node in enumerate(nodes)
        if volcano_filter(
            compiled,
            node.name,
            node.traits,
            dict(node.traits.labels),
            node_affinity=True,
            taint_toleration=True,
        )
        is None
    ]


def _fits(wanted: Sequence[int], pieces: Sequence[int]) -> int:
    """How many of ``wanted`` (largest first) fit into ``pieces``, each into the first
    piece with room left (pods of one size: as many as each piece holds)."""
    if wanted[0] == wanted[-1]:
        return min(len(wanted), sum(piece // wanted[0] for piece in pieces))
    left = list(pieces)
    fitted = 0
    for amount in wanted:
        for index, room in enumerate(left):
            if room >= amount:
                left[index] -= amount
                fitted += 1
                break
    return fitted
