"""Scalars and documents typed the way Go's ``gopkg.in/yaml.v2`` types them.

Both schedulers parse YAML with yaml.v2 (Volcano directly; kube-scheduler through
``sigs.k8s.io/yaml``), which disagrees with Python YAML libraries on many scalars:
``010`` is octal 8, ``08`` is the float 8.0, ``0o17`` and ``1_0`` are integers,
``y``/``n``/``on``/``off`` are booleans, integers beyond int64 become uint64. What the
scheduler sees is what counts, so policytest decodes composed nodes through here.

:func:`resolve` mirrors yaml.v2's ``resolve`` (v2.4.0) branch for branch, including the
explicit-tag checks that make yaml.v2 refuse a whole document (``!!int abc``).

Decoding walks the node graph with a node budget and a depth bound, so an alias bomb
or a pathologically deep document fails fast with :class:`DecodeLimit`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from policytest.core.errors import PolicytestError
from policytest.core.limits import DEFAULT_LIMITS, Limits
from policytest.core.records import field, record
from policytest.read.nodes import NULL, STR, MappingNode, Node, ScalarNode, SequenceNode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_TAG = "tag:yaml.org,2002:"
INT, FLOAT, BOOL, MERGE = _TAG + "int", _TAG + "float", _TAG + "bool", _TAG + "merge"
TIMESTAMP, BINARY = _TAG + "timestamp", _TAG + "binary"
_RESOLVABLE = {"", STR, INT, FLOAT, BOOL, NULL, TIMESTAMP}

_CONSTANTS: dict[str, tuple[str, Any]] = {}
for _words, _tag, _value in (
    ("y Y yes Yes YES true True TRUE on On ON", BOOL, True),
    ("n N no No NO false False FALSE off Off OFF", BOOL, False),
    ("~ null Null NULL", NULL, None),
    (".nan .NaN .NAN", FLOAT, math.nan),
    (".inf .Inf .INF +.inf +.Inf +.INF", FLOAT, math.inf),
    ("-.inf -.Inf -.INF", FLOAT, -math.inf),
):
    for _word in _words.split():
        _CONSTANTS[_word] = (_tag, _value)
_CONSTANTS[""] = (NULL, None)

# yaml.v2 only looks a scalar up (constants, numbers) when its first byte hints at one.
_HINTED = frozenset("yYnNtTfFoO~.+-0123456789")
_YAML_STYLE_FLOAT = r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?"
"""Compiled (and cached by ``re``) for the first number that is not an integer."""
_DOT_FLOAT = r"\.[0-9]+([eE][-+]?[0-9]+)?"  # compiled for the first ".5"-like scalar
_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1
_DIGITS = {2: "01", 8: "01234567", 10: "0123456789", 16: "0123456789abcdefABCDEF"}
_TIMESTAMP = (
    r"(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})"
    r"| (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d{1,9})?)?"
)
"""Compiled (and cached by ``re``) when a scalar is shaped like a date: rarely."""


class Uint64(int):
    """An integer yaml.v2 could only hold as ``uint64`` (beyond int64): not a Go ``int``."""


class DecodeError(PolicytestError, ValueError):
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


def short_tag(tag: str) -> str:
    """``!!int`` for ``tag:yaml.org,2002:int``, as yaml.v2 prints tags in its errors."""
    return "!!" + tag[len(_TAG) :] if tag.startswith(_TAG) else tag


def _parse_go_int(text: str, *, unsigned: bool) -> int | None:
    """``strconv.ParseInt``/``ParseUint`` with base 0 (0x, 0o, 0b and 0 prefixes)."""
    sign = 1
    body = text
    if not unsigned and body[:1] in ("+", "-"):
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    if not body or body[0] in "+-":
        return None
    base = 10
    lowered = body.lower()
    if len(body) >= 3 and lowered.startswith(("0x", "0o", "0b")):
        base = {"x": 16, "o": 8, "b": 2}[lowered[1]]
        body = body[2:]
    elif len(body) > 1 and body[0] == "0":
        base = 8
        body = body[1:]
    if not body or not all(c in _DIGITS[base] for c in body):
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


def _is_timestamp(text: str) -> bool:
    """yaml.v2's ``parseTimestamp``: the layouts it tries with ``time.Parse``, and a real date."""
    if len(text) < 8 or text[4] != "-":  # the shortest is 2001-1-1
        return False
    match = re.fullmatch(_TIMESTAMP, text)
    if match is None:
        return False
    import calendar  # only for a scalar shaped like a date

    year, month, day = (int(match.group(i)) for i in (1, 2, 3))
    if not 1 <= month <= 12 or not 1 <= day <= calendar.monthrange(year or 2000, month)[1]:
        return False
    clock = [int(g) for g in match.groups()[3:] if g is not None]
    return not clock or (clock[0] < 24 and clock[1] < 60 and clock[2] < 60)


