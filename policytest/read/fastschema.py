"""A small exact JSON Schema check that answers "valid" without importing jsonschema.

Importing jsonschema costs about 100 ms, a third of a pre-commit hook's budget, and
almost every file a hook sees is valid. :func:`certainly_valid` evaluates the subset
of Draft 2020-12 that the bundled schemas use, with jsonschema's semantics (``integer``
accepts ``1.0``, booleans are not numbers, ``enum`` tells ``true`` from ``1``). Anything
it cannot decide exactly (an unknown keyword, a remote ``$ref``, an ``enum`` over
numbers or containers) makes it answer ``False``: the caller then asks jsonschema,
which also explains the errors. So ``True`` is always jsonschema's verdict.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sized

from policytest.core.errors import PolicytestError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = ["certainly_valid"]

# Keywords that never affect validity (annotations, and our own rule tags).
_ANNOTATIONS: Final = frozenset(
    {
        "$schema",
        "$id",
        "$defs",
        "$comment",
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "format",
        "else",
        "then",
    }
)


class _Undecided(PolicytestError):
    """The subset cannot decide this exactly; jsonschema must."""


Check = Callable[[object], bool]

_COMPILED: dict[int, tuple[Mapping[str, Any], Check | None]] = {}


def certainly_valid(schema: Mapping[str, Any], instance: object) -> bool:
    """True only when jsonschema's ``Draft202012Validator(schema)`` finds no error."""
    entry = _COMPILED.get(id(schema))
    if entry is None or entry[0] is not schema:
        try:
            check: Check | None = _Compiler(schema).compile(schema)
        except _Undecided:
            check = None
        entry = _COMPILED[id(schema)] = (schema, check)
    if entry[1] is None:
        return False
    try:
        return entry[1](instance)
    except (_Undecided, RecursionError):
        return False


class _Compiler:
    """Turns a schema into nested closures once, so validating is only calls."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.refs: dict[str, list[Check]] = {}

    def compile(self, schema: object) -> Check:
        if schema is True:
            return _always
        if schema is False:
            return _never
        if not isinstance(schema, Mapping):
            raise _Undecided
        checks = [
            self.keyword(keyword, argument, schema)
            for keyword, argument in schema.items()
            if keyword not in _ANNOTATIONS and not keyword.startswith("x-")
        ]
        if len(checks) == 1:
            return checks[0]
        return lambda instance: all(check(instance) for check in checks)

    def keyword(self, keyword: str, argument: Any, schema: Mapping[str, Any]) -> Check:
        if keyword == "type":
            return _type(argument)
        if keyword == "properties":
            return self.properties(argument)
        if keyword == "additionalProperties":
            if "patternProperties" in schema:
                raise _Undecided
            return self.additional(argument, frozenset(schema.get("properties", {})))
        if keyword == "items":
            if "prefixItems" in schema:
                raise _Undecided
            item = self.compile(argument)
            return lambda x: not isinstance(x, list) or all(item(i) for i in x)
        if keyword in ("allOf", "anyOf", "oneOf"):
            return _combined(keyword, [self.compile(sub) for sub in argument])
        if keyword == "not":
            negated = self.compile(argument)
            return lambda x: not negated(x)
        if keyword == "if":
            return _conditional(
                self.compile(argument),
                self.compile(schema.get("then", True)),
                self.compile(schema.get("else", True)),
            )
        if keyword == "$ref":
            return self.ref(argument)
        simple = _SIMPLE.get(keyword)
        if simple is None:
            raise _Undecided
        return simple(argument)

    def properties(self, argument: Mapping[str, Any]) -> Check:
        compiled = [(name, self.compile(sub)) for name, sub in argument.items()]

        def check(instance: object) -> bool:
            if instance.__class__ is not dict:
                return not isinstance(instance, dict) or _properties(compiled, instance)
            return _properties(compiled, instance)

        return check

    def additional(self, argument: object, known: frozenset[str]) -> Check:
        if argument is True:
            return _always
        extra = self.compile(argument)

        def check(instance: object) -> bool:
            if not isinstance(instance, dict):
                return True
            return all(extra(value) for key, value in instance.items() if key not in known)

        return check

    def ref(self, reference: object) -> Check:
        """A check that compiles its target when an instance first reaches it: a small
        config reaches a few of a big schema's definitions (validity depends only on the
        checks that run, so an undecidable definition nothing reaches changes nothing)."""
        if not isinstance(reference, str) or not reference.startswith("#"):
            raise _Undecided
        cell = self.refs.setdefault(reference, [])  # shared by every use: refs may recurse

        def check(instance: object) -> bool:
            if not cell:
                try:
                    cell.append(self.compile(self.target(reference)))
                except _Undecided:
                    cell.append(_undecided)  # compiled once, undecidable every time
            return cell[0](instance)

        return check

    def target(self, reference: str) -> object:
        target: Any = self.root
        for part in reference[1:].split("/")[1:]:
            key = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, Mapping) or key not in target:
                raise _Undecided
            target = target[key]
        return target


def _undecided(_instance: object) -> bool:
    raise _Undecided


def _always(_instance: object) -> bool:
    return True


def _never(_instance: object) -> bool:
    return False


def _properties(compiled: list[tuple[str, Check]], instance: dict[Any, Any]) -> bool:
    return all(check(instance[name]) for name, check in compiled if name in instance)


def _combined(keyword: str, checks: list[Check]) -> Check:
    if keyword == "allOf":
        return lambda x: all(check(x) for check in checks)
    if keyword == "anyOf":
        return lambda x: any(check(x) for check in checks)
    return lambda x: sum(1 for check in checks if check(x)) == 1


def _conditional(condition: Check, then: Check, otherwise: Check) -> Check:
    return lambda x: then(x) if condition(x) else otherwise(x)


def _type(argument: Any) -> Check:
    names = [str(name) for name in (argument if isinstance(argument, list) else [argument])]
    for name in names:
        if name not in _TYPES:
            raise _Undecided
    if len(names) == 1:
        return _TYPES[names[0]]
    tests = [_TYPES[name] for name in names]
    return lambda x: any(test(x) for test in tests)


def _is_number(x: object) -> bool:
    return not isinstance(x, bool) and isinstance(x, (int, float))


def _is_integer(x: object) -> bool:
    if isinstance(x, bool):
        return False
    return isinstance(x, int) or (isinstance(x, float) and x.is_integer())


_TYPES: Final[dict[str, Check]] = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
    "number": _is_number,
    "integer": _is_integer,
}


def _same(option: object, instance: object) -> bool:
    """jsonschema's ``equal`` for strings, null and booleans; undecided for the rest."""
    if isinstance(instance, str) or isinstance(option, str):
        return option == instance
    if option is None or instance is None:
        return option is instance
    if isinstance(option, bool) and isinstance(instance, bool):
        return option is instance
    raise _Undecided


