"""NodeResourcesFit and NodeResourcesBalancedAllocation args: defaulting and validation.

``read_fit_args`` / ``read_balanced_args`` apply ``SetDefaults_NodeResourcesFitArgs`` /
``..BalancedAllocationArgs`` to what the user wrote, keeping each value's path.
``fit_problems`` is what ``NewFit`` checks when the plugin is built (kube-scheduler v1.35
validates Fit args only then, and only for profiles that enable Fit); ``balanced_problems``
is the start-up validation of every BalancedAllocation ``pluginConfig`` entry.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

from policytest.core.records import record
from policytest.core.suggest import did_you_mean
from policytest.kube import rules
from policytest.kube.framework import Path, Problem
from policytest.kube.names import qualified_name_errors
from policytest.kube.registry import DEFAULT_RESOURCES, MAX_CUSTOM_PRIORITY_SCORE
from policytest.kube.values import integer, items, mapping, repeats, text
from policytest.scoring.kube_args import STRATEGIES, BalancedArgs, FitScoring

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class Resource:
    """A ``{name, weight}`` after defaulting; ``written`` is the weight as given."""

    name: str
    weight: int
    written: int | None
    path: Path | None


@record(frozen=True)
class ShapePoint:
    utilization: int
    score: int
    path: Path


@record(frozen=True)
class FitArgs:
    """``NodeResourcesFitArgs`` after defaulting. ``path`` is ``None`` when defaulted
    entirely; ``shape`` is ``None`` when ``requestedToCapacityRatio`` is absent/null."""

    path: Path | None
    strategy_given: bool
    strategy: str
    resources: tuple[Resource, ...]
    shape: tuple[ShapePoint, ...] | None
    ignored_resources: tuple[tuple[str, Path], ...]
    ignored_groups: tuple[tuple[str, Path], ...]

    def strategy_path(self, *rest: str | int) -> Path:
        return (*(self.path or ()), "scoringStrategy", *rest)

    def scoring(self) -> FitScoring | None:
        """The scorer's args, or ``None`` if kube-scheduler could not build them."""
        strategy = next((s for s in STRATEGIES if s == self.strategy), None)
        shape = tuple((p.utilization, p.score) for p in self.shape or ())
        if strategy is None or (strategy == "RequestedToCapacityRatio" and not shape):
            return None
        return FitScoring(strategy, tuple((r.name, r.weight) for r in self.resources), shape)


@record(frozen=True)
class BalancedArgsData:
    """``NodeResourcesBalancedAllocationArgs`` after defaulting."""

    path: Path | None
    resources: tuple[Resource, ...]

    def scoring(self) -> BalancedArgs:
        """The scorer's args."""
        return BalancedArgs(tuple((r.name, r.weight) for r in self.resources))


DEFAULT_FIT = FitArgs(
    None,
    False,
    "LeastAllocated",
    tuple(Resource(name, weight, None, None) for name, weight in DEFAULT_RESOURCES),
    None,
    (),
    (),
)
DEFAULT_BALANCED = BalancedArgsData(None, DEFAULT_FIT.resources)


def read_resources(value: Any, path: Path) -> tuple[Resource, ...]:
    """``resources`` with the defaults: none -> cpu 1 / memory 1; weight 0 or null -> 1."""
    entries = items(value)
    if not entries:
        return DEFAULT_FIT.resources
    resources = []
    for index, entry in enumerate(entries):
        item = mapping(entry)
        written = integer(item.get("weight"))
        resources.append(Resource(text(item.get("name")), written or 1, written, (*path, index)))
    return tuple(resources)


