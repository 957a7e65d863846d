"""Label keys and values as ``k8s.io/apimachinery`` validates them, and which resource
names a NodeInfo counts (yes or no; the messages kube-scheduler prints are
:mod:`policytest.kube.names`'s). Plain functions: the config checks use them without
loading the cluster model."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = [
    "is_dns1123_subdomain",
    "is_extended_resource_name",
    "is_label_value",
    "is_name_part",
    "is_qualified_name",
    "is_scalar_resource_name",
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
