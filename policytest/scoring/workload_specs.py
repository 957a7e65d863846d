"""Reading what the topology plugins read (:mod:`policytest.scoring.workload`) from the
fixture's forms and the Kubernetes objects.

A pod is read from its ``metadata`` (namespace, labels, ownerReferences) and its spec
(spread constraints, pod (anti-)affinity, preferred node affinity, images, host ports,
``nodeName``). The fixture shorthand adds, beside ``requests``:

- ``namespace`` and ``labels``;
- ``deployment: web``: a pod of Deployment ``web``: labels ``app: web`` and a
  ``pod-template-hash``, owned by its ReplicaSet, which the cluster then holds;
- ``statefulSet: db``: labels ``app: db``, owned by StatefulSet ``db`` (held too);
- ``image: name`` (the one container's image) and ``hostPorts: [8080, ...]``.

Nodes take ``images`` as ``{name: size}`` or as ``status.images`` entries
(``{names: [...], sizeBytes: N}``). The cluster takes ``services``, ``replicaSets``,
``replicationControllers``, ``statefulSets`` and ``namespaces``, each as the Kubernetes
object or as ``{name, namespace, selector}`` (a namespace: ``{name, labels}``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, Final

from policytest.core.errors import PolicytestError
from policytest.scoring.filters import FilterSpecError, SelectorTerm, selector_term_from_dict
from policytest.scoring.quantity import QuantityError, parse_quantity
from policytest.scoring.workload import (
    DEFAULT_NAMESPACE,
    NO_AFFINITY,
    NO_WORKLOAD,
    AffinityTerm,
    ClusterObjects,
    HostPort,
    Labels,
    LabelSelector,
    NodeImage,
    OwnerReference,
    PodAffinity,
    PodWorkload,
    PreferredNodeTerm,
    SelectorRequirement,
    SpreadConstraint,
    WeightedAffinityTerm,
    WorkloadObject,
)

__all__ = [
    "WorkloadSpecError",
    "cluster_objects_from_dict",
    "node_images_from_dict",
    "pod_workload_from_dict",
    "template_hash",
]

_REQUIRED: Final = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED: Final = "preferredDuringSchedulingIgnoredDuringExecution"
# fixture key -> (kind, apiVersion) of the cluster's workload objects
OBJECT_KINDS: Final = {
    "services": ("Service", "v1"),
    "replicaSets": ("ReplicaSet", "apps/v1"),
    "replicationControllers": ("ReplicationController", "v1"),
    "statefulSets": ("StatefulSet", "apps/v1"),
}
_MAP_SELECTORS: Final = frozenset({"Service", "ReplicationController"})


class WorkloadSpecError(PolicytestError, ValueError):
    """A pod, node or cluster object part of the wrong shape (the API server's strict
    decoding would reject the object)."""


def template_hash(deployment: str) -> str:
    """A stable ``pod-template-hash`` for the short form ``deployment: NAME``."""
    return hashlib.sha256(deployment.encode()).hexdigest()[:10]


def pod_workload_from_dict(
    top: Mapping[str, Any], spec: Mapping[str, Any], where: str
) -> PodWorkload:
    """A pod's workload side: ``top`` is the entry as written (metadata or the
    shorthand's keys), ``spec`` its PodSpec (the same mapping for a fragment)."""
    metadata = _map(top.get("metadata"), f"{where}.metadata")
    namespace = _text(metadata.get("namespace", top.get("namespace")), f"{where}.namespace")
    labels = dict(_labels(metadata.get("labels", top.get("labels")), f"{where}.labels"))
    owners = tuple(
        _owner(item, f"{where}.metadata.ownerReferences[{i}]")
        for i, item in enumerate(_list(metadata.get("ownerReferences"), f"{where}.ownerReferences"))
    )
    implied = None
    namespace = namespace or DEFAULT_NAMESPACE
    deployment = _text(top.get("deployment"), f"{where}.deployment")
    stateful = _text(top.get("statefulSet"), f"{where}.statefulSet")
    if deployment:
        hashed = template_hash(deployment)
        own = {"app": deployment, "pod-template-hash": hashed}
        labels = {**own, **labels}
        implied = WorkloadObject(
            "ReplicaSet", f"{deployment}-{hashed}", namespace, None, LabelSelector(_pairs(own))
        )
    elif stateful:
        labels = {"app": stateful, **labels}
        implied = WorkloadObject(
            "StatefulSet", stateful, namespace, None, LabelSelector(_pairs({"app": stateful}))
        )
    if implied is not None and not owners:
        owners = (OwnerReference(implied.kind, implied.name, "apps/v1", True),)
    images, init_images, ports = _containers(top, spec, where)
    workload = PodWorkload(
        namespace=namespace,
        labels=_pairs(labels),
        owners=owners,
        spread=tuple(
            _spread(item, f"{where}.topologySpreadConstraints[{i}]")
            for i, item in enumerate(
                _list(spec.get("topologySpreadConstraints"), f"{where}.topologySpreadConstraints")
            )
        ),
        affinity=_pod_affinity(_map(spec.get("affinity"), f"{where}.affinity"), where),
        preferred_node_terms=_preferred_node_terms(spec.get("affinity"), where),
        images=images,
        init_images=init_images,
        image_volumes=_image_volumes(spec.get("volumes"), where),
        host_ports=ports,
        node_name=_text(spec.get("nodeName"), f"{where}.nodeName"),
        implied_owner=implied,
    )
    return NO_WORKLOAD if workload == NO_WORKLOAD else workload


