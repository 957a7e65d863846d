"""Which document marker ends the YAML document before a given place in a text.

A ``...`` line ends a document and a ``---`` line starts one; YAML needs neither between
two documents, but which one is there says what the author meant: after ``...`` with no
``---``, the text goes on as if it were the same document (a KubeSchedulerConfiguration
whose ``extenders`` follow a stray ``...``), while a ``---`` starts another manifest.
"""

from __future__ import annotations

import re

_END = re.compile(r"\.\.\.[ \t]*(?:#.*)?")
_START = re.compile(r"---(?:[ \t].*)?")
_SKIPPED = re.compile(r"[ \t]*(?:#.*)?")


def end_marker_before(text: str, index: int) -> int | None:
    """The 0-based line of the ``...`` line that alone separates ``text[index:]`` from
    what comes before it (only blank and comment lines between), else ``None``."""
    lines = text[:index].split("\n")
    current = len(lines) - 1
    if lines[current].strip():
        return None  # the document starts mid-line: no marker line right before it
    for number in range(current - 1, -1, -1):
        line = lines[number]
        if _END.fullmatch(line):
            return number
        if _START.fullmatch(line) or not _SKIPPED.fullmatch(line):
            return None
    return None