def _resolve_number(text: str) -> tuple[str, Any] | None:
    """The numeric branch of yaml.v2's ``resolve`` (first byte a sign or a digit)."""
    plain = text.replace("_", "")
    integer = _parse_go_int(plain, unsigned=False)
    if integer is not None:
        return INT, integer
    unsigned = _parse_go_int(plain, unsigned=True)
    if unsigned is not None:
        return INT, Uint64(unsigned)
    if re.fullmatch(_YAML_STYLE_FLOAT, plain):
        number = _parse_go_float(plain)
        if number is not None:
            return FLOAT, number
    for prefix, sign in (("0b", 1), ("-0b", -1)):
        if plain.startswith(prefix):
            digits = plain[len(prefix) :]
            if digits and set(digits) <= {"0", "1"}:
                value = sign * int(digits, 2)
                if _INT64_MIN <= value <= _INT64_MAX:
                    return INT, value
                if value <= _UINT64_MAX and sign > 0:
                    return INT, Uint64(value)
            break
    return None


def resolve_plain(text: str) -> tuple[str, Any]:
    """The (tag, value) yaml.v2 gives a plain (unquoted, untagged) scalar.

    A timestamp-looking plain scalar resolves to ``!!timestamp`` with its text as the
    value: yaml.v2 hands such values to ``interface{}`` and string targets as text.
    """
    if not text:
        return NULL, None
    if text[0] not in _HINTED:
        return STR, text
    if text in _CONSTANTS:
        return _CONSTANTS[text]
    first = text[0]
    if first == ".":
        number = _parse_go_float(text) if re.fullmatch(_DOT_FLOAT, text) else None
        return (FLOAT, number) if number is not None else (STR, text)
    if first in "+-0123456789":
        if _is_timestamp(text):
            return TIMESTAMP, text
        resolved = _resolve_number(text)
        if resolved is not None:
            return resolved
    return STR, text


def resolve(tag: str, text: str, node: Node) -> tuple[str, Any]:
    """yaml.v2's ``resolve(tag, in)``: ``tag`` is ``""`` for a plain untagged scalar.

    Raise :class:`DecodeError` where yaml.v2 fails the whole document because an explicit
    tag cannot hold the value (``!!int abc``, ``!!bool 1``, ``!!timestamp x``).
    """
    if tag not in _RESOLVABLE:
        return tag, text
    if tag == STR:
        return STR, text
    rtag, value = resolve_plain(text)
    if rtag == TIMESTAMP and tag not in ("", TIMESTAMP):
        rtag, value = _resolve_number(text) or (STR, text)
    if tag in ("", rtag):
        return rtag, value
    if tag == FLOAT and rtag == INT and not isinstance(value, Uint64):
        return FLOAT, float(value)
    raise DecodeError(f"cannot decode {short_tag(rtag)} `{text}` as a {short_tag(tag)}", node)


def explicit_tag(node: ScalarNode, text: str) -> str | None:
    """The tag written in the source for the scalar (``!!float 10``), if any.

    ruamel.yaml resolves implicit tags itself (even for the non-specific ``!``), so the
    source decides: a tag token either starts the node, follows its anchor, or precedes
    the anchor on the same line.
    """
    token = _tag_token(node.start_mark.index, text)
    if token is None:
        return None
    return "!" if token == "!" else str(node.tag)


def _tag_token(index: int, text: str) -> str | None:
    if index >= len(text):
        return None
    start = index
    if text[start] == "&":  # an anchor comes first: a tag may follow it
        while start < len(text) and not text[start].isspace():
            start += 1
        while start < len(text) and text[start] in " \t":
            start += 1
    if start < len(text) and text[start] == "!":
        end = start
        while end < len(text) and not text[end].isspace():
            end += 1
        return text[start:end]
    before = index - 1
    while before >= 0 and text[before] in " \t":
        before -= 1
    start = before
    while start > 0 and text[start - 1] not in " \t\r\n[{,":
        start -= 1
    token = text[start : before + 1] if before >= 0 else ""
    if before < index - 1 and token.startswith("!") and not token.endswith(":"):
        return token
    return None


def scalar_text(node: ScalarNode) -> str:
    """The scalar's content. ruamel.yaml's round-trip composer marks the folds of a folded
    (``>``) scalar with BEL characters, which YAML never allows in content: drop them."""
    value = str(node.value)
    return value.replace("\a", "") if node.style == ">" else value


