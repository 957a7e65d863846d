"""``framework.Get[T]``: ``mapstructure.Decode`` of a yaml.v2 value into a Go type.

Volcano's newer plugins read their arguments with ``framework.Get[T](args, key)``, which
runs ``github.com/mitchellh/mapstructure`` (v1.5, default config: no weak typing) and
calls ``klog.Fatalf`` when decoding fails, so the scheduler exits. What that decoder
accepts, decided here from the value yaml.v2 produced (see :mod:`policytest.read.goyaml`):

- into an ``int``: any integer (one beyond int64, a ``uint64`` to yaml.v2, wraps) and any
  float (truncated toward zero: ``1.5`` -> 1, ``-0.7`` -> 0); a bool or a string is fatal;
- into a ``float64``: any integer or float; a bool or a string is fatal;
- into a ``string``: only a string; into a ``bool``: only a bool;
- into a map: only a mapping (a list is fatal); its keys are decoded like values;
- into a struct: only a mapping; each field takes the key equal to its Go name, else the
  first key equal to it ignoring case; other keys are ignored;
- null anywhere decodes to the zero value (and is never fatal).

Every decision is returned with the path and the YAML node it concerns, so that the
rules can point at the offending value inside the user's file.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from policytest.core.records import field, record
from policytest.read.goyaml import DecodeError, Uint64, go_type, is_merge_key, scalar_value
from policytest.read.nodes import MappingNode, Node, ScalarNode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


@record(frozen=True)
class Field:
    """One Go struct field: its Go name and type."""

    name: str
    type: GoType


@record(frozen=True)
class GoType:
    """A Go type as mapstructure sees it: ``kind`` is int, float64, string, bool, map or
    struct; ``go`` is the name klog prints (``map[v1.ResourceName]...``)."""

    kind: str
    go: str
    key: GoType | None = None
    value: GoType | None = None
    fields: tuple[Field, ...] = ()


INT = GoType("int", "int")
FLOAT = GoType("float64", "float64")
STRING = GoType("string", "string")
BOOL = GoType("bool", "bool")


def map_of(key: GoType, value: GoType, go: str) -> GoType:
    return GoType("map", go, key=key, value=value)


def struct(go: str, *fields: tuple[str, GoType]) -> GoType:
    return GoType("struct", go, fields=tuple(Field(name, kind) for name, kind in fields))


@record(frozen=True)
class Refusal:
    """A value mapstructure cannot decode: the scheduler exits (``klog.Fatalf``)."""

    path: str
    node: Node | None
    expected: str
    got: str


@record(frozen=True)
class Coercion:
    """A value mapstructure decodes into something other than what is written."""

    path: str
    node: Node | None
    written: Any
    result: Any
    why: str


@record(frozen=True)
class Ignored:
    """A key of a struct mapping that no field reads (or that another key shadows)."""

    path: str
    node: Node | None
    name: str
    fields: tuple[str, ...]
    shadowed_by: str | None = None
    random: bool = False
    """Neither key is the field's exact name: which one Volcano reads follows Go's map
    order (the first case-insensitive match in a random iteration)."""


@record
class Decoded:
    """The Go value (Python: int, float, str, bool, dict, or a dict of field values for a
    struct) and everything noticed on the way."""

    value: Any
    refusals: list[Refusal] = field(default_factory=list)
    coercions: list[Coercion] = field(default_factory=list)
    ignored: list[Ignored] = field(default_factory=list)


def go_int(value: float) -> int:
    """Go's ``int64(f)`` on amd64: truncation toward zero; NaN and out-of-range values
    give the minimum int64."""
    if math.isnan(value) or math.isinf(value):
        return INT64_MIN
    truncated = int(value)
    return truncated if INT64_MIN <= truncated <= INT64_MAX else INT64_MIN


def wrap(value: int) -> int:
    """A ``uint64`` converted to ``int64``: wraps modulo 2^64."""
    value &= 2**64 - 1
    return value - 2**64 if value > INT64_MAX else value


def zero(kind: GoType) -> Any:
    if kind.kind == "int":
        return 0
    if kind.kind == "float64":
        return 0.0
    if kind.kind == "string":
        return ""
    if kind.kind == "bool":
        return False
    if kind.kind == "map":
        return None
    return {f.name: zero(f.type) for f in kind.fields}


def field_key(value: Mapping[Any, Any], name: str) -> Any:
    """The key of a mapping that struct field ``name`` takes: the exact name, else the
    first key equal to it ignoring case; ``None`` when there is none."""
    if name in value:
        return name
    return next((k for k in value if isinstance(k, str) and k.lower() == name.lower()), None)


def children(node: Node | None, text: str) -> dict[Any, tuple[Node, Node]]:
    """The key and value nodes of a mapping node, by decoded key (later pairs win;
    merged-in keys are not followed: their findings point at the mapping)."""
    if not isinstance(node, MappingNode):
        return {}
    found: dict[Any, tuple[Node, Node]] = {}
    for key_node, value_node in node.value:
        if is_merge_key(key_node, text) or not isinstance(key_node, ScalarNode):
            continue
        try:
            key = scalar_value(key_node, text)
        except DecodeError:
            continue
        found[key] = (key_node, value_node)
    return found


def describe(value: Any) -> str:
    """A decoded value in the user's terms."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean `{str(value).lower()}`"
    if isinstance(value, str):
        return f'the string "{value}"'
    if isinstance(value, Uint64):
        return f"the integer {value} (beyond int64)"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, float):
        return f"the float {value!r}"
    if isinstance(value, list):
        return "a list"
    return "a mapping" if isinstance(value, Mapping) else go_type(value)


