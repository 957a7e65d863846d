"""The YAML node tree every check reads: the composer's graph, in classes of our own.

A composed document is a graph of scalar, sequence and mapping nodes with the marks of
where each starts and ends; nothing is constructed, so no tag instantiates anything.
The small-file reader (:mod:`policytest.read.blockyaml`) and the composer over libyaml's
events (:mod:`policytest.read.bigload`) build these nodes directly; ruamel.yaml's pure
composer builds its own, which ``source.adopted`` copies into these. So a hook run on one
small config never imports ruamel.yaml. Plain classes with ``__slots__``: defining them
costs microseconds, and the attributes are the ones ruamel.yaml's nodes have. A mark is
:class:`Mark` or the mark object libyaml or ruamel.yaml gave, which has the same
``name``, ``index``, ``line`` and ``column``.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PLAIN = "policytest:plain"
"""The tag our composers give an untagged plain scalar (and one tagged ``!``): the decoder
resolves it as yaml.v2 does. ruamel.yaml's pure composer resolves such scalars itself
(``...:int``, ``...:bool``); the decoder reads either."""
STR = "tag:yaml.org,2002:str"
"""A quoted or block scalar's tag (and ``!!str``'s)."""
SEQ = "tag:yaml.org,2002:seq"
MAP = "tag:yaml.org,2002:map"
NULL = "tag:yaml.org,2002:null"

__all__ = [
    "MAP",
    "NULL",
    "PLAIN",
    "SEQ",
    "STR",
    "MappingNode",
    "Mark",
    "Node",
    "ScalarNode",
    "SequenceNode",
    "line_column",
    "next_token",
]


class Mark:
    """A 0-based place in the composed text: character ``index``, ``line``, ``column``."""

    __slots__ = ("column", "index", "line", "name")

    def __init__(self, name: str, index: int, line: int, column: int) -> None:
        self.name = name
        self.index = index
        self.line = line
        self.column = column

    def __repr__(self) -> str:
        return f"Mark({self.name!r}, {self.index}, {self.line}, {self.column})"


class Node:
    """A node of the graph: its resolved ``tag``, its ``value`` and where it lies.

    ``value`` is the text of a scalar, the item nodes of a sequence, or the (key, value)
    node pairs of a mapping in source order, duplicates included. An alias is the very
    node its anchor names, shared.
    """

    __slots__ = ("end_mark", "start_mark", "tag", "value")

    def __init__(self, tag: str, value: Any, start_mark: Mark, end_mark: Mark) -> None:
        self.tag = tag
        self.value: Any = value
        self.start_mark = start_mark
        self.end_mark = end_mark

    def __repr__(self) -> str:
        """The node alone, never its items: a repr that recursed into them would walk
        every alias (a traceback's or a debugger's repr of an alias bomb never ends)."""
        mark = self.start_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}"
        if isinstance(self.value, str):
            return f"{type(self).__name__}(tag={self.tag!r}, value={self.value!r}, {where})"
        return f"{type(self).__name__}(tag={self.tag!r}, {len(self.value)} items, {where})"


class ScalarNode(Node):
    """A scalar: ``style`` is ``None`` for plain text, else ``'``, ``"``, ``|`` or ``>``."""

    __slots__ = ("style",)
    value: str

    def __init__(
        self, tag: str, value: str, start_mark: Mark, end_mark: Mark, style: str | None = None
    ) -> None:
        # assigned here, not through Node.__init__: a big fixture builds millions of these
        self.tag = tag
        self.value = value
        self.start_mark = start_mark
        self.end_mark = end_mark
        self.style = style


class CollectionNode(Node):
    """A sequence or mapping: ``flow_style`` tells ``[a, b]`` / ``{a: b}`` from block."""

    __slots__ = ("flow_style",)

    def __init__(
        self,
        tag: str,
        value: Any,
        start_mark: Mark,
        end_mark: Mark,
        flow_style: bool | None = None,
    ) -> None:
        super().__init__(tag, value, start_mark, end_mark)
        self.flow_style = flow_style


class SequenceNode(CollectionNode):
    """A sequence: ``value`` is the list of item nodes."""

    __slots__ = ()
    value: list[Node]


class MappingNode(CollectionNode):
    """A mapping: ``value`` is the list of (key node, value node) pairs."""

    __slots__ = ()
    value: list[tuple[Node, Node]]


_SKIPPED = r"(?:[ \t\r\n]|#[^\n]*)*"
"""Compiled (and cached by ``re``) for the first empty value."""


def line_column(text: str, index: int) -> tuple[int, int]:
    """The 0-based line and column of character ``index`` of ``text``."""
    return text.count("\n", 0, index), index - (text.rfind("\n", 0, index) + 1)


def next_token(mark: Any, text: str) -> Mark:
    """Where an empty value (``key:`` and nothing) is marked: at the next token, as the
    pure composer marks it (libyaml marks it where the value would have started, right
    after the colon, at ``mark``)."""
    end = re.compile(_SKIPPED).match(text, mark.index)
    index = end.end() if end is not None else mark.index
    line = mark.line + text.count("\n", mark.index, index)
    column = (
        index - (text.rfind("\n", 0, index) + 1)
        if line != mark.line
        else mark.column + (index - mark.index)
    )
    return Mark(mark.name, index, line, column)
