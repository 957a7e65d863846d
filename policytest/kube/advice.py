"""Warnings for configurations kube-scheduler accepts but that do nothing, or not what
they seem to (KS040-KS046): weights of 0, args for unknown plugins, Fit args while Fit
does not score, duplicate or never-scored resources, ignored or spreading shapes.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import pairwise

from policytest.core.suggest import did_you_mean
from policytest.kube import rules
from policytest.kube.builds import IN_TREE, Registry
from policytest.kube.framework import Framework, Problem, custom_build_hint, needed_plugins
from policytest.kube.other_args import MISKEYED_ARGS
from policytest.kube.profiles import ProfileData
from policytest.kube.registry import FIT, REMOVED_PLUGINS, plugin_hint
from policytest.kube.resources import FitArgs, Resource, ShapePoint
from policytest.kube.values import repeats
from policytest.scoring.names import is_scalar_resource_name

_BASIC_RESOURCES = ("cpu", "memory", "ephemeral-storage")


def advice(
    profiles: Sequence[ProfileData],
    frameworks: Sequence[Framework],
    registry: Registry = IN_TREE,
) -> Iterator[Problem]:
    """Every warning for these profiles (``frameworks`` in the same order)."""
    for profile, framework in zip(profiles, frameworks, strict=True):
        yield from _zero_plugin_weights(framework)
        yield from _unknown_names(profile, registry)
        yield from _fit_not_scoring(profile, framework)
        yield from _resource_names([*profile.fit.resources, *profile.balanced.resources])
        yield from _zero_resource_weights([*profile.fit.resources, *profile.balanced.resources])
        yield from _fit_duplicates(profile.fit.resources)
        yield from _shape(profile.fit)
        yield from _spreading_beats_packing(profile, framework)


def _zero_plugin_weights(framework: Framework) -> Iterator[Problem]:
    for plugin in framework.raised:
        yield Problem(
            rules.KS040_ZERO_WEIGHT,
            (*plugin.path, "weight"),
            f"score weight 0 of {plugin.name} is raised to 1: the plugin still scores; "
            "to switch it off, list it under score.disabled instead",
        )


def _unknown_names(profile: ProfileData, registry: Registry) -> Iterator[Problem]:
    names = registry.names()
    for entry in profile.plugin_config:
        if entry.name in MISKEYED_ARGS:
            continue  # rejected at start-up (KS030), see other_args.MISKEYED_ARGS
        custom = registry.custom.get(entry.name)
        if custom is not None:
            if custom.args_kind is None and entry.args is not None:
                yield Problem(
                    rules.KS041_UNKNOWN_PLUGIN_CONFIG,
                    (*entry.path, "args"),
                    f"{entry.name} ({custom.origin}) takes no args: kube-scheduler accepts "
                    "these and the plugin ignores them; remove the pluginConfig entry",
                    key=True,
                )
            continue
        if not registry.knows(entry.name) and entry.name not in REMOVED_PLUGINS:
            hint = plugin_hint(entry.name, names) or custom_build_hint(registry)
            yield Problem(
                rules.KS041_UNKNOWN_PLUGIN_CONFIG,
                (*entry.path, "name"),
                f'pluginConfig for "{entry.name}", which is not a kube-scheduler plugin: '
                f"kube-scheduler accepts and ignores these args{hint}",
            )
    for key in profile.custom:
        for plugin in profile.custom[key].disabled:
            if plugin.name != "*" and not registry.knows(plugin.name):
                yield Problem(
                    rules.KS041_UNKNOWN_PLUGIN_CONFIG,
                    (*plugin.path, "name"),
                    f'disabling "{plugin.name}", which is not a kube-scheduler plugin, '
                    f"disables nothing{plugin_hint(plugin.name, names)}",
                )


def _fit_not_scoring(profile: ProfileData, framework: Framework) -> Iterator[Problem]:
    entry = profile.configured(FIT)
    if entry is None or not profile.fit.strategy_given or FIT in framework.plugins["score"]:
        return
    unused = (
        "NodeResourcesFit is enabled nowhere in this profile, so kube-scheduler does not even "
        "validate these args"
        if FIT not in needed_plugins(profile.sets)
        else "NodeResourcesFit is not a score plugin of this profile"
    )
    yield Problem(
        rules.KS042_FIT_NOT_SCORING,
        profile.fit.strategy_path(),
        f"scoringStrategy has no effect: {unused}; enable NodeResourcesFit for scoring "
        "(remove it from score/multiPoint disabled) or drop the strategy",
        key=True,
    )


def _resource_names(resources: Sequence[Resource]) -> Iterator[Problem]:
    for resource in resources:
        name = resource.name
        if resource.path is None or name in _BASIC_RESOURCES or is_scalar_resource_name(name):
            continue
        yield Problem(
            rules.KS044_NEVER_SCORED,
            (*resource.path, "name"),
            f"resource `{name}` is never scored: kube-scheduler only tracks cpu, memory, "
            "ephemeral-storage and domain-qualified names (nvidia.com/gpu), so this entry "
            f"drops out of the weighted mean{did_you_mean(name, _BASIC_RESOURCES)}",
        )


def _zero_resource_weights(resources: Sequence[Resource]) -> Iterator[Problem]:
    for resource in resources:
        if resource.written == 0 and resource.path is not None:
            yield Problem(
                rules.KS040_ZERO_WEIGHT,
                (*resource.path, "weight"),
                f"weight 0 of `{resource.name}` is raised to 1: the resource still counts; "
                "remove it to leave it out",
            )


def _fit_duplicates(resources: Sequence[Resource]) -> Iterator[Problem]:
    written = [r for r in resources if r.path is not None]
    for resource, first in repeats(written, lambda r: r.name):
        yield Problem(
            rules.KS043_FIT_DUPLICATE,
            (*(resource.path or ()), "name"),
            f"`{resource.name}` is listed twice: NodeResourcesFit scores it twice, so its "
            f"effective weight is {first.weight} + {resource.weight}; keep one entry",
        )


def _shape(args: FitArgs) -> Iterator[Problem]:
    shape = args.shape
    if not shape:
        return
    if args.strategy in ("MostAllocated", "LeastAllocated"):
        yield Problem(
            rules.KS045_SHAPE_IGNORED,
            args.strategy_path("requestedToCapacityRatio"),
            f"requestedToCapacityRatio is ignored with type {args.strategy}: nodes are scored "
            f"by {args.strategy}, not by this shape; set type RequestedToCapacityRatio or "
            "remove the shape",
            key=True,
        )
    elif args.strategy == "RequestedToCapacityRatio" and _valid(shape):
        yield from _direction(shape, args)


PACKING_RATIO = 10
"""KS047: NodeResourcesFit's weight below this many times PodTopologySpread's lets the
default spreading win (measured on the bundled Deployment fixture)."""
_SPREAD = "PodTopologySpread"


def _spreading_beats_packing(profile: ProfileData, framework: Framework) -> Iterator[Problem]:
    """KS047: a packing Fit strategy under default spreading that outweighs it."""
    weights = dict(framework.score_plugins)
    fit = profile.fit
    if _SPREAD not in weights or FIT not in weights or not _packs(fit):
        return
    entry = profile.configured(_SPREAD)
    args = entry.args if entry is not None and isinstance(entry.args, dict) else {}
    if args.get("defaultingType") == "List" and not any(
        isinstance(c, dict) and c.get("whenUnsatisfiable") == "ScheduleAnyway"
        for c in args.get("defaultConstraints") or ()
    ):
        return
    spread, packing = weights[_SPREAD], weights[FIT]
    if packing >= PACKING_RATIO * spread:
        return
    yield Problem(
        rules.KS047_SPREADING_BEATS_PACKING,
        fit.strategy_path("type") if fit.path is not None else profile.path,
        f"{fit.strategy} (NodeResourcesFit weight {packing}) loses to PodTopologySpread's "
        f"default spreading (weight {spread}): Deployment replicas spread over every node. "
        "Set PodTopologySpread's `defaultingType: List`, disable its score, or give "
        f"NodeResourcesFit a weight of at least {PACKING_RATIO * spread} (`policytest rules "
        "KS047` says why)",
        key=fit.path is not None,
    )


def _packs(fit: FitArgs) -> bool:
    """MostAllocated, or a RequestedToCapacityRatio shape that ends higher than it starts."""
    if fit.strategy == "MostAllocated":
        return True
    shape = fit.shape or ()
    return (
        fit.strategy == "RequestedToCapacityRatio"
        and len(shape) > 1
        and (shape[-1].score > shape[0].score)
    )


def _valid(shape: Sequence[ShapePoint]) -> bool:
    rising = all(a.utilization < b.utilization for a, b in pairwise(shape))
    return rising and all(0 <= p.utilization <= 100 and 0 <= p.score <= 10 for p in shape)


def _direction(shape: Sequence[ShapePoint], args: FitArgs) -> Iterator[Problem]:
    where = args.strategy_path("requestedToCapacityRatio", "shape")
    scores = [point.score for point in shape]
    if len(set(scores)) == 1:
        yield Problem(
            rules.KS046_SHAPE_SPREADS,
            where,
            f"the shape is flat (score {scores[0]} "
            "everywhere): every node gets the same Fit score, so Fit does not "
            "influence placement; make the score rise with utilization to pack",
            key=True,
        )
        return
    falls = [(a, b) for a, b in pairwise(shape) if b.score < a.score]
    if not falls:
        return
    if all(b.score <= a.score for a, b in pairwise(shape)):
        message = (
            f"the shape falls from score {scores[0]} to {scores[-1]}: emptier nodes score "
            "higher, so this spreads pods (like LeastAllocated) rather than packing them; "
            "reverse the scores to pack"
        )
    else:
        ranges = ", ".join(f"{a.utilization}..{b.utilization}%" for a, b in falls)
        message = (
            f"the shape falls between utilization {ranges}: in that range fuller nodes score "
            "lower, so it spreads rather than packs there; make the score rise to pack"
        )
    yield Problem(rules.KS046_SHAPE_SPREADS, (*falls[0][1].path, "score"), message)
