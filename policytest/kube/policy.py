"""The legacy scheduler ``Policy`` API and its v1 equivalent.

Before 1.23 kube-scheduler could read a ``Policy`` (``--policy-config-file``) whose
``priorities`` were weighted score functions. Each bin-packing priority became a
``NodeResourcesFit`` scoring strategy; the others became score plugins. A Policy with
``priorities`` ran only those, so the equivalent disables the other score plugins.
"""

from __future__ import annotations

import json

from policytest.core.records import record
from policytest.kube.registry import (
    BALANCED,
    CURRENT_API_VERSION,
    DEFAULT_RESOURCES,
    DEFAULT_SCHEDULER_NAME,
    FIT,
    KIND,
)
from policytest.kube.values import integer, items, mapping, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Legacy priority -> v1 score plugin (the Fit strategies are handled separately).
_PRIORITY_PLUGINS = {
    "BalancedResourceAllocation": BALANCED,
    "ImageLocalityPriority": "ImageLocality",
    "InterPodAffinityPriority": "InterPodAffinity",
    "NodeAffinityPriority": "NodeAffinity",
    "TaintTolerationPriority": "TaintToleration",
    "SelectorSpreadPriority": "PodTopologySpread",
    "EvenPodsSpreadPriority": "PodTopologySpread",
    "VolumeBindingPriority": "VolumeBinding",
}
_FIT_STRATEGIES = {
    "MostRequestedPriority": "MostAllocated",
    "LeastRequestedPriority": "LeastAllocated",
    "RequestedToCapacityRatioPriority": "RequestedToCapacityRatio",
}


@record(frozen=True)
class Translation:
    """The v1 configuration equivalent to a Policy, as YAML, and what did not carry over."""

    yaml: str
    notes: tuple[str, ...]
    flow: str = ""
    """The same configuration on one line (JSON, which YAML reads), for messages."""


def translate(policy: Any, api_version: str = CURRENT_API_VERSION) -> Translation:
    """The ``KubeSchedulerConfiguration`` equivalent of a decoded legacy Policy, in
    ``api_version`` (NodeResourcesFit's scoringStrategy exists from v1beta2, 1.22)."""
    notes: list[str] = []
    enabled: list[dict[str, Any]] = []
    fit_args: dict[str, Any] | None = None
    for entry in items(mapping(policy).get("priorities")):
        priority = mapping(entry)
        name = text(priority.get("name"))
        weight = integer(priority.get("weight")) or 1
        if name in _FIT_STRATEGIES:
            if fit_args is not None:
                notes.append(
                    f"{name} also maps to NodeResourcesFit, which has one strategy: "
                    "only the first is kept"
                )
                continue
            fit_args = _fit_args(_FIT_STRATEGIES[name], mapping(priority.get("argument")), notes)
            enabled.append({"name": FIT, "weight": weight})
        elif name in _PRIORITY_PLUGINS:
            plugin = _PRIORITY_PLUGINS[name]
            if all(e["name"] != plugin for e in enabled):
                enabled.append({"name": plugin, "weight": weight})
        else:
            notes.append(f"priority {name or '(unnamed)'} has no v1 equivalent")
    profile: dict[str, Any] = {"schedulerName": DEFAULT_SCHEDULER_NAME}
    if enabled:
        profile["plugins"] = {"score": {"disabled": [{"name": "*"}], "enabled": enabled}}
    if fit_args is not None:
        profile["pluginConfig"] = [{"name": FIT, "args": fit_args}]
    if items(mapping(policy).get("predicates")):
        notes.append("predicates are not translated: the v1 default filter plugins apply")
    config = {"apiVersion": api_version, "kind": KIND, "profiles": [profile]}
    return Translation(emit_yaml(config), tuple(notes), json.dumps(config))


def _fit_args(strategy: str, argument: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    scoring: dict[str, Any] = {"type": strategy}
    ratio = mapping(argument.get("requestedToCapacityRatioArguments"))
    resources = []
    for entry in items(ratio.get("resources")):
        resource = mapping(entry)
        name = text(resource.get("name"))
        if name.lower() in ("cpu", "memory") and name != name.lower():
            notes.append(f"resource {name} is written {name.lower()} (names are case-sensitive)")
            name = name.lower()
        resources.append({"name": name, "weight": integer(resource.get("weight")) or 1})
    scoring["resources"] = resources or [{"name": n, "weight": w} for n, w in DEFAULT_RESOURCES]
    if strategy == "RequestedToCapacityRatio":
        shape = [
            {
                "utilization": integer(mapping(p).get("utilization")) or 0,
                "score": integer(mapping(p).get("score")) or 0,
            }
            for p in items(ratio.get("shape"))
        ] or [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]
        if any(point["score"] > 10 for point in shape):
            notes.append("shape scores above 10: v1 requires 0..10 (it multiplies them by 10)")
        scoring["requestedToCapacityRatio"] = {"shape": shape}
    return {"scoringStrategy": scoring}


def emit_yaml(value: Any, indent: int = 0) -> str:
    """Block-style YAML for plain dicts/lists/scalars, keys in insertion order."""
    return "\n".join(_emit(value, indent)) + "\n"


def _emit(value: Any, indent: int) -> list[str]:
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (dict, list)) and item:
                lines.append(f"{pad}{key}:")
                lines.extend(_emit(item, indent + (0 if isinstance(item, list) else 2)))
            else:
                lines.append(f"{pad}{key}: {_scalar(item)}")
    elif isinstance(value, list):
        for item in value:
            nested = _emit(item, indent + 2)
            lines.append(f"{pad}- {nested[0].lstrip()}")
            lines.extend(nested[1:])
    else:
        lines.append(f"{pad}{_scalar(value)}")
    return lines


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if value == {} or value == []:
        return "{}" if value == {} else "[]"
    shown = str(value)
    return f'"{shown}"' if shown in ("*", "") or shown[0] in "!&*{[#|>'\"%@`" else shown
