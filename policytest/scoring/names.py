"""Label keys and values as ``k8s.io/apimachinery`` validates them, which resource
names a NodeInfo counts (yes or no; the messages kube-scheduler prints are
:mod:`policytest.kube.names`'s), which resource names the API server accepts in a pod
and a kubelet reports for a node, and the well-known name a misspelt one means. Plain
functions: the config checks use them without loading the cluster model."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = [
    "NODE_RESOURCES",
    "POD_RESOURCES",
    "WELL_KNOWN_RESOURCES",
    "is_dns1123_subdomain",
    "is_extended_resource_name",
    "is_label_value",
    "is_name_part",
    "is_qualified_name",
    "is_scalar_resource_name",
    "meant_resource",
    "misspelt_vendor",
    "node_can_have",
    "pod_can_request",
]

# k8s.io/apimachinery validation: IsQualifiedName / IsDNS1123Subdomain / IsValidLabelValue.
# Their regular expressions, as character tests: compiling the patterns cost every hook
# run on a KubeSchedulerConfiguration more than the checks themselves.
_LOWER_ALNUM: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_ALNUM: Final = _LOWER_ALNUM | frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_NAME_CHARACTERS: Final = _ALNUM | frozenset("-_.")
_LABEL_CHARACTERS: Final = _LOWER_ALNUM | frozenset("-")


def is_name_part(text: str) -> bool:
    """``([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]``: a qualified name's name part."""
    return bool(text) and text[0] in _ALNUM and text[-1] in _ALNUM and set(text) <= _NAME_CHARACTERS


def is_dns1123_subdomain(text: str) -> bool:
    """``[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`` (the length
    limit apart): dot-separated lowercase labels that start and end alphanumeric."""
    return all(
        label
        and label[0] in _LOWER_ALNUM
        and label[-1] in _LOWER_ALNUM
        and set(label) <= _LABEL_CHARACTERS
        for label in text.split(".")
    )


def is_qualified_name(value: str) -> bool:
    """``validation.IsQualifiedName``: ``[prefix/]name`` (a label key, a resource name)."""
    parts = value.split("/")
    if len(parts) == 2:
        prefix, name = parts
        if not prefix or len(prefix) > 253 or not is_dns1123_subdomain(prefix):
            return False
    elif len(parts) == 1:
        name = parts[0]
    else:
        return False
    return len(name) <= 63 and is_name_part(name)


def is_label_value(value: str) -> bool:
    """``validation.IsValidLabelValue``: empty, or a name part of at most 63 characters."""
    return value == "" or (len(value) <= 63 and is_name_part(value))


# --- resource names (k8s.io/kubernetes/pkg/apis/core/v1/helper) --------------------------


def is_extended_resource_name(name: str) -> bool:
    """A domain-qualified name outside ``kubernetes.io/`` (e.g. ``nvidia.com/gpu``)."""
    if _is_native(name) or name.startswith("requests."):
        return False
    return is_qualified_name("requests." + name)


def is_scalar_resource_name(name: str) -> bool:
    """Resources a NodeInfo keeps in ScalarResources: extended, hugepages, prefixed native
    and attachable-volume resources. Anything else unknown (``foo``) is dropped."""
    return (
        is_extended_resource_name(name)
        or name.startswith("hugepages-")
        or "kubernetes.io/" in name
        or name.startswith("attachable-volumes-")
    )


def _is_native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


WELL_KNOWN_RESOURCES: Final = (
    "cpu",
    "memory",
    "pods",
    "ephemeral-storage",
    "nvidia.com/gpu",
    "amd.com/gpu",
    "gpu.intel.com/i915",
    "gpu.intel.com/xe",
    "volcano.sh/vgpu-number",
    "volcano.sh/vgpu-memory",
    "volcano.sh/vgpu-cores",
    "huawei.com/Ascend910",
    "huawei.com/Ascend310",
    "huawei.com/Ascend310P",
)
"""The resource names nodes report most: Kubernetes' own and the common device plugins'
(what a misspelt name is compared with)."""

_CONTAINER_RESOURCES: Final = ("cpu", "memory", "ephemeral-storage")
"""``IsStandardContainerResourceName`` (with ``hugepages-<size>``)."""
_NODE_RESOURCES: Final = (*_CONTAINER_RESOURCES, "pods")
_NODE_PREFIXES: Final = ("hugepages-", "attachable-volumes-")
"""Unqualified names a kubelet reports besides :data:`_NODE_RESOURCES`: huge pages of a
size, and the in-tree volume limits of releases before 1.27 (old snapshots hold them)."""
_SHORT_NAMES: Final = {
    "mem": "memory",
    "ram": "memory",
    "core": "cpu",
    "cores": "cpu",
    "vcpu": "cpu",
    "pod": "pods",
    "disk": "ephemeral-storage",
    "storage": "ephemeral-storage",
    "gpu": "nvidia.com/gpu",
    "gpus": "nvidia.com/gpu",
}
"""Words people write for a resource, and the name Kubernetes gives it."""


def _qualified_resource(name: str) -> bool:
    """A ``DOMAIN/NAME`` resource name the API server accepts: a qualified name in
    ``kubernetes.io``, or an extended resource name outside it."""
    return is_qualified_name(name) and ("kubernetes.io/" in name or is_extended_resource_name(name))


def pod_can_request(name: str) -> bool:
    """Whether the API server accepts ``name`` in a pod's requests, limits or overhead
    (``validateContainerResourceName``: a qualified name; unqualified, only cpu, memory,
    ephemeral-storage and ``hugepages-<size>``; qualified outside ``kubernetes.io``, an
    extended resource name, which ``requests.`` may not start)."""
    if "/" in name:
        return _qualified_resource(name)
    return is_qualified_name(name) and (
        name in _CONTAINER_RESOURCES or name.startswith("hugepages-")
    )


def node_can_have(name: str) -> bool:
    """Whether a node's allocatable can hold ``name``: the API server checks only the
    quantities there, but a kubelet reports cpu, memory, ephemeral-storage, pods, huge
    pages and in-tree volume limits, and a device plugin registers only an extended
    resource name."""
    if "/" in name:
        return _qualified_resource(name)
    return name in _NODE_RESOURCES or name.startswith(_NODE_PREFIXES)


POD_RESOURCES: Final = (
    "the API server accepts cpu, memory, ephemeral-storage, hugepages-<size> and "
    "DOMAIN/NAME such as nvidia.com/gpu"
)
"""What :func:`pod_can_request` accepts, in words."""
NODE_RESOURCES: Final = (
    "a node has cpu, memory, ephemeral-storage, pods, hugepages-<size> and device "
    "resources named DOMAIN/NAME such as nvidia.com/gpu"
)
"""What :func:`node_can_have` accepts, in words."""


def meant_resource(name: str) -> str | None:
    """The well-known resource a misspelt or made-up ``name`` most likely means
    (``memroy`` -> ``memory``, ``gpu`` -> ``nvidia.com/gpu``), else ``None``."""
    from policytest.core.suggest import closest

    short = _SHORT_NAMES.get(name.lower())
    if short is not None:
        return short
    found = closest(name, WELL_KNOWN_RESOURCES)
    if found is None and "gpu" in name.lower():
        gpus = [known for known in WELL_KNOWN_RESOURCES if "gpu" in known]
        found = closest(name, gpus) or "nvidia.com/gpu"
    return found


def misspelt_vendor(name: str) -> str | None:
    """The well-known device resource a valid extended resource name misspells: the same
    name up to case (``nvidia.com/GPU``), or a slip in a well-known vendor's domain
    (``nvida.com/gpu``), else ``None``. A name in a well-known vendor's own domain is
    never called a slip: vendors name many devices (``huawei.com/Ascend910B3``)."""
    from policytest.core.suggest import closest

    if "/" not in name or name in WELL_KNOWN_RESOURCES:
        return None
    same = [known for known in WELL_KNOWN_RESOURCES if known.lower() == name.lower()]
    if same:
        return same[0]
    domain, _, part = name.partition("/")
    domains = {known.partition("/")[0] for known in WELL_KNOWN_RESOURCES if "/" in known}
    if domain in domains:
        return None
    vendor = closest(domain, domains)
    if vendor is None:
        return None
    own = [known for known in WELL_KNOWN_RESOURCES if known.startswith(f"{vendor}/")]
    return closest(f"{vendor}/{part}", own)
