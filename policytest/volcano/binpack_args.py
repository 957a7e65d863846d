"""binpack's arguments: ``calculateWeight`` exactly, and every silent correction it makes.

Upstream (``plugins/binpack/binpack.go``): ``binpack.weight``, ``binpack.cpu`` and
``binpack.memory`` default to 1 and are read with ``GetInt``; negative cpu/memory become
1 (a negative weight is kept). ``binpack.resources`` must be a string: it is split on
commas, items trimmed, empty items skipped; each item's weight is
``binpack.resources.<item>`` (default 1, negative -> 1). Finally cpu and memory are put
into the resource map with ``binpack.cpu``/``binpack.memory``, overriding any listed
weight. A ``binpack.weight`` of 0 keeps the node-order function from registering.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from policytest.core.findings import Finding, Severity
from policytest.core.suggest import closest
from policytest.read.goyaml import Uint64
from policytest.read.nodes import ScalarNode
from policytest.scoring.names import WELL_KNOWN_RESOURCES
from policytest.scoring.weights import BinpackWeights
from policytest.volcano import rules
from policytest.volcano.arguments import IntRead, describe, get_int, surprising_int
from policytest.volcano.entry_check import EntryCheck
from policytest.volcano.gotext import split_trimmed, trim_space

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from policytest.read.source import Document
    from policytest.volcano.entry import PluginEntry

BINPACK = "binpack"
WEIGHT = "binpack.weight"
CPU = "binpack.cpu"
MEMORY = "binpack.memory"
RESOURCES = "binpack.resources"
PREFIX = RESOURCES + "."
KNOWN_KEYS = (WEIGHT, CPU, MEMORY, RESOURCES)
INT64_MAX = 2**63 - 1

_STANDARD_PREFIXES = ("hugepages-", "nvidia.com/mig-", "volcano.sh/", "example.com/")
_GPU_NAMES = tuple(name for name in WELL_KNOWN_RESOURCES if "gpu" in name)


def declared_resources(
    arguments: Mapping[str, Any] | None, key: str = RESOURCES
) -> tuple[str, ...] | None:
    """The trimmed, non-empty items of ``binpack.resources`` (or of another plugin's
    resources list, ``key``); ``None``: not a string."""
    value = (arguments or {}).get(key, "")
    if not isinstance(value, str):
        return None
    return split_trimmed(value)


def binpack_weights(
    arguments: Mapping[str, Any] | None, *, string_arguments: bool = False
) -> BinpackWeights:
    """``calculateWeight``: the weights Volcano holds for these arguments."""

    def read(key: str, default: int) -> int:
        value = get_int(arguments, key, string_arguments=string_arguments).value
        return default if value is None else value

    weight = read(WEIGHT, 1)
    cpu = read(CPU, 1)
    cpu = 1 if cpu < 0 else cpu
    memory = read(MEMORY, 1)
    memory = 1 if memory < 0 else memory
    resources: dict[str, int] = {}
    for name in declared_resources(arguments) or ():
        resource_weight = read(PREFIX + name, 1)
        resources[name] = 1 if resource_weight < 0 else resource_weight
    resources["cpu"] = cpu
    resources["memory"] = memory
    return BinpackWeights(weight=weight, cpu=cpu, memory=memory, resources=resources)


def resource_name_problem(name: str) -> str | None:
    """Why no node will report a resource called ``name``, else ``None``."""
    if any(char.isspace() for char in name) or any(sep in name for sep in ";\uff0c\u3001"):
        return (
            f"`{name}` is one resource name to Volcano, which splits `binpack.resources` "
            "on commas only; separate names with commas"
        )
    if name in WELL_KNOWN_RESOURCES or name.startswith(_STANDARD_PREFIXES):
        return None
    for standard in WELL_KNOWN_RESOURCES:
        if standard.lower() == name.lower():
            return (
                f"`{name}` differs from `{standard}` only by case; resource names are "
                f"case-sensitive, so it never matches: write `{standard}`"
            )
    if "gpu" in name.lower():
        hint = closest(name, _GPU_NAMES) or "nvidia.com/gpu"
        return (
            f"`{name}` looks like a GPU but is not a device plugin's resource name "
            f"(NVIDIA's is `nvidia.com/gpu`, AMD's `amd.com/gpu`); did you mean `{hint}`?"
        )
    return None


def _where(entry: PluginEntry) -> str:
    return f"binpack (tier {entry.tier + 1}, entry {entry.index + 1})"


class _EntryCheck(EntryCheck["PluginEntry"]):
    """The findings for one binpack entry's arguments."""

    def __init__(self, document: Document, entry: PluginEntry, string_arguments: bool) -> None:
        super().__init__(document, entry)
        self.string_arguments = string_arguments
        self.declared = declared_resources(entry.arguments)
        weights = entry.weights
        self.weights = weights if isinstance(weights, BinpackWeights) else BinpackWeights()

    def findings(self) -> Iterator[Finding]:
        for key in self.ordered():
            if key in (WEIGHT, CPU, MEMORY):
                yield from self.integer(key, 1)
            elif key == RESOURCES:
                yield from self.resources()
            elif key.startswith(PREFIX):
                yield from self.resource_weight(key, key[len(PREFIX) :])
            else:
                yield self.unknown(key)
        yield from self.entry_level()

    def read(self, key: str) -> IntRead:
        return get_int(self.arguments, key, string_arguments=self.string_arguments)

    def integer(self, key: str, default: int) -> Iterator[Finding]:
        """VB001 (not an int), VB002 (negative resource weight), VB003/VB004/VB014."""
        read = self.read(key)
        node = self.value_node(key)
        if read.ignored is not None:
            yield rules.VB001_BINPACK_NOT_INT.at(
                self.document,
                node,
                f"`{key}`: {read.ignored}; Volcano ignores it (only a log line) and keeps "
                f"{default}. Write a plain integer, e.g. `{key}: {self.example(key)}`",
            )
            return
        if read.value is None:
            return
        if isinstance(node, ScalarNode) and not self.string_arguments:
            surprise = surprising_int(node.value, read.value)
            if surprise is not None:
                yield rules.VB001_BINPACK_NOT_INT.at(
                    self.document,
                    node,
                    f"`{key}`: {surprise}; write {read.value} in plain decimal",
                    Severity.WARNING,
                )
        yield from self.sign(key, read.value)

    def example(self, key: str) -> str:
        value = self.arguments.get(key)
        if isinstance(value, int) and not isinstance(value, (bool, Uint64)):
            return str(value)
        if isinstance(value, str) and trim_space(value).lstrip("+-").isdigit():
            return trim_space(value)
        if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
            return str(int(value))
        return "10" if key == WEIGHT else "1"

    def sign(self, key: str, value: int) -> Iterator[Finding]:
        node = self.value_node(key)
        if key == WEIGHT:
            if value == 0:
                yield rules.VB003_BINPACK_OFF.at(
                    self.document,
                    node,
                    "`binpack.weight: 0`: Volcano does not register binpack's node-order "
                    "function, so binpack scores nothing and its other arguments do nothing; "
                    "remove the plugin or use a positive weight such as 10",
                )
            elif value < 0:
                yield rules.VB004_BINPACK_SPREADS.at(
                    self.document,
                    node,
                    f"`binpack.weight: {value}` is negative: the fullest nodes score lowest, "
                    "so pods are spread instead of packed; use a positive weight such as 10",
                )
            if abs(value) * 100 > INT64_MAX:
                yield rules.VB014_BINPACK_OVERFLOW.at(
                    self.document,
                    node,
                    f"`binpack.weight: {value}`: 100 x weight overflows Go's int64 and wraps, "
                    "so binpack's scores come out negative or meaningless; use a weight in "
                    "the tens",
                )
        elif value < 0:
            yield rules.VB002_BINPACK_NEGATIVE.at(
                self.document,
                node,
                f"`{key}: {value}` is negative: Volcano silently uses weight 1 instead; "
                "use 0 to leave the resource out of the score, or a positive weight",
            )

    def resources(self) -> Iterator[Finding]:
        """VB007 (not a string), VB008 (cpu/memory listed), VB013 (names), VB006."""
        node = self.value_node(RESOURCES)
        value = self.arguments[RESOURCES]
        if self.declared is None:
            shown = describe(value) if not isinstance(value, list) else "a YAML list"
            fix = ", ".join(str(item) for item in value) if isinstance(value, list) else ""
            example = f'`binpack.resources: "{fix or "nvidia.com/gpu"}"`'
            yield rules.VB007_BINPACK_RESOURCES_TYPE.at(
                self.document,
                node,
                f"`binpack.resources` must be one comma-separated string, but it is {shown}; "
                "Volcano treats it as empty, so no extra resource is packed and every "
                f"`binpack.resources.<name>` weight is ignored. Write {example}",
            )
            return
        seen: set[str] = set()
        for name in self.declared:
            if name in seen:
                continue
            seen.add(name)
            if name in ("cpu", "memory"):
                yield rules.VB008_BINPACK_CPU_MEMORY.at(
                    self.document,
                    node,
                    f"`{name}` in `binpack.resources` adds nothing: {name} always counts with "
                    f"weight `binpack.{name}` ({getattr(self.weights, name)}); remove it from "
                    "the list",
                    Severity.INFO,
                )
                continue
            if self.weight_suffixed(name) and PREFIX + name in self.arguments:
                continue  # reported at its weight key, see resource_weight
            problem = resource_name_problem(name)
            if problem is not None:
                yield rules.VB013_BINPACK_RESOURCE_NAME.at(self.document, node, problem)
            if PREFIX + name not in self.arguments:
                yield rules.VB006_BINPACK_DEFAULT_WEIGHT.at(
                    self.document,
                    node,
                    f"`{name}` is declared without `{PREFIX}{name}`: its weight is 1; write "
                    "the weight to make it explicit",
                )

    def resource_weight(self, key: str, name: str) -> Iterator[Finding]:
        """VB005 (not declared), VB008 (cpu/memory), else read like any weight."""
        declared = self.declared or ()
        if name in ("cpu", "memory"):
            effective = getattr(self.weights, name)
            value = self.arguments[key]
            differs = not (isinstance(value, int) and value == effective)
            yield rules.VB008_BINPACK_CPU_MEMORY.at(
                self.document,
                self.key_node(key),
                f"`{key}` is ignored: {name} always counts with weight `binpack.{name}` "
                f"({effective}); write `binpack.{name}: {self.example(key)}` instead of it",
                Severity.ERROR if differs else Severity.WARNING,
            )
            return
        if name in declared:
            if self.weight_suffixed(name):
                yield self.weight_named_resource(key, name)
                return
            yield from self.integer(key, 1)
            return
        yield rules.VB005_BINPACK_UNDECLARED.at(
            self.document, self.key_node(key), self.undeclared_message(key, name, declared)
        )

    def weight_suffixed(self, name: str) -> bool:
        """``nvidia.com/gpu.weight``: a weight key's tail taken for a resource name."""
        return name.endswith(".weight") and len(name) > len(".weight")

    def written(self, key: str) -> str:
        """The value of ``key`` as a suggestion writes it (an integer when it is one)."""
        return self.example(key) if key in self.arguments else "1"

    def declare(self, name: str) -> str:
        """``binpack.resources`` with ``name`` added to what is declared (written out)."""
        listed = [item for item in self.declared or () if not self.weight_suffixed(item)]
        if name not in listed:
            listed.append(name)
        return f'`{RESOURCES}: "{", ".join(listed)}"`'

    def weight_named_resource(self, key: str, name: str) -> Finding:
        """VB013 (error): ``binpack.resources.X.weight`` with ``X.weight`` declared."""
        stem = name[: -len(".weight")]
        value = self.written(key)
        declare = "" if stem in (self.declared or ()) else " and declare it"
        return rules.VB013_BINPACK_RESOURCE_NAME.at(
            self.document,
            self.key_node(key),
            f"`{name}` is declared in `binpack.resources`, so Volcano weights a resource of "
            f"that name, which no node has: this {value} weights nothing and `{stem}` keeps "
            f"weight {self.weights.resources.get(stem, 1)}. A resource's weight is "
            f"`{PREFIX}<name>` itself: write {self.declare(stem)} and "
            f"`{PREFIX}{stem}: {value}`{declare}",
            Severity.ERROR,
        )

    def undeclared_message(self, key: str, name: str, declared: tuple[str, ...]) -> str:
        base = f"`{key}` is ignored: `{name}` is not declared in `binpack.resources`"
        value = self.written(key)
        if self.declared is None:
            return base + " (which is not a string, so nothing is declared)"
        if name == "weight":
            extra = [
                item
                for item in declared
                if item not in ("cpu", "memory") and not self.weight_suffixed(item)
            ]
            fix = (
                f"; write `{PREFIX}{extra[0]}: {value}`"
                if len(extra) == 1
                else "; name the resource in the key, e.g. "
                f"`{PREFIX}nvidia.com/gpu` for `nvidia.com/gpu`"
            )
            return (
                f"`{key}` is ignored: a resource's weight is `{PREFIX}<name>`, and there is "
                f"no resource named `weight`{fix}"
            )
        if self.weight_suffixed(name):
            stem = name[: -len(".weight")]
            target = next((c for c in declared if c.lower() == stem.lower()), stem)
            write = f"`{PREFIX}{target}: {value}`"
            if target not in declared:
                write = f"{self.declare(target)} and {write}"
            return (
                f"`{key}` is ignored: Volcano reads the weight of `{target}` from "
                f"`{PREFIX}{target}` (no `.weight` suffix); write {write}"
            )
        for candidate in declared:
            if trim_space(name) == candidate or candidate.lower() == name.lower():
                return (
                    f"{base}; Volcano reads the weight of `{candidate}` from "
                    f"`{PREFIX}{candidate}` (exact spelling, case-sensitive): write "
                    f"`{PREFIX}{candidate}: {value}`"
                )
        return f"{base}; declare it: write {self.declare(name)}"

    def unknown(self, key: str) -> Finding:
        """VB009: a key binpack never reads, with the likely intent.

        A suggestion names the key Volcano reads the value from, and writes the value
        there (a weight key for a number, ``binpack.resources`` for a string)."""
        message = f"`{key}` is not a binpack argument; Volcano ignores it"
        value = self.arguments[key]
        bare = key.removeprefix("binpack.").removesuffix(".weight")
        if bare in ("gpu", "gpus", "nvidia.com/gpu", "resources.gpu"):
            gpu = "nvidia.com/gpu"
            declared = "" if gpu in (self.declared or ()) else f"{self.declare(gpu)} and "
            return rules.VB009_BINPACK_UNKNOWN_KEY.at(
                self.document,
                self.key_node(key),
                f"{message}; GPUs are declared in `binpack.resources` and weighted with "
                f"`{PREFIX}{gpu}`: write {declared}`{PREFIX}{gpu}: {self.written(key)}`",
            )
        if key.endswith(".weight") and "binpack." + bare in (WEIGHT, CPU, MEMORY):
            target = "binpack." + bare
            what = "binpack's own weight" if target == WEIGHT else f"the {bare} weight"
            return rules.VB009_BINPACK_UNKNOWN_KEY.at(
                self.document,
                self.key_node(key),
                f"`{key}` is not a binpack argument, so Volcano ignores it: it reads {what} "
                f"from `{target}` (no `.weight` suffix); write `{target}: {self.written(key)}`",
            )
        numeric = not isinstance(value, str) or trim_space(value).lstrip("+-").isdigit()
        weights = [WEIGHT, CPU, MEMORY, *(PREFIX + name for name in self.declared or ())]
        candidates = weights if numeric else [RESOURCES]
        close = closest(key, candidates)
        if close is None and "binpack." + key in candidates:
            close = "binpack." + key
        if close:
            shown = self.written(key) if numeric else f'"{trim_space(str(value))}"'
            message += f"; did you mean `{close}`? write `{close}: {shown}`"
        else:
            message += f" (it reads {', '.join(KNOWN_KEYS)} and {PREFIX}<name>)"
        return rules.VB009_BINPACK_UNKNOWN_KEY.at(self.document, self.key_node(key), message)

    def entry_level(self) -> Iterator[Finding]:
        """VB010 (all weights 0) and VB011 (enableNodeOrder: false)."""
        weights = self.weights
        if weights.weight != 0 and all(value == 0 for value in weights.resources.values()):
            yield rules.VB010_BINPACK_ALL_ZERO.at(
                self.document,
                self.entry.arguments_node or self.entry.anchor,
                f"every resource weight of {_where(self.entry)} is 0, so it scores 0 on "
                "every node; give at least one resource a positive weight",
            )
        flag = self.entry.flag_nodes.get("enableNodeOrder")
        if flag is not None and not self.entry.enabled("enableNodeOrder"):
            yield rules.VB011_BINPACK_NO_NODE_ORDER.at(
                self.document,
                flag,
                "`enableNodeOrder: false` on binpack: its node-order score is its only "
                "function, so this entry and its weights do nothing; remove the flag "
                "(or the plugin)",
            )


def binpack_findings(
    document: Document, entry: PluginEntry, *, string_arguments: bool = False
) -> list[Finding]:
    """Every VB finding about one binpack entry's own arguments and flags."""
    return list(_EntryCheck(document, entry, string_arguments).findings())
