"""Reading fast: libyaml composes, a lean walk types the scalars.

ruamel.yaml's pure-Python composer reads about 30 KB/s of cluster dump; a fixture with
tens of thousands of pods would take minutes, and a tree of a thousand small configs
most of the hook's time. :func:`compose_all` composes the events of ruamel.yaml.clib's
``CParser`` (libyaml) into our node classes (:mod:`policytest.read.nodes`), with the
pure composer's marks, so positions and every consumer of
:class:`~policytest.read.source.Document` are the same whichever composed. Two
differences are evened out as the nodes are built: libyaml gives plain scalars the style
``""`` (the pure composer ``None``), and it marks an empty value (``key:`` and nothing)
right after the colon where the pure composer marks the next token. A third, that
libyaml cannot tell the non-specific tag ``!`` from no tag, is why :func:`decode` leaves
texts with a ``!`` to the reference.

:func:`decode` is :func:`policytest.read.goyaml.decode` for such trees, without re-reading
the source for every scalar: when the text holds no ``!`` at all (no tags anywhere),
a plain scalar's value depends on its text alone and is resolved once per distinct
text; merge keys, tags and non-scalar keys go to the reference decoder. It is exact
for trees from either composer.
"""

from __future__ import annotations

from functools import lru_cache

from policytest.core.errors import PolicytestError
from policytest.core.limits import Limits, NodeCounter, TooDeep
from policytest.read.goyaml import Budget, resolve_plain, scalar_text
from policytest.read.goyaml import decode as reference_decode
from policytest.read.nodes import (
    MAP,
    PLAIN,
    SEQ,
    STR,
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
    next_token,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["available", "compose_all", "decode"]


def available() -> bool:
    """Whether libyaml (ruamel.yaml.clib) can be used."""
    try:
        import _ruamel_yaml  # type: ignore[import-not-found,unused-ignore]  # noqa: F401
    except ImportError:
        return False
    return True


def compose_all(text: str, max_depth: int, count: NodeCounter) -> list[Node] | None:
    """Every document of ``text`` parsed by libyaml and composed here, as the pure composer
    composes it; ``None`` when libyaml refuses the text (the pure composer then says why,
    in its own words, or accepts what libyaml does not: the two differ at the edges).
    ``count`` is called for every node before it is built (aliases are not new nodes)
    and raises to stop composing; a document nesting deeper than ``max_depth`` raises
    :class:`TooDeep`. Composing from libyaml's events builds each node once, in our
    classes: libyaml's own composer would build ruamel.yaml's nodes (each with a tag
    object) only for them to be copied."""
    from _ruamel_yaml import CParser  # type: ignore[import-not-found,unused-ignore]
    from ruamel.yaml.error import YAMLError

    if text.startswith("\ufeff"):
        return None  # libyaml drops the BOM and every index would shift by one
    parser = CParser(text)
    composer = _EventComposer(parser, text, max_depth, count)
    roots: list[Node] = []
    try:
        parser.get_event()  # the stream's start
        while not isinstance(parser.peek_event(), composer.events.StreamEndEvent):
            parser.get_event()  # the document's start
            roots.append(composer.node(0))
            parser.get_event()  # the document's end
            composer.anchors.clear()
    except (YAMLError, _Refused):
        return None
    finally:
        parser.dispose()
    return roots


class _Refused(PolicytestError):
    """libyaml's composer would refuse this (an undefined or a repeated anchor)."""


class _EventComposer:
    """libyaml's composer, over its events: nodes, marks and tags as it gives them,
    styles and empty values' marks as the pure composer gives them."""

    def __init__(self, parser: Any, text: str, max_depth: int, count: NodeCounter) -> None:
        from ruamel.yaml import events

        self.events = events
        self.next_event = parser.get_event
        self.peek = parser.peek_event
        self.text = text
        self.max_depth = max_depth
        self.count = count
        self.anchors: dict[str, Node] = {}

    def node(self, depth: int) -> Node:
        events = self.events
        event = self.next_event()
        kind = event.__class__
        if kind is events.AliasEvent:
            found = self.anchors.get(event.anchor)
            if found is None:
                raise _Refused
            self.count.aliases += 1
            return found
        anchor = event.anchor
        if anchor is not None and anchor in self.anchors:
            raise _Refused  # before counting the node, as libyaml's composer refuses it
        self.count()
        if depth >= self.max_depth:
            raise TooDeep(self.max_depth)
        tag = event.tag
        sequence = kind is events.SequenceStartEvent
        if kind is events.ScalarEvent:
            style, start, end = event.style, event.start_mark, event.end_mark
            if not style:
                style = None
                if not event.value:
                    start = end = next_token(start, self.text)
            if tag is None or tag == "!":
                tag = PLAIN if event.implicit[0] else STR
            node: Node = ScalarNode(tag, event.value, start, end, style)
        else:
            if tag is None or tag == "!":
                tag = SEQ if sequence else MAP
            collection = SequenceNode if sequence else MappingNode
            node = collection(tag, [], event.start_mark, event.start_mark, event.flow_style)
        if anchor is not None:
            self.anchors[anchor] = node  # before its items: an alias among them names it
        if node.__class__ is ScalarNode:
            return node
        if sequence:
            while not isinstance(self.peek(), events.SequenceEndEvent):
                node.value.append(self.node(depth + 1))
        else:
            while not isinstance(self.peek(), events.MappingEndEvent):
                key = self.node(depth + 1)
                node.value.append((key, self.node(depth + 1)))
        node.end_mark = self.next_event().end_mark
        return node


class _Fallback(PolicytestError):
    """Something only the reference decoder handles (tags, merges, odd keys)."""


def decode(node: Node, text: str, limits: Limits) -> Any:
    """``goyaml.decode(node, text, limits=limits)`` for a libyaml-composed tree, faster."""
    if "!" in text:
        return reference_decode(node, text, limits=limits)
    budget = Budget.of(limits)
    try:
        return _decode(node, budget, 0)
    except _Fallback:
        return reference_decode(node, text, limits=limits)


def _decode(node: Node, budget: Budget, depth: int) -> Any:
    budget.spend(node, depth)
    if node.__class__ is ScalarNode:
        return _plain(node.value) if node.style is None else scalar_text(node)
    if node.__class__ is SequenceNode:
        return [_decode(item, budget, depth + 1) for item in node.value]
    if node.__class__ is not MappingNode:
        raise _Fallback
    result: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        if key_node.__class__ is not ScalarNode or (
            key_node.style is None and key_node.value == "<<"
        ):
            raise _Fallback
        key = _decode(key_node, budget, depth + 1)
        result[key] = _decode(value_node, budget, depth + 1)
    return result


@lru_cache(maxsize=1 << 14)
def _plain(text: str) -> Any:
    """An untagged plain scalar's value (cached: cluster dumps repeat a few texts)."""
    return resolve_plain(text)[1]
