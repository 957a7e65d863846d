"""JSON Schema checks that speak in findings, not in schema dumps.

The bundled schemas (``schemas/*.schema.json``, Draft 2020-12) state the structure of
each document kind. A subschema may carry ``x-policytest-rule`` naming the rule its
violations belong to; the nearest one on the failing path wins. Errors are reported
at the offending key (unknown keys) or value (wrong type, out of range).
"""

from __future__ import annotations

import importlib
import json
import os
import re
from collections.abc import Iterator, Sequence
from functools import cache

from policytest.core.findings import Finding, Severity
from policytest.core.rules import get_rule, rule
from policytest.core.suggest import did_you_mean
from policytest.read.fastschema import certainly_valid
from policytest.read.goyaml import DecodeError, scalar_value
from policytest.read.nodes import MappingNode, Node, ScalarNode, SequenceNode
from policytest.read.source import Document

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jsonschema import ValidationError

RULE_KEY = "x-policytest-rule"

PT002_SCHEMA_VIOLATION = rule(
    "PT002",
    Severity.ERROR,
    "document does not match its schema",
    """
    The document has the wrong structure for its kind: a key of the wrong type, a
    value out of range, or a required key missing. The message names the key and
    what is expected there.

    Failing (a fixture whose node has no name)::

        cluster:
          nodes:
          - allocatable: {cpu: "8"}

    Passing::

        cluster:
          nodes:
          - name: node-a
            allocatable: {cpu: "8"}
    """,
)


def schema_names() -> list[str]:
    """Names of the bundled schemas (``policytest schema NAME``)."""
    from importlib import resources

    files = resources.files("policytest.schemas")
    return sorted(
        entry.name.removesuffix(".schema.json")
        for entry in files.iterdir()
        if entry.name.endswith(".schema.json")
    )


def schema_text(name: str) -> str:
    """The bundled schema file ``NAME.schema.json`` as text; ``KeyError`` if unknown.
    Read through the package's loader, as ``pkgutil.get_data`` reads it: the hook reads a
    schema on every commit, and importing ``importlib.resources`` would cost more than the
    rest of the read (``pkgutil`` imports ``typing``, about 3 ms)."""
    if not name or not set(name) <= _SCHEMA_NAME:
        raise KeyError(name)
    package = importlib.import_module("policytest.schemas")
    get_data = getattr(package.__loader__, "get_data", None)
    if package.__file__ is None or get_data is None:
        raise KeyError(name)
    try:
        data: bytes = get_data(
            os.path.join(os.path.dirname(package.__file__), f"{name}.schema.json")
        )
    except OSError:
        raise KeyError(name) from None
    return data.decode("utf-8")


_SCHEMA_NAME = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
"""The characters of a bundled schema's name: no path separators, so ``NAME`` cannot
leave the package."""


@cache
def _schema(name: str) -> Any:
    return json.loads(schema_text(name))


@cache
def _validator(name: str) -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(_schema(name))


def schema_findings(document: Document, schema_name: str, value: Any) -> list[Finding]:
    """Validate a decoded document against a bundled schema; one finding per problem.

    A valid document is recognised without importing jsonschema (see ``fastschema``).
    """
    if certainly_valid(_schema(schema_name), value):
        return []
    return _findings(document, _validator(schema_name), value)


@cache
def snapshot_schema() -> dict[str, Any]:
    """A compact snapshot (``kind: ClusterSnapshot``): its nodes are fixture nodes, so
    they are checked by the fixture schema's node definition, with the same messages."""
    nodes = {"type": "array", "items": {"$ref": "#/$defs/node"}}
    fixture = _schema("policytest-fixture")
    return {"$defs": fixture["$defs"], "type": "object", "properties": {"nodes": nodes}}


def snapshot_findings(document: Document, value: Any) -> list[Finding]:
    """:func:`schema_findings` for a compact snapshot file's nodes."""
    if certainly_valid(snapshot_schema(), value):
        return []
    from jsonschema import Draft202012Validator

    return _findings(document, Draft202012Validator(snapshot_schema()), value)


def _findings(document: Document, validator: Any, value: Any) -> list[Finding]:
    findings: list[Finding] = []
    for error in validator.iter_errors(value):
        rule_id = _rule_for(validator.schema, error.schema_path) or PT002_SCHEMA_VIOLATION.id
        findings.extend(_findings_for(document, rule_id, error))
    return sorted(set(findings))


def schema_error_paths(schema_name: str, value: Any) -> list[tuple[Any, ...]]:
    """Where in ``value`` the bundled schema finds a problem (empty when valid)."""
    if certainly_valid(_schema(schema_name), value):
        return []
    return [tuple(error.absolute_path) for error in _validator(schema_name).iter_errors(value)]


def _rule_for(schema: Any, schema_path: Sequence[Any]) -> str | None:
    """The nearest ``x-policytest-rule`` along the failing schema path (local $refs followed)."""
    found = schema.get(RULE_KEY) if isinstance(schema, dict) else None
    current = schema
    for step in schema_path:
        if isinstance(current, dict) and "$ref" in current and step not in current:
            current = _resolve_ref(schema, current["$ref"])
            found = current.get(RULE_KEY, found) if isinstance(current, dict) else found
        try:
            current = current[step]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(current, dict) and RULE_KEY in current:
            found = current[RULE_KEY]
    return str(found) if found else None


