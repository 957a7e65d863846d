"""From a strictly decoded configuration to kube-scheduler's verdict and model.

Follows kube-scheduler's own order: v1 defaulting (profiles, plugin sets, plugin args),
``ValidateKubeSchedulerConfiguration``, then building every profile's framework
(``scheduler.New``), which is where NodeResourcesFit's args are checked. Every problem
of every stage is collected; the model exists only when there is no error.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from policytest.core.findings import Severity
from policytest.core.records import record
from policytest.core.releases import KubeRelease
from policytest.core.suggest import did_you_mean
from policytest.kube import rules
from policytest.kube.advice import advice
from policytest.kube.builds import ARGS_FIELDS, Registry
from policytest.kube.framework import (
    Framework,
    Path,
    PluginRef,
    PluginSet,
    Problem,
    build,
    default_plugins,
    merge_plugin_set,
    needed_plugins,
)
from policytest.kube.model import KubeSchedulerConfig, Profile
from policytest.kube.other_args import (
    MISKEYED_ARGS,
    VALIDATORS,
    dynamic_resources_problems,
    miskeyed_args,
    volume_binding,
)
from policytest.kube.process_settings import percentage_problem, settings_problems
from policytest.kube.profiles import PluginConfigEntry, ProfileData
from policytest.kube.registry import (
    BALANCED,
    DEFAULT_SCHEDULER_NAME,
    EXTENSION_POINTS,
    FIT,
    GROUP_PLUGINS,
    REMOVED_PLUGINS,
)
from policytest.kube.release_facts import default_multi_point
from policytest.kube.resources import (
    DEFAULT_BALANCED,
    DEFAULT_FIT,
    balanced_problems,
    fit_problems,
    read_balanced_args,
    read_fit_args,
)
from policytest.kube.values import integer, items, mapping, repeats, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from policytest.scoring.filters import SelectorTerm

_REFUSES = "kube-scheduler refuses to start"


@record(frozen=True)
class Analysis:
    """What kube-scheduler concludes: the problems, and the model if it would start."""

    problems: tuple[Problem, ...]
    config: KubeSchedulerConfig | None


def analyse(
    config: dict[str, Any],
    api_version: str,
    registry: Registry,
    release: KubeRelease,
) -> Analysis:
    """Default, validate and build ``config`` (a decoded, well-typed JSON object) as
    kube-scheduler ``release`` does, for the scheduler build whose plugins ``registry``
    holds."""
    profiles = read_profiles(config, release)
    problems = [*settings_problems(config), *_validate_profiles(profiles, registry, release)]
    frameworks = []
    for profile in profiles:
        if FIT in needed_plugins(profile.sets):
            problems.extend(fit_problems(profile.fit, release.strict_ratio_block, release.name))
        framework = build(profile.sets, profile.path, registry, release)
        problems.extend(framework.problems)
        frameworks.append(framework)
    warnings = advice(profiles, frameworks, registry)
    if release.strict_ratio_block:  # the ignored shape is an error there (fit_problems)
        warnings = (p for p in warnings if p.rule is not rules.KS045_SHAPE_IGNORED)
    problems.extend(warnings)
    failed = any((p.severity or p.rule.severity) is Severity.ERROR for p in problems)
    model = None if failed else _model(config, api_version, profiles, frameworks, release)
    return Analysis(tuple(problems), model)


def profile_costs(config: dict[str, Any], release: KubeRelease) -> Iterator[tuple[int, int]]:
    """``(index, cost)`` of each profile, before any is built: kube-scheduler (and
    :func:`analyse`) builds a profile by walking its plugins (the defaults and every
    entry written under ``plugins``) once per extension point, so that is the cost.
    A 28,000-profile config costs 13 million and took 165 s and 523 MB to analyse."""
    points = len(release.plugin_sets)
    defaults = len(default_multi_point(release))
    for index, profile in enumerate(items(config.get("profiles"))):
        written = sum(
            len(items(mapping(plugin_set).get(key)))
            for plugin_set in mapping(mapping(profile).get("plugins")).values()
            for key in ("enabled", "disabled")
        )
        yield index, points * (defaults + written)


def read_profiles(config: dict[str, Any], release: KubeRelease) -> list[ProfileData]:
    """``SetDefaults_KubeSchedulerConfiguration`` for the profiles."""
    entries: list[tuple[Path, dict[str, Any]]] = [
        (("profiles", i), mapping(p)) for i, p in enumerate(items(config.get("profiles")))
    ] or [((), {})]
    profiles = []
    for path, data in entries:
        name_value = data.get("schedulerName")
        name = (
            DEFAULT_SCHEDULER_NAME if name_value is None and len(entries) == 1 else text(name_value)
        )
        plugins = mapping(data.get("plugins"))
        keys = release.plugin_sets
        custom = {key: _plugin_set(plugins.get(key), (*path, "plugins", key)) for key in keys}
        defaults = default_plugins(path, release)
        sets = {key: merge_plugin_set(defaults[key], custom[key]) for key in keys}
        plugin_config = tuple(
            PluginConfigEntry(
                text(mapping(item).get("name")),
                mapping(item).get("args"),
                (*path, "pluginConfig", index),
            )
            for index, item in enumerate(items(data.get("pluginConfig")))
        )
        fit_entry = next((e for e in plugin_config if e.name == FIT), None)
        balanced_entry = next((e for e in plugin_config if e.name == BALANCED), None)
        profiles.append(
            ProfileData(
                path,
                name,
                data,
                custom,
                sets,
                plugin_config,
                read_fit_args(fit_entry.args, fit_entry.args_path) if fit_entry else DEFAULT_FIT,
                read_balanced_args(balanced_entry.args, balanced_entry.args_path)
                if balanced_entry
                else DEFAULT_BALANCED,
            )
        )
    return profiles


def _plugin_set(value: Any, path: Path) -> PluginSet:
    fields = mapping(value)

    def refs(key: str) -> tuple[PluginRef, ...]:
        return tuple(
            PluginRef(
                text(mapping(p).get("name")), integer(mapping(p).get("weight")), (*path, key, index)
            )
            for index, p in enumerate(items(fields.get(key)))
        )

    return PluginSet(refs("enabled"), refs("disabled"))


def _validate_profiles(
    profiles: list[ProfileData], registry: Registry, release: KubeRelease
) -> Iterator[Problem]:
    """The profile part of ``ValidateKubeSchedulerConfiguration``, and the strict
    decoding of out-of-tree args kinds the scheduler build registers."""
    for profile in profiles:
        yield from _validate_profile(profile, release)
        yield from out_of_tree_args(profile.plugin_config, registry)
    for profile, _ in repeats(profiles, lambda p: p.name):
        yield Problem(
            rules.KS026_SCHEDULER_NAME,
            (*profile.path, "schedulerName"),
            f'schedulerName "{profile.name}" is already used by another profile: '
            f"{_REFUSES}; give each profile its own name",
        )
    yield from _common_queue_sort(profiles)


def _validate_profile(profile: ProfileData, release: KubeRelease) -> Iterator[Problem]:
    if not profile.name:
        yield Problem(
            rules.KS026_SCHEDULER_NAME,
            (*profile.path, "schedulerName"),
            f"profile has no schedulerName: {_REFUSES}; with more than one profile "
            "each needs a name",
        )
    yield from percentage_problem(
        profile.written.get("percentageOfNodesToScore"), (*profile.path, "percentageOfNodesToScore")
    )
    for point in EXTENSION_POINTS:
        for plugin in profile.custom[point].enabled:
            if plugin.name in REMOVED_PLUGINS:
                yield _removed(plugin.name, (*plugin.path, "name"))
    for entry, _ in repeats(profile.plugin_config, lambda e: e.name):
        yield Problem(
            rules.KS025_DUPLICATE_PLUGIN_CONFIG,
            (*entry.path, "name"),
            f"pluginConfig for {entry.name} is given twice: {_REFUSES}; merge the two entries' "
            "args",
        )
    for entry in profile.plugin_config:
        if entry.name in REMOVED_PLUGINS:
            yield _removed(entry.name, (*entry.path, "name"))
        elif entry.name == BALANCED:
            yield from balanced_problems(read_balanced_args(entry.args, entry.args_path))
        elif entry.name in MISKEYED_ARGS:
            yield miskeyed_args(entry.name, entry.args, entry.path)
        elif entry.name == "DynamicResources":
            yield from dynamic_resources_problems(mapping(entry.args), entry.args_path, release)
        elif entry.name == "VolumeBinding":
            yield from volume_binding(mapping(entry.args), entry.args_path, release)
        elif entry.name in VALIDATORS:
            yield from VALIDATORS[entry.name](mapping(entry.args), entry.args_path)


def out_of_tree_args(entries: Iterable[PluginConfigEntry], registry: Registry) -> Iterator[Problem]:
    """KS003 for a field that a known out-of-tree args kind does not have (top level):
    the build's scheme decodes these args strictly, so kube-scheduler refuses to start.
    The fields are those of scheduler-plugins' ``apis/config/v1`` (see ``ARGS_FIELDS``)."""
    for entry in entries:
        plugin = registry.custom.get(entry.name)
        if (
            plugin is None
            or plugin.args_kind not in ARGS_FIELDS
            or not isinstance(entry.args, dict)
        ):
            continue
        fields = ARGS_FIELDS[plugin.args_kind]
        for key in entry.args:
            if key not in fields:
                yield Problem(
                    rules.KS003_UNKNOWN_FIELD,
                    (*entry.args_path, key),
                    f'unknown field "{key}" in {plugin.args_kind} ({plugin.origin}): '
                    "the build decodes its plugins' args strictly and kube-scheduler "
                    f"refuses to start{did_you_mean(key, fields - {'apiVersion', 'kind'})}",
                    key=True,
                )


