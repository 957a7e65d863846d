"""resource-strategy-fit's arguments: ``New`` exactly, with every correction it makes.

Upstream (``plugins/resource-strategy-fit/``, Volcano 1.13 and later; the same code in
every release up to 1.16.0-alpha.1) reads four keys with ``framework.Get``, in this
order, and the first value that does not decode stops the scheduler (``klog.Fatalf``):

- ``resourceStrategyFitWeight`` (int): absent or negative -> 10; null -> 0, which leaves
  the strategy score out;
- ``resources`` (map of resource name -> ``{type, weight}``): absent, null or empty ->
  cpu and memory, LeastAllocated, weight 1. Each name may end in one ``*`` (a prefix);
  ``*`` alone and any other ``*`` drop that entry. A weight <= 0 becomes 1; a type other
  than ``MostAllocated`` / ``LeastAllocated`` (case-sensitive) becomes LeastAllocated;
- ``sra`` (``{enable, resources, weight, resourceWeight}``): off unless ``enable`` is
  true; ``resources`` is a comma-separated string (items trimmed, empty ones skipped);
  a resource weight defaults to 1, a negative one becomes 1, and every listed item
  counts in the weight sum (twice when listed twice);
- ``proportional`` (``{enable, resources, resourceProportion}``): the filter, with
  ``<name>.cpu`` / ``<name>.memory`` rates defaulting to 1 (negative -> 1).

Fields inside the sections match their Go names ignoring case; top-level keys are exact.
The node-order function is registered when the plugin weight or the sra weight is > 0,
the predicate when ``proportional`` is enabled.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from policytest.scoring.weights import (
    DEFAULT_RESOURCES,
    DEFAULT_WEIGHT,
    LEAST,
    TYPES,
    Rates,
    ResourceStrategyFitArgs,
    Sra,
    Strategy,
)
from policytest.volcano import mapdecode
from policytest.volcano.gotext import split_trimmed
from policytest.volcano.mapdecode import BOOL, FLOAT, INT, STRING, map_of, struct

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

WEIGHT_KEY = "resourceStrategyFitWeight"
RESOURCES_KEY = "resources"
SRA_KEY = "sra"
PROPORTIONAL_KEY = "proportional"
KEYS = (WEIGHT_KEY, RESOURCES_KEY, SRA_KEY, PROPORTIONAL_KEY)

RESOURCES_TYPE = struct("resourcestrategyfit.ResourcesType", ("Type", STRING), ("Weight", INT))
GO_TYPES: Mapping[str, mapdecode.GoType] = MappingProxyType(
    {
        WEIGHT_KEY: INT,
        RESOURCES_KEY: map_of(
            STRING, RESOURCES_TYPE, "map[v1.ResourceName]resourcestrategyfit.ResourcesType"
        ),
        SRA_KEY: struct(
            "resourcestrategyfit.sraConfig",
            ("Enable", BOOL),
            ("Resources", STRING),
            ("Weight", INT),
            ("ResourceWeight", map_of(STRING, INT, "map[string]int")),
        ),
        PROPORTIONAL_KEY: struct(
            "resourcestrategyfit.proportionalConfig",
            ("Enable", BOOL),
            ("Resources", STRING),
            ("ResourceProportion", map_of(STRING, FLOAT, "map[string]float64")),
        ),
    }
)


def valid_pattern(name: str) -> bool:
    """``isValidWildcardPattern``: no ``*``, or one trailing ``*`` after something."""
    if "*" not in name:
        return True
    return name != "*" and name.endswith("*") and name.count("*") == 1


def _strategy(entry: Mapping[str, Any]) -> Strategy:
    weight = entry["Weight"]
    kind = entry["Type"]
    return Strategy(kind if kind in TYPES else LEAST, weight if weight > 0 else 1)


def resources_of(decoded: Mapping[str, Any] | None) -> tuple[dict[str, Strategy], list[str]]:
    """``calculateWeight``'s resource loop: the corrected map and the dropped patterns."""
    if not decoded:
        return dict(DEFAULT_RESOURCES), []
    kept: dict[str, Strategy] = {}
    dropped: list[str] = []
    for name, entry in decoded.items():
        if not valid_pattern(name):
            dropped.append(name)
            continue
        kept[name] = _strategy(entry)
    return kept, dropped


def sra_of(decoded: Mapping[str, Any]) -> Sra:
    """``applySraPolicy`` + ``calculateSraWeight``."""
    if not decoded["Enable"]:
        return Sra()
    weights = decoded["ResourceWeight"] or {}
    resources: dict[str, int] = {}
    total = 0
    for name in split_trimmed(decoded["Resources"]):
        weight = weights.get(name, 1)
        weight = 1 if weight < 0 else weight
        resources[name] = weight
        total += weight
    return Sra(decoded["Weight"], MappingProxyType(resources), mapdecode.wrap(total))


def proportional_of(decoded: Mapping[str, Any]) -> Mapping[str, Rates] | None:
    """``applyProportionalPolicy`` + ``calculateProportionalResources``."""
    if not decoded["Enable"]:
        return None
    rates = decoded["ResourceProportion"] or {}
    result: dict[str, Rates] = {}
    for name in split_trimmed(decoded["Resources"]):
        cpu = rates.get(name + ".cpu", 1.0)
        memory = rates.get(name + ".memory", 1.0)
        result[name] = Rates(1.0 if cpu < 0 else cpu, 1.0 if memory < 0 else memory)
    return MappingProxyType(result)


def decode_key(
    arguments: Mapping[str, Any], key: str, text: str = "", node: Any = None
) -> mapdecode.Decoded:
    """``framework.Get`` of one key (present in ``arguments``)."""
    return mapdecode.decode(arguments[key], GO_TYPES[key], key, node, text)


def rsf_args(arguments: Mapping[str, Any] | None) -> ResourceStrategyFitArgs:
    """``New(arguments)``: the plugin's state, or the fatal that stops the scheduler."""
    arguments = arguments or {}
    decoded: dict[str, Any] = {}
    for key in KEYS:
        if key not in arguments:
            continue
        result = decode_key(arguments, key)
        if result.refusals:
            return ResourceStrategyFitArgs(
                fatal=mapdecode.fatal_message(key, GO_TYPES[key], result.refusals)
            )
        decoded[key] = result.value
    weight = decoded.get(WEIGHT_KEY, DEFAULT_WEIGHT)
    weight = DEFAULT_WEIGHT if weight < 0 else weight
    resources, dropped = resources_of(decoded.get(RESOURCES_KEY))
    sra = sra_of(decoded[SRA_KEY]) if SRA_KEY in decoded else Sra()
    proportional = (
        proportional_of(decoded[PROPORTIONAL_KEY]) if PROPORTIONAL_KEY in decoded else None
    )
    return ResourceStrategyFitArgs(
        weight=weight,
        resources=MappingProxyType(resources),
        sra=sra,
        proportional=proportional,
        dropped=tuple(dropped),
    )
