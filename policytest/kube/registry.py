"""Facts about kube-scheduler v1.35 that the checks and the model are built on.

Everything here was read from the upstream sources (``pkg/scheduler/framework/plugins/
registry.go``, ``apis/config/v1/default_plugins.go`` and ``defaults.go``, the plugins'
interface assertions) and from the Kubernetes changelogs, and is pinned by the oracle
corpus. Keeping the facts in one table means a new Kubernetes release is one diff here.
"""

from __future__ import annotations

from collections.abc import Iterable

from policytest.core.releases import Version
from policytest.core.suggest import did_you_mean, part_of
from policytest.scoring.kube_args import DEFAULT_RESOURCES as DEFAULT_RESOURCES
from policytest.scoring.kube_args import MAX_CUSTOM_PRIORITY_SCORE as MAX_CUSTOM_PRIORITY_SCORE
from policytest.scoring.kube_args import MAX_NODE_SCORE as MAX_NODE_SCORE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

API_GROUP: Final = "kubescheduler.config.k8s.io"
CURRENT_API_VERSION: Final = f"{API_GROUP}/v1"
KIND: Final = "KubeSchedulerConfiguration"
DEFAULT_SCHEDULER_NAME: Final = "default-scheduler"


# apiVersion of KubeSchedulerConfiguration -> (first release, release that removed it).
# v1alpha1/v1alpha2: gone in 1.19 (kubernetes#89298, #91420); v1beta1: 1.23 (#104782);
# v1beta2: 1.28 (#117649); v1beta3: 1.29 (#119994); v1: GA in 1.25.
API_VERSIONS: Final[dict[str, tuple[Version, Version | None]]] = {
    "v1alpha1": ((1, 12), (1, 19)),
    "v1alpha2": ((1, 18), (1, 19)),
    "v1beta1": ((1, 19), (1, 23)),
    "v1beta2": ((1, 22), (1, 28)),
    "v1beta3": ((1, 23), (1, 29)),
    "v1": ((1, 25), None),
}
POLICY_REMOVED: Final[Version] = (1, 23)
"""The legacy ``Policy`` API (``--policy-config-file``) went with v1beta1 in 1.23."""

# Extension points in the order the framework builds them (``getExtensionPoints``); the
# first one is where an unknown multiPoint plugin is reported.
EXTENSION_POINTS: Final = (
    "preFilter",
    "filter",
    "postFilter",
    "reserve",
    "preScore",
    "score",
    "preBind",
    "bind",
    "postBind",
    "permit",
    "preEnqueue",
    "queueSort",
)


def go_interface(extension_point: str) -> str:
    """The Go interface name kube-scheduler prints (``score`` -> ``ScorePlugin``)."""
    return extension_point[0].upper() + extension_point[1:] + "Plugin"


_PF, _F, _PO, _R, _PS, _S = "preFilter", "filter", "postFilter", "reserve", "preScore", "score"
_PB, _B, _PE, _Q = "preBind", "bind", "preEnqueue", "queueSort"

# The in-tree registry of v1.35 and the extension points each plugin implements.
PLUGINS: Final[dict[str, frozenset[str]]] = {
    "DynamicResources": frozenset({_PE, _PF, _F, _PO, _R, _S, _PB}),
    "ImageLocality": frozenset({_S}),
    "TaintToleration": frozenset({_F, _PS, _S}),
    "NodeName": frozenset({_F}),
    "NodePorts": frozenset({_PF, _F}),
    "NodeAffinity": frozenset({_PF, _F, _PS, _S}),
    "NodeDeclaredFeatures": frozenset({_PF, _F}),
    "PodTopologySpread": frozenset({_PF, _F, _PS, _S}),
    "NodeUnschedulable": frozenset({_F}),
    "NodeResourcesFit": frozenset({_PF, _F, _PS, _S}),
    "NodeResourcesBalancedAllocation": frozenset({_PS, _S}),
    "VolumeBinding": frozenset({_PF, _F, _R, _PS, _S, _PB}),
    "VolumeRestrictions": frozenset({_PF, _F}),
    "VolumeZone": frozenset({_PF, _F}),
    "NodeVolumeLimits": frozenset({_PF, _F}),
    "InterPodAffinity": frozenset({_PF, _F, _PS, _S}),
    "PrioritySort": frozenset({_Q}),
    "DefaultBinder": frozenset({_B}),
    "DefaultPreemption": frozenset({_PO, _PE}),
    "SchedulingGates": frozenset({_PE}),
    "GangScheduling": frozenset({_PE, _R, "permit"}),
}

