"""Composing libyaml's events ourselves gives the tree libyaml's own composer gives.

The reference is libyaml's composer (``CParser.get_node``) with the resolver the reader
used before it composed from events, its nodes copied into ours by ``source.adopted``
and given the pure composer's plain styles and empty-value marks, as the event composer
gives them: every tag, value, style, flow style and mark, and which nodes are shared,
must agree.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policytest.core.limits import DEFAULT_LIMITS, NodeCounter, TooDeep, TooManyNodes
from policytest.read import bigload
from policytest.read.nodes import MappingNode, Node, ScalarNode, next_token
from policytest.read.source import adopted
from tests.read.shapes import shape
from tests.read.test_bigload import _corpus_texts

pytestmark = pytest.mark.skipif(not bigload.available(), reason="ruamel.yaml.clib not installed")


def libyaml_composed(text: str) -> list[Node] | None:
    """libyaml's own composer, resolving as the reader did; ``None`` where it refuses."""
    from _ruamel_yaml import CParser
    from ruamel.yaml import nodes
    from ruamel.yaml.error import YAMLError

    class Composer(CParser):  # type: ignore[misc]
        def descend_resolver(self, *_: object) -> None:
            pass

        def ascend_resolver(self, *_: object) -> None:
            pass

        def resolve(self, kind: type, _value: str, implicit: tuple[bool, bool]) -> str:
            if kind is nodes.ScalarNode:
                return "policytest:plain" if implicit[0] else "tag:yaml.org,2002:str"
            if kind is nodes.SequenceNode:
                return "tag:yaml.org,2002:seq"
            return "tag:yaml.org,2002:map"

    parser = Composer(text)
    roots: list[Any] = []
    try:
        while parser.check_node():
            roots.append(parser.get_node())
    except YAMLError:
        return None
    finally:
        parser.dispose()
    return [_as_the_pure_composer_marks(adopted(root), text) for root in roots]


def _as_the_pure_composer_marks(root: Node, text: str) -> Node:
    """libyaml's composer gives a plain scalar the style ``""`` and marks an empty value
    right after its colon; the pure composer (and so the reader) ``None`` and the next
    token."""
    stack, seen = [root], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            if node.style == "":
                node.style = None
                if not node.value:
                    node.start_mark = node.end_mark = next_token(node.start_mark, text)
        elif isinstance(node, MappingNode):
            stack.extend(part for pair in node.value for part in pair)
        else:
            stack.extend(node.value)
    return root


def assert_same_tree(text: str) -> None:
    ours = bigload.compose_all(text, DEFAULT_LIMITS.max_depth, NodeCounter(10**6))
    if text.startswith("\ufeff"):
        assert ours is None  # libyaml drops the BOM, so its marks would be off by one
        return
    reference = libyaml_composed(text)
    if reference is None or ours is None:
        assert ours is None and reference is None, text
        return
    assert [shape(root) for root in ours] == [shape(root) for root in reference]


def test_corpus_composes_as_libyaml_does() -> None:
    for text in _corpus_texts():
        assert_same_tree(text)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("a: &x {cpu: 1}\nb: *x\nc: [*x, *x]\n", id="aliases-shared"),
        pytest.param("a: &x [*x]\n", id="alias-inside-its-anchor"),
        pytest.param("a: &x 1\nb: &x 2\n", id="repeated-anchor-refused"),
        pytest.param("a: *nowhere\n", id="undefined-alias-refused"),
        pytest.param("a: ! q\nb: !!str 5\nc: !custom {x: 1}\nd: ! [1]\n", id="tags"),
        pytest.param("a:\nb: # note\n\n  \nc: ''\n", id="empty-values"),
        pytest.param("--- &r\na: 1\n--- *r\n", id="anchor-per-document"),
        pytest.param("- |\n  text\n- >-\n  folded\n  lines\n- 'q'\n- \"d\\t\"\n", id="styles"),
        pytest.param("a: [1, {b: 2}]\nc: {d: [3]}\n", id="flow"),
        pytest.param("", id="empty"),
        pytest.param("---\n...\n---\n", id="empty-documents"),
        pytest.param("a: [1\n", id="broken"),
    ],
)
def test_edge_texts(text: str) -> None:
    assert_same_tree(text)


_WORDS = st.sampled_from(["a", "b", "cpu", "''", '"x"', "&p 1", "*p", "!!str 3", "~", "", "[1, 2]"])


@settings(max_examples=200)
@given(st.lists(st.tuples(st.integers(0, 3), _WORDS, st.booleans()), max_size=12))
def test_generated_texts_compose_as_libyaml_does(lines: list[tuple[int, str, bool]]) -> None:
    text = "".join(
        f"{'  ' * indent}{'- ' if item else f'k{number}: '}{word}\n"
        for number, (indent, word, item) in enumerate(lines)
    )
    assert_same_tree(text)


def test_nesting_past_the_limit_is_refused_before_it_is_built() -> None:
    with pytest.raises(TooDeep):
        bigload.compose_all("- " * 50 + "x\n", 10, NodeCounter(10**6))
    assert bigload.compose_all("- " * 9 + "x\n", 10, NodeCounter(10**6)) is not None


def test_every_node_is_counted_once_and_aliases_are_not() -> None:
    counter = NodeCounter(100)
    bigload.compose_all("a: &x {b: 1}\nc: *x\n", 10, counter)
    assert counter.left == 100 - 6  # root, a, {b: 1}, b, 1, c: six nodes; the alias none
    with pytest.raises(TooManyNodes):
        bigload.compose_all("a: [1, 2, 3]\n", 10, NodeCounter(3))