def resolve_scalar(node: ScalarNode, text: str) -> tuple[str, Any]:
    """The (tag, value) yaml.v2's decoder works with for a scalar: quoted and block
    scalars are ``!!str``; ``!!binary`` is base64-decoded; raise :class:`DecodeError`."""
    content = scalar_text(node)
    tag = explicit_tag(node, text)
    if tag is None:
        if node.style is not None:  # quoted or block: always a string
            return STR, content
        tag = ""
    rtag, value = resolve(tag, content, node)
    if rtag == BINARY:
        try:
            import base64  # only a !!binary scalar needs it (0.6 ms of a hook run)

            data = base64.b64decode(re.sub(r"[\r\n]", "", content), validate=True)
        except ValueError as exc:  # binascii.Error is one
            raise DecodeError("!!binary value contains invalid base64 data", node) from exc
        return BINARY, data.decode("utf-8", "replace")
    return rtag, value


def scalar_value(node: ScalarNode, text: str) -> Any:
    """A scalar as yaml.v2 decodes it into ``interface{}``; raise :class:`DecodeError`."""
    tag, value = resolve_scalar(node, text)
    return scalar_text(node) if tag == TIMESTAMP else value


def is_merge_key(node: Node, text: str) -> bool:
    """yaml.v2's ``isMerge``: a plain untagged ``<<`` key, or one tagged ``!!merge``."""
    if not isinstance(node, ScalarNode) or node.value != "<<":
        return False
    tag = explicit_tag(node, text)
    return tag == MERGE or (tag is None and node.style is None)


@record(eq=False)
class Budget:
    """How many more nodes a walk may visit, and how deep it may go (shared by walks).

    A walk reaches a collection node a second time only through an alias (or a merge
    key, which is an alias too): every such re-visit is charged, with its direct scalar
    children, to ``aliased``, a much smaller budget than ``remaining``, so an alias bomb
    fails after ``Limits.max_alias_nodes`` nodes, in milliseconds. Nested collections
    charge themselves when the walk gets to them, so the charge equals the nodes walked.
    """

    remaining: int
    max_depth: int
    aliased: int = DEFAULT_LIMITS.max_alias_nodes
    _collections: dict[int, Node] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, limits: Limits) -> Budget:
        return cls(limits.max_nodes, limits.max_depth, limits.max_alias_nodes)

    def spend(self, node: Node, depth: int) -> None:
        """Count one visited node; raise :class:`DecodeLimit` past the limits."""
        self.remaining -= 1
        if self.remaining < 0:
            raise DecodeLimit(_TOO_MANY_NODES, node)
        if depth > self.max_depth:
            raise DecodeLimit(_too_deep(self.max_depth), node)
        if node.__class__ is not ScalarNode:
            self._revisit(node)

    def _revisit(self, node: Node) -> None:
        key = id(node)
        if key not in self._collections:
            self._collections[key] = node  # held, so that its id is never reused
            return
        items = node.value if isinstance(node, SequenceNode) else _flat(node.value)
        self.aliased -= 1 + sum(1 for item in items if item.__class__ is ScalarNode)
        if self.aliased < 0:
            raise DecodeLimit(_TOO_MANY_ALIASED, node)


_TOO_MANY_NODES = "document expands to too many nodes (alias bomb?); not decoded"
_TOO_MANY_ALIASED = (
    "document reaches too many nodes through aliases (an alias bomb?); "
    "not decoded (raise the limit with --limit alias-nodes=N)"
)
_SELF_HOLDING = (
    "an alias refers to a node that holds it, so the document never ends "
    "(yaml.v2: anchor value contains itself); not decoded"
)


def _too_deep(max_depth: int) -> str:
    return f"document nests deeper than {max_depth} levels"


def _flat(pairs: list[tuple[Node, Node]]) -> list[Node]:
    return [item for pair in pairs for item in pair]


