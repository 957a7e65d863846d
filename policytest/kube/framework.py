"""How kube-scheduler turns a profile's ``plugins`` into the plugins that actually run.

Three upstream steps, reproduced in order: defaulting merges the user's plugin sets into
the default multiPoint set (``mergePluginSet``); building the framework registers each
explicit extension point, then expands multiPoint into every point a plugin implements
(``updatePluginList``, ``expandMultiPointPlugins``); finally the score weights are read
and guarded against overflow (``getScoreWeights``). Problems are returned, not raised,
so every one of them can be reported.
"""

from __future__ import annotations

from collections.abc import Callable

from policytest.core.findings import Severity
from policytest.core.records import field, record
from policytest.core.releases import KubeRelease
from policytest.core.rules import Rule
from policytest.kube import rules
from policytest.kube.builds import Registry
from policytest.kube.registry import (
    EXTENSION_POINTS,
    MAX_INT64,
    MAX_NODE_SCORE,
    REMOVED_PLUGINS,
    go_interface,
    plugin_hint,
)
from policytest.kube.release_facts import default_multi_point, extension_points
from policytest.scoring.goint import wrap_int64

Path = tuple[str | int, ...]


@record(frozen=True)
class Problem:
    """Something to report at a decoded path (``key``: at the key rather than the value)."""

    rule: Rule
    path: Path
    message: str
    key: bool = False
    severity: Severity | None = None


@record(frozen=True)
class PluginRef:
    """One ``{name, weight}`` entry of a plugin set, with where it was written."""

    name: str
    weight: int | None
    path: Path


@record(frozen=True)
class PluginSet:
    """``enabled`` and ``disabled`` of one extension point."""

    enabled: tuple[PluginRef, ...] = ()
    disabled: tuple[PluginRef, ...] = ()

    @property
    def disabled_names(self) -> frozenset[str]:
        return frozenset(plugin.name for plugin in self.disabled)


_Report = Callable[[str, PluginRef, Problem], None]
"""Reports a problem once per (kind, plugin name)."""


@record(frozen=True)
class Framework:
    """The built framework of one profile: plugins per extension point, score weights."""

    plugins: dict[str, tuple[str, ...]]
    weights: dict[str, int]
    problems: list[Problem] = field(default_factory=list)
    raised: tuple[PluginRef, ...] = ()
    """Score plugins whose weight was written as 0 and is held as 1 (KS040)."""
    placement_weights: dict[str, int] = field(default_factory=dict)
    """placementScore plugins' weights (kube-scheduler 1.36+)."""

    @property
    def placement_score_plugins(self) -> tuple[tuple[str, int], ...]:
        points = self.plugins.get("placementScore", ())
        return tuple((name, self.placement_weights.get(name, 1)) for name in points)

    @property
    def score_plugins(self) -> tuple[tuple[str, int], ...]:
        return tuple((name, self.weights.get(name, 1)) for name in self.plugins["score"])


def default_plugins(profile_path: Path, release: KubeRelease) -> dict[str, PluginSet]:
    """``getDefaultPlugins``: only multiPoint has defaults in v1 (which plugins it holds
    depends on the release's feature gates)."""
    multi = tuple(
        PluginRef(name, weight, profile_path) for name, weight in default_multi_point(release)
    )
    return {name: PluginSet(multi if name == "multiPoint" else ()) for name in release.plugin_sets}


