"""Go's string functions where Python's differ: Volcano's behaviour depends on them.

``strings.TrimSpace`` trims Unicode White_Space (NBSP and U+3000 included) but not the
ASCII separators ``\\x1c``-``\\x1f`` that Python's ``str.strip()`` also removes, and not
U+200B. ``strconv.Atoi`` is base 10 with an optional sign, no underscores, int64 range.
"""

from __future__ import annotations

import re

GO_SPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_ATOI = re.compile(r"[+-]?[0-9]+")


def trim_space(text: str) -> str:
    """``strings.TrimSpace``."""
    start, end = 0, len(text)
    while start < end and text[start] in GO_SPACE:
        start += 1
    while end > start and text[end - 1] in GO_SPACE:
        end -= 1
    return text[start:end]


def split_trimmed(text: str) -> tuple[str, ...]:
    """The items of a comma-separated list as Volcano's plugins read one: split on commas
    (``strings.Split``), each item trimmed (``strings.TrimSpace``), empty items skipped."""
    return tuple(item for item in (trim_space(i) for i in text.split(",")) if item)


def leading_space(text: str) -> int:
    """How many characters ``strings.TrimSpace`` removes from the start of ``text``."""
    start = 0
    while start < len(text) and text[start] in GO_SPACE:
        start += 1
    return start


def atoi(text: str) -> int | None:
    """``strconv.Atoi``: the integer, or ``None`` where Go returns an error."""
    if not _ATOI.fullmatch(text):
        return None
    value = int(text)
    return value if _INT64_MIN <= value <= _INT64_MAX else None
