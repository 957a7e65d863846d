"""What a pod requests and what a node has left, as each scheduler counts it.

Both schedulers start from the same rule (``resourcehelper.PodRequests``, KEP-753):
containers and sidecars (init containers with ``restartPolicy: Always``) add up; each
regular init container runs alone next to the sidecars started before it, so the pod
needs the larger of the two; pod-level requests replace cpu/memory; overhead is added.
They differ in how they round and what else they count:

- kube-scheduler sums exact quantities and rounds once per pod (cpu up to millicores,
  the rest up to whole units). Scoring with NodeResourcesFit gives every container that
  does not mention cpu or memory 100m / 200Mi (an explicit "0" stays 0); the filter and
  BalancedAllocation use the actual requests.
- Volcano rounds every container on its own (``NewResource``), sums float64s, adds
  ``pods: 1``, and keeps other scalar resources in milli-units.

Per-pod results are cached: pods are immutable and a fixture's ``count: N`` repeats one
object.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from types import MappingProxyType
from typing import Final, TypeVar

from policytest.scoring.cluster import Container, Node, Pod, ResourceList, pod_runs
from policytest.scoring.names import is_extended_resource_name, is_scalar_resource_name
from policytest.scoring.quantity import Quantity

__all__ = [
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "KubeNodeInfo",
    "VolcanoNodeInfo",
    "aggregate_container_requests",
    "is_extended_resource_name",
    "is_scalar_resource_name",
    "kube_node_info",
    "kube_node_info_with_pod",
    "kube_pod_non_zero_requests",
    "kube_pod_requests",
    "pod_request_nanos",
    "volcano_node_info",
    "volcano_node_info_with_pod",
    "volcano_pod_request",
]

CPU: Final = "cpu"
MEMORY: Final = "memory"
EPHEMERAL_STORAGE: Final = "ephemeral-storage"
PODS: Final = "pods"

DEFAULT_MILLI_CPU_REQUEST: Final = 100  # schedutil.DefaultMilliCPURequest
DEFAULT_MEMORY_REQUEST: Final = 200 * 1024 * 1024  # schedutil.DefaultMemoryRequest
_NANO: Final = 10**9
_NON_MISSING: Final = MappingProxyType(
    {CPU: DEFAULT_MILLI_CPU_REQUEST * 10**6, MEMORY: DEFAULT_MEMORY_REQUEST * _NANO}
)
_CACHE_SIZE: Final = 1 << 16
EMPTY_LIST: Final = ResourceList()


Nanos = dict[str, int]
_N = TypeVar("_N", int, float)
_S = TypeVar("_S")


# --- resourcehelper.PodRequests, exact (in nanounits) ------------------------------------


def aggregate_container_requests(pod: Pod, non_missing: Mapping[str, int] | None = None) -> Nanos:
    """``AggregateContainerRequests`` (exact): ``non_missing`` (nanounits) fills in what a
    container does not mention at all."""
    return _aggregate(pod, lambda container: _container_nanos(container, non_missing), {})


def _aggregate(
    pod: Pod,
    own: Callable[[Container], dict[str, _N]],
    total: dict[str, _N],
    before_init: Mapping[str, _N] | None = None,
) -> dict[str, _N]:
    """Containers and sidecars add up; each regular init container runs beside the
    sidecars started before it, and the pod needs the largest of those moments.
    ``before_init`` is added to the containers' sum before that max is taken."""
    for container in pod.containers:
        _add(total, own(container))
    if before_init:
        _add(total, before_init)
    sidecars: dict[str, _N] = {}
    init_peak: dict[str, _N] = {}
    for container in pod.init_containers:
        requests = own(container)
        if container.is_sidecar:
            _add(total, requests)
            _add(sidecars, requests)
            running = sidecars
        else:
            running = dict(requests)
            _add(running, sidecars)
        _max(init_peak, running)
    _max(total, init_peak)
    return total