def charge_expansion(root: Node, limits: Limits) -> None:
    """Charge a composed document that holds aliases with everything a walk of it may
    reach (every key and value, aliases and merge keys followed), as a :class:`Budget`
    would charge that walk; raise :class:`DecodeLimit` past ``max_nodes``,
    ``max_alias_nodes`` or ``max_depth``.

    The reader calls this as it composes, so no later walk (decoding, recognising, the
    search for configs nested in a wrapper, merge keys, the checks) can reach more nodes,
    reach shared nodes more often, or nest deeper than the limits allow: a billion-laughs
    document is refused here, whoever would have walked it. It does not walk the
    expansion: it counts, over the distinct nodes in topological order, how many times a
    walk reaches each one (the paths from the root to it), so its cost is that of the
    composed graph, however far the aliases would reach."""
    order = _topological(root)
    reached = {id(root): 1}
    deepest = {id(root): 0}
    nodes_left, aliased_left = limits.max_nodes, limits.max_alias_nodes
    for node in order:
        paths, depth = reached[id(node)], deepest[id(node)]
        nodes_left -= paths
        if nodes_left < 0:
            raise DecodeLimit(_TOO_MANY_NODES, node)
        if depth > limits.max_depth:
            raise DecodeLimit(_too_deep(limits.max_depth), node)
        if node.__class__ is ScalarNode:
            continue
        items = node.value if node.__class__ is SequenceNode else _flat(node.value)
        if paths > 1:  # reached again through aliases: charged as Budget charges it
            scalars = sum(1 for item in items if item.__class__ is ScalarNode)
            aliased_left -= (paths - 1) * (1 + scalars)
            if aliased_left < 0:
                raise DecodeLimit(_TOO_MANY_ALIASED, node)
        for item in items:
            key = id(item)
            reached[key] = reached.get(key, 0) + paths
            if deepest.get(key, -1) <= depth:
                deepest[key] = depth + 1


def _topological(root: Node) -> list[Node]:
    """The distinct nodes under ``root``, each before every node it holds; raise
    :class:`DecodeLimit` for a node that holds itself (``&a [*a]``: yaml.v2 refuses it,
    "anchor value contains itself", and its expansion has no end)."""
    finished: list[Node] = []
    state: dict[int, bool] = {}  # False while a node's items are being visited
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            state[id(node)] = True
            finished.append(node)
            continue
        seen = state.get(id(node))
        if seen is False:
            raise DecodeLimit(_SELF_HOLDING, node)
        if seen:
            continue
        state[id(node)] = False
        stack.append((node, True))
        if node.__class__ is SequenceNode:
            stack.extend((item, False) for item in node.value if not state.get(id(item)))
        elif node.__class__ is MappingNode:
            stack.extend(
                (item, False) for pair in node.value for item in pair if not state.get(id(item))
            )
    finished.reverse()
    return finished


OnDuplicate = Callable[[MappingNode, ScalarNode], None]


def decode(
    node: Node,
    text: str,
    *,
    limits: Limits = DEFAULT_LIMITS,
    on_duplicate: OnDuplicate | None = None,
    budget: Budget | None = None,
    depth: int = 0,
) -> Any:
    """Decode a composed node as yaml.v2 decodes into ``interface{}``.

    Mappings become ``dict`` (duplicate keys: the last wins, as in yaml.v2;
    ``on_duplicate`` is told about each key written twice in one mapping), merge keys
    (``<<``) are applied in yaml.v2's order, sequences become ``list``. ``text`` is the
    source the node was composed from (for tags). Pass a shared ``budget`` (and the
    ``depth`` the node sits at) to bound several walks over one document together.
    """
    return _decode(node, text, budget or Budget.of(limits), depth, on_duplicate)


def _decode(
    node: Node, text: str, budget: Budget, depth: int, on_duplicate: OnDuplicate | None
) -> Any:
    budget.spend(node, depth)
    if isinstance(node, ScalarNode):
        return scalar_value(node, text)
    if isinstance(node, SequenceNode):
        return [_decode(item, text, budget, depth + 1, on_duplicate) for item in node.value]
    result: dict[Any, Any] = {}
    written: set[Any] = set()
    for key_node, value_node in node.value:
        if is_merge_key(key_node, text):
            _merge(result, _decode(value_node, text, budget, depth + 1, on_duplicate), value_node)
            continue
        key = _decode(key_node, text, budget, depth + 1, on_duplicate)
        if isinstance(key, (list, dict)):
            raise DecodeError(f"invalid map key: a {go_type(key)} cannot be a key", key_node)
        value = _decode(value_node, text, budget, depth + 1, on_duplicate)
        if key in written and on_duplicate is not None and isinstance(key_node, ScalarNode):
            assert isinstance(node, MappingNode)
            on_duplicate(node, key_node)
        written.add(key)
        result[key] = value
    return result


def _merge(result: dict[Any, Any], value: Any, node: Node) -> None:
    """Apply a merge key as yaml.v2 does: merged keys overwrite what is there so far;
    a list of maps is merged right to left, so its first map wins."""
    sources = value if isinstance(value, list) else [value]
    for source in reversed(sources):
        if not isinstance(source, dict):
            raise DecodeError("map merge requires map or sequence of maps as the value", node)
        result.update(source)