def node_images_from_dict(data: object, where: str) -> tuple[NodeImage, ...]:
    """``{name: size}`` or ``status.images`` (``[{names, sizeBytes}]``)."""
    if data is None:
        return ()
    if isinstance(data, Mapping):
        return tuple(
            NodeImage((name,), _size(size, f"{where}.{name}")) for name, size in data.items()
        )
    images = []
    for index, item in enumerate(_list(data, where)):
        at = f"{where}[{index}]"
        entry = _map(item, at)
        names = tuple(_text(name, f"{at}.names") for name in _list(entry.get("names"), at))
        images.append(NodeImage(names, _size(entry.get("sizeBytes", 0), f"{at}.sizeBytes")))
    return tuple(images)


def cluster_objects_from_dict(cluster: Mapping[str, Any], where: str = "cluster") -> ClusterObjects:
    """The cluster's ``services``, ``replicaSets``, ``replicationControllers``,
    ``statefulSets`` and ``namespaces``."""
    workloads = []
    for key, (kind, _) in OBJECT_KINDS.items():
        for index, item in enumerate(_list(cluster.get(key), f"{where}.{key}")):
            workloads.append(workload_object(kind, item, f"{where}.{key}[{index}]"))
    namespaces = []
    for index, item in enumerate(_list(cluster.get("namespaces"), f"{where}.namespaces")):
        at = f"{where}.namespaces[{index}]"
        entry = _map(item, at)
        metadata = _map(entry.get("metadata"), f"{at}.metadata")
        name = _text(metadata.get("name", entry.get("name")), f"{at}.name")
        labels = dict(_labels(metadata.get("labels", entry.get("labels")), f"{at}.labels"))
        # the API server labels every namespace with its own name
        labels.setdefault("kubernetes.io/metadata.name", name)
        namespaces.append((name, _pairs(labels)))
    return ClusterObjects(tuple(workloads), tuple(namespaces))


def workload_object(kind: str, item: object, where: str) -> WorkloadObject:
    """A Service, ReplicaSet, ReplicationController or StatefulSet, as the Kubernetes
    object or as ``{name, namespace, selector}``."""
    entry = _map(item, where)
    metadata = _map(entry.get("metadata"), f"{where}.metadata")
    spec = _map(entry.get("spec"), f"{where}.spec")
    name = _text(metadata.get("name", entry.get("name")), f"{where}.name")
    namespace = _text(metadata.get("namespace", entry.get("namespace")), f"{where}.namespace")
    raw = spec.get("selector", entry.get("selector"))
    if kind in _MAP_SELECTORS:
        selector_map = None if raw is None else _labels(raw, f"{where}.selector")
        return WorkloadObject(kind, name, namespace or DEFAULT_NAMESPACE, selector_map, None)
    selector = label_selector(raw, f"{where}.selector")
    return WorkloadObject(kind, name, namespace or DEFAULT_NAMESPACE, None, selector)


def label_selector(data: object, where: str) -> LabelSelector | None:
    """A ``metav1.LabelSelector`` (``None`` when not set)."""
    if data is None:
        return None
    mapping = _map(data, where)
    expressions = []
    for index, item in enumerate(
        _list(mapping.get("matchExpressions"), f"{where}.matchExpressions")
    ):
        at = f"{where}.matchExpressions[{index}]"
        entry = _map(item, at)
        values = tuple(_text(v, f"{at}.values") for v in _list(entry.get("values"), f"{at}.values"))
        expressions.append(
            SelectorRequirement(
                _text(entry.get("key"), f"{at}.key"),
                _text(entry.get("operator"), f"{at}.operator"),
                values,
            )
        )
    return LabelSelector(
        _labels(mapping.get("matchLabels"), f"{where}.matchLabels"), tuple(expressions)
    )