def _removed(name: str, path: Path) -> Problem:
    return Problem(
        rules.KS020_UNKNOWN_PLUGIN,
        path,
        f"plugin {name} was removed from "
        f"kubescheduler.config.k8s.io/v1: {_REFUSES}; use NodeVolumeLimits",
    )


def _queue_sort_signature(profile: ProfileData) -> tuple[Any, ...]:
    plugin_set = profile.sets["queueSort"]
    enabled = tuple((p.name, p.weight or 0) for p in plugin_set.enabled)
    return enabled, tuple(p.name for p in plugin_set.disabled)


def _common_queue_sort(profiles: list[ProfileData]) -> Iterator[Problem]:
    """``validateCommonQueueSort``: one queue sort in the first profile, same in all."""
    first = profiles[0]
    enabled = first.sets["queueSort"].enabled
    if len(enabled) > 1:
        yield Problem(
            rules.KS024_QUEUE_SORT_BIND,
            (*first.path, "plugins", "queueSort", "enabled"),
            f"{len(enabled)} queue sort plugins are enabled, only one may be: {_REFUSES}",
        )
    sort_name = enabled[0].name if enabled else ""
    sort_args = [e.args for e in first.plugin_config if e.name == sort_name]
    canon = _queue_sort_signature(first)
    for profile in profiles[1:]:
        if _queue_sort_signature(profile) != canon:
            yield Problem(
                rules.KS024_QUEUE_SORT_BIND,
                (*profile.path, "plugins", "queueSort"),
                "queueSort differs from the first profile's: all profiles share one "
                f"queue, so it must be the same everywhere; {_REFUSES}",
                key=True,
            )
        for entry in profile.plugin_config:
            if entry.name == sort_name and entry.args != (sort_args[-1] if sort_args else None):
                yield Problem(
                    rules.KS024_QUEUE_SORT_BIND,
                    entry.args_path,
                    f"args of the queue sort plugin {sort_name} differ from the "
                    f"first profile's: {_REFUSES}",
                    key=True,
                )