def pod_request_nanos(
    pod: Pod, non_missing: Mapping[str, int] | None = None, pod_level: bool = True
) -> Nanos:
    """``PodRequests``: with PodLevelResources on (``pod_level``) pod-level cpu/memory win;
    then overhead. ``pod_level=False`` is ``SkipPodLevelResources`` (the gate off, and
    NodeResourcesFit's score in every release)."""
    total = aggregate_container_requests(pod, non_missing)
    if pod_level:
        total.update(_nanos(_pod_level_requests(pod)))
    _add(total, _nanos(pod.overhead))
    return total


def _container_nanos(container: Container, non_missing: Mapping[str, int] | None) -> Nanos:
    own = _nanos(container.requests)
    if non_missing:
        for name, default in non_missing.items():
            own.setdefault(name, default)
    return own


def _pod_level_requests(pod: Pod) -> ResourceList:
    """The pod-level requests that replace the containers' (cpu, memory, hugepages)."""
    if pod.pod_level_requests is None:
        return EMPTY_LIST
    return ResourceList({k: v for k, v in pod.pod_level_requests.items() if _is_pod_level(k)})


def _is_pod_level(name: str) -> bool:
    return name in (CPU, MEMORY) or name.startswith("hugepages-")


def _add(into: dict[str, _N], other: Mapping[str, _N]) -> None:
    for name, value in other.items():
        into[name] = into[name] + value if name in into else value


def _per_pod(pods: Sequence[Pod], share: Callable[[Pod], _S]) -> Iterator[_S]:
    """``share(pod)`` for each pod in turn, asked once per run of one pod object
    (:func:`~policytest.scoring.cluster.pod_runs`): asking the memo for each copy compared
    it with an equal pod of another cluster (both sides of a ``diff``) field by field,
    5,000 host ports at a time. Each pod is still added on its own (Volcano sums floats)."""
    for pod, count in pod_runs(pods):
        found = share(pod)
        for _ in range(count):
            yield found


def _max(into: dict[str, _N], other: Mapping[str, _N]) -> None:
    for name, value in other.items():
        if name not in into or value > into[name]:
            into[name] = value


def _kube_units(name: str, nanos: int) -> int:
    """``MilliValue()`` for cpu, ``Value()`` for everything else."""
    quantity = Quantity(nanos)
    return quantity.milli_value() if name == CPU else quantity.value()


# --- kube-scheduler ------------------------------------------------------------------------


@lru_cache(maxsize=_CACHE_SIZE)
def kube_pod_requests(pod: Pod, pod_level: bool = True) -> Mapping[str, int]:
    """The pod's actual requests: cpu in millicores, everything else in units
    (``pod_level``: the PodLevelResources gate)."""
    return MappingProxyType(
        {
            name: _kube_units(name, nanos)
            for name, nanos in pod_request_nanos(pod, None, pod_level).items()
        }
    )


@lru_cache(maxsize=_CACHE_SIZE)
def kube_pod_non_zero_requests(pod: Pod, pod_level: bool = False) -> Mapping[str, int]:
    """Requests as NodeResourcesFit scores them: 100m / 200Mi for containers silent on
    cpu / memory (``calculatePodResourceRequest`` with NonMissingContainerRequests).

    Fit's scorer never receives the PodLevelResources gate (``NewFit`` does not copy it
    into its ``resourceAllocationScorer``), so by default the pod-level requests of the
    incoming pod are ignored here, in 1.35 and 1.36 alike."""
    nanos = pod_request_nanos(pod, _NON_MISSING, pod_level)
    return MappingProxyType({name: _kube_units(name, value) for name, value in nanos.items()})


@dataclass(frozen=True, slots=True)
class KubeNodeInfo:
    """kube-scheduler's ``NodeInfo`` for one node.

    ``allocatable`` and ``requested`` hold cpu (millicores), memory and ephemeral-storage
    (always) and scalar resources (only names ``is_scalar_resource_name`` accepts; other
    names are invisible to the scheduler). ``non_zero_requested`` holds cpu and memory.
    """

    name: str
    allocatable: Mapping[str, int]
    allowed_pod_number: int
    requested: Mapping[str, int]
    non_zero_requested: Mapping[str, int]
    pod_count: int