def read_fit_args(value: Any, path: Path | None) -> FitArgs:
    """``SetDefaults_NodeResourcesFitArgs`` over the args as written (``path``: of args)."""
    args = mapping(value)
    base: Path = path or ()
    strategy = args.get("scoringStrategy")
    ratio = None
    if strategy is None:
        kind, resources = "LeastAllocated", DEFAULT_FIT.resources
    else:
        fields = mapping(strategy)
        kind = text(fields.get("type"))
        resources = read_resources(fields.get("resources"), (*base, "scoringStrategy", "resources"))
        ratio = fields.get("requestedToCapacityRatio")
    shape = None
    if ratio is not None:
        shape_path = (*base, "scoringStrategy", "requestedToCapacityRatio", "shape")
        shape = tuple(
            ShapePoint(
                integer(mapping(point).get("utilization")) or 0,
                integer(mapping(point).get("score")) or 0,
                (*shape_path, index),
            )
            for index, point in enumerate(items(mapping(ratio).get("shape")))
        )

    def names(key: str) -> tuple[tuple[str, Path], ...]:
        return tuple(
            (text(name), (*base, key, index)) for index, name in enumerate(items(args.get(key)))
        )

    return FitArgs(
        path,
        strategy is not None,
        kind,
        resources,
        shape,
        names("ignoredResources"),
        names("ignoredResourceGroups"),
    )


def read_balanced_args(value: Any, path: Path | None) -> BalancedArgsData:
    """``SetDefaults_NodeResourcesBalancedAllocationArgs`` over the args as written."""
    resources_path = (*(path or ()), "resources")
    return BalancedArgsData(path, read_resources(mapping(value).get("resources"), resources_path))


def fit_problems(
    args: FitArgs, strict_ratio_block: bool = False, release: str = "1.36"
) -> Iterator[Problem]:
    """``ValidateNodeResourcesFitArgs`` as ``NewFit`` runs it: up to 1.35 a shape is
    checked wherever given and a missing one crashes RequestedToCapacityRatio; from 1.36
    (``strict_ratio_block``) the block must be given exactly with that type; ``release``:
    the release judged, which the messages name."""
    for name, path in args.ignored_resources:
        for message in qualified_name_errors(name):
            yield Problem(
                rules.KS016_FIT_IGNORED,
                path,
                f"ignoredResources entry `{name}`: "
                f"{message}; kube-scheduler fails to build NodeResourcesFit",
            )
    for name, path in args.ignored_groups:
        reasons = ["a resource group name can't contain '/'"] if "/" in name else []
        reasons += qualified_name_errors(name)
        for message in reasons:
            yield Problem(
                rules.KS016_FIT_IGNORED,
                path,
                f"ignoredResourceGroups entry `{name}`: "
                f"{message}; kube-scheduler fails to build NodeResourcesFit "
                "(list full names under ignoredResources)",
            )
    if args.strategy not in STRATEGIES:
        shown = f'"{args.strategy}"' if args.strategy else "missing"
        yield Problem(
            rules.KS010_FIT_STRATEGY,
            args.strategy_path("type"),
            f"scoringStrategy.type is {shown}: kube-scheduler accepts only "
            f"{', '.join(STRATEGIES)} (case-sensitive) and refuses to start"
            f"{did_you_mean(args.strategy, STRATEGIES) if args.strategy else ''}",
            key=not args.strategy,
        )
    for resource in args.resources:
        if not 0 < resource.weight <= 100 and resource.path is not None:
            yield Problem(
                rules.KS011_FIT_WEIGHT,
                (*resource.path, "weight"),
                f"weight {resource.weight} of `{resource.name}` is outside 1..100: "
                "kube-scheduler fails to build NodeResourcesFit and refuses to start; only "
                "the ratio between weights matters, so scale them into 1..100",
            )
    if strict_ratio_block:
        yield from _ratio_block_problems(args, release)
    elif args.shape is not None:
        yield from _shape_problems(args)
    elif args.strategy == "RequestedToCapacityRatio":
        yield Problem(
            rules.KS012_RTCR_MISSING,
            args.strategy_path("type"),
            "type RequestedToCapacityRatio without `requestedToCapacityRatio`: kube-scheduler "
            "up to 1.35 dereferences the missing shape and crashes at start-up (nil pointer); "
            "add `requestedToCapacityRatio: {shape: [...]}`",
        )