def _owner(item: object, where: str) -> OwnerReference:
    entry = _map(item, where)
    controller = entry.get("controller")
    if controller is not None and not isinstance(controller, bool):
        raise WorkloadSpecError(f"{where}.controller: must be true or false")
    return OwnerReference(
        _text(entry.get("kind"), f"{where}.kind"),
        _text(entry.get("name"), f"{where}.name"),
        _text(entry.get("apiVersion"), f"{where}.apiVersion"),
        bool(controller),
    )


def _spread(item: object, where: str) -> SpreadConstraint:
    entry = _map(item, where)
    return SpreadConstraint(
        max_skew=_int(entry.get("maxSkew"), f"{where}.maxSkew") or 0,
        topology_key=_text(entry.get("topologyKey"), f"{where}.topologyKey"),
        when_unsatisfiable=_text(entry.get("whenUnsatisfiable"), f"{where}.whenUnsatisfiable"),
        label_selector=label_selector(entry.get("labelSelector"), f"{where}.labelSelector"),
        min_domains=_int(entry.get("minDomains"), f"{where}.minDomains"),
        node_affinity_policy=_optional_text(entry.get("nodeAffinityPolicy"), where),
        node_taints_policy=_optional_text(entry.get("nodeTaintsPolicy"), where),
        match_label_keys=_strings(entry.get("matchLabelKeys"), f"{where}.matchLabelKeys"),
    )


def _pod_affinity(affinity: Mapping[str, Any], where: str) -> PodAffinity:
    parts: dict[str, Any] = {}
    for key, required, preferred in (
        ("podAffinity", "required", "preferred"),
        ("podAntiAffinity", "anti_required", "anti_preferred"),
    ):
        at = f"{where}.affinity.{key}"
        section = _map(affinity.get(key), at)
        parts[required] = tuple(
            _affinity_term(item, f"{at}.{_REQUIRED}[{i}]")
            for i, item in enumerate(_list(section.get(_REQUIRED), f"{at}.{_REQUIRED}"))
        )
        weighted = []
        for i, item in enumerate(_list(section.get(_PREFERRED), f"{at}.{_PREFERRED}")):
            entry = _map(item, f"{at}.{_PREFERRED}[{i}]")
            term = _affinity_term(
                entry.get("podAffinityTerm"), f"{at}.{_PREFERRED}[{i}].podAffinityTerm"
            )
            weighted.append(
                WeightedAffinityTerm(_int(entry.get("weight"), f"{at}.weight") or 0, term)
            )
        parts[preferred] = tuple(weighted)
    found = PodAffinity(**parts)
    return found if found.any else NO_AFFINITY


def _affinity_term(item: object, where: str) -> AffinityTerm:
    entry = _map(item, where)
    return AffinityTerm(
        topology_key=_text(entry.get("topologyKey"), f"{where}.topologyKey"),
        label_selector=label_selector(entry.get("labelSelector"), f"{where}.labelSelector"),
        namespaces=_strings(entry.get("namespaces"), f"{where}.namespaces"),
        namespace_selector=label_selector(
            entry.get("namespaceSelector"), f"{where}.namespaceSelector"
        ),
        match_label_keys=_strings(entry.get("matchLabelKeys"), f"{where}.matchLabelKeys"),
        mismatch_label_keys=_strings(entry.get("mismatchLabelKeys"), f"{where}.mismatchLabelKeys"),
    )


def _preferred_node_terms(affinity: object, where: str) -> tuple[PreferredNodeTerm, ...] | None:
    node_affinity = _map(_map(affinity, f"{where}.affinity").get("nodeAffinity"), where)
    terms = node_affinity.get(_PREFERRED)
    if terms is None:
        return None
    at = f"{where}.affinity.nodeAffinity.{_PREFERRED}"
    result = []
    for index, item in enumerate(_list(terms, at)):
        entry = _map(item, f"{at}[{index}]")
        weight = _int(entry.get("weight"), f"{at}[{index}].weight") or 0
        try:
            term: SelectorTerm = selector_term_from_dict(
                entry.get("preference"), f"{at}[{index}].preference"
            )
        except FilterSpecError as error:
            raise WorkloadSpecError(str(error)) from None
        result.append(PreferredNodeTerm(weight, term))
    return tuple(result)