def kube_node_info(node: Node, pod_level: bool = True) -> KubeNodeInfo:
    """Sum the bound pods the way ``NodeInfo.AddPod`` does (each pod rounded on its own;
    ``pod_level``: the PodLevelResources gate)."""
    requested = _kube_resource({})
    non_zero = {CPU: 0, MEMORY: 0}
    for share in _per_pod(node.pods, lambda pod: _kube_node_share(pod, pod_level)):
        _kube_add(requested, non_zero, share)
    pods = node.allocatable.get(PODS)
    return KubeNodeInfo(
        name=node.name,
        allocatable=MappingProxyType(_kube_resource(_nanos(node.allocatable))),
        allowed_pod_number=pods.value() if pods is not None else 0,
        requested=MappingProxyType(requested),
        non_zero_requested=MappingProxyType(non_zero),
        pod_count=len(node.pods),
    )


def kube_node_info_with_pod(info: KubeNodeInfo, pod: Pod, pod_level: bool = True) -> KubeNodeInfo:
    """The node after binding ``pod`` (for placing pods one after another)."""
    requested = dict(info.requested)
    non_zero = dict(info.non_zero_requested)
    _kube_account(requested, non_zero, pod, pod_level)
    return KubeNodeInfo(  # not dataclasses.replace, which inspects the fields at every bind
        info.name,
        info.allocatable,
        info.allowed_pod_number,
        MappingProxyType(requested),
        MappingProxyType(non_zero),
        info.pod_count + 1,
    )


def _kube_account(
    requested: dict[str, int], non_zero: dict[str, int], pod: Pod, pod_level: bool
) -> None:
    _kube_add(requested, non_zero, _kube_node_share(pod, pod_level))


def _kube_add(
    requested: dict[str, int],
    non_zero: dict[str, int],
    share: tuple[Mapping[str, int], int, int],
) -> None:
    pod_requested, cpu, memory = share
    for name, value in pod_requested.items():
        requested[name] = requested.get(name, 0) + value
    non_zero[CPU] += cpu
    non_zero[MEMORY] += memory


def _nanos(resources: Mapping[str, Quantity]) -> Nanos:
    return {name: quantity.nanos for name, quantity in resources.items()}


def _kube_resource(nanos: Mapping[str, int]) -> dict[str, int]:
    """``framework.NewResource``: what a NodeInfo keeps of a ResourceList (pods apart)."""
    kept = {CPU: 0, MEMORY: 0, EPHEMERAL_STORAGE: 0}
    for name, value in nanos.items():
        if name in kept or is_scalar_resource_name(name):
            kept[name] = _kube_units(name, value)
    return kept


@lru_cache(maxsize=_CACHE_SIZE)
def _kube_node_share(pod: Pod, pod_level: bool = True) -> tuple[Mapping[str, int], int, int]:
    """What ``NodeInfo.AddPod`` adds for one pod: its requests, then ``calculateResource``'s
    non0CPU / non0Mem (with pod-level requests set, defaults only for cpu / memory that
    the pod's requests do not mention at all)."""
    actual = pod_request_nanos(pod, None, pod_level)
    non_missing: Mapping[str, int] = _NON_MISSING
    if pod_level and _pod_level_requests(pod):
        non_missing = {k: v for k, v in _NON_MISSING.items() if k not in actual}
    nanos = pod_request_nanos(pod, non_missing, pod_level) if non_missing else actual
    return (
        MappingProxyType(_kube_resource(actual)),
        _kube_units(CPU, nanos.get(CPU, 0)),
        _kube_units(MEMORY, nanos.get(MEMORY, 0)),
    )


