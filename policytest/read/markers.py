"""Which document marker ends the YAML document before a given place in a text.

A ``...`` line ends a document and a ``---`` line starts one; YAML needs neither between
two documents, but which one is there says what the author meant: after ``...`` with no
``---``, the text goes on as if it were the same document (a KubeSchedulerConfiguration
whose ``extenders`` follow a stray ``...``), while a ``---`` starts another manifest.
"""

from __future__ import annotations

import re

_END = r"\.\.\.[ \t]*(?:#.*)?"
_START = r"---(?:[ \t].*)?"
_SKIPPED = r"[ \t]*(?:#.*)?"
"""The lines the walk back meets, compiled (and cached by ``re``) when a text has a
second document: most have one."""


def end_marker_before(text: str, index: int) -> int | None:
    """The 0-based line of the ``...`` line that alone separates ``text[index:]`` from
    what comes before it (only blank and comment lines between), else ``None``."""
    lines = text[:index].split("\n")
    current = len(lines) - 1
    if lines[current].strip():
        return None  # the document starts mid-line: no marker line right before it
    for number in range(current - 1, -1, -1):
        line = lines[number]
        if re.fullmatch(_END, line):
            return number
        if re.fullmatch(_START, line) or not re.fullmatch(_SKIPPED, line):
            return None
    return None


def leading_end_marker(text: str) -> int | None:
    """The 0-based line of a ``...`` line before the text's first content (only blank
    and comment lines before it), else ``None``: the empty implicit document it ends is
    one YAML parsers refuse (after a ``---`` line it would be an empty document, which
    they accept)."""
    for number, line in enumerate(text.split("\n")):
        if re.fullmatch(_END, line):
            return number
        if not re.fullmatch(_SKIPPED, line):
            return None
    return None
