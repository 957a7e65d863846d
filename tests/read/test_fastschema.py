"""``fastschema.certainly_valid`` says "valid" only when jsonschema agrees.

Checked on the validation corpora (real configs, many of them broken), the bundled
fixtures, and on random mutations of those documents.
"""

from __future__ import annotations

import copy
import gzip
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from policytest.core.limits import DEFAULT_LIMITS
from policytest.read.fastschema import certainly_valid
from policytest.read.goyaml import DecodeError, decode
from policytest.read.schema import schema_text
from policytest.read.source import ParseFailure, compose_all

DATA = Path(__file__).parent.parent / "data"
FIXTURES = Path(__file__).parent.parent.parent / "fixtures"


def _decoded(text: str) -> list[Any]:
    try:
        return [decode(root, text) for root in compose_all(text, DEFAULT_LIMITS)]
    except (ParseFailure, DecodeError):
        return []


def _corpus(name: str, key: str) -> list[Any]:
    with gzip.open(DATA / name, "rt", encoding="utf-8") as handle:
        return [doc for line in handle for doc in _decoded(json.loads(line)[key])]


SCHEMAS = ("kubescheduler-config-v1", "policytest-fixture", "volcano-scheduler-conf")


@cache
def _documents(schema_name: str) -> list[Any]:
    if schema_name == "kubescheduler-config-v1":
        return _corpus("kube/validate_cases.jsonl.gz", "yaml")
    if schema_name == "volcano-scheduler-conf":
        return _corpus("volcano/conf_cases.jsonl.gz", "conf")
    fixtures = sorted(FIXTURES.glob("*.policytest.yaml"))
    return [doc for path in fixtures for doc in _decoded(path.read_text())]


@cache
def _validator(schema_name: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads(schema_text(schema_name)))


def _agrees(schema_name: str, instance: Any) -> tuple[bool, bool]:
    validator = _validator(schema_name)
    return certainly_valid(validator.schema, instance), validator.is_valid(instance)


@pytest.mark.parametrize("schema_name", SCHEMAS)
def test_agrees_with_jsonschema_on_the_corpus(schema_name: str) -> None:
    documents = _documents(schema_name)
    assert documents
    verdicts = [_agrees(schema_name, doc) for doc in documents]
    assert all(real for quick, real in verdicts if quick)
    # It must also be useful: every valid document is recognised without jsonschema.
    assert all(quick for quick, real in verdicts if real)


_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 200),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", "cpu", "MostAllocated", "binpack", "enqueue, allocate", "1"]),
)


def _mutate(document: Any, data: st.DataObject) -> Any:
    """Replace or delete one value somewhere in the document."""
    mutated = copy.deepcopy(document)
    node = mutated
    while True:
        if isinstance(node, dict) and node:
            key = data.draw(st.sampled_from(sorted(node, key=str)))
        elif isinstance(node, list) and node:
            key = data.draw(st.integers(0, len(node) - 1))
        else:
            return mutated
        if data.draw(st.booleans()) and isinstance(node[key], (dict, list)):
            node = node[key]
            continue
        if isinstance(node, dict) and data.draw(st.booleans()):
            del node[key]
        else:
            node[key] = data.draw(_LEAVES)
        return mutated


@pytest.mark.parametrize("schema_name", SCHEMAS)
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_never_calls_an_invalid_mutation_valid(schema_name: str, data: st.DataObject) -> None:
    documents = [d for d in _documents(schema_name) if isinstance(d, dict)]
    document = _mutate(data.draw(st.sampled_from(documents)), data)
    quick, real = _agrees(schema_name, document)
    assert real or not quick


@pytest.mark.parametrize(
    ("schema", "instance", "expected"),
    [
        pytest.param({"type": "integer"}, 1.0, True, id="integer-accepts-whole-float"),
        pytest.param({"type": "integer"}, True, False, id="bool-is-not-integer"),
        pytest.param({"enum": [1]}, True, False, id="enum-over-numbers-undecided"),
        pytest.param({"minimum": 1}, float("nan"), True, id="nan-passes-bounds"),
        pytest.param({"patternProperties": {"a": {}}}, {}, False, id="unknown-keyword"),
        pytest.param({"$ref": "other.json"}, {}, False, id="remote-ref"),
        pytest.param({"if": {"type": "string"}, "then": {"minLength": 2}}, "a", False, id="if"),
    ],
)
def test_edges(schema: dict[str, Any], instance: Any, expected: bool) -> None:
    assert certainly_valid(schema, instance) is expected


LAZY = {
    "$defs": {
        "plain": {"type": "integer"},
        "odd": {"type": "string", "unknownKeyword": 3},  # outside the subset
        "tree": {"type": "object", "properties": {"child": {"$ref": "#/$defs/tree"}}},
    },
    "properties": {
        "count": {"$ref": "#/$defs/plain"},
        "name": {"$ref": "#/$defs/odd"},
        "tree": {"$ref": "#/$defs/tree"},
    },
}


@pytest.mark.parametrize(
    ("instance", "expected"),
    [
        pytest.param({"count": 3}, True, id="an-undecidable-definition-nothing-reaches"),
        pytest.param({"count": "3"}, False, id="a-reached-definition-fails"),
        pytest.param({"name": "x"}, False, id="the-undecidable-definition-reached"),
        pytest.param({"tree": {"child": {"child": {}}}}, True, id="a-recursive-definition"),
        pytest.param({"tree": {"child": {"child": 1}}}, False, id="deep-in-a-recursive-one"),
    ],
)
def test_definitions_are_compiled_when_an_instance_reaches_them(
    instance: Any, expected: bool
) -> None:
    """A ``$ref`` is compiled on first use: a definition outside the subset makes only the
    instances that reach it undecided ("not certainly valid"); the others are answered,
    and every ``True`` is jsonschema's verdict."""
    assert certainly_valid(copy.deepcopy(LAZY), instance) is expected
    if expected:
        assert Draft202012Validator(LAZY).is_valid(instance)