def merge_plugin_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    """``mergePluginSet``: a custom entry replaces the default of the same name in place;
    other custom entries (duplicates included) are appended; ``*`` drops every default."""
    disabled = custom.disabled + default.disabled
    disabled_names = frozenset(plugin.name for plugin in disabled)
    custom_by_name = {plugin.name: index for index, plugin in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list[PluginRef] = []
    if "*" not in disabled_names:
        for plugin in default.enabled:
            if plugin.name in disabled_names:
                continue
            index = custom_by_name.get(plugin.name)
            if index is not None:
                plugin = custom.enabled[index]
                replaced.add(index)
            enabled.append(plugin)
    enabled.extend(p for i, p in enumerate(custom.enabled) if i not in replaced)
    return PluginSet(tuple(enabled), disabled)


def needed_plugins(sets: dict[str, PluginSet]) -> frozenset[str]:
    """``pluginsNeeded``: every plugin enabled anywhere; only these are instantiated."""
    return frozenset(plugin.name for plugin_set in sets.values() for plugin in plugin_set.enabled)


def build(
    sets: dict[str, PluginSet],
    profile_path: Path,
    registry: Registry,
    release: KubeRelease,
) -> Framework:
    """Register explicit points, expand multiPoint, check queue sort/bind and weights
    (``registry``: the plugins of the scheduler build, see :mod:`policytest.kube.builds`;
    ``release``: which extension points the framework builds)."""
    problems: list[Problem] = []
    reported: set[tuple[str, str]] = set()

    def report(kind: str, plugin: PluginRef, problem: Problem) -> None:
        if (kind, plugin.name) not in reported:
            reported.add((kind, plugin.name))
            problems.append(problem)

    plugins: dict[str, tuple[str, ...]] = {}
    for point in extension_points(release):
        explicit = _register(point, sets[point], report, registry)
        plugins[point] = _expand(point, explicit, sets, report, registry)
    # a multiPoint plugin of a custom build whose points were not declared may be the
    # queue sort or the binder: the counts below cannot be known then
    undeclared = any(p.name in registry.open for p in sets["multiPoint"].enabled)
    for point, verb in (("queueSort", "exactly one queue sort"), ("bind", "a bind")):
        count = len(plugins[point])
        written = (*sets[point].enabled, *sets["multiPoint"].enabled)
        broken = any(not registry.knows(p.name) for p in written)  # KS020 reported it
        if broken or undeclared:
            continue
        if (point == "queueSort" and count != 1) or (point == "bind" and count == 0):
            problems.append(
                Problem(
                    rules.KS024_QUEUE_SORT_BIND,
                    (*profile_path, "plugins") if profile_path else (),
                    f"this profile ends up with {count} {point} plugins, but kube-scheduler "
                    f"needs {verb} plugin and refuses to start; enable "
                    f"`{'PrioritySort' if point == 'queueSort' else 'DefaultBinder'}` "
                    "(e.g. under multiPoint.enabled)",
                )
            )
    weights, weight_problems = _score_weights(sets, registry, "score", release)
    raised = tuple(
        plugin
        for plugin in _weight_sources(sets, registry, "score")
        if plugin.weight == 0 and plugin.name in plugins["score"]
    )
    placement: dict[str, int] = {}
    if release.placement:
        placement, more = _score_weights(sets, registry, "placementScore", release)
        weight_problems += more
    return Framework(plugins, weights, problems + weight_problems, raised, placement)


def _register(point: str, plugin_set: PluginSet, report: _Report, registry: Registry) -> list[str]:
    """``updatePluginList`` for one explicit extension point."""
    registered: list[str] = []
    for plugin in plugin_set.enabled:
        implements = registry.implements(plugin.name)
        if implements is None:
            if plugin.name not in REMOVED_PLUGINS:  # reported by validation already
                report("unknown", plugin, unknown_plugin(plugin, point, registry))
        elif point not in implements:
            points = ", ".join(p for p in (*EXTENSION_POINTS, *_PLACEMENT) if p in implements)
            report(
                point,
                plugin,
                Problem(
                    rules.KS021_WRONG_EXTENSION_POINT,
                    (*plugin.path, "name"),
                    f'plugin "{plugin.name}" does not extend {go_interface(point)}: '
                    f"kube-scheduler refuses to start; it implements {points}, so move it "
                    "there or enable it under multiPoint",
                ),
            )
        elif plugin.name in registered:
            report(point + "-twice", plugin, _twice(plugin, point))
        else:
            registered.append(plugin.name)
    return registered


_PLACEMENT = ("placementGenerate", "placementScore")


def _expand(
    point: str,
    explicit: list[str],
    sets: dict[str, PluginSet],
    report: _Report,
    registry: Registry,
) -> tuple[str, ...]:
    """``expandMultiPointPlugins`` for one extension point."""
    disabled = sets[point].disabled_names
    if "*" in disabled:
        return tuple(explicit)
    overrides: list[str] = []
    from_multi: list[str] = []
    for plugin in sets["multiPoint"].enabled:
        implements = registry.implements(plugin.name)
        if implements is None:
            report("unknown", plugin, unknown_plugin(plugin, point, registry))
            continue
        if plugin.name in registry.open and point in ("queueSort", "bind"):
            continue  # not declared as this build's queue sort or binder
        if point not in implements or plugin.name in disabled:
            continue
        if plugin.name in explicit:
            if plugin.name not in overrides:
                overrides.append(plugin.name)
        elif plugin.name in from_multi:
            report("multi-twice", plugin, _twice(plugin, point))
        else:
            from_multi.append(plugin.name)
    rest = [name for name in explicit if name not in overrides and name not in from_multi]
    return (*overrides, *from_multi, *rest)


def _weight_sources(sets: dict[str, PluginSet], registry: Registry, point: str) -> list[PluginRef]:
    """The entry each score plugin takes its weight from: explicit score entries first,
    then multiPoint; the first entry of a name wins (``point``: score or placementScore)."""
    sources: dict[str, PluginRef] = {}
    for plugin in (*sets[point].enabled, *sets["multiPoint"].enabled):
        if point in (registry.implements(plugin.name) or frozenset()):
            sources.setdefault(plugin.name, plugin)
    return list(sources.values())


def _score_weights(
    sets: dict[str, PluginSet],
    registry: Registry,
    point: str,
    release: KubeRelease,
) -> tuple[dict[str, int], list[Problem]]:
    """``getScoreWeights``: explicit score entries first, then multiPoint; 0 means 1.

    The overflow guard compares against ``MaxInt64 - total`` in int64: after a negative
    weight that subtraction wraps, so the next score plugin trips the guard.
    """
    weights: dict[str, int] = {}
    problems: list[Problem] = []
    total = 0
    negatives: list[PluginRef] = []
    # 1.36 prefixes the guard's error with the extension point ("score plugins: ...").
    prefix = "placement score plugins: " if point == "placementScore" else ""
    if release.placement and point == "score":
        prefix = "score plugins: "
    for plugin in _weight_sources(sets, registry, point):
        weight = plugin.weight or 1
        weights[plugin.name] = weight
        headroom = wrap_int64(MAX_INT64 - total)
        if weight * MAX_NODE_SCORE > headroom:
            culprit = negatives[-1] if negatives else plugin
            problems.append(
                Problem(
                    rules.KS023_NEGATIVE_WEIGHT,
                    (*culprit.path, "weight"),
                    f"{point} weight {culprit.weight} of {culprit.name} is negative: "
                    f"kube-scheduler's overflow guard then fails (`{prefix}total score of "
                    "Score plugins could overflow`) and it refuses to start; use a positive "
                    "weight, or disable the plugin",
                )
            )
            return weights, problems
        total += weight * MAX_NODE_SCORE
        if weight < 0:
            negatives.append(plugin)
    for plugin in negatives:
        problems.append(
            Problem(
                rules.KS023_NEGATIVE_WEIGHT,
                (*plugin.path, "weight"),
                f"score weight {plugin.weight} of {plugin.name} is negative: kube-scheduler "
                "accepts it only because no score plugin is checked after it, and the "
                "plugin then pushes pods away from the nodes it would prefer; use a "
                "positive weight, or disable the plugin",
                severity=Severity.WARNING,
            )
        )
    return weights, problems


def unknown_plugin(plugin: PluginRef, point: str, registry: Registry) -> Problem:
    """The "does not exist" error, with a suggestion."""
    return Problem(
        rules.KS020_UNKNOWN_PLUGIN,
        (*plugin.path, "name"),
        f'{go_interface(point)} "{plugin.name}" does not exist: kube-scheduler refuses to '
        f"start{plugin_hint(plugin.name, registry.names()) or custom_build_hint(registry)}",
    )


def custom_build_hint(registry: Registry) -> str:
    """How to tell policytest about a scheduler built with out-of-tree plugins."""
    if registry.custom:
        return ""
    return (
        "; if your scheduler is a custom build with out-of-tree plugins, declare them in "
        "the project settings file .policytest.yaml (`kubeScheduler.distribution` or "
        "`kubeScheduler.plugins`)"
    )


def _twice(plugin: PluginRef, point: str) -> Problem:
    return Problem(
        rules.KS022_PLUGIN_TWICE,
        (*plugin.path, "name"),
        f'plugin "{plugin.name}" is enabled twice (already registered as '
        f'"{go_interface(point)}"): kube-scheduler refuses to start; list it once',
    )