def _raised_weights(profile: ProfileData, framework: Framework) -> tuple[str, ...]:
    """Score plugins and resources written with weight 0, which kube-scheduler holds as 1
    (the same entries KS040 reports), for showing what was written next to what is held."""
    plugins = {plugin.name for plugin in framework.raised}
    resources = {
        f"{owner}/{resource.name}"
        for owner, args in ((FIT, profile.fit.resources), (BALANCED, profile.balanced.resources))
        for resource in args
        if resource.written == 0
    }
    return tuple(sorted(plugins | resources))


def _added_affinity(profile: ProfileData) -> tuple[SelectorTerm, ...] | None:
    """NodeAffinityArgs ``addedAffinity.requiredDuringSchedulingIgnoredDuringExecution``'s
    terms (validation has already refused a config whose terms do not parse). The node
    filters are imported only for a profile that has them."""
    entry = profile.configured("NodeAffinity")
    if entry is None or not isinstance(entry.args, dict):
        return None
    added = entry.args.get("addedAffinity")
    if not isinstance(added, dict) or added.get(_REQUIRED_AFFINITY) is None:
        return None
    from policytest.scoring.filters import FilterSpecError, placement_from_dict

    try:
        return placement_from_dict(
            {"affinity": {"nodeAffinity": {_REQUIRED_AFFINITY: added[_REQUIRED_AFFINITY]}}},
            "addedAffinity",
        ).required_terms
    except FilterSpecError:
        return None


