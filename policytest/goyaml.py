"""Scalars and documents typed the way Go's ``gopkg.in/yaml.v2`` types them.

Both schedulers parse YAML with yaml.v2 (Volcano directly; kube-scheduler through
``sigs.k8s.io/yaml``), which disagrees with Python YAML libraries on many scalars:
``010`` is octal 8, ``08`` is the float 8.0, ``0o17`` and ``1_0`` are integers,
``y``/``n``/``on``/``off`` are booleans, integers beyond int64 become uint64. What the
scheduler sees is what counts, so policytest decodes composed nodes through here.

Decoding walks the node graph with a node budget and a depth bound, so an alias bomb
or a pathologically deep document fails fast with :class:`DecodeLimit`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from policytest.limits import DEFAULT_LIMITS, Limits

_TAG = "tag:yaml.org,2002:"
STR, INT, FLOAT, BOOL, NULL, MERGE = (
    _TAG + "str", _TAG + "int", _TAG + "float", _TAG + "bool", _TAG + "null", _TAG + "merge",
)
_RESOLVABLE = {STR, INT, FLOAT, BOOL, _TAG + "timestamp"}

_CONSTANTS: dict[str, tuple[str, Any]] = {}
for _words, _tag, _value in (
    ("y Y yes Yes YES true True TRUE on On ON", BOOL, True),
    ("n N no No NO false False FALSE off Off OFF", BOOL, False),
    ("~ null Null NULL", NULL, None),
    (".nan .NaN .NAN", FLOAT, math.nan),
    (".inf .Inf .INF +.inf +.Inf +.INF", FLOAT, math.inf),
    ("-.inf -.Inf -.INF", FLOAT, -math.inf),
    ("<<", MERGE, "<<"),
):
    for _word in _words.split():
        _CONSTANTS[_word] = (_tag, _value)
_CONSTANTS[""] = (NULL, None)

_YAML_STYLE_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1


class Uint64(int):
    """An integer yaml.v2 could only hold as ``uint64`` (beyond int64): not a Go ``int``."""


class DecodeError(ValueError):
    """yaml.v2 refuses the document (e.g. ``!!int abc``); carries the offending node."""

    def __init__(self, message: str, node: Node) -> None:
        super().__init__(message)
        self.node = node


class DecodeLimit(DecodeError):
    """The document is too large or too deep to walk (alias bombs end here)."""


def go_type(value: object) -> str:
    """The Go dynamic type name of a decoded value, as the oracles print it."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, Uint64):
        return "uint64"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "[]interface {}"
    return "map[interface {}]interface {}"


def _parse_go_int(text: str, *, unsigned: bool) -> int | None:
    """``strconv.ParseInt``/``ParseUint`` with base 0 (0x, 0o, 0b and 0 prefixes)."""
    sign = 1
    body = text
    if not unsigned and body[:1] in "+-" and body:
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    if not body or body[0] in "+-":
        return None
    base = 10
    lowered = body.lower()
    if lowered.startswith(("0x", "0o", "0b")):
        base = {"x": 16, "o": 8, "b": 2}[lowered[1]]
        body = body[2:]
    elif len(body) > 1 and body[0] == "0":
        base = 8
        body = body[1:]
    if not body or not all(c in "0123456789abcdefABCDEF"[: base + (6 if base == 16 else 0)]
                           for c in body):
        return None
    value = sign * int(body, base)
    if unsigned:
        return value if value <= _UINT64_MAX else None
    return value if _INT64_MIN <= value <= _INT64_MAX else None


def _parse_go_float(text: str) -> float | None:
    """``strconv.ParseFloat`` for the decimal forms yaml.v2 lets through; range errors fail."""
    try:
        value = float(text)
    except ValueError:
        return None
    return None if math.isinf(value) else value


def resolve_plain(text: str) -> tuple[str, Any]:
    """The (tag, value) yaml.v2 gives a plain (unquoted, untagged) scalar."""
    if text in _CONSTANTS:
        return _CONSTANTS[text]
    first = text[0]
    if first == ".":
        value = _parse_go_float(text) if re.fullmatch(r"\.[0-9]+([eE][-+]?[0-9]+)?", text) else None
        return (FLOAT, value) if value is not None else (STR, text)
    if first in "+-0123456789":
        plain = text.replace("_", "")
        integer = _parse_go_int(plain, unsigned=False)
        if integer is not None:
            return INT, integer
        unsigned = _parse_go_int(plain, unsigned=True)
        if unsigned is not None:
            return INT, Uint64(unsigned)
        if _YAML_STYLE_FLOAT.match(plain):
            number = _parse_go_float(plain)
            if number is not None:
                return FLOAT, number
        for prefix, sign in (("0b", 1), ("-0b", -1)):
            if plain.startswith(prefix):
                digits = plain[len(prefix):]
                if digits and set(digits) <= {"0", "1"}:
                    value = sign * int(digits, 2)
                    if _INT64_MIN <= value <= _INT64_MAX:
                        return INT, value
                    if value <= _UINT64_MAX and sign > 0:
                        return INT, Uint64(value)
                break
    return STR, text


