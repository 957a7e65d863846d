"""Pods and nodes as users and the API write them, read into the cluster model.

Three spellings of a pod are read (see :mod:`policytest.scoring.cluster`), with the API
server's defaulting where the fixture asks for it (requests from limits, pod-level
requests from pod-level limits).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from policytest.core.errors import PolicytestError
from policytest.scoring.accounting import aggregate_container_requests
from policytest.scoring.cluster import EMPTY, Container, Node, Pod, ResourceList
from policytest.scoring.filters import (
    FilterSpecError,
    node_traits_from_dict,
    placement_from_dict,
)
from policytest.scoring.quantity import Quantity, QuantityError, parse_quantity
from policytest.scoring.workload_specs import (
    WorkloadSpecError,
    node_images_from_dict,
    pod_workload_from_dict,
)

__all__ = [
    "ClusterSpecError",
    "node_from_dict",
    "pod_from_dict",
    "pod_shape_key",
    "pods_from_dict",
    "pods_of_entry",
    "resource_list_from_dict",
    "shape_key",
]

# Pod-level resources (PodLevelResources feature) only cover these (IsSupportedPodLevelResource).
_POD_LEVEL_RESOURCES: Final = frozenset({"cpu", "memory"})
_HUGEPAGES_PREFIX: Final = "hugepages-"
_OVERCOMMITTABLE: Final = frozenset({"cpu", "memory"})
ORDER_KEY: Final = "order"
"""A bound pod entry's places in creation order, one per pod it counts (a snapshot writes
them; only a repack reads them)."""
# One entry may stand for this many pods at most: a typo like 1e9 must not exhaust memory.
MAX_POD_COUNT: Final = 1_000_000


class ClusterSpecError(PolicytestError, ValueError):
    """A node or pod description that has the wrong shape (not a quantity problem)."""


def resource_list_from_dict(data: object, where: str = "") -> ResourceList:
    """Parse ``{resource: quantity}``; ``None`` is an empty list (as in a PodSpec)."""
    if data is None:
        return EMPTY
    mapping = _mapping(data, where)
    parsed: dict[str, Quantity] = {}
    for name, text in mapping.items():
        if not isinstance(name, str) or not name:
            raise ClusterSpecError(f"{where}: resource names must be non-empty strings")
        try:
            parsed[name] = parse_quantity(text)
        except QuantityError as error:
            raise error.at(_join(where, name)) from None
    return ResourceList(parsed)


def pods_from_dict(
    data: object, *, default_requests_from_limits: bool, where: str = ""
) -> tuple[Pod, ...]:
    """Every pod one entry stands for: the pod repeated ``count`` times (default 1)."""
    mapping = _mapping(data, where)
    count = mapping.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_POD_COUNT:
        raise ClusterSpecError(
            f"{_join(where, 'count')}: must be an integer from 0 to {MAX_POD_COUNT}"
        )
    pod = pod_from_dict(
        mapping, default_requests_from_limits=default_requests_from_limits, where=where
    )
    return (pod,) * count


def pods_of_entry(entry: object, where: str, shape: object | None = None) -> tuple[Pod, ...]:
    """``pods_from_dict(entry, default_requests_from_limits=True, where=where)``, as the
    readers of a cluster's bound pods parse them, each description parsed once in this
    process: a repack's plan, its cluster checks and its nodes (today's, emptied) parsed
    the 2,281 pod shapes of a 5,000-node snapshot 13,669 times. ``shape``: the entry's
    :func:`pod_shape_key`, when the caller has it. An entry that fails to parse is not
    kept: it fails again, with its own ``where``."""
    key = pod_shape_key(entry) if shape is None else shape
    pods = _PARSED.get(key)
    if pods is None:
        pods = pods_from_dict(entry, default_requests_from_limits=True, where=where)
        if len(_PARSED) >= _PARSED_KEPT:
            _PARSED.clear()
        _PARSED[key] = pods
    return pods


_PARSED: dict[object, tuple[Pod, ...]] = {}
_PARSED_KEPT: Final = 1 << 14


def pod_from_dict(data: object, *, default_requests_from_limits: bool, where: str = "") -> Pod:
    """One pod from any of the accepted spellings (``count`` is ignored here).

    ``default_requests_from_limits`` applies the API server's defaulting: a container with
    a limit but no request for a resource requests its limit, and pod-level requests are
    defaulted from pod-level limits (KEP-2837). Fixtures describe pods as the API server
    stores them, so they want it on; replaying the oracle (built without it) wants it off.
    """
    mapping = top = _mapping(data, where)
    top_where = where or "pod"
    name = ""
    metadata = mapping.get("metadata")
    annotations = _annotations(mapping.get("annotations"), _join(where, "annotations"))
    if isinstance(metadata, Mapping):
        if isinstance(metadata.get("name"), str):
            name = metadata["name"]
        annotations = (
            _annotations(metadata.get("annotations"), _join(where, "metadata.annotations"))
            or annotations
        )
    if "spec" in mapping:
        where = _join(where, "spec")
        mapping = _mapping(mapping["spec"], where)
    elif isinstance(mapping.get("name"), str):
        name = mapping["name"]
    if "requests" in mapping or "limits" in mapping:
        if "containers" in mapping:
            raise ClusterSpecError(
                f"{where}: give either the shorthand requests/limits or containers, not both"
            )
        containers: tuple[Container, ...] = (
            _container(mapping, default_requests_from_limits, where, sidecar_allowed=False),
        )
    else:
        containers = _containers(
            mapping.get("containers"),
            default_requests_from_limits,
            _join(where, "containers"),
            sidecar_allowed=False,
        )
    init_containers = _containers(
        mapping.get("initContainers"),
        default_requests_from_limits,
        _join(where, "initContainers"),
        sidecar_allowed=True,
    )
    overhead = resource_list_from_dict(mapping.get("overhead"), _join(where, "overhead"))
    pod_requests, pod_limits = _requirements(mapping.get("resources"), _join(where, "resources"))
    pod_level: ResourceList | None = pod_requests if pod_requests else None
    try:
        placement = placement_from_dict(mapping, where or "pod")
        workload = pod_workload_from_dict(top, mapping, top_where)
    except (FilterSpecError, WorkloadSpecError) as error:
        raise ClusterSpecError(str(error)) from None
    pod = Pod(
        containers, init_containers, overhead, pod_level, name, annotations, placement, workload
    )
    if default_requests_from_limits and pod_limits:
        pod = Pod(
            containers,
            init_containers,
            overhead,
            _default_pod_requests(pod, pod_requests, pod_limits),
            name,
            annotations,
            placement,
            workload,
        )
    return pod


def _annotations(data: object, where: str) -> tuple[tuple[str, str], ...]:
    """``metadata.annotations`` (or the shorthand's ``annotations``): string to string."""
    if data is None:
        return ()
    mapping = _mapping(data, where)
    for key, value in mapping.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise ClusterSpecError(
                f"{_join(where, str(key))}: annotation names and values must be strings "
                "(quote the value, e.g. '{\"nvidia.com/gpu\": 1}')"
            )
    return tuple(sorted(mapping.items()))


def node_from_dict(data: object, *, default_requests_from_limits: bool, where: str = "") -> Node:
    """A node: ``{name, allocatable, pods: [...], used: {...}, labels: {...},
    taints: [...], unschedulable: bool, images: {...}}``.

    ``used`` is shorthand for one bound pod requesting exactly that, listed first.
    """
    mapping = _mapping(data, where)
    name = mapping.get("name")
    if not isinstance(name, str) or not name:
        raise ClusterSpecError(f"{_join(where, 'name')}: a node needs a non-empty name")
    allocatable = resource_list_from_dict(mapping.get("allocatable"), _join(where, "allocatable"))
    try:
        traits = node_traits_from_dict(
            mapping.get("labels"), mapping.get("taints"), mapping.get("unschedulable"), where
        )
        images = node_images_from_dict(mapping.get("images"), _join(where, "images"))
    except (FilterSpecError, WorkloadSpecError) as error:
        raise ClusterSpecError(str(error)) from None
    pods: list[Pod] = []
    if mapping.get("used") is not None:
        used = resource_list_from_dict(mapping["used"], _join(where, "used"))
        pods.append(Pod(containers=(Container(requests=used),), name=f"{name}-used"))
    entries = mapping.get("pods")
    if entries is None:
        entries = []
    if not isinstance(entries, list):
        raise ClusterSpecError(f"{_join(where, 'pods')}: must be a list of pods")
    for index, entry in enumerate(entries):
        pods.extend(
            pods_from_dict(
                entry,
                default_requests_from_limits=default_requests_from_limits,
                where=f"{_join(where, 'pods')}[{index}]",
            )
        )
    return Node(name, allocatable, tuple(pods), traits, images)


def _containers(
    data: object, defaulting: bool, where: str, *, sidecar_allowed: bool
) -> tuple[Container, ...]:
    if data is None:
        return ()
    if not isinstance(data, list):
        raise ClusterSpecError(f"{where}: must be a list of containers")
    return tuple(
        _container(item, defaulting, f"{where}[{index}]", sidecar_allowed=sidecar_allowed)
        for index, item in enumerate(data)
    )


def _container(data: object, defaulting: bool, where: str, *, sidecar_allowed: bool) -> Container:
    mapping = _mapping(data, where)
    if "resources" in mapping:
        if "requests" in mapping or "limits" in mapping:
            raise ClusterSpecError(
                f"{where}: give requests/limits either directly or under resources, not both"
            )
        requests, limits = _requirements(mapping["resources"], _join(where, "resources"))
    else:
        requests = resource_list_from_dict(mapping.get("requests"), _join(where, "requests"))
        limits = resource_list_from_dict(mapping.get("limits"), _join(where, "limits"))
    if defaulting and limits:
        requests = ResourceList({**limits, **requests})
    restart_policy = mapping.get("restartPolicy")
    if restart_policy is not None and (not sidecar_allowed or not isinstance(restart_policy, str)):
        raise ClusterSpecError(
            f"{_join(where, 'restartPolicy')}: only init containers take a restartPolicy "
            '(a string; "Always" makes a sidecar)'
        )
    name = mapping.get("name")
    return Container(requests, limits, restart_policy, name if isinstance(name, str) else "")


def _requirements(data: object, where: str) -> tuple[ResourceList, ResourceList]:
    """A ``ResourceRequirements``: (requests, limits)."""
    if data is None:
        return EMPTY, EMPTY
    mapping = _mapping(data, where)
    return (
        resource_list_from_dict(mapping.get("requests"), _join(where, "requests")),
        resource_list_from_dict(mapping.get("limits"), _join(where, "limits")),
    )


def _default_pod_requests(
    pod: Pod, requests: ResourceList, limits: ResourceList
) -> ResourceList | None:
    """The API server's ``defaultPodRequests``: pod-level requests from pod-level limits.

    For cpu and memory that some container requests, the default is the containers'
    aggregate request; otherwise it is the pod-level limit.
    """
    defaulted = dict(requests)
    for name, total in aggregate_container_requests(pod).items():
        if name not in defaulted and _is_pod_level(name) and name in _OVERCOMMITTABLE:
            defaulted[name] = Quantity(total)
    for name, limit in limits.items():
        if name not in defaulted and _is_pod_level(name):
            defaulted[name] = limit
    return ResourceList(defaulted) if defaulted else None


def _is_pod_level(name: str) -> bool:
    return name in _POD_LEVEL_RESOURCES or name.startswith(_HUGEPAGES_PREFIX)


def _mapping(data: object, where: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise ClusterSpecError(f"{where or 'value'}: expected a mapping, got {type(data).__name__}")
    return data


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def shape_key(value: Any) -> object:
    """A hashable stand-in for a decoded value that tells ``1``, ``1.0``, ``True`` and
    ``"1"`` apart: equal keys, equal descriptions (a cluster repeats a few pod shapes).

    The value's ``repr``: for the types a decoded document holds (dicts in their order,
    lists, strings, integers, floats, booleans, ``None``) it is the literal that reads
    back as the value, so equal text is an equal value of equal types (``-0.0`` and
    ``0.0`` differ, which only costs a shape being parsed twice). An integer or string of
    a subclass (the YAML reader's ``Uint64``) keys as its base value: the pod model reads
    them alike. Written in C, ``repr`` is 20 times faster than walking a pod's
    description in Python, and a snapshot's 36,000 pod entries were each walked four
    times."""
    return repr(value)


def pod_shape_key(entry: object) -> object:
    """:func:`shape_key` of a pod entry, its ``order`` left out: entries that differ
    only in when their pods were created describe the same pods. Made once per entry
    object (entries are not changed once read): the repack plan, the cluster checks and
    both builds of the nodes ask it of the same 36,000 entries of a 5,000-node snapshot."""
    known = _SHAPES.get(id(entry))
    if known is not None and known[0] is entry:
        return known[1]
    if isinstance(entry, dict) and ORDER_KEY in entry:
        key = shape_key({name: value for name, value in entry.items() if name != ORDER_KEY})
    else:
        key = shape_key(entry)
    if len(_SHAPES) >= _SHAPES_KEPT:
        _SHAPES.clear()
    _SHAPES[id(entry)] = (entry, key)  # the entry kept: its id is not reused meanwhile
    return key


_SHAPES: dict[int, tuple[object, object]] = {}
_SHAPES_KEPT: Final = 1 << 16