def _resolve_ref(root: Any, ref: str) -> Any:
    node = root
    for part in ref.removeprefix("#/").split("/"):
        if part and isinstance(node, dict):
            node = node.get(part.replace("~1", "/").replace("~0", "~"), {})
    return node


def _findings_for(document: Document, rule_id: str, error: ValidationError) -> Iterator[Finding]:
    declared = get_rule(rule_id) or PT002_SCHEMA_VIOLATION
    error = _deepest(error)
    where = _describe(error.absolute_path)
    key_node, value_node = locate(document, error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = sorted(error.schema.get("properties", {}))
        for extra in _extra_keys(error):
            extra_key, _ = locate(document, [*error.absolute_path, extra])
            message = f"unknown key `{extra}`{_in(where)}{did_you_mean(str(extra), allowed)}"
            yield declared.at(document, extra_key or value_node or document.root, message)
        return
    expectation = _expectation(error)
    named = expectation.startswith(f"`{where}` ")  # a top-level key: already named
    message = f"{expectation}{'' if named else _in(where)}"
    yield declared.at(document, value_node or key_node or document.root, message)


def _extra_keys(error: ValidationError) -> list[Any]:
    properties = error.schema.get("properties", {})
    patterns = error.schema.get("patternProperties", {})
    return [
        key
        for key in error.instance
        if key not in properties and not any(re.search(p, str(key)) for p in patterns)
    ]


def _in(where: str) -> str:
    return f" in `{where}`" if where else ""


def _describe(path: Sequence[Any]) -> str:
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else str(step))
    return text


_TYPE_NAMES = {
    "boolean": "a boolean (true or false, unquoted)",
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "object": "a mapping",
    "array": "a list",
    "null": "null",
}


def _expectation(error: ValidationError) -> str:
    """A one-line statement of what is wrong, in the user's terms."""
    kind = error.validator
    expected = error.validator_value
    got = _shown(error.instance)
    key = _describe(error.absolute_path).rsplit(".", 1)[-1] or "document"
    if kind == "type":
        names = expected if isinstance(expected, list) else [expected]
        wanted = " or ".join(_TYPE_NAMES.get(str(n), str(n)) for n in names)
        return f"`{key}` must be {wanted}, not {got}"
    if kind == "required":
        missing = [name for name in expected if name not in (error.instance or {})]
        return f"required key `{missing[0] if missing else expected}` is missing"
    if kind in ("enum", "const"):
        options = expected if kind == "enum" else [expected]
        shown = ", ".join(json.dumps(o) for o in options)
        hint = did_you_mean(str(error.instance), [str(o) for o in options])
        return f"`{key}` must be one of {shown}, not {got}{hint}"
    bounds = {
        "minimum": "at least",
        "maximum": "at most",
        "exclusiveMinimum": "greater than",
        "exclusiveMaximum": "less than",
    }
    if kind in bounds:
        return f"`{key}` must be {bounds[kind]} {expected}, not {got}"
    if kind in ("minItems", "minLength"):
        return (
            f"`{key}` must not be empty"
            if expected == 1
            else f"`{key}` needs at least {expected} items"
        )
    if kind in ("maxItems", "maxLength"):
        return f"`{key}` allows at most {expected} items"
    if kind == "pattern":
        return f"`{key}` must match {expected}, not {got}"
    return str(error.message)


def _deepest(error: ValidationError) -> ValidationError:
    """Of a ``oneOf``/``anyOf`` that no branch satisfies, the error that went deepest into
    the document (``count: 0`` inside a pod, not the list of pods): it says and points at
    what to fix."""
    while error.validator in ("oneOf", "anyOf") and error.context:
        error = min(error.context, key=lambda e: len(e.absolute_path) * -1)
    return error


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return f'the string "{value}"' if len(value) < 60 else "a long string"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if value is None:
        return "null"
    if isinstance(value, (dict, list)):
        return "a mapping" if isinstance(value, dict) else "a list"
    return str(value)


def locate(document: Document, path: Sequence[Any]) -> tuple[Node | None, Node | None]:
    """The key node and value node at a decoded path (last duplicate wins, like yaml.v2)."""
    key_node: Node | None = None
    node: Node | None = document.root
    for step in path:
        if isinstance(node, MappingNode):
            found = None
            for candidate_key, candidate_value in node.value:
                if _key_matches(candidate_key, step, document.text):
                    found = (candidate_key, candidate_value)
            if found is None:
                return key_node, node
            key_node, node = found
        elif isinstance(node, SequenceNode) and isinstance(step, int) and step < len(node.value):
            key_node, node = None, node.value[step]
        else:
            return key_node, node
    return key_node, node


def _key_matches(key_node: Node, step: Any, text: str) -> bool:
    if not isinstance(key_node, ScalarNode):
        return False
    try:
        return bool(scalar_value(key_node, text) == step)
    except DecodeError:
        return bool(key_node.value == step)