# --- Volcano -----------------------------------------------------------------------------


@lru_cache(maxsize=_CACHE_SIZE)
def volcano_pod_request(pod: Pod, overhead_first: bool = False) -> Mapping[str, float]:
    """``GetPodResourceRequest``: Volcano units (milli-cpu, bytes, pods, milli-units), float64.

    Containers are rounded one by one and summed (float64), max'ed with the init
    containers, pod-level cpu/memory replace the result, then overhead and ``pods: 1``
    are added. Keys: always ``cpu`` and ``memory``, then the scalar resources Volcano keeps.
    ``overhead_first``: Volcano before 1.15 added the overhead to the containers before
    taking the max with the init containers (a column of ``policytest.core.releases``).
    """

    def own(container: Container) -> dict[str, float]:
        return _volcano_resource(container.requests)

    if overhead_first:
        total = _aggregate(pod, own, {CPU: 0.0, MEMORY: 0.0}, _volcano_resource(pod.overhead))
    else:
        total = _aggregate(pod, own, {CPU: 0.0, MEMORY: 0.0})
    total.update(_volcano_resource(_pod_level_requests(pod), keep_zero=False))
    if not overhead_first:
        _add(total, _volcano_resource(pod.overhead))
    _add(total, {PODS: 1.0})
    return MappingProxyType(total)


def volcano_resource(resources: ResourceList) -> dict[str, float]:
    """``api.NewResource`` of a resource list (a queue's capability, a PodGroup's
    ``minResources``), without the zero cpu and memory the pod accounting starts from."""
    return _volcano_resource(resources, keep_zero=False)


def _volcano_resource(resources: ResourceList, *, keep_zero: bool = True) -> dict[str, float]:
    """``api.NewResource``: cpu in milli, memory in bytes, pods as a count, ephemeral-storage
    and scalar resources (not ``count/...``) in milli-units; other names are dropped."""
    result: dict[str, float] = {CPU: 0.0, MEMORY: 0.0} if keep_zero else {}
    for name, quantity in resources.items():
        if name == CPU:
            result[CPU] = result.get(CPU, 0.0) + float(quantity.milli_value())
        elif name in (MEMORY, PODS):
            result[name] = result.get(name, 0.0) + float(quantity.value())
        elif name == EPHEMERAL_STORAGE or (
            not name.startswith("count/") and is_scalar_resource_name(name)
        ):
            result[name] = result.get(name, 0.0) + float(quantity.milli_value())
    return result


@dataclass(frozen=True, slots=True)
class VolcanoNodeInfo:
    """Volcano's ``NodeInfo``: allocatable and used in Volcano units (float64), the pod
    count and ``MaxTaskNum`` (allocatable pods)."""

    name: str
    allocatable: Mapping[str, float]
    used: Mapping[str, float]
    pod_count: int
    max_task_num: int


def volcano_node_info(node: Node, overhead_first: bool = False) -> VolcanoNodeInfo:
    """Every pod listed on the node counts in ``Used`` (no oversubscription modelled)."""
    used = _volcano_resource(EMPTY_LIST)
    for request in _per_pod(node.pods, lambda pod: volcano_pod_request(pod, overhead_first)):
        _add(used, request)
    pods = node.allocatable.get(PODS)
    return VolcanoNodeInfo(
        name=node.name,
        allocatable=MappingProxyType(_volcano_resource(node.allocatable)),
        used=MappingProxyType(used),
        pod_count=len(node.pods),
        max_task_num=pods.value() if pods is not None else 0,
    )


def volcano_node_info_with_pod(
    info: VolcanoNodeInfo, pod: Pod, overhead_first: bool = False
) -> VolcanoNodeInfo:
    """The node after binding ``pod`` (for placing pods one after another)."""
    used = dict(info.used)
    _add(used, volcano_pod_request(pod, overhead_first))
    return replace(info, used=MappingProxyType(used), pod_count=info.pod_count + 1)