def _ratio_block_problems(args: FitArgs, release: str) -> Iterator[Problem]:
    """1.36: ``requestedToCapacityRatio`` required with type RequestedToCapacityRatio,
    forbidden (even empty) with any other type; the shape is checked only with it."""
    if args.strategy == "RequestedToCapacityRatio":
        if args.shape is not None:
            yield from _shape_problems(args)
            return
        yield Problem(
            rules.KS012_RTCR_MISSING,
            args.strategy_path("type"),
            "type RequestedToCapacityRatio without `requestedToCapacityRatio`: kube-scheduler "
            f"{release} refuses to start (`scoringStrategy.requestedToCapacityRatio: Required "
            "value: must be specified when type is RequestedToCapacityRatio`); add "
            "`requestedToCapacityRatio: {shape: [...]}`",
        )
    elif args.shape is not None and args.strategy in STRATEGIES:
        yield Problem(
            rules.KS017_RATIO_BLOCK,
            args.strategy_path("requestedToCapacityRatio"),
            f"requestedToCapacityRatio beside type {args.strategy}: kube-scheduler {release} "
            "refuses to start (`scoringStrategy.requestedToCapacityRatio: Forbidden: must be "
            "nil when type is not RequestedToCapacityRatio`; 1.35 ignored it); set type "
            "RequestedToCapacityRatio or remove the block",
            key=True,
        )


def _shape_problems(args: FitArgs) -> Iterator[Problem]:
    shape = args.shape or ()
    if not shape:
        yield Problem(
            rules.KS013_SHAPE,
            args.strategy_path("requestedToCapacityRatio"),
            "requestedToCapacityRatio.shape has no points: kube-scheduler needs at least one "
            "and refuses to start; e.g. `shape: [{utilization: 0, score: 0}, "
            "{utilization: 100, score: 10}]`",
        )
        return
    for before, point in pairwise(shape):
        if before.utilization >= point.utilization:
            yield Problem(
                rules.KS013_SHAPE,
                (*point.path, "utilization"),
                f"shape utilization {point.utilization} does not rise above the previous "
                f"point's {before.utilization}: kube-scheduler needs strictly increasing "
                "utilization and refuses to start; sort the points",
            )
            break
    for point in shape:
        if not 0 <= point.utilization <= 100:
            yield Problem(
                rules.KS013_SHAPE,
                (*point.path, "utilization"),
                f"shape utilization {point.utilization} is outside 0..100: "
                "kube-scheduler refuses to start; utilization is a percentage of allocatable",
            )
        if not 0 <= point.score <= MAX_CUSTOM_PRIORITY_SCORE:
            yield Problem(
                rules.KS013_SHAPE,
                (*point.path, "score"),
                f"shape score {point.score} is outside 0..10: kube-scheduler refuses to start; "
                "scores are on a 0..10 scale (it multiplies them by 10)",
            )


def balanced_problems(args: BalancedArgsData) -> Iterator[Problem]:
    """``ValidateNodeResourcesBalancedAllocationArgs``: weights exactly 1, no duplicates."""
    written = [r for r in args.resources if r.path is not None]
    for resource, _ in repeats(written, lambda r: r.name):
        yield Problem(
            rules.KS015_BALANCED_DUPLICATE,
            (*(resource.path or ()), "name"),
            f"`{resource.name}` is listed twice: NodeResourcesBalancedAllocation rejects "
            "duplicate resources and kube-scheduler refuses to start; remove one",
        )
    for resource in written:
        if resource.weight != 1:
            yield Problem(
                rules.KS014_BALANCED_WEIGHT,
                (*(resource.path or ()), "weight"),
                f"weight {resource.weight} of `{resource.name}`: NodeResourcesBalancedAllocation "
                "weights must be 1 and kube-scheduler refuses to start; drop the weight (raise "
                "the plugin's score weight instead)",
            )