def _containers(
    top: Mapping[str, Any], spec: Mapping[str, Any], where: str
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[HostPort, ...]]:
    """Images of the containers and of the init containers, and the host ports of the
    containers and sidecars (``util.GetHostPorts``)."""
    ports: list[HostPort] = []
    if "containers" not in spec:  # the shorthand: one container
        image = _text(top.get("image"), f"{where}.image")
        for index, port in enumerate(_list(top.get("hostPorts"), f"{where}.hostPorts")):
            ports.append(HostPort(_port(port, f"{where}.hostPorts[{index}]")))
        return ((image,) if image else ()), _images(spec.get("initContainers"), where), tuple(ports)
    groups = (("initContainers", True), ("containers", False))
    for group, init in groups:
        for index, item in enumerate(_list(spec.get(group), f"{where}.{group}")):
            container = _map(item, f"{where}.{group}[{index}]")
            if init and container.get("restartPolicy") != "Always":
                continue
            ports.extend(_host_ports(container.get("ports"), f"{where}.{group}[{index}].ports"))
    return (
        _images(spec.get("containers"), where),
        _images(spec.get("initContainers"), where),
        tuple(ports),
    )


def _images(containers: object, where: str) -> tuple[str, ...]:
    if not isinstance(containers, list):
        return ()
    return tuple(
        _text(item.get("image"), f"{where}.image")
        for item in containers
        if isinstance(item, Mapping)
    )


def _host_ports(data: object, where: str) -> list[HostPort]:
    ports = []
    for index, item in enumerate(_list(data, where)):
        entry = _map(item, f"{where}[{index}]")
        port = _int(entry.get("hostPort"), f"{where}[{index}].hostPort") or 0
        if port > 0:
            ports.append(
                HostPort(
                    port,
                    _text(entry.get("protocol"), f"{where}[{index}].protocol") or "TCP",
                    _text(entry.get("hostIP"), f"{where}[{index}].hostIP") or "0.0.0.0",
                )
            )
    return ports


def _port(data: object, where: str) -> int:
    if isinstance(data, Mapping):
        return _int(data.get("hostPort"), where) or 0
    return _int(data, where) or 0


def _image_volumes(volumes: object, where: str) -> tuple[str, ...]:
    references = []
    for item in volumes if isinstance(volumes, list) else ():
        image = item.get("image") if isinstance(item, Mapping) else None
        if isinstance(image, Mapping):
            references.append(_text(image.get("reference"), f"{where}.volumes.image.reference"))
    return tuple(references)


def _size(data: object, where: str) -> int:
    if isinstance(data, bool):
        raise WorkloadSpecError(f"{where}: an image size is a number of bytes or a quantity")
    if isinstance(data, int):
        return data
    if not isinstance(data, str):
        raise WorkloadSpecError(f"{where}: an image size is a number of bytes or a quantity")
    try:
        return parse_quantity(data).value()
    except QuantityError as error:
        raise WorkloadSpecError(f"{where}: {error}") from None


def _pairs(labels: Mapping[str, str]) -> Labels:
    return tuple(sorted(labels.items()))


def _labels(data: object, where: str) -> Labels:
    mapping = _map(data, where)
    for key, value in mapping.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise WorkloadSpecError(f"{where}.{key}: label keys and values must be strings")
    return _pairs(mapping)


def _strings(data: object, where: str) -> tuple[str, ...]:
    return tuple(_text(item, where) for item in _list(data, where))


def _text(data: object, where: str) -> str:
    if data is None:
        return ""
    if not isinstance(data, str):
        raise WorkloadSpecError(f"{where}: must be a string")
    return data


def _optional_text(data: object, where: str) -> str | None:
    return None if data is None else _text(data, where)


def _int(data: object, where: str) -> int | None:
    if data is None:
        return None
    if isinstance(data, bool) or not isinstance(data, int):
        raise WorkloadSpecError(f"{where}: must be an integer")
    return data


def _map(data: object, where: str) -> Mapping[str, Any]:
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise WorkloadSpecError(f"{where}: expected a mapping, got {type(data).__name__}")
    return data


def _list(data: object, where: str) -> Sequence[Any]:
    if data is None:
        return ()
    if not isinstance(data, list):
        raise WorkloadSpecError(f"{where}: expected a list, got {type(data).__name__}")
    return data
