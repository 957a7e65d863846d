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
from collections.abc import Callable, Mapping
from functools import lru_cache
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


class _Undecided(Exception):
    """The subset cannot decide this exactly; jsonschema must."""


def certainly_valid(schema: Mapping[str, Any], instance: object) -> bool:
    """True only when jsonschema's ``Draft202012Validator(schema)`` finds no error."""
    try:
        return _valid(schema, instance, schema)
    except (_Undecided, RecursionError):
        return False


def _valid(schema: object, instance: object, root: Mapping[str, Any]) -> bool:
    if schema is True:
        return True
    if schema is False:
        return False
    if not isinstance(schema, Mapping):
        raise _Undecided
    for keyword, argument in schema.items():
        if keyword in _ANNOTATIONS or keyword.startswith("x-"):
            continue
        check = _KEYWORDS.get(keyword)
        if check is None:
            raise _Undecided
        if not check(argument, instance, schema, root):
            return False
    return True


def _type(argument: Any, instance: object, _schema: Any, _root: Any) -> bool:
    names = argument if isinstance(argument, list) else [argument]
    return any(_is_type(str(name), instance) for name in names)


def _is_type(name: str, instance: object) -> bool:
    if name == "object":
        return isinstance(instance, dict)
    if name == "array":
        return isinstance(instance, list)
    if name == "string":
        return isinstance(instance, str)
    if name == "boolean":
        return isinstance(instance, bool)
    if name == "null":
        return instance is None
    if isinstance(instance, bool):
        return False
    if name == "number":
        return isinstance(instance, (int, float))
    if name == "integer":
        return isinstance(instance, int) or (isinstance(instance, float) and instance.is_integer())
    raise _Undecided


def _properties(argument: Any, instance: object, _schema: Any, root: Any) -> bool:
    if not isinstance(instance, dict):
        return True
    return all(
        _valid(subschema, instance[name], root)
        for name, subschema in argument.items()
        if name in instance
    )


def _additional(argument: Any, instance: object, schema: Any, root: Any) -> bool:
    if not isinstance(instance, dict):
        return True
    if "patternProperties" in schema:
        raise _Undecided
    known = schema.get("properties", {})
    return all(_valid(argument, value, root) for key, value in instance.items() if key not in known)


def _required(argument: Any, instance: object, _schema: Any, _root: Any) -> bool:
    return not isinstance(instance, dict) or all(name in instance for name in argument)


def _items(argument: Any, instance: object, schema: Any, root: Any) -> bool:
    if "prefixItems" in schema:
        raise _Undecided
    return not isinstance(instance, list) or all(_valid(argument, item, root) for item in instance)


def _enum(argument: Any, instance: object, _schema: Any, _root: Any) -> bool:
    return any(_same(option, instance) for option in argument)


def _const(argument: Any, instance: object, _schema: Any, _root: Any) -> bool:
    return _same(argument, instance)


def _same(option: object, instance: object) -> bool:
    """jsonschema's ``equal`` for strings, null and booleans; undecided for the rest."""
    if isinstance(instance, str) or isinstance(option, str):
        return option == instance
    if option is None or instance is None:
        return option is instance
    if isinstance(option, bool) and isinstance(instance, bool):
        return option is instance
    raise _Undecided


def _bound(compare: Callable[[Any, Any], bool]) -> Callable[[Any, object, Any, Any], bool]:
    def check(argument: Any, instance: object, _schema: Any, _root: Any) -> bool:
        if isinstance(instance, bool) or not isinstance(instance, (int, float)):
            return True
        return compare(instance, argument)

    return check


def _min_items(argument: Any, instance: object, _schema: Any, _root: Any) -> bool:
    return not isinstance(instance, list) or len(instance) >= argument


def _max_items(argument: Any, instance: object, _schema: Any, _root: Any) -> bool:
    return not isinstance(instance, list) or len(instance) <= argument


def _min_length(argument: Any, instance: object, _schema: Any, _root: Any) -> bool:
    return not isinstance(instance, str) or len(instance) >= argument


def _max_length(argument: Any, instance: object, _schema: Any, _root: Any) -> bool:
    return not isinstance(instance, str) or len(instance) <= argument


def _pattern(argument: Any, instance: object, _schema: Any, _root: Any) -> bool:
    return not isinstance(instance, str) or _compiled(argument).search(instance) is not None


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _all_of(argument: Any, instance: object, _schema: Any, root: Any) -> bool:
    return all(_valid(subschema, instance, root) for subschema in argument)


def _any_of(argument: Any, instance: object, _schema: Any, root: Any) -> bool:
    return any(_valid(subschema, instance, root) for subschema in argument)


def _one_of(argument: Any, instance: object, _schema: Any, root: Any) -> bool:
    return sum(1 for subschema in argument if _valid(subschema, instance, root)) == 1


def _not(argument: Any, instance: object, _schema: Any, root: Any) -> bool:
    return not _valid(argument, instance, root)


def _if(argument: Any, instance: object, schema: Any, root: Any) -> bool:
    if _valid(argument, instance, root):
        return _valid(schema.get("then", True), instance, root)
    return _valid(schema.get("else", True), instance, root)


def _ref(argument: Any, instance: object, _schema: Any, root: Any) -> bool:
    if not isinstance(argument, str) or not argument.startswith("#"):
        raise _Undecided
    target: Any = root
    for part in argument[1:].split("/")[1:]:
        key = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(target, Mapping) or key not in target:
            raise _Undecided
        target = target[key]
    return _valid(target, instance, root)


_KEYWORDS: Final[dict[str, Callable[[Any, object, Any, Any], bool]]] = {
    "type": _type,
    "properties": _properties,
    "additionalProperties": _additional,
    "required": _required,
    "items": _items,
    "enum": _enum,
    "const": _const,
    # Written as jsonschema writes them ("error if below"), so NaN passes as it does there.
    "minimum": _bound(lambda value, bound: not value < bound),
    "maximum": _bound(lambda value, bound: not value > bound),
    "exclusiveMinimum": _bound(lambda value, bound: not value <= bound),
    "exclusiveMaximum": _bound(lambda value, bound: not value >= bound),
    "minItems": _min_items,
    "maxItems": _max_items,
    "minLength": _min_length,
    "maxLength": _max_length,
    "pattern": _pattern,
    "allOf": _all_of,
    "anyOf": _any_of,
    "oneOf": _one_of,
    "not": _not,
    "if": _if,
    "$ref": _ref,
}