_REQUIRED_AFFINITY = "requiredDuringSchedulingIgnoredDuringExecution"
TOPOLOGY_ARGS = ("PodTopologySpread", "InterPodAffinity", "NodeAffinity")
"""Plugins whose args the topology scorers read (``Profile.topology_args``)."""


def _model(
    config: dict[str, Any],
    api_version: str,
    profiles: list[ProfileData],
    frameworks: list[Framework],
    release: KubeRelease,
) -> KubeSchedulerConfig:
    built = []
    for profile, framework in zip(profiles, frameworks, strict=True):
        built.append(
            Profile(
                scheduler_name=profile.name,
                score_plugins=framework.score_plugins,
                filter_plugins=framework.plugins["filter"],
                placement_score_plugins=framework.placement_score_plugins,
                placement_generate_plugins=framework.plugins.get("placementGenerate", ()),
                fit_args=profile.fit.scoring(),
                balanced_args=profile.balanced.scoring(),
                fit_ignored_resources=tuple(name for name, _ in profile.fit.ignored_resources),
                fit_ignored_resource_groups=tuple(name for name, _ in profile.fit.ignored_groups),
                percentage_of_nodes_to_score=integer(
                    profile.written.get("percentageOfNodesToScore")
                ),
                raised_weights=_raised_weights(profile, framework),
                queue_sort=framework.plugins["queueSort"],
                group_plugins=tuple(
                    dict.fromkeys(
                        name
                        for names in framework.plugins.values()
                        for name in names
                        if name in GROUP_PLUGINS
                    )
                ),
                node_affinity_added=_added_affinity(profile),
                topology_args={
                    name: entry.args
                    for name in TOPOLOGY_ARGS
                    if (entry := profile.configured(name)) is not None
                    and isinstance(entry.args, dict)
                },
            )
        )

    def setting(key: str, default: int) -> int:
        value = integer(config.get(key))
        return default if value is None else value

    return KubeSchedulerConfig(
        release=release.name,
        api_version=api_version,
        profiles=tuple(built),
        parallelism=setting("parallelism", 16),
        percentage_of_nodes_to_score=setting("percentageOfNodesToScore", 0),
        pod_initial_backoff_seconds=setting("podInitialBackoffSeconds", 1),
        pod_max_backoff_seconds=setting("podMaxBackoffSeconds", 10),
    )