def _enum(argument: Any) -> Check:
    return lambda x: any(_same(option, x) for option in argument)


def _const(argument: Any) -> Check:
    return lambda x: _same(argument, x)


def _bound(compare: Callable[[Any, Any], bool]) -> Callable[[Any], Check]:
    def build(bound: Any) -> Check:
        return lambda x: not _is_number(x) or compare(x, bound)

    return build


def _sized(kind: type[Sized], compare: Callable[[int, int], bool]) -> Callable[[Any], Check]:
    def build(bound: Any) -> Check:
        return lambda x: not isinstance(x, kind) or compare(len(x), bound)

    return build


def _pattern(argument: Any) -> Check:
    compiled = re.compile(argument)
    return lambda x: not isinstance(x, str) or compiled.search(x) is not None


def _required(argument: Any) -> Check:
    names = list(argument)
    return lambda x: not isinstance(x, dict) or all(name in x for name in names)


_SIMPLE: Final[dict[str, Callable[[Any], Check]]] = {
    "required": _required,
    "enum": _enum,
    "const": _const,
    # Written as jsonschema writes them ("error if below"), so NaN passes as it does there.
    "minimum": _bound(lambda value, bound: not value < bound),
    "maximum": _bound(lambda value, bound: not value > bound),
    "exclusiveMinimum": _bound(lambda value, bound: not value <= bound),
    "exclusiveMaximum": _bound(lambda value, bound: not value >= bound),
    "minItems": _sized(list, lambda size, bound: size >= bound),
    "maxItems": _sized(list, lambda size, bound: size <= bound),
    "minLength": _sized(str, lambda size, bound: size >= bound),
    "maxLength": _sized(str, lambda size, bound: size <= bound),
    "minProperties": _sized(dict, lambda size, bound: size >= bound),
    "maxProperties": _sized(dict, lambda size, bound: size <= bound),
    "pattern": _pattern,
}
