"""yaml.v2 typing: every scalar flavour the Volcano oracle pins, explicit tags, merges, limits."""

from __future__ import annotations

import io
import math
from typing import Any

import pytest
from ruamel.yaml import YAML

from policytest.core.limits import Limits
from policytest.read.goyaml import (
    Budget,
    DecodeError,
    DecodeLimit,
    Uint64,
    decode,
    go_type,
    resolve_plain,
    scalar_value,
)
from policytest.read.nodes import MappingNode, Node, ScalarNode
from policytest.read.source import adopted


def compose(text: str) -> Node:
    """The pure round-trip composer's tree (it marks folds in folded scalars), as we hold it."""
    return adopted(YAML(typ="rt", pure=True).compose(io.StringIO(text)))


def value_of(text: str) -> Any:
    """The decoded value of ``v`` in ``v: <text>``."""
    return decode(compose(f"v: {text}\n"), f"v: {text}\n")["v"]


# (YAML literal, Go type, value): the binpack_scalar group of the Volcano oracle, and more.
FLAVOURS = [
    ("10", "int", 10),
    ('"10"', "string", "10"),
    ("'10'", "string", "10"),
    ("1.5", "float64", 1.5),
    ("1.0", "float64", 1.0),
    ("1e3", "float64", 1000.0),
    ("1E3", "float64", 1000.0),
    ("1.0e+3", "float64", 1000.0),
    ("0o17", "int", 15),
    ("010", "int", 8),
    ("0x0A", "int", 10),
    ("0b101", "int", 5),
    ("-0b101", "int", -5),
    ("1_000", "int", 1000),
    ("+5", "int", 5),
    (".5", "float64", 0.5),
    ("y", "bool", True),
    ("n", "bool", False),
    ("yes", "bool", True),
    ("no", "bool", False),
    ("on", "bool", True),
    ("off", "bool", False),
    ("True", "bool", True),
    ("FALSE", "bool", False),
    ("~", "<nil>", None),
    ("", "<nil>", None),
    ("null", "<nil>", None),
    ("Null", "<nil>", None),
    ("-3", "int", -3),
    ("-0", "int", 0),
    ("9223372036854775807", "int", 2**63 - 1),
    ("9223372036854775808", "uint64", 2**63),
    ("0x8000000000000000", "uint64", 2**63),
    ("-9223372036854775808", "int", -(2**63)),
    ("-9223372036854775809", "float64", -9.223372036854776e18),
    ("99999999999999999999", "float64", 1e20),
    (".inf", "float64", math.inf),
    ("-.inf", "float64", -math.inf),
    ("+.Inf", "float64", math.inf),
    ("abc", "string", "abc"),
    ("2020-01-01", "string", "2020-01-01"),
    ("1:20", "string", "1:20"),
    ("!!str 10", "string", "10"),
    ("!!int 10", "int", 10),
    ('!!int "10"', "int", 10),
    ("!!float 10", "float64", 10.0),
    ("!!bool yes", "bool", True),
    ("!!null ~", "<nil>", None),
    ("!!timestamp 2020-01-01", "string", "2020-01-01"),
    ("!!binary aGVsbG8=", "string", "hello"),
    ("! 10", "string", "10"),
    ("!custom 10", "string", "10"),
    ("&a !!float 3", "float64", 3.0),
    ("!!float &a 3", "float64", 3.0),
    ("0x_0A", "int", 10),
    ("1__0", "int", 10),
    ("08", "float64", 8.0),
    ("0o8", "string", "0o8"),
    ("0x", "string", "0x"),
    ("1e400", "string", "1e400"),
    ("0xFFFFFFFFFFFFFFFFF", "string", "0xFFFFFFFFFFFFFFFFF"),
    ("<<", "string", "<<"),
    (".5_0", "string", ".5_0"),
    ("+inf", "string", "+inf"),
]


@pytest.mark.parametrize(
    ("literal", "go", "expected"), FLAVOURS, ids=[f[0] or "empty" for f in FLAVOURS]
)
def test_scalars_are_typed_as_yaml_v2_types_them(literal: str, go: str, expected: Any) -> None:
    value = value_of(literal)
    assert go_type(value) == go
    assert value == expected or (isinstance(value, float) and math.isnan(expected))


def test_nan_is_a_float() -> None:
    value = value_of(".nan")
    assert go_type(value) == "float64" and math.isnan(value)


