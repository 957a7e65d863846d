"""The cluster as the topology plugins read it: per node its labels, taints, images and
the workload side of the pods bound to it; the image states of the whole cluster; the
cluster's workload objects. Built once per cluster and updated on every bind.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from policytest.scoring.cluster import Node, Pod
from policytest.scoring.filters import NodeTraits
from policytest.scoring.workload import NO_OBJECTS, ClusterObjects, PodWorkload, WorkloadObject

__all__ = ["ClusterView", "ImageState", "ViewNode"]


@dataclass(frozen=True, slots=True)
class ImageState:
    """``fwk.ImageStateSummary``: the size recorded when the first node holding the image
    entered the cache, and how many nodes hold it."""

    size: int
    nodes: int


@dataclass(slots=True)
class ViewNode:
    """One node: name, labels, taints, the image names it holds, its pods' workloads."""

    name: str
    labels: dict[str, str]
    traits: NodeTraits
    images: frozenset[str]
    pods: list[PodWorkload]
    holders_when_added: dict[str, int] = field(default_factory=dict)
    """Per image it holds: how many nodes held it once this node was added (itself too)."""
    counts: dict[object, int] = field(default_factory=dict)
    """Matching pods by (selector, namespace), kept until a pod is bound here."""


@dataclass
class ClusterView:
    """Every node in cluster order (the order nodes entered the cache), the cluster's
    image states and workload objects (with the owners fixture short forms imply)."""

    nodes: list[ViewNode]
    images: dict[str, ImageState]
    objects: ClusterObjects = NO_OBJECTS
    implied: dict[tuple[str, str, str], WorkloadObject] = field(default_factory=dict)
    by_name: dict[str, ViewNode] = field(default_factory=dict)
    with_affinity: list[tuple[ViewNode, PodWorkload]] = field(default_factory=list)
    """The bound pods with a pod (anti-)affinity term, and their nodes (``PodInfo``'s
    "pods with affinity", which is all InterPodAffinity reads unless the incoming pod
    has preferred terms)."""
    prefer_taints: bool = False
    """Whether some node has a PreferNoSchedule taint (else TaintToleration scores every
    node the same)."""
    memo: dict[object, bool] = field(default_factory=dict)
    """Answers that depend on nothing a bind changes (node labels and taints)."""
    local: dict[Pod, tuple[tuple[int, int], bool]] = field(default_factory=dict)
    """Per pod without affinity terms: whether binds leave its scores on other nodes
    as they are, and the view's ``version`` it was answered at."""

    @classmethod
    def of(cls, nodes: Sequence[Node], objects: ClusterObjects = NO_OBJECTS) -> ClusterView:
        view_nodes = []
        sizes: dict[str, int] = {}
        holders: dict[str, set[str]] = {}
        for node in nodes:
            names: set[str] = set()
            for image in node.images:
                for name in image.names:
                    sizes.setdefault(name, image.size)
                    holders.setdefault(name, set()).add(node.name)
                    names.add(name)
            view_nodes.append(
                ViewNode(
                    node.name,
                    dict(node.traits.labels),
                    node.traits,
                    frozenset(names),
                    [pod.workload for pod in node.pods],
                    {name: len(holders[name]) for name in names},
                )
            )
        images = {name: ImageState(sizes[name], len(holders[name])) for name in sizes}
        view = cls(view_nodes, images, objects)
        view.by_name = {node.name: node for node in view_nodes}
        view.imply(pod.workload for node in nodes for pod in node.pods)
        view.with_affinity = [
            (node, pod) for node in view_nodes for pod in node.pods if pod.affinity.any
        ]
        view.prefer_taints = any(
            taint.effect == "PreferNoSchedule" for node in nodes for taint in node.traits.taints
        )
        return view

    def imply(self, workloads: Iterable[PodWorkload]) -> None:
        """Hold the owners the pods' short forms imply (unless the cluster has them)."""
        for workload in workloads:
            owner = workload.implied_owner
            if owner is not None:
                self.implied.setdefault((owner.kind, owner.namespace, owner.name), owner)

    def find(self, kind: str, namespace: str, name: str) -> WorkloadObject | None:
        """The workload object of that kind, namespace and name (the informer's ``Get``)."""
        found = self.objects.find(kind, namespace, name)
        return found if found is not None else self.implied.get((kind, namespace, name))

    def images_when_added(self, node: ViewNode) -> dict[str, ImageState]:
        """The image states ``node`` saw when it entered the cache (Volcano keeps them):
        the first holder's size, the holders up to and including ``node``."""
        images = self.images
        return {
            name: ImageState(images[name].size, count)
            for name, count in node.holders_when_added.items()
        }

    @property
    def version(self) -> tuple[int, int]:
        """What a bind can change that a pod without affinity terms reads to know if its
        scores are local (both only grow): the pods with affinity, the implied owners."""
        return len(self.with_affinity), len(self.implied)

    def bind(self, node_name: str, workload: PodWorkload) -> None:
        node = self.by_name[node_name]
        node.pods.append(workload)
        node.counts.clear()
        self.imply((workload,))
        if workload.affinity.any:
            self.with_affinity.append((node, workload))
