"""Start-up validation of the other in-tree plugins' args (rule KS030).

``validatePluginConfig`` validates, for every ``pluginConfig`` entry of these names, the
args after defaulting: DefaultPreemption, InterPodAffinity, NodeAffinity,
PodTopologySpread, VolumeBinding and DynamicResources (StorageCapacityScoring off in
every judged release; the DRA timeouts per release, ``dynamic_resources_problems``).

Its table of validators is keyed by names, and one key is not a plugin name:
``NodeResourcesFitArgs`` (the args kind of NodeResourcesFit) in 1.35 and 1.36. An entry
named so has no args of that type (kube-scheduler decodes args by ``<name>Args``, and
there is no ``NodeResourcesFitArgsArgs``), so validation fails with ``has to match
plugin args`` and the scheduler does not start (:data:`MISKEYED_ARGS`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from policytest.core.releases import KubeRelease
from policytest.kube import rules
from policytest.kube.framework import Path, Problem
from policytest.kube.names import label_value_errors, parse_duration, qualified_name_errors
from policytest.kube.values import integer, items, mapping, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Validator = Callable[[dict[str, Any], Path], Iterator[Problem]]


def _problem(path: Path, message: str) -> Problem:
    return Problem(rules.KS030_PLUGIN_ARGS, path, f"{message}; kube-scheduler refuses to start")


def _range(
    args: dict[str, Any],
    path: Path,
    key: str,
    default: int,
    low: int,
    high: int | None,
) -> Iterator[Problem]:
    value = integer(args.get(key))
    value = default if value is None else value
    if value < low or (high is not None and value > high):
        bounds = f"{low}..{high}" if high is not None else f"at least {low}"
        yield _problem((*path, key), f"{key} {value} is outside {bounds}")


def default_preemption(args: dict[str, Any], path: Path) -> Iterator[Problem]:
    yield from _range(args, path, "minCandidateNodesPercentage", 10, 0, 100)
    yield from _range(args, path, "minCandidateNodesAbsolute", 100, 0, None)
    percentage = integer(args.get("minCandidateNodesPercentage"))
    absolute = integer(args.get("minCandidateNodesAbsolute"))
    if percentage == 0 and absolute == 0:
        yield _problem(
            (*path, "minCandidateNodesPercentage"),
            "minCandidateNodesPercentage and minCandidateNodesAbsolute are both 0",
        )


def inter_pod_affinity(args: dict[str, Any], path: Path) -> Iterator[Problem]:
    yield from _range(args, path, "hardPodAffinityWeight", 1, 0, 100)


def volume_binding(args: dict[str, Any], path: Path, release: KubeRelease) -> Iterator[Problem]:
    """``ValidateVolumeBindingArgs``: ``shape`` only with StorageCapacityScoring, an alpha
    gate off by default in every judged release (named in the message)."""
    yield from _range(args, path, "bindTimeoutSeconds", 600, 0, None)
    if args.get("shape") is not None:
        yield _problem(
            (*path, "shape"),
            "VolumeBinding `shape` is set but the StorageCapacityScoring feature gate is "
            f"off in kube-scheduler {release.name}; remove it",
        )


def dynamic_resources(args: dict[str, Any], path: Path) -> Iterator[Problem]:
    timeout = args.get("filterTimeout")
    if isinstance(timeout, str) and (parse_duration(timeout) or 0) < 0:
        yield _problem((*path, "filterTimeout"), f"filterTimeout {timeout} is negative")


def dynamic_resources_problems(
    args: dict[str, Any], path: Path, release: KubeRelease
) -> Iterator[Problem]:
    """``ValidateDynamicResourcesArgs`` with the release's gates: ``filterTimeout`` 0 or
    more (DRASchedulerFilterTimeout on from 1.34); ``bindingTimeout`` forbidden while
    DRADeviceBindingConditions is off (1.35), at least 1s from 1.36. 1.33 registers no
    DynamicResourcesArgs: the args are not checked at all."""
    if release.dra_args is None:
        return
    yield from dynamic_resources(args, path)
    binding = args.get("bindingTimeout")
    if not isinstance(binding, str) or "bindingTimeout" not in release.dra_args:
        return  # null is unset; 1.34's API has no such field (an unknown field)
    if not release.dra_binding_timeout_gate:
        yield _problem(
            (*path, "bindingTimeout"),
            f"bindingTimeout is set, but kube-scheduler {release.name} forbids it "
            "(`Forbidden: DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature "
            "gate is disabled`); remove it (it is accepted from 1.36)",
        )
    elif (parse_duration(binding) or 0) < 1_000_000_000:
        yield _problem(
            (*path, "bindingTimeout"),
            f'bindingTimeout {binding} is below 1s (`Invalid value: "{binding}": must be at '
            "least 1 second`); remove it for the default 10m, or give 1s or more",
        )


def pod_topology_spread(args: dict[str, Any], path: Path) -> Iterator[Problem]:
    kind = text(args.get("defaultingType")) or "System"
    constraints = items(args.get("defaultConstraints"))
    if kind not in ("System", "List"):
        yield _problem((*path, "defaultingType"), f'defaultingType "{kind}" is not System or List')
    elif kind == "System" and constraints:
        yield _problem((*path, "defaultingType"), "defaultConstraints need `defaultingType: List`")
    seen: set[tuple[str, str]] = set()
    for index, entry in enumerate(constraints):
        constraint = mapping(entry)
        where: Path = (*path, "defaultConstraints", index)
        if (integer(constraint.get("maxSkew")) or 0) <= 0:
            yield _problem((*where, "maxSkew"), "maxSkew must be above 0")
        key = text(constraint.get("topologyKey"))
        for message in ["topologyKey is required"] if not key else qualified_name_errors(key):
            yield _problem((*where, "topologyKey"), f"topologyKey: {message}")
        action = text(constraint.get("whenUnsatisfiable"))
        if action not in ("DoNotSchedule", "ScheduleAnyway"):
            yield _problem(
                (*where, "whenUnsatisfiable"),
                "whenUnsatisfiable must be DoNotSchedule or ScheduleAnyway",
            )
        if constraint.get("labelSelector") is not None:
            yield _problem(
                (*where, "labelSelector"),
                "default constraints must not define a labelSelector (it is deduced for each pod)",
            )
        if (key, action) in seen:
            yield _problem(where, f"duplicate default constraint {{{key}, {action}}}")
        seen.add((key, action))


_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def node_affinity(args: dict[str, Any], path: Path) -> Iterator[Problem]:
    affinity = mapping(args.get("addedAffinity"))
    base: Path = (*path, "addedAffinity")
    required = "requiredDuringSchedulingIgnoredDuringExecution"
    for index, term in enumerate(items(mapping(affinity.get(required)).get("nodeSelectorTerms"))):
        yield from _selector_term(mapping(term), (*base, required, "nodeSelectorTerms", index))
    preferred = "preferredDuringSchedulingIgnoredDuringExecution"
    for index, term in enumerate(items(affinity.get(preferred))):
        where: Path = (*base, preferred, index, "preference")
        yield from _selector_term(mapping(mapping(term).get("preference")), where)


def _selector_term(term: dict[str, Any], path: Path) -> Iterator[Problem]:
    """``nodeaffinity.NewNodeSelector``'s parsing of one term."""
    for index, entry in enumerate(items(term.get("matchExpressions"))):
        requirement = mapping(entry)
        where: Path = (*path, "matchExpressions", index)
        operator = text(requirement.get("operator"))
        values = [text(v) for v in items(requirement.get("values"))]
        if operator not in _OPERATORS:
            yield _problem(
                (*where, "operator"),
                f'"{operator}" is not a valid node selector operator ({", ".join(_OPERATORS)})',
            )
            continue
        for message in qualified_name_errors(text(requirement.get("key"))):
            yield _problem((*where, "key"), f"key: {message}")
        if operator in ("In", "NotIn") and not values:
            yield _problem((*where, "values"), f"{operator} needs at least one value")
        elif operator in ("Exists", "DoesNotExist") and values:
            yield _problem((*where, "values"), f"{operator} takes no values")
        elif operator in ("Gt", "Lt") and (len(values) != 1 or not _is_int(values[0])):
            yield _problem((*where, "values"), f"{operator} needs exactly one integer value")
        for value in values:
            for message in label_value_errors(value):
                yield _problem((*where, "values"), f"value `{value}`: {message}")
    for index, entry in enumerate(items(term.get("matchFields"))):
        requirement = mapping(entry)
        where = (*path, "matchFields", index)
        if text(requirement.get("key")) != "metadata.name":
            yield _problem((*where, "key"), "matchFields only supports the key metadata.name")
        if len(items(requirement.get("values"))) != 1:
            yield _problem((*where, "values"), "matchFields needs exactly one value")
        if text(requirement.get("operator")) not in ("In", "NotIn"):
            yield _problem((*where, "operator"), "matchFields supports only In and NotIn")