def test_uint64_is_not_a_go_int() -> None:
    assert isinstance(value_of("18446744073709551615"), Uint64)
    assert go_type(value_of("18446744073709551616")) == "float64"


@pytest.mark.parametrize(
    "literal",
    ["!!int abc", "!!bool 1", "!!float abc", "!!timestamp abc", "!!null foo", "!!binary x"],
)
def test_an_explicit_tag_that_cannot_hold_the_value_fails_the_document(literal: str) -> None:
    with pytest.raises(DecodeError) as raised:
        value_of(literal)
    assert isinstance(raised.value.node, ScalarNode)


def test_float_tag_on_a_uint64_fails_like_yaml_v2() -> None:
    with pytest.raises(DecodeError, match="as a !!float"):
        value_of("!!float 9223372036854775808")


def test_resolve_plain_keeps_timestamps_as_text() -> None:
    assert resolve_plain("2020-1-2")[1] == "2020-1-2"
    assert resolve_plain("2020-13-02")[0].endswith(":str")


def test_folded_scalars_lose_ruamels_fold_markers() -> None:
    root = compose("v: >-\n  enqueue,\n  allocate\n")
    assert decode(root, "v: >-\n  enqueue,\n  allocate\n") == {"v": "enqueue, allocate"}


def test_merge_keys_apply_in_yaml_v2_order() -> None:
    text = (
        "a: &a {x: 1, w: 1}\nb: &b {x: 2, z: 2}\nc:\n  <<: [*a, *b]\n  w: 9\nd:\n  w: 0\n  <<: *a\n"
    )
    decoded = decode(compose(text), text)
    assert decoded["c"] == {"x": 1, "w": 9, "z": 2}
    assert decoded["d"] == {"x": 1, "w": 1}  # a later merge overwrites an earlier key


@pytest.mark.parametrize("text", ["a:\n  <<: 1\n", "a:\n  <<: [1]\n", "a:\n  <<: ~\n"])
def test_a_merge_of_something_else_than_maps_fails(text: str) -> None:
    with pytest.raises(DecodeError, match="map merge"):
        decode(compose(text), text)


def test_a_quoted_merge_key_is_an_ordinary_key() -> None:
    text = 'a:\n  "<<": {x: 1}\n'
    assert decode(compose(text), text) == {"a": {"<<": {"x": 1}}}


@pytest.mark.parametrize("text", ["? [1]\n: 2\n", "? {a: 1}\n: 2\n"])
def test_a_collection_as_key_fails_like_yaml_v2(text: str) -> None:
    with pytest.raises(DecodeError, match="invalid map key"):
        decode(compose(text), text)


def test_duplicates_are_reported_but_merged_keys_are_not() -> None:
    text = "a: &a {x: 1}\nb:\n  <<: *a\n  x: 2\n  w: 1\n  w: 3\n"
    seen: list[tuple[MappingNode, ScalarNode]] = []
    decoded = decode(compose(text), text, on_duplicate=lambda m, k: seen.append((m, k)))
    assert decoded["b"] == {"x": 2, "w": 3}
    assert [key.value for _, key in seen] == ["w"]
    assert seen[0][1].start_mark.line == 5


def test_an_alias_bomb_stops_at_the_node_budget() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 8)]
    text = "\n".join(lines) + "\n"
    with pytest.raises(DecodeLimit, match="too many nodes"):
        decode(compose(text), text, limits=Limits(max_nodes=5_000))


def test_a_shared_budget_bounds_several_walks() -> None:
    text = "a: [1, 2, 3]\n"
    root = compose(text)
    budget = Budget(remaining=6, max_depth=10)
    decode(root, text, budget=budget)
    with pytest.raises(DecodeLimit):
        decode(root, text, budget=budget)


def test_depth_is_bounded() -> None:
    text = "a: " + "[" * 30 + "]" * 30 + "\n"
    with pytest.raises(DecodeLimit, match="deeper"):
        decode(compose(text), text, limits=Limits(max_depth=10))


def test_y_and_n_keys_are_booleans_in_yaml_v2() -> None:
    assert decode(compose("y: 1\nn: 2\n"), "y: 1\nn: 2\n") == {True: 1, False: 2}


def test_scalar_value_of_a_key_node() -> None:
    root = compose("1: x\n")
    assert isinstance(root, MappingNode)
    key = root.value[0][0]
    assert scalar_value(key, "1: x\n") == 1
