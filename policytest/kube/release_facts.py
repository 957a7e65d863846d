"""kube-scheduler facts that depend on the release being judged (``policytest.core.releases``).

The tables in :mod:`policytest.kube.registry` are 1.35's; this module derives each
release's registry, default multiPoint set and extension points from them and the release
row, and reports the fields a release's API does not decode (strict decoding: an unknown
field stops kube-scheduler). 1.36 adds the placement extension points
(``placementGenerate``: TopologyPlacementGenerator; ``placementScore``: PodGroupPodsCount
and NodeResourcesFit) and turns on ``NodeDeclaredFeatures`` by default; 1.37's API adds
``podGroupPostFilter``; 1.35 added NodeDeclaredFeatures and GangScheduling; 1.34 turned on
DynamicResourceAllocation (so DynamicResources joined the defaults).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from policytest.core.findings import Finding
from policytest.core.releases import KubeRelease
from policytest.kube import rules
from policytest.kube.registry import DEFAULT_MULTI_POINT, EXTENSION_POINTS, FIT, PLUGINS
from policytest.kube.values import items
from policytest.read.source import Document

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "PLACEMENT_POINTS",
    "default_multi_point",
    "extension_points",
    "field_findings",
    "registry",
]

PLACEMENT_POINTS = ("placementGenerate", "placementScore")
_NEW_PLUGINS = frozenset({"NodeDeclaredFeatures", "GangScheduling"})
_GATED_DEFAULTS = frozenset({"DynamicResources", "NodeDeclaredFeatures"})
_PLACEMENT_PLUGINS = {
    "PodGroupPodsCount": frozenset({"placementScore"}),
    "TopologyPlacementGenerator": frozenset({"placementGenerate"}),
}


@cache
def registry(release: KubeRelease) -> dict[str, frozenset[str]]:
    """The in-tree plugins ``release`` registers and the extension points of each
    (DynamicResources is a score plugin from 1.35)."""
    plugins = {
        name: points
        for name, points in PLUGINS.items()
        if name not in _NEW_PLUGINS or name in release.new_plugins
    }
    if not release.dra_scores:
        plugins["DynamicResources"] = plugins["DynamicResources"] - {"score"}
    if release.placement:
        plugins[FIT] = plugins[FIT] | {"placementScore"}
        plugins.update(
            (name, points)
            for name, points in _PLACEMENT_PLUGINS.items()
            if name in release.new_plugins
        )
    return plugins


def default_multi_point(release: KubeRelease) -> tuple[tuple[str, int | None], ...]:
    """``getDefaultPlugins`` with the release's default feature gates."""
    base = tuple(
        (name, None if name == "DynamicResources" and not release.dra_scores else weight)
        for name, weight in DEFAULT_MULTI_POINT
        if name not in _GATED_DEFAULTS or name in release.default_plugins
    )
    if "NodeDeclaredFeatures" in release.default_plugins:  # appended by applyFeatureGates
        base = (*base, ("NodeDeclaredFeatures", None))
    return base


def extension_points(release: KubeRelease) -> tuple[str, ...]:
    """The extension points the framework builds, in order (placement ones from 1.36)."""
    return (*EXTENSION_POINTS, *PLACEMENT_POINTS) if release.placement else EXTENSION_POINTS


def field_findings(
    document: Document, config: dict[str, Any], release: KubeRelease
) -> Iterator[Finding]:
    """KS003 for fields the newest API has and ``release``'s does not (the schema knows the
    newest API; strict decoding refuses the rest)."""
    from policytest.kube.decode import at_path

    for index, profile in enumerate(items(config.get("profiles"))):
        plugins = profile.get("plugins") if isinstance(profile, dict) else None
        if isinstance(plugins, dict):
            for key in plugins:
                if key not in release.plugin_sets and key in _LATER_SETS:
                    path = ("profiles", index, "plugins", key)
                    yield _unknown(document, at_path(document, path, key=True), path, key, release)
        entries = profile.get("pluginConfig") if isinstance(profile, dict) else None
        for position, entry in enumerate(items(entries)):
            if not isinstance(entry, dict) or entry.get("name") != "DynamicResources":
                continue
            args = entry.get("args")
            if not isinstance(args, dict) or release.dra_args is None:
                continue  # 1.33 registers no DynamicResourcesArgs: args pass unchecked
            for key in args:
                if key in ("filterTimeout", "bindingTimeout") and key not in release.dra_args:
                    where = ("profiles", index, "pluginConfig", position, "args", key)
                    node = at_path(document, where, key=True)
                    yield _unknown(document, node, where, key, release)


_LATER_SETS = frozenset({*PLACEMENT_POINTS, "podGroupPostFilter"})
_INTRODUCED = {
    "placementGenerate": "1.36",
    "placementScore": "1.36",
    "podGroupPostFilter": "1.37",
    "bindingTimeout": "1.35",
    "filterTimeout": "1.34",
}


def _unknown(
    document: Document, node: Any, path: tuple[str | int, ...], key: str, release: KubeRelease
) -> Finding:
    where = ".".join(f"[{p}]" if isinstance(p, int) else str(p) for p in path).replace(".[", "[")
    return rules.KS003_UNKNOWN_FIELD.at(
        document,
        node,
        f'unknown field "{where}": `{key}` is new in Kubernetes {_INTRODUCED[key]}, and '
        f"kube-scheduler {release.name} decodes strictly and refuses to start; remove it, or "
        f"judge a newer release with --kubernetes-version",
    )
