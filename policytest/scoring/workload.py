"""What the topology plugins read: pods' identity and constraints, node images, and the
cluster's workload objects.

kube-scheduler's PodTopologySpread, InterPodAffinity, ImageLocality, NodePorts, NodeName
and NodeAffinity's score (and Volcano's nodeorder and predicates, which build the same
plugins) read more than resources: a pod's namespace, labels and controller, its spread
constraints, pod (anti-)affinity terms, preferred node affinity, images and host ports;
a node's ``status.images``; and the Services, ReplicaSets, ReplicationControllers,
StatefulSets (their selectors: PodTopologySpread's system defaults) and Namespaces (their
labels: affinity ``namespaceSelector``) of the cluster.

Everything here is a frozen value parsed once (:mod:`policytest.scoring.workload_specs`
reads the fixture short forms and the Kubernetes shapes). Selectors keep what the API
holds; whether one parses is decided when a plugin compiles it, because the scheduler's
reaction to a bad selector depends on the plugin (see :mod:`policytest.scoring.selectors`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from policytest.scoring.filters import SelectorTerm

__all__ = [
    "NO_OBJECTS",
    "NO_WORKLOAD",
    "AffinityTerm",
    "ClusterObjects",
    "HostPort",
    "LabelSelector",
    "NodeImage",
    "OwnerReference",
    "PodAffinity",
    "PodWorkload",
    "PreferredNodeTerm",
    "SelectorRequirement",
    "SpreadConstraint",
    "WeightedAffinityTerm",
    "WorkloadObject",
]

DEFAULT_NAMESPACE: Final = "default"
Labels = tuple[tuple[str, str], ...]
"""Labels (or a ``matchLabels`` / map selector) as sorted (key, value) pairs."""


@dataclass(frozen=True, slots=True)
class SelectorRequirement:
    """A ``LabelSelectorRequirement`` as written (``In``, ``NotIn``, ``Exists``,
    ``DoesNotExist``; anything else fails to parse where the selector is compiled)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """A ``metav1.LabelSelector``. ``None`` where a selector is optional means "not set",
    which selects nothing; an empty selector (``{}``) selects everything."""

    match_labels: Labels = ()
    match_expressions: tuple[SelectorRequirement, ...] = ()


@dataclass(frozen=True, slots=True)
class OwnerReference:
    """``metadata.ownerReferences[]``: only the controller reference counts for spreading."""

    kind: str
    name: str
    api_version: str = ""
    controller: bool = False


@dataclass(frozen=True, slots=True)
class SpreadConstraint:
    """A ``topologySpreadConstraints[]`` entry (``None``: the field is not set)."""

    max_skew: int
    topology_key: str
    when_unsatisfiable: str
    label_selector: LabelSelector | None = None
    min_domains: int | None = None
    node_affinity_policy: str | None = None
    node_taints_policy: str | None = None
    match_label_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """A ``PodAffinityTerm``. ``namespaces`` empty and no ``namespace_selector``: the
    pod's own namespace."""

    topology_key: str
    label_selector: LabelSelector | None = None
    namespaces: tuple[str, ...] = ()
    namespace_selector: LabelSelector | None = None
    match_label_keys: tuple[str, ...] = ()
    mismatch_label_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WeightedAffinityTerm:
    weight: int
    term: AffinityTerm


@dataclass(frozen=True, slots=True)
class PodAffinity:
    """``affinity.podAffinity`` and ``affinity.podAntiAffinity``, required and preferred."""

    required: tuple[AffinityTerm, ...] = ()
    preferred: tuple[WeightedAffinityTerm, ...] = ()
    anti_required: tuple[AffinityTerm, ...] = ()
    anti_preferred: tuple[WeightedAffinityTerm, ...] = ()

    @property
    def any(self) -> bool:
        """``PodInfo``'s "has affinity": any term at all (existing pods with one are the
        only ones InterPodAffinity's scoring reads, unless the incoming pod prefers)."""
        return bool(self.required or self.preferred or self.anti_required or self.anti_preferred)


NO_AFFINITY: Final = PodAffinity()


@dataclass(frozen=True, slots=True)
class PreferredNodeTerm:
    """A ``preferredDuringSchedulingIgnoredDuringExecution`` node affinity term."""

    weight: int
    preference: SelectorTerm


@dataclass(frozen=True, slots=True)
class HostPort:
    """A container port with a ``hostPort`` (0 ports are not host ports)."""

    port: int
    protocol: str = "TCP"
    host_ip: str = "0.0.0.0"


