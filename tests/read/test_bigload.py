"""libyaml-composed trees have the pure composer's marks and decode exactly as its do."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policytest.core.limits import DEFAULT_LIMITS, NodeCounter
from policytest.read import bigload
from policytest.read.goyaml import DecodeError, decode
from policytest.read.nodes import MappingNode, Node, ScalarNode
from policytest.read.source import ParseFailure, compose_all

pytestmark = pytest.mark.skipif(not bigload.available(), reason="ruamel.yaml.clib not installed")

DATA = Path(__file__).parent.parent / "data"


def _same(a: Any, b: Any) -> bool:
    """Equal, with NaN equal to itself and types compared too (1 is not 1.0 or True)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _outcome(roots: list[Node], text: str, fast: bool) -> list[Any]:
    results = []
    for root in roots:
        try:
            if fast:
                results.append(bigload.decode(root, text, DEFAULT_LIMITS))
            else:
                results.append(decode(root, text, limits=DEFAULT_LIMITS))
        except DecodeError as error:
            results.append(("error", str(error), error.node.start_mark.index))
    return results


def _marks(node: Node) -> list[tuple[Any, ...]]:
    if isinstance(node, ScalarNode):
        start, end = node.start_mark, node.end_mark
        return [(start.line, start.column, start.index, end.index, node.style)]
    children = (
        [part for pair in node.value for part in pair]
        if isinstance(node, MappingNode)
        else node.value
    )
    return [(node.start_mark.line, node.start_mark.column, -1, None)] + [
        mark for child in children for mark in _marks(child)
    ]


def assert_equivalent(text: str) -> None:
    try:
        with mock.patch.object(bigload, "available", lambda: False):  # the pure composer
            pure = compose_all(text, DEFAULT_LIMITS)
    except ParseFailure:
        return
    counter = NodeCounter(DEFAULT_LIMITS.max_nodes)
    composed = bigload.compose_all(text, DEFAULT_LIMITS.max_depth, counter)
    if composed is None:
        return  # libyaml refused it: the reader uses the pure composer
    fast = [root for root in composed if root is not None]
    fast = [
        r for r in fast if not (isinstance(r, ScalarNode) and r.value == "" and r.style is None)
    ]
    assert [_marks(r) for r in fast] == [_marks(r) for r in pure]
    # Reference decoder on the pure tree == fast decoder on the libyaml tree (and on the pure one).
    expected = _outcome(pure, text, fast=False)
    assert _same(_outcome(fast, text, fast=True), expected)
    assert _same(_outcome(pure, text, fast=True), expected)


def _corpus_texts() -> list[str]:
    texts = []
    for name, key in (
        ("kube/validate_cases.jsonl.gz", "yaml"),
        ("volcano/conf_cases.jsonl.gz", "conf"),
    ):
        with gzip.open(DATA / name, "rt", encoding="utf-8") as handle:
            texts.extend(json.loads(line)[key] for line in handle)
    return texts


def test_corpus_decodes_identically() -> None:
    for text in _corpus_texts():
        assert_equivalent(text)


SCALARS = [
    "010",
    "08",
    "0o17",
    "0x1F",
    "1e3",
    "1E3",
    "-1e3",
    ".5",
    "1_000",
    "+12",
    "9223372036854775808",
    "18446744073709551616",
    "y",
    "n",
    "on",
    "off",
    "yes",
    "~",
    "null",
    ".inf",
    "-.inf",
    ".nan",
    "2024-01-02",
    "2024-13-02",
    "1.",
    "500m",
    "1Gi",
    "true",
    "True",
    "TRUE",
    "0b101",
    "-0b1",
    "'010'",
    '"1e3"',
    "!!str 10",
    "!!float 10",
    "! 10",
    "!!int abc",
    "''",
    "<<",
    "|\n  block\n",
    ">\n  folded\n  text\n",
    "&a 5",
    "*a",
    "ü",
    "nul\\l",
]


@pytest.mark.filterwarnings("ignore::ruamel.yaml.error.ReusedAnchorWarning")
@settings(max_examples=300)
@given(
    st.lists(
        st.tuples(st.sampled_from(["cpu", "memory", "x", "010", "1e3"]), st.sampled_from(SCALARS)),
        max_size=6,
    )
)
def test_generated_mappings_decode_identically(items: list[tuple[str, str]]) -> None:
    text = "".join(f"{key}: {value}\n" for key, value in items)
    assert_equivalent(text)
    assert_equivalent(
        "pods:\n" + "".join(f"- {{{key}: {value}}}\n" for key, value in items if "\n" not in value)
    )


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("a: &x {cpu: 1}\nb:\n  <<: *x\n  memory: 2\n", id="merge-key"),
        pytest.param("? [a]\n: 1\n", id="sequence-key"),
        pytest.param("a: 1\na: 2\n", id="duplicate-key"),
        pytest.param("--- \n---\na: 1\n...\n---\nb: 2\n", id="documents"),
        pytest.param("cpu: 010\nmemory: 1e3\n", id="quantities-yaml-v2"),
    ],
)
def test_edge_documents(text: str) -> None:
    assert_equivalent(text)


def test_quantities_mean_what_kubernetes_sees() -> None:
    (root,) = bigload.compose_all("cpu: 010\nmemory: 1e3\ngpu: '010'\n", 10, NodeCounter(100)) or []
    assert bigload.decode(root, "cpu: 010\nmemory: 1e3\ngpu: '010'\n", DEFAULT_LIMITS) == {
        "cpu": 8,
        "memory": 1000.0,
        "gpu": "010",
    }