def explicit_tag(node: ScalarNode, text: str) -> str | None:
    """The tag written in the source before the scalar (``!!float 10``), if any."""
    index = node.start_mark.index
    if index >= len(text):
        return None
    if text[index] == "&":  # an anchor comes first: skip its name
        end = index
        while end < len(text) and not text[end].isspace():
            end += 1
        index = end
        while index < len(text) and text[index] in " \t":
            index += 1
    if index < len(text) and text[index] == "!":
        return str(node.tag)
    return None


def scalar_value(node: ScalarNode, text: str) -> Any:
    """A scalar as yaml.v2 decodes it into ``interface{}``; raise :class:`DecodeError`."""
    tag = explicit_tag(node, text)
    if tag is None:
        if node.style is not None:  # quoted or block: always a string
            return node.value
        return resolve_plain(node.value)[1]
    if tag == "!" or tag not in _RESOLVABLE and tag != NULL:
        return node.value  # custom or non-specific tag: yaml.v2 keeps the string
    if tag == NULL:
        return None
    rtag, value = (STR, node.value) if tag == STR else resolve_plain(node.value)
    if tag in (rtag, STR, _TAG + "timestamp"):
        return node.value if tag == STR else value
    if tag == FLOAT and rtag == INT:
        return float(value)
    short = tag.replace(_TAG, "!!")
    raise DecodeError(f"cannot decode {rtag.replace(_TAG, '!!')} `{node.value}` as a {short}", node)


@dataclass
class _Budget:
    remaining: int
    max_depth: int


OnDuplicate = Callable[[MappingNode, ScalarNode], None]


def decode(
    node: Node,
    text: str,
    *,
    limits: Limits = DEFAULT_LIMITS,
    on_duplicate: OnDuplicate | None = None,
) -> Any:
    """Decode a composed node as yaml.v2 decodes into ``interface{}``.

    Mappings become ``dict`` (duplicate keys: the last wins, as in yaml.v2;
    ``on_duplicate`` is told about each), merge keys (``<<``) are applied, sequences
    become ``list``. ``text`` is the source the node was composed from (for tags).
    """
    budget = _Budget(limits.max_nodes, limits.max_depth)
    return _decode(node, text, budget, 0, on_duplicate)


def _decode(node: Node, text: str, budget: _Budget, depth: int,
            on_duplicate: OnDuplicate | None) -> Any:
    budget.remaining -= 1
    if budget.remaining < 0:
        raise DecodeLimit("document expands to too many nodes (alias bomb?); not decoded", node)
    if depth > budget.max_depth:
        raise DecodeLimit(f"document nests deeper than {budget.max_depth} levels", node)
    if isinstance(node, ScalarNode):
        return scalar_value(node, text)
    if isinstance(node, SequenceNode):
        return [_decode(item, text, budget, depth + 1, on_duplicate) for item in node.value]
    result: dict[Any, Any] = {}
    seen: set[Any] = set()
    for key_node, value_node in node.value:
        key = _decode(key_node, text, budget, depth + 1, on_duplicate)
        value = _decode(value_node, text, budget, depth + 1, on_duplicate)
        if isinstance(key_node, ScalarNode) and key_node.style is None and key == "<<":
            _merge(result, value, value_node, seen)
            continue
        hashable = key if _hashable(key) else repr(key)
        if hashable in seen and on_duplicate is not None and isinstance(key_node, ScalarNode):
            on_duplicate(node, key_node)
        seen.add(hashable)
        result[hashable] = value
    return result


def _merge(result: dict[Any, Any], value: Any, node: Node, seen: set[Any]) -> None:
    """Apply a merge key as yaml.v2 does: merged keys overwrite what is there so far;
    a list of maps is merged right to left, so its first map wins."""
    sources = value if isinstance(value, list) else [value]
    for source in reversed(sources):
        if not isinstance(source, dict):
            raise DecodeError("map merge requires map or sequence of maps as the value", node)
        result.update(source)
        seen.update(source)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True