@dataclass(frozen=True, slots=True)
class PodWorkload:
    """Everything besides resources and node filters that the topology plugins read
    from a pod. Images are the containers' then the init containers' as written (the
    plugin normalises them); ``image_volumes`` are ``volumes[].image.reference``."""

    namespace: str = DEFAULT_NAMESPACE
    labels: Labels = ()
    owners: tuple[OwnerReference, ...] = ()
    spread: tuple[SpreadConstraint, ...] = ()
    affinity: PodAffinity = NO_AFFINITY
    preferred_node_terms: tuple[PreferredNodeTerm, ...] | None = None
    """``None``: not set (NodeAffinity's PreScore skips); ``()``: set and empty."""
    images: tuple[str, ...] = ()
    init_images: tuple[str, ...] = ()
    image_volumes: tuple[str, ...] = ()
    host_ports: tuple[HostPort, ...] = ()
    node_name: str = ""
    implied_owner: WorkloadObject | None = None
    """The controller a fixture short form (``deployment: web``) implies exists."""

    @property
    def controller(self) -> OwnerReference | None:
        """``metav1.GetControllerOf``: the first owner reference with ``controller: true``."""
        return next((owner for owner in self.owners if owner.controller), None)

    @property
    def reads_node_topology(self) -> bool:
        """Whether the topology plugins may read node labels for this pod: it may be
        spread (its own constraints, an owner, labels a Service may select), or it has
        pod affinity terms or preferred node terms. (Nodes equal in all else tie alike
        for a pod that does not.)"""
        return bool(
            self.spread
            or self.owners
            or self.implied_owner
            or self.labels
            or self.affinity.any
            or self.preferred_node_terms
        )

    @property
    def parts(self) -> int:
        """How many labels, owners, constraints, terms, ports and images the pod carries:
        what a scheduling cycle of the topology plugins reads of it, a few times over."""
        affinity = self.affinity
        return (
            len(self.labels)
            + len(self.owners)
            + len(self.spread)
            + len(affinity.required)
            + len(affinity.preferred)
            + len(affinity.anti_required)
            + len(affinity.anti_preferred)
            + len(self.preferred_node_terms or ())
            + len(self.images)
            + len(self.init_images)
            + len(self.image_volumes)
            + len(self.host_ports)
        )

    @property
    def reads_images(self) -> bool:
        """Whether ImageLocality reads the nodes' images for this pod."""
        return bool(self.images or self.init_images or self.image_volumes)


NO_WORKLOAD: Final = PodWorkload()


@dataclass(frozen=True, slots=True)
class NodeImage:
    """One ``status.images[]`` entry: every name it goes by, and its size in bytes."""

    names: tuple[str, ...]
    size: int


@dataclass(frozen=True, slots=True)
class WorkloadObject:
    """A Service, ReplicaSet, ReplicationController or StatefulSet: what the default
    spreading selector reads. Services and ReplicationControllers select by a label map
    (``selector_map``; ``None``: not set); the others by a ``LabelSelector``."""

    kind: str
    name: str
    namespace: str = DEFAULT_NAMESPACE
    selector_map: Labels | None = None
    selector: LabelSelector | None = None


@dataclass(frozen=True)
class ClusterObjects:
    """The workload objects and namespaces of a cluster (namespace name -> labels)."""

    workloads: tuple[WorkloadObject, ...] = ()
    namespaces: tuple[tuple[str, Labels], ...] = ()
    _index: dict[tuple[str, str, str], WorkloadObject] = field(
        default_factory=dict, compare=False, repr=False
    )
    _services: dict[str, list[WorkloadObject]] = field(
        default_factory=dict, compare=False, repr=False
    )
    _namespaces: dict[str, dict[str, str]] = field(default_factory=dict, compare=False, repr=False)

    def find(self, kind: str, namespace: str, name: str) -> WorkloadObject | None:
        """The object of that kind in that namespace (the informer's lister ``Get``)."""
        if not self._index and self.workloads:
            for item in self.workloads:
                self._index.setdefault((item.kind, item.namespace, item.name), item)
        return self._index.get((kind, namespace, name))

    def services(self, namespace: str) -> list[WorkloadObject]:
        """The Services of ``namespace`` (indexed by namespace when first asked: a pod
        looks up its namespace's Services in every scheduling cycle)."""
        if not self._services and self.workloads:
            self._services[""] = []  # indexed, even with no Service at all
            for item in self.workloads:
                if item.kind == "Service":
                    self._services.setdefault(item.namespace, []).append(item)
        return self._services.get(namespace, [])

    def namespace_labels(self, namespace: str) -> dict[str, str] | None:
        """A namespace's labels; ``None`` when the cluster has no such namespace (the
        first namespace of that name, as the list was searched before it was indexed)."""
        if not self._namespaces and self.namespaces:
            for name, labels in self.namespaces:
                self._namespaces.setdefault(name, dict(labels))
        found = self._namespaces.get(namespace)
        return None if found is None else dict(found)

    @property
    def empty(self) -> bool:
        return not self.workloads and not self.namespaces


NO_OBJECTS: Final = ClusterObjects()