def _is_int(value: str) -> bool:
    body = value[1:] if value[:1] in "+-" else value
    return body.isdigit() and body.isascii()


MISKEYED_ARGS: dict[str, str] = {"NodeResourcesFitArgs": "NodeResourcesFit"}
"""Keys of upstream's validator table that are not plugin names -> the plugin meant
(``validatePluginConfig`` in pkg/scheduler/apis/config/validation, 1.35.4 and 1.36.3)."""


def miskeyed_args(name: str, args: Any, path: Path) -> Problem:
    """KS030 for a pluginConfig entry under a validator key that is not a plugin name."""
    where = "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path)
    shown = "null" if args is None else "runtime.Unknown{...}"
    return Problem(
        rules.KS030_PLUGIN_ARGS,
        (*path, "name"),
        f'pluginConfig name "{name}" is the args kind, not the plugin: kube-scheduler '
        f"validates an entry of this name as {MISKEYED_ARGS[name]}'s args, finds no args of "
        f'that type and refuses to start ("{where.lstrip(".")}.args: Invalid value: '
        f'{shown}: has to match plugin args"); name the entry "{MISKEYED_ARGS[name]}"',
    )


VALIDATORS: dict[str, Validator] = {
    "DefaultPreemption": default_preemption,
    "InterPodAffinity": inter_pod_affinity,
    "NodeAffinity": node_affinity,
    "PodTopologySpread": pod_topology_spread,
    "DynamicResources": dynamic_resources,
}
