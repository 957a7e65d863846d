"""The cluster as the topology plugins read it: per node its labels, taints, images and
the workload side of the pods bound to it; the image states of the whole cluster; the
cluster's workload objects. Built once per cluster and updated on every bind.

A node's bound pods are held as groups of one pod object and its count (:class:`PodGroup`):
``count: 200000`` repeats one object, and a sequence binds one object again and again,
so a plugin reads each group once, whatever it holds, and multiplies (a pod's terms,
ports and labels are read once per group, not once per pod). Bound pods are also
indexed by namespace and label set, with their count per node: a cluster of Deployments
has few distinct label sets, so a selector is matched once per label set (not once per
pod) and the pods it counts on each node come from summing the counts of the label sets
it matches (:meth:`ClusterView.matching`). Label sets are numbered by the identity of
the tuple a pod holds, so 30,000 labels are hashed once per pod object, not at every
bind or lookup.

The view carries the case's :class:`~policytest.core.limits.WorkMeter`: every plugin
step charges it (:meth:`ClusterView.charge`) with the checks it is about to make.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from policytest.core.limits import WorkMeter
from policytest.scoring.cluster import Node, Pod, pod_runs
from policytest.scoring.filters import NodeTraits, Taint
from policytest.scoring.selectors import Selector
from policytest.scoring.workload import (
    NO_OBJECTS,
    ClusterObjects,
    Labels,
    PodWorkload,
    WorkloadObject,
)

__all__ = ["MATCHED_LIMIT", "ClusterView", "ImageState", "Matched", "PodGroup", "ViewNode"]

HostPorts = dict[str, set[tuple[str, int]]]
"""``HostPortInfo``: host IP -> (protocol, port) held by a node's pods."""

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
    """One node: name, labels, taints, the image names it holds, its bound pods as
    groups of one pod object (by the object's id, in the order they came)."""

    name: str
    labels: dict[str, str]
    traits: NodeTraits
    images: frozenset[str]
    groups: dict[int, PodGroup] = field(default_factory=dict)
    holders_when_added: dict[str, int] = field(default_factory=dict)
    """Per image it holds: how many nodes held it once this node was added (itself too)."""
    ports: HostPorts | None = None
    """The host ports its pods hold (made when NodePorts first asks)."""


@dataclass(slots=True)
class PodGroup:
    """Pods bound to one node that are one pod object: the node, the pod's workload
    side, how many (changed in place at a bind)."""

    node: ViewNode
    workload: PodWorkload
    count: int


@dataclass(slots=True)
class Matched:
    """One selector's matches in one namespace: the bound pods it matches per node
    (nodes with none left out) and, per label set of the namespace (by number), whether
    it matches. ``lent``: a reader may keep ``counts`` (a cycle's state keeps what it
    read), so a bind replaces them instead of changing them (copying every node's count
    at every bind cost a 50,000-pod repack half a minute)."""

    selector: Selector
    counts: dict[str, int]
    label_sets: dict[int, bool]
    lent: bool = True

    def changing(self) -> dict[str, int]:
        """``counts``, to be changed by a bind: a copy when they were lent."""
        if self.lent:
            self.counts = dict(self.counts)
            self.lent = False
        return self.counts


