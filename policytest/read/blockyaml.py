"""A small reader for plain block YAML: the hook's one small config, without ruamel.yaml.

Scheduler configs, ConfigMaps and fixtures are written in a narrow part of YAML: block
mappings and sequences, one-line plain and quoted scalars, ``|`` and ``>`` blocks (a
ConfigMap's ``volcano-scheduler.conf: |``), comments, ``---`` between documents and
short one-line flow collections (``{cpu: "1", memory: 2Gi}``). Importing ruamel.yaml and
its libyaml extension costs a hook run more CPU than reading such a file, so
:func:`compose_all` reads that part itself, line by line, and builds exactly the tree
(values, styles, tags and every mark) that :func:`policytest.read.bigload.compose_all`
builds from libyaml's events. Anything outside that part, and every text that is not
YAML at all, it declines (``None``): the caller then composes with libyaml or ruamel.yaml,
which also word the errors. So it never gives an error of its own, and the boundary
errs on declining: tabs, ``\\r``, anchors, aliases, tags, directives, ``?`` keys,
backslashes in double quotes, scalars or flow collections spanning lines.
"""

from __future__ import annotations

import re
from itertools import accumulate

from policytest.core.errors import PolicytestError
from policytest.read.nodes import (
    MAP,
    PLAIN,
    SEQ,
    STR,
    MappingNode,
    Mark,
    ScalarNode,
    SequenceNode,
    next_token,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from policytest.read.nodes import Node

__all__ = ["compose_all"]

_NAME = "<unicode string>"
"""The name libyaml's marks carry for a text it was given as a string."""

_DEEPEST = 64
"""Declined beyond this nesting (the parser recurses a few frames per level; no config
nests this deep, and libyaml then judges the depth limit)."""
_LONGEST_KEY = 1000
"""libyaml refuses a simple key longer than 1024 characters; leave those to it."""

_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_FLOW_STOPS = r"[,\[\]{}:#?]"
"""What ends a plain scalar in a flow collection (libyaml 0.1: ``?`` too); compiled (and
cached by ``re``) for the first flow collection."""

_SKIP = -2
"""The level of a blank or comment-only line."""
_MARKER = -1
"""The level of a ``---`` or ``...`` line, and of the end of the text."""


class _Declined(PolicytestError):
    """The text is outside the subset read here (or not YAML at all)."""


def compose_all(text: str, max_depth: int, count: Callable[[], object]) -> list[Node] | None:
    """Every document of ``text`` as :func:`policytest.read.bigload.compose_all` composes
    it, or ``None`` when the text is outside the subset read here. ``count`` is called
    once per node, in the same order as there, and may raise to stop; nodes counted
    before a decline are the caller's to give back. A text nesting ``max_depth`` levels
    or more is declined (libyaml then says so)."""
    try:
        return _Reader(text, max_depth, count).documents()
    except _Declined:
        return None


class _Reader:
    """One text's lines with their levels (indentation, or :data:`_SKIP`/:data:`_MARKER`)
    and the recursive descent over them; every method returns the node it read and the
    index of the first line after it."""

    def __init__(self, text: str, max_depth: int, count: Callable[[], object]) -> None:
        self.text = text
        self.lines = lines = text.split("\n")
        self.starts = list(accumulate((len(line) + 1 for line in lines), initial=0))
        self.depth_limit = min(max_depth, _DEEPEST)
        self.count = count
        self.levels = [_classified(line) for line in lines]
        last = len(lines) - 1
        # libyaml ends the stream on a fresh line: one further if the text does not end in one
        self.stream_end = Mark(_NAME, len(text), last + (lines[last] != ""), 0)

    def documents(self) -> list[Node]:
        roots: list[Node] = []
        end = len(self.lines)
        j = self._next(0)
        while j < end:
            if self.levels[j] != _MARKER:  # the first document, without its ---
                root, j = self._block(j, self.levels[j], -1, 0)
            elif not self.lines[j].startswith("---"):
                raise _Declined  # ... with no document before it
            elif self.lines[j][_spaces(self.lines[j], 3) :][:1] not in ("", "#"):
                root, j = self._inline(j, _spaces(self.lines[j], 3), -1, 0)  # --- |
            else:
                k = self._next(j + 1)
                if k == end or self.levels[k] == _MARKER:
                    root, j = self._empty(self._token(k), 0), k
                    roots.append(root)
                    continue
                root, j = self._block(k, self.levels[k], -1, 0)
            roots.append(root)
            j = self._next(j)
            if j < end and self.levels[j] != _MARKER:
                raise _Declined  # more text after the root node
            if j < end and self.lines[j].startswith("..."):
                self._only_comment_after(self.lines[j], 3)
                j = self._next(j + 1)
                if j < end and not self.lines[j].startswith("---"):
                    raise _Declined
        return roots

    # --- positions -------------------------------------------------------------------

    def _next(self, j: int) -> int:
        """The first line from ``j`` on that is not blank or a comment."""
        levels = self.levels
        end = len(levels)
        while j < end and levels[j] == _SKIP:
            j += 1
        return j

    def _level_at(self, j: int) -> int:
        return self.levels[j] if j < len(self.levels) else _MARKER

    def _mark(self, i: int, column: int) -> Mark:
        return Mark(_NAME, self.starts[i] + column, i, column)

    def _token(self, j: int, column: int = 0) -> Mark:
        """Where the token on content line ``j`` starts, or past the text where the
        stream ends: libyaml ends a block collection at ``column`` there. At the end of a
        text without a final line break, a collection deeper than the last line's length
        ends on that line and the others on a fresh one, as libyaml's scanner unwinds its
        indentation levels at the stream's end."""
        if j < len(self.lines):
            return self._mark(j, max(self.levels[j], 0))
        last = len(self.lines) - 1
        if column > len(self.lines[last]):
            return self._mark(last, len(self.lines[last]))
        return self.stream_end

    def _counted(self, depth: int) -> None:
        self.count()
        if depth >= self.depth_limit:
            raise _Declined

    def _empty(self, mark: Mark, depth: int) -> ScalarNode:
        """An empty plain scalar (``key:`` and nothing), marked as bigload marks it."""
        self._counted(depth)
        at = next_token(mark, self.text)
        return ScalarNode(PLAIN, "", at, at, None)

    @staticmethod
    def _only_comment_after(line: str, k: int) -> None:
        """Decline unless ``line`` from ``k`` on is blank or a comment after a space (a
        ``#`` right after a token is part of the token for YAML)."""
        rest = line[k:].lstrip(" ")
        no_space_before = len(rest) == len(line) - k
        if rest and (rest[0] != "#" or no_space_before):
            raise _Declined

    # --- block structure ---------------------------------------------------------------

    def _block(self, i: int, column: int, parent: int, depth: int) -> tuple[Node, int]:
        """The node whose first character is at ``column`` of line ``i``, inside a block
        collection at column ``parent`` (-1: the document's root)."""
        line = self.lines[i]
        if _entry(line, column):
            return self._sequence(i, column, depth, indentless=False)
        if _colon(line, column) >= 0:
            return self._mapping(i, column, depth)
        return self._inline(i, column, parent, depth)

    def _value(
        self, i: int, after: int, column: int, depth: int, *, entry: bool
    ) -> tuple[Node, int]:
        """What follows an indicator ending at ``after`` on line ``i`` (a sequence
        ``entry``'s ``-``, else a key's ``:``) in a block collection at ``column``: on the
        same line, on the lines below, or nothing (an empty scalar)."""
        line = self.lines[i]
        k = _spaces(line, after)
        if k < len(line) and line[k] != "#":
            if entry:
                return self._block(i, k, column, depth)
            return self._inline(i, k, column, depth)
        j = self._next(i + 1)
        level = self._level_at(j)
        if level > column:
            return self._block(j, level, column, depth)
        if level == column and not entry and _entry(self.lines[j], column):
            return self._sequence(j, column, depth, indentless=True)
        return self._empty(self._mark(i, after), depth), i + 1

    def _mapping(self, i: int, column: int, depth: int) -> tuple[Node, int]:
        self._counted(depth)
        pairs: list[tuple[Node, Node]] = []
        start = self._mark(i, column)
        while True:
            line = self.lines[i]
            colon = _colon(line, column)
            if colon < 0 or colon - column > _LONGEST_KEY:
                raise _Declined
            key = self._key(i, column, colon, depth + 1)
            value, i = self._value(i, colon + 1, column, depth + 1, entry=False)
            pairs.append((key, value))
            j = self._next(i)
            level = self._level_at(j)
            if level != column:
                break
            i = j
        if level > column:
            raise _Declined
        return MappingNode(MAP, pairs, start, self._token(j, column), False), j

    def _sequence(self, i: int, column: int, depth: int, *, indentless: bool) -> tuple[Node, int]:
        """A block sequence whose ``-`` are at ``column``; ``indentless``: a mapping's
        value at the mapping's own column, which ends at the first line that is no entry."""
        self._counted(depth)
        items: list[Node] = []
        start = self._mark(i, column)
        while True:
            item, i = self._value(i, column + 1, column, depth + 1, entry=True)
            items.append(item)
            j = self._next(i)
            level = self._level_at(j)
            if level != column or not _entry(self.lines[j], column):
                break
            i = j
        if level > column or (level == column and not indentless):
            raise _Declined
        return SequenceNode(SEQ, items, start, self._token(j, column), False), j

    def _key(self, i: int, column: int, colon: int, depth: int) -> Node:
        """The key of the pair on line ``i`` (a plain or quoted scalar before ``colon``)."""
        line = self.lines[i]
        if line[column] in "'\"":
            node, end = self._quoted(i, column, depth)
            if line[end:colon].strip(" "):
                raise _Declined
            return node
        return self._plain(i, column, line[column:colon].rstrip(" "), depth)

    # --- scalars and flow collections on one line ----------------------------------------

    def _inline(self, i: int, column: int, parent: int, depth: int) -> tuple[Node, int]:
        """A node that is not a block collection, starting at ``column`` of line ``i``."""
        line = self.lines[i]
        first = line[column]
        if first in "|>":
            return self._block_scalar(i, column, parent, depth)
        if first in "'\"":
            node, end = self._quoted(i, column, depth)
        elif first in "[{":
            node, end = self._flow(i, column, depth)
        else:
            cut = line.find(" #", column)
            text = (line[column:cut] if cut >= 0 else line[column:]).rstrip(" ")
            if text.endswith(":") or ": " in text:
                raise _Declined  # a mapping where it is not allowed
            return self._plain(i, column, text, depth), i + 1
        self._only_comment_after(line, end)
        return node, i + 1

    def _plain(self, i: int, column: int, text: str, depth: int) -> Node:
        """A one-line plain scalar ``text`` at ``column`` of line ``i``."""
        first = text[:1]
        if not first or (first in _INDICATORS and (first != "-" or text[1:2] in ("", " "))):
            raise _Declined
        self._counted(depth)
        return ScalarNode(
            PLAIN, text, self._mark(i, column), self._mark(i, column + len(text)), None
        )

    def _quoted(self, i: int, column: int, depth: int) -> tuple[Node, int]:
        """A quoted scalar closed on its own line; double quotes without backslashes."""
        line = self.lines[i]
        quote = line[column]
        close = _closing(line, column)
        if close < 0 or (quote == '"' and "\\" in line[column:close]):
            raise _Declined
        value = line[column + 1 : close]
        if quote == "'":
            value = value.replace("''", "'")
        self._counted(depth)
        end = close + 1
        return ScalarNode(STR, value, self._mark(i, column), self._mark(i, end), quote), end

    def _flow(self, i: int, column: int, depth: int) -> tuple[Node, int]:
        """A flow sequence or mapping closed on its own line, of scalars and flow
        collections (no empty entries, no ``:`` or ``#`` in plain scalars)."""
        self._counted(depth)
        line = self.lines[i]
        mapping = line[column] == "{"
        close = "}" if mapping else "]"
        pairs: list[tuple[Node, Node]] = []
        items: list[Node] = []
        k = _spaces(line, column + 1)
        if line[k : k + 1] != close:
            while True:
                if mapping:
                    key_start = k
                    key, k = self._flow_item(i, k, depth + 1, key=True)
                    k = _spaces(line, k)
                    # libyaml finds no simple key over 1,024 characters from its start
                    if line[k : k + 2] != ": " or k - key_start > _LONGEST_KEY:
                        raise _Declined
                    item, k = self._flow_item(i, _spaces(line, k + 2), depth + 1)
                    pairs.append((key, item))
                else:
                    item, k = self._flow_item(i, k, depth + 1)
                    items.append(item)
                k = _spaces(line, k)
                if line[k : k + 1] != ",":
                    break
                k = _spaces(line, k + 1)
            if line[k : k + 1] != close:
                raise _Declined
        start, end = self._mark(i, column), self._mark(i, k + 1)
        if mapping:
            return MappingNode(MAP, pairs, start, end, True), k + 1
        return SequenceNode(SEQ, items, start, end, True), k + 1

    def _flow_item(self, i: int, k: int, depth: int, *, key: bool = False) -> tuple[Node, int]:
        line = self.lines[i]
        first = line[k : k + 1]
        if first in ("'", '"'):
            return self._quoted(i, k, depth)
        if first in ("[", "{") and not key:
            return self._flow(i, k, depth)
        stop = re.compile(_FLOW_STOPS).search(line, k)
        if stop is None or line[stop.start()] in "[{#?" or (line[stop.start()] == ":") != key:
            raise _Declined
        text = line[k : stop.start()].rstrip(" ")
        return self._plain(i, k, text, depth), k + len(text)

    def _block_scalar(self, i: int, column: int, parent: int, depth: int) -> tuple[Node, int]:
        """A ``|`` or ``>`` block scalar, read as libyaml's scanner reads it; ``parent``
        is the column of the block collection holding it (libyaml's indentation)."""
        line = self.lines[i]
        style = line[column]
        k = column + 1
        chomping = increment = None
        for _ in range(2):
            char = line[k : k + 1]
            if char in ("+", "-") and chomping is None:
                chomping = char
            elif char and char in "123456789" and increment is None:
                increment = int(char)
            else:
                break
            k += 1
        self._only_comment_after(line, k)
        self._counted(depth)
        lines, last = self.lines, len(self.lines) - 1
        if i == last:  # the header ends the text: an empty scalar ending there too
            end = self._mark(i, len(line))
            node = ScalarNode(STR, "", self._mark(i, column), end, style)
            return node, i + 1
        j = i + 1
        indent = 0 if increment is None else max(parent, 0) + increment
        if indent == 0:  # libyaml: the widest leading blank line or the first text's
            widest = 0
            while j < last and not lines[j].strip(" "):
                widest = max(widest, len(lines[j]))
                j += 1
            first = len(lines[j]) - len(lines[j].lstrip(" "))
            if widest > first and lines[j].strip(" "):
                raise _Declined  # libyaml would read an empty scalar and then stumble
            indent = max(widest, first, parent + 1, 1)
            j = i + 1
        parts: list[str] = []
        breaks = 0
        broke = more = False  # the last text line ended in a break / began with a space
        while True:
            while j < last and len(lines[j]) <= indent and not lines[j].strip(" "):
                breaks += 1
                j += 1
            text = lines[j]
            if len(text) <= indent or text[:indent].strip(" "):
                break  # a less indented line, or a last one without text: the end
            content = text[indent:]
            if style == ">" and broke and not more and content[0] != " ":
                parts.append("\n" * breaks if breaks else " ")
            else:
                parts.append("\n" * (broke + breaks))
            more = content[0] == " "
            parts.append(content)
            breaks = 0
            broke = j < last
            j += 1
            if not broke:
                break
        if chomping != "-":
            parts.append("\n" * broke)
        if chomping == "+":
            parts.append("\n" * breaks)
        end = self._mark(j, 0) if j <= last else self._mark(last, len(lines[last]))
        return ScalarNode(STR, "".join(parts), self._mark(i, column), end, style), j


def _classified(line: str) -> int:
    """A line's indentation, :data:`_SKIP` for a blank or comment line, :data:`_MARKER`
    for ``---`` or ``...``. Declines other lines that begin with either, and a line with
    a character Python does not call printable: tabs, ``\\r``, control characters, the
    line breaks YAML 1.1 adds (NEL, U+2028/2029), a BOM, surrogates, non-characters,
    and spaces other than the space (which libyaml accepts, rarely written)."""
    if not line.isprintable():
        raise _Declined
    text = line.lstrip(" ")
    if not text or text[0] == "#":
        return _SKIP
    if line[:3] in ("---", "...") and line[3:4] in ("", " "):
        return _MARKER
    if line[:3] in ("---", "..."):
        raise _Declined
    return len(line) - len(text)


def _entry(line: str, column: int) -> bool:
    """Is there a sequence entry's ``-`` at ``column`` of ``line``?"""
    return line[column : column + 1] == "-" and line[column + 1 : column + 2] in ("", " ")


def _colon(line: str, column: int) -> int:
    """Where the ``:`` of a block mapping's key that starts at ``column`` is, or -1."""
    if line[column] in "'\"":
        close = _closing(line, column)
        if close < 0:
            return -1
        k = _spaces(line, close + 1)
        return k if line[k : k + 1] == ":" and line[k + 1 : k + 2] in ("", " ") else -1
    if line[column] in "[{":
        return -1
    cut = line.find(" #", column)
    stop = cut if cut >= 0 else len(line)
    colon = line.find(":", column, stop)
    while colon >= 0:
        if line[colon + 1 : colon + 2] in ("", " "):
            return colon
        colon = line.find(":", colon + 1, stop)
    return -1


def _closing(line: str, column: int) -> int:
    """Where the quote opened at ``column`` closes on ``line`` (-1: not on this line);
    ``''`` is a quote inside single quotes, a backslash is not looked at."""
    quote = line[column]
    close = line.find(quote, column + 1)
    while quote == "'" and close >= 0 and line[close + 1 : close + 2] == "'":
        close = line.find("'", close + 2)
    return close


def _spaces(line: str, k: int) -> int:
    """The first column from ``k`` on that is not a space."""
    while line[k : k + 1] == " ":
        k += 1
    return k
