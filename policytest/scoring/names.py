"""Label keys and values as ``k8s.io/apimachinery`` validates them, and which resource
names a NodeInfo counts (yes or no; the messages kube-scheduler prints are
:mod:`policytest.kube.names`'s). Plain functions: the config checks use them without
loading the cluster model."""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = [
    "is_extended_resource_name",
    "is_label_value",
    "is_qualified_name",
    "is_scalar_resource_name",
]

# k8s.io/apimachinery validation: IsQualifiedName / IsDNS1123Subdomain / IsValidLabelValue.
_NAME: Final = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_DNS1123_SUBDOMAIN: Final = re.compile(
    r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
)


def is_qualified_name(value: str) -> bool:
    """``validation.IsQualifiedName``: ``[prefix/]name`` (a label key, a resource name)."""
    parts = value.split("/")
    if len(parts) == 2:
        prefix, name = parts
        if not prefix or len(prefix) > 253 or not _DNS1123_SUBDOMAIN.fullmatch(prefix):
            return False
    elif len(parts) == 1:
        name = parts[0]
    else:
        return False
    return 0 < len(name) <= 63 and _NAME.fullmatch(name) is not None


def is_label_value(value: str) -> bool:
    """``validation.IsValidLabelValue``: empty, or a name part of at most 63 characters."""
    return value == "" or (len(value) <= 63 and _NAME.fullmatch(value) is not None)


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
