"""The cluster as the topology plugins read it: per node its labels, taints, images and
the workload side of the pods bound to it; the image states of the whole cluster; the
cluster's workload objects. Built once per cluster and updated on every bind.

Bound pods are also indexed by namespace and label set, with their count per node: a
cluster of Deployments has few distinct label sets, so a selector is matched once per
label set (not once per pod) and the pods it counts on each node come from summing the
counts of the label sets it matches (:meth:`ClusterView.matching`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from policytest.scoring.cluster import Node, Pod
from policytest.scoring.filters import NodeTraits, Taint
from policytest.scoring.selectors import Selector, label_map
from policytest.scoring.workload import (
    NO_OBJECTS,
    ClusterObjects,
    Labels,
    PodWorkload,
    WorkloadObject,
)

__all__ = ["MATCHED_LIMIT", "ClusterView", "ImageState", "Matched", "ViewNode"]

MATCHED_LIMIT: Final = 256
"""Selectors a namespace keeps the matches of before they are matched afresh."""


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


@dataclass(slots=True)
class Matched:
    """One selector's matches in one namespace: the bound pods it matches per node
    (nodes with none left out; replaced, not changed, at a bind, so a cycle's state
    keeps what it read) and, per label set of the namespace, whether it matches."""

    selector: Selector
    counts: dict[str, int]
    label_sets: dict[Labels, bool]


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
    prefer_tainted: dict[tuple[Taint, ...], list[str]] = field(default_factory=dict)
    """The nodes with a PreferNoSchedule taint, by their taints (none: TaintToleration
    scores every node the same)."""
    holders: dict[str, list[str]] = field(default_factory=dict)
    """Per image name, the nodes holding it (in cluster order)."""
    pods_by_labels: dict[str, dict[Labels, dict[str, int]]] = field(default_factory=dict)
    """Per namespace, per label set of its bound pods: how many such pods each node has."""
    matched: dict[str, dict[Selector, Matched]] = field(default_factory=dict)
    """Per namespace, the selectors matched so far (kept up to date at each bind)."""
    columns: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per label key of some node: the value of each node that has it, by node name
    (node labels do not change, and a topology key is read for every node)."""
    unlabelled: dict[str, frozenset[str]] = field(default_factory=dict)
    """Per label key asked for: the nodes without it."""
    memo: dict[object, bool] = field(default_factory=dict)
    """Answers that depend on nothing a bind changes (node labels and taints)."""
    static_raw: dict[object, dict[str, int]] = field(default_factory=dict)
    """Raw scores that depend on nothing a bind changes (taints, labels, images), per
    plugin and what it reads of the pod: by node name (sparse ones leave 0s out)."""
    local: dict[Pod, tuple[tuple[int, int, int], bool]] = field(default_factory=dict)
    """Per pod without affinity terms: whether binds leave its scores on other nodes
    as they are, and the view's ``version`` it was answered at."""

    unbound_with_affinity: int = 0
    """How many pods with affinity terms were taken off (:meth:`unbind`)."""

    @classmethod
    def of(cls, nodes: Sequence[Node], objects: ClusterObjects = NO_OBJECTS) -> ClusterView:
        view_nodes = []
        sizes: dict[str, int] = {}
        holders: dict[str, list[str]] = {}
        for node in nodes:
            names: set[str] = set()
            for image in node.images:
                for name in image.names:
                    sizes.setdefault(name, image.size)
                    held = holders.setdefault(name, [])
                    if not held or held[-1] != node.name:
                        held.append(node.name)
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
        view = cls(view_nodes, images, objects, holders=holders)
        view.by_name = {node.name: node for node in view_nodes}
        view.imply(pod.workload for node in nodes for pod in node.pods)
        for member in view_nodes:
            name = member.name
            for key, value in member.labels.items():
                view.columns.setdefault(key, {})[name] = value
            taints = member.traits.taints
            if any(taint.effect == "PreferNoSchedule" for taint in taints):
                view.prefer_tainted.setdefault(taints, []).append(name)
            for workload in member.pods:
                by_labels = view.pods_by_labels.setdefault(workload.namespace, {})
                counts = by_labels.setdefault(workload.labels, {})
                counts[name] = counts.get(name, 0) + 1
                if workload.affinity.any:
                    view.with_affinity.append((member, workload))
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

    def matching(self, selector: Selector, namespace: str) -> Mapping[str, int]:
        """The bound pods of ``namespace`` that ``selector`` matches, per node name
        (nodes with none left out): the selector is matched once per label set."""
        by_selector = self.matched.setdefault(namespace, {})
        found = by_selector.get(selector)
        if found is None:
            if len(by_selector) >= MATCHED_LIMIT:
                by_selector.clear()  # each bind updates them all: keep them few
            label_sets = {
                labels: selector.matches(label_map(labels))
                for labels in self.pods_by_labels.get(namespace, {})
            }
            counts: dict[str, int] = {}
            for labels, by_node in self.pods_by_labels.get(namespace, {}).items():
                if label_sets[labels]:
                    for name, count in by_node.items():
                        counts[name] = counts.get(name, 0) + count
            found = by_selector[selector] = Matched(selector, counts, label_sets)
        return found.counts

    def column(self, key: str) -> Mapping[str, str]:
        """The value of label ``key`` of each node that has it, by node name."""
        return self.columns.get(key, {})

    def without(self, key: str) -> frozenset[str]:
        """The names of the nodes without label ``key``."""
        names = self.unlabelled.get(key)
        if names is None:
            names = self.unlabelled[key] = frozenset(self.by_name.keys() - self.column(key).keys())
        return names

    @property
    def version(self) -> tuple[int, int, int]:
        """What a bind can change that a pod without affinity terms reads to know if its
        scores are local (each only grows): the pods with affinity, the implied owners,
        the pods with affinity taken off again."""
        return len(self.with_affinity), len(self.implied), self.unbound_with_affinity

    def bind(self, node_name: str, workload: PodWorkload) -> None:
        node = self.by_name[node_name]
        node.pods.append(workload)
        self.imply((workload,))
        if workload.affinity.any:
            self.with_affinity.append((node, workload))
        labels = workload.labels
        by_node = self.pods_by_labels.setdefault(workload.namespace, {}).setdefault(labels, {})
        by_node[node_name] = by_node.get(node_name, 0) + 1
        for found in self.matched.get(workload.namespace, {}).values():
            matches = found.label_sets.get(labels)
            if matches is None:
                matches = found.label_sets[labels] = found.selector.matches(label_map(labels))
            if matches:
                counts = found.counts = dict(found.counts)
                counts[node_name] = counts.get(node_name, 0) + 1

    def unbind(self, node_name: str, workload: PodWorkload) -> None:
        """Take off ``node_name`` the pod bound there last with ``workload`` (a Volcano
        session discarding a statement undoes its binds last first): the node's pods,
        the pods with affinity, the counts by label set and of every matched selector
        as they were before that bind. The owners it implied stay: they exist."""
        node = self.by_name[node_name]
        del node.pods[_last(node.pods, workload)]
        if workload.affinity.any:
            entries = self.with_affinity
            at = next(
                i
                for i in range(len(entries) - 1, -1, -1)
                if entries[i][0] is node and entries[i][1] == workload
            )
            del entries[at]
            self.unbound_with_affinity += 1
        labels = workload.labels
        by_node = self.pods_by_labels[workload.namespace][labels]
        _decrement(by_node, node_name)
        for found in self.matched.get(workload.namespace, {}).values():
            matches = found.label_sets.get(labels)
            if matches is None:
                matches = found.label_sets[labels] = found.selector.matches(label_map(labels))
            if matches:
                found.counts = dict(found.counts)
                _decrement(found.counts, node_name)


def _last(items: list[PodWorkload], workload: PodWorkload) -> int:
    """The position of the last item equal to ``workload``."""
    return len(items) - 1 - items[::-1].index(workload)


def _decrement(counts: dict[str, int], name: str) -> None:
    """One fewer for ``name`` (left out at none, as the counts are kept)."""
    left = counts[name] - 1
    if left:
        counts[name] = left
    else:
        del counts[name]