GROUP_PLUGINS: Final = frozenset(
    {"GangScheduling", "TopologyPlacementGenerator", "PodGroupPodsCount", "Coscheduling"}
)
"""Plugins that schedule pods as groups rather than one by one: kube-scheduler's gang
scheduling (1.35+, alpha) and workload-aware placement (1.36+, alpha), and the
scheduler-plugins build's Coscheduling."""
PRIORITY_SORT: Final = "PrioritySort"

FIT: Final = "NodeResourcesFit"
BALANCED: Final = "NodeResourcesBalancedAllocation"

# ``getDefaultPlugins``: the default multiPoint set (name, weight) with the v1.35 default
# feature gates (DynamicResourceAllocation is GA and on).
DEFAULT_MULTI_POINT: Final[tuple[tuple[str, int | None], ...]] = (
    ("SchedulingGates", None),
    ("PrioritySort", None),
    ("NodeUnschedulable", None),
    ("NodeName", None),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", None),
    (FIT, 1),
    ("VolumeRestrictions", None),
    ("NodeVolumeLimits", None),
    ("VolumeBinding", None),
    ("VolumeZone", None),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DynamicResources", 2),
    ("DefaultPreemption", None),
    (BALANCED, 1),
    ("ImageLocality", 1),
    ("DefaultBinder", None),
)

# Plugins removed from v1 (``invalidPluginsByVersion``): rejected at validation.
REMOVED_PLUGINS: Final = frozenset({"AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits"})

# Plugins of earlier API versions that v1 no longer has, and what replaces them.
RETIRED_PLUGINS: Final[dict[str, str]] = {
    "NodeResourcesMostAllocated": "NodeResourcesFit with scoringStrategy.type MostAllocated",
    "NodeResourcesLeastAllocated": "NodeResourcesFit with scoringStrategy.type LeastAllocated",
    "RequestedToCapacityRatio": "NodeResourcesFit with scoringStrategy.type "
    "RequestedToCapacityRatio",
    "NodeResourceLimits": "NodeResourcesFit",
    "SelectorSpread": "PodTopologySpread",
    "DefaultPodTopologySpread": "PodTopologySpread",
    "NodeLabel": "NodeAffinity",
    "ServiceAffinity": "InterPodAffinity",
    "NodePreferAvoidPods": "nothing (it was removed)",
    **{name: "NodeVolumeLimits" for name in sorted(REMOVED_PLUGINS)},
}

MAX_INT64: Final = (1 << 63) - 1


def parse_version(text: str) -> Version | None:
    """``1.35``, ``v1.35.4`` -> (1, 35); ``None`` if it is not a Kubernetes version."""
    parts = text.strip().removeprefix("v").split(".")
    if len(parts) < 2 or not parts[0].isdigit() or not parts[1].isdigit():
        return None
    return int(parts[0]), int(parts[1])


def served_api_version(target: Version) -> str:
    """The newest ``kubescheduler.config.k8s.io`` version a release reads (v1 from 1.25)."""
    served = [
        (introduced, version)
        for version, (introduced, removed) in API_VERSIONS.items()
        if introduced <= target and (removed is None or target < removed)
    ]
    return f"{API_GROUP}/{max(served)[1]}" if served else CURRENT_API_VERSION


def plugin_hint(name: str, known: Iterable[str] | None = None) -> str:
    """What to use instead of a plugin name kube-scheduler does not know (``known``: the
    build's plugins, default the in-tree ones)."""
    replacement = RETIRED_PLUGINS.get(name)
    if replacement is not None:
        return f"; {name} no longer exists in v1: use {replacement}"
    choices = tuple(PLUGINS if known is None else known)
    slip = did_you_mean(name, choices)
    if slip:
        return slip
    whole = part_of(name, [plugin for plugin in choices if plugin in PLUGINS])
    if whole:
        meant = " or ".join(f"`{plugin}`" for plugin in whole[:3])
        return f"; did you mean {meant}? (`{name}` is only part of the name)"
    retired = part_of(name, RETIRED_PLUGINS)
    if len(retired) == 1:
        return f"; `{retired[0]}` no longer exists in v1: use {RETIRED_PLUGINS[retired[0]]}"
    return ""