class _Decoder:
    def __init__(self, text: str) -> None:
        self.text = text
        self.result = Decoded(None)

    def decode(self, value: Any, kind: GoType, path: str, node: Node | None) -> Any:
        if value is None:
            return zero(kind)
        method = getattr(self, "_" + kind.kind.replace("64", ""))
        return method(value, kind, path, node)

    def refuse(self, path: str, node: Node | None, expected: str, value: Any) -> None:
        self.result.refusals.append(Refusal(path, node, expected, describe(value)))

    def _int(self, value: Any, kind: GoType, path: str, node: Node | None) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.refuse(path, node, "an integer", value)
            return 0
        if isinstance(value, Uint64):
            result = wrap(value)
            self.result.coercions.append(
                Coercion(path, node, value, result, "beyond int64: wraps around")
            )
            return result
        if isinstance(value, float):
            result = go_int(value)
            if result != value:
                why = "a float: the fraction is cut off" if math.isfinite(value) else "not finite"
                self.result.coercions.append(Coercion(path, node, value, result, why))
            return result
        return value

    def _float(self, value: Any, kind: GoType, path: str, node: Node | None) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.refuse(path, node, "a number", value)
            return 0.0
        return float(wrap(value) if isinstance(value, Uint64) else value)

    def _string(self, value: Any, kind: GoType, path: str, node: Node | None) -> Any:
        if not isinstance(value, str):
            self.refuse(path, node, "a string", value)
            return ""
        return value

    def _bool(self, value: Any, kind: GoType, path: str, node: Node | None) -> Any:
        if not isinstance(value, bool):
            self.refuse(path, node, "a boolean (true or false)", value)
            return False
        return value

    def _map(self, value: Any, kind: GoType, path: str, node: Node | None) -> Any:
        if not isinstance(value, Mapping):
            self.refuse(path, node, "a mapping", value)
            return None
        assert kind.key is not None and kind.value is not None
        nodes = children(node, self.text)
        result: dict[Any, Any] = {}
        for key, item in value.items():
            key_node, value_node = nodes.get(key, (node, node))
            where = f"{path}.{key}" if path else str(key)
            name = self.decode(key, kind.key, where, key_node)
            result[name] = self.decode(item, kind.value, where, value_node)
        return result

    def _struct(self, value: Any, kind: GoType, path: str, node: Node | None) -> Any:
        if not isinstance(value, Mapping):
            self.refuse(path, node, "a mapping", value)
            return zero(kind)
        nodes = children(node, self.text)
        names = tuple(f.name for f in kind.fields)
        used: set[Any] = set()
        result: dict[str, Any] = {}
        for go_field in kind.fields:
            key = field_key(value, go_field.name)
            if key is None:
                result[go_field.name] = zero(go_field.type)
                continue
            used.add(key)
            key_node, value_node = nodes.get(key, (node, node))
            where = f"{path}.{key}" if path else str(key)
            result[go_field.name] = self.decode(value[key], go_field.type, where, value_node)
        for key in value:
            if key in used:
                continue
            key_node, _ = nodes.get(key, (node, node))
            shadow = next(
                (
                    u
                    for u in used
                    if isinstance(key, str) and isinstance(u, str) and u.lower() == key.lower()
                ),
                None,
            )
            where = f"{path}.{key}" if path else str(key)
            random = shadow is not None and shadow not in names
            self.result.ignored.append(Ignored(where, key_node, str(key), names, shadow, random))
        return result


def decode(value: Any, kind: GoType, path: str, node: Node | None, text: str) -> Decoded:
    """``mapstructure.Decode(value, &result)`` for a Go type ``kind``."""
    decoder = _Decoder(text)
    decoder.result.value = decoder.decode(value, kind, path, node)
    return decoder.result


def fatal_message(key: str, kind: GoType, refusals: list[Refusal]) -> str:
    """The gist of the klog line: ``Could not parse argument for key K to type T``."""
    return f"Could not parse argument for key {key} to type {kind.go}: " + "; ".join(
        f"{r.path or key} must be {r.expected}, got {r.got}" for r in refusals
    )
