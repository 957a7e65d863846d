"""Mapping positions inside an embedded string back to the file the user edits.

A ConfigMap holds the real config as a string. Findings about that config must point
at the outer file: inside a literal block (``|``) line for line with the block's
indentation added; inside a one-line quoted string (``kubectl -o json`` output)
character for character through the escapes; anywhere else at the string's start.
"""

from __future__ import annotations

from policytest.core.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class PositionMap(Protocol):
        """Maps a 0-based (line, column) in a parsed text to a 1-based outer :class:`Position`.

        The maps are frozen records (:mod:`policytest.core.records`): immutable, and cheap
        to define, which the hook pays for on every commit."""

        def map(self, line: int, column: int) -> Position: ...


@record(frozen=True, order=True)
class Position:
    """A 1-based line and column in a file."""

    line: int
    column: int


class Identity:
    """The parsed text is the file: 0-based to 1-based, nothing else."""

    __slots__ = ()

    def map(self, line: int, column: int) -> Position:
        return Position(line + 1, column + 1)


IDENTITY: PositionMap = Identity()


@record(frozen=True)
class Fixed:
    """Every inner position maps to one outer position (folded or multi-line strings)."""

    at: Position

    def map(self, line: int, column: int) -> Position:
        return self.at


@record(frozen=True)
class BlockLines:
    """A literal block: inner line ``i`` is outer line ``first_line + i``, shifted right."""

    first_line: int  # 0-based outer line of the block's first content line
    indent: int

    def map(self, line: int, column: int) -> Position:
        return Position(self.first_line + line + 1, self.indent + column + 1)


@record(frozen=True)
class CharTable:
    """A quoted one-line string: each inner character's outer column is tabulated.

    ``line_starts[i]`` is the inner offset where inner line ``i`` starts;
    ``columns[k]`` is the 0-based outer column of inner character ``k``.
    """

    outer_line: int
    line_starts: tuple[int, ...]
    columns: tuple[int, ...]

    def map(self, line: int, column: int) -> Position:
        index = min(len(self.line_starts) - 1, line)
        offset = self.line_starts[index] + column if index >= 0 else 0
        if not self.columns:
            return Position(self.outer_line + 1, 1)
        offset = max(0, min(offset, len(self.columns) - 1))
        return Position(self.outer_line + 1, self.columns[offset] + 1)


_SIMPLE_ESCAPES = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_HEX_LENGTH = {"x": 2, "u": 4, "U": 8}


def for_scalar(
    outer_text: str, style: str | None, line: int, column: int, index: int, value: str
) -> PositionMap:
    """The position map for a scalar whose start mark is (line, column, index)."""
    if style == "|":
        return _literal_block(outer_text, line, index)
    if style in ('"', "'"):
        table = _quoted_table(outer_text, style, line, index, value)
        if table is not None:
            return table
    return Fixed(Position(line + 1, column + 1))


def _literal_block(outer_text: str, line: int, index: int) -> PositionMap:
    header_end = outer_text.find("\n", index)
    header = outer_text[index : header_end if header_end >= 0 else None]
    first_line = line + 1
    lines = outer_text[header_end + 1 :].split("\n") if header_end >= 0 else []
    indicator = next((c for c in header.split("#")[0] if c.isdigit()), None)
    indent = 0
    for text in lines:
        if text.strip():
            indent = len(text) - len(text.lstrip(" "))
            break
    if indicator is not None:
        parent = len(outer_text[:index].rsplit("\n", 1)[-1]) - len(
            outer_text[:index].rsplit("\n", 1)[-1].lstrip(" ")
        )
        indent = parent + int(indicator)
    return BlockLines(first_line, indent)


def _quoted_table(
    outer_text: str, quote: str, line: int, index: int, value: str
) -> CharTable | None:
    """Tabulate outer columns of a quoted scalar written on one line (its start mark on
    0-based ``line``: counting the lines before it made 30,000 values of one ConfigMap
    quadratic), else ``None``."""
    line_start = outer_text.rfind("\n", 0, index) + 1
    columns: list[int] = []
    position = index + 1
    length = len(outer_text)
    while position < length:
        char = outer_text[position]
        if char == "\n":
            return None  # folded across lines: positions are not one-to-one
        if char == quote:
            if quote == "'" and outer_text.startswith("''", position):
                columns.append(position - line_start)
                position += 2
                continue
            break
        if quote == '"' and char == "\\":
            escape = outer_text[position + 1 : position + 2]
            width = 2 + _HEX_LENGTH.get(escape, 0)
            if escape not in _SIMPLE_ESCAPES and escape not in _HEX_LENGTH:
                return None
            columns.append(position - line_start)
            position += width
            continue
        columns.append(position - line_start)
        position += 1
    if len(columns) != len(value):
        return None  # surrogate pairs or other surprises: fall back to the start
    starts = [0]
    starts.extend(offset + 1 for offset, char in enumerate(value) if char == "\n")
    return CharTable(line, tuple(starts), tuple(columns))