@dataclass
class ClusterView:
    """Every node in cluster order (the order nodes entered the cache), the cluster's
    image states and workload objects (with the owners fixture short forms imply)."""

    nodes: list[ViewNode]
    images: dict[str, ImageState]
    objects: ClusterObjects = NO_OBJECTS
    implied: dict[tuple[str, str, str], WorkloadObject] = field(default_factory=dict)
    by_name: dict[str, ViewNode] = field(default_factory=dict)
    meter: WorkMeter | None = None
    """What the case's topology plugins may still check (``None``: not counted)."""
    with_affinity: list[PodGroup] = field(default_factory=list)
    """The groups of bound pods with a pod (anti-)affinity term (``PodInfo``'s "pods with
    affinity", which is all InterPodAffinity reads unless the incoming pod has
    preferred terms)."""
    affinity_pods: int = 0
    """How many bound pods have a pod (anti-)affinity term."""
    prefer_tainted: dict[tuple[Taint, ...], list[str]] = field(default_factory=dict)
    """The nodes with a PreferNoSchedule taint, by their taints (none: TaintToleration
    scores every node the same)."""
    holders: dict[str, list[str]] = field(default_factory=dict)
    """Per image name, the nodes holding it (in cluster order)."""
    pods_by_labels: dict[str, dict[int, dict[str, int]]] = field(default_factory=dict)
    """Per namespace, per label set of its bound pods (by number): how many such pods
    each node has."""
    label_sets: list[Labels] = field(default_factory=list)
    """The label sets of bound and incoming pods, by number."""
    label_maps: dict[int, Mapping[str, str]] = field(default_factory=dict)
    """Label sets as mappings, by number (made when a selector first reads one)."""
    numbers: dict[Labels, int] = field(default_factory=dict)
    """Each distinct label set's number."""
    numbered: dict[int, tuple[Labels, int]] = field(default_factory=dict)
    """Per id of a labels tuple a pod holds: the tuple (kept, so the id stays its own)
    and its number."""
    selected_by_services: dict[tuple[str, int], dict[str, str]] = field(default_factory=dict)
    """Per namespace and label set (by number): the selectors of the Services selecting
    such a pod, merged (Services do not change)."""
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
    def of(
        cls,
        nodes: Sequence[Node],
        objects: ClusterObjects = NO_OBJECTS,
        meter: WorkMeter | None = None,
    ) -> ClusterView:
        """The view of ``nodes`` (bound pods grouped by pod object as they are added)
        and ``objects``, whose plugins charge ``meter``."""
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
                    holders_when_added={name: len(holders[name]) for name in names},
                )
            )
        images = {name: ImageState(sizes[name], len(holders[name])) for name in sizes}
        view = cls(view_nodes, images, objects, holders=holders, meter=meter)
        view.by_name = {node.name: node for node in view_nodes}
        for node, member in zip(nodes, view_nodes, strict=True):
            name = member.name
            for key, value in member.labels.items():
                view.columns.setdefault(key, {})[name] = value
            taints = member.traits.taints
            if any(taint.effect == "PreferNoSchedule" for taint in taints):
                view.prefer_tainted.setdefault(taints, []).append(name)
            for pod, count in pod_runs(node.pods):
                view._add(member, pod.workload, count)
        return view

    def charge(self, amount: int, step: str) -> None:
        """Count ``amount`` checks of ``step`` about to be made (see :class:`WorkMeter`)."""
        if self.meter is not None:
            self.meter.charge(amount, step)

    def number(self, labels: Labels) -> int:
        """The number of the label set ``labels`` (found by the tuple's identity first:
        a pod's labels are one tuple however often ``count`` repeats the pod)."""
        known = self.numbered.get(id(labels))
        if known is not None:
            return known[1]
        number = self.numbers.setdefault(labels, len(self.label_sets))
        if number == len(self.label_sets):
            self.label_sets.append(labels)
        self.numbered[id(labels)] = (labels, number)  # kept: its id stays its own
        return number

    def label_map(self, number: int) -> Mapping[str, str]:
        """The label set numbered ``number`` as a mapping."""
        found = self.label_maps.get(number)
        if found is None:
            found = self.label_maps[number] = dict(self.label_sets[number])
        return found

    def imply(self, owner: WorkloadObject) -> None:
        """Hold the owner a pod's short form implies (unless the cluster has it)."""
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

    def matching(
        self, selector: Selector, namespace: str, *, keep: bool = True
    ) -> Mapping[str, int]:
        """The bound pods of ``namespace`` that ``selector`` matches, per node name
        (nodes with none left out): the selector is matched once per label set.
        ``keep``: the caller may keep them past the next bind (else it reads them now)."""
        by_selector = self.matched.setdefault(namespace, {})
        found = by_selector.get(selector)
        if found is None:
            if len(by_selector) >= MATCHED_LIMIT:
                by_selector.clear()  # each bind updates them all: keep them few
            by_labels = self.pods_by_labels.get(namespace, {})
            self.charge(
                len(by_labels) * selector.size, "a selector against the bound pods' label sets"
            )
            label_sets = {number: selector.matches(self.label_map(number)) for number in by_labels}
            matched = [by_node for number, by_node in by_labels.items() if label_sets[number]]
            self.charge(sum(map(len, matched)), "a selector's matching pods, summed per node")
            counts: dict[str, int] = {}
            for by_node in matched:
                for name, count in by_node.items():
                    counts[name] = counts.get(name, 0) + count
            found = by_selector[selector] = Matched(selector, counts, label_sets)
        found.lent = found.lent or keep
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

    def host_ports(self, node: ViewNode) -> HostPorts:
        """The host ports ``node``'s pods hold (each group's ports added once)."""
        if node.ports is None:
            groups = node.groups.values()
            self.charge(
                sum(len(g.workload.host_ports) for g in groups), "NodePorts: the bound pods' ports"
            )
            node.ports = {}
            for group in groups:
                _hold(node.ports, group.workload)
        return node.ports

    @property
    def version(self) -> tuple[int, int, int]:
        """What a bind can change that a pod without affinity terms reads to know if its
        scores are local (the tuple changes at every bind or unbind that can move them):
        the pods with affinity, the implied owners, the pods with affinity taken off."""
        return self.affinity_pods, len(self.implied), self.unbound_with_affinity

    def _add(self, node: ViewNode, workload: PodWorkload, count: int) -> None:
        """``count`` pods of one object (``workload``) bound to ``node``, in its group
        (a cluster is loaded through here, group by group: kept lean)."""
        key = id(workload)
        group = node.groups.get(key)
        with_affinity = workload.affinity.any
        if group is None:  # a group keeps its pod object: its id stays its own
            group = node.groups[key] = PodGroup(node, workload, 0)
            if workload.implied_owner is not None:
                self.imply(workload.implied_owner)
            if with_affinity:
                self.with_affinity.append(group)
            if node.ports is not None and workload.host_ports:
                self.charge(len(workload.host_ports), "NodePorts: the bound pods' ports")
                _hold(node.ports, workload)
        group.count += count
        if with_affinity:
            self.affinity_pods += count
        number = self.number(workload.labels)
        by_labels = self.pods_by_labels.get(workload.namespace)
        if by_labels is None:
            by_labels = self.pods_by_labels[workload.namespace] = {}
        by_node = by_labels.get(number)
        if by_node is None:
            by_node = by_labels[number] = {}
        by_node[node.name] = by_node.get(node.name, 0) + count

    def bind(self, node_name: str, workload: PodWorkload) -> None:
        node = self.by_name[node_name]
        self._add(node, workload, 1)
        number = self.number(workload.labels)
        for found in self.matched.get(workload.namespace, {}).values():
            matches = found.label_sets.get(number)
            if matches is None:
                self.charge(found.selector.size, "a selector against a bound pod's label set")
                matches = found.label_sets[number] = found.selector.matches(self.label_map(number))
            if matches:
                if found.lent:  # copied: a cycle's state may hold the counts it read
                    self.charge(len(found.counts), "a selector's matching pods, copied at a bind")
                counts = found.changing()
                counts[node_name] = counts.get(node_name, 0) + 1

    def unbind(self, node_name: str, workload: PodWorkload) -> None:
        """Take off ``node_name`` the pod bound there last with ``workload`` (a Volcano
        session discarding a statement undoes its binds last first): the node's pods,
        the pods with affinity, the counts by label set and of every matched selector
        as they were before that bind. The owners it implied stay: they exist."""
        node = self.by_name[node_name]
        group = node.groups.get(id(workload))
        if group is None:  # bound as an equal object: the last group of one
            group = next(g for g in reversed(node.groups.values()) if g.workload == workload)
        group.count -= 1
        if not group.count:
            del node.groups[id(group.workload)]
            if workload.affinity.any:
                self.with_affinity.remove(group)
            if workload.host_ports:
                node.ports = None  # gathered again when next asked
        if workload.affinity.any:
            self.affinity_pods -= 1
            self.unbound_with_affinity += 1
        number = self.number(workload.labels)
        _decrement(self.pods_by_labels[workload.namespace][number], node_name)
        for found in self.matched.get(workload.namespace, {}).values():
            matches = found.label_sets.get(number)
            if matches is None:
                self.charge(found.selector.size, "a selector against a bound pod's label set")
                matches = found.label_sets[number] = found.selector.matches(self.label_map(number))
            if matches:
                if found.lent:
                    self.charge(len(found.counts), "a selector's matching pods, copied at a bind")
                _decrement(found.changing(), node_name)


def _hold(ports: HostPorts, workload: PodWorkload) -> None:
    for port in workload.host_ports:
        ports.setdefault(port.host_ip, set()).add((port.protocol, port.port))


def _decrement(counts: dict[str, int], name: str) -> None:
    """One fewer for ``name`` (left out at none, as the counts are kept)."""
    left = counts[name] - 1
    if left:
        counts[name] = left
    else:
        del counts[name]
