"""Lists shown inside messages, bounded: a hostile file can repeat an entry 100,000
times, and a message must stay a line a person reads (and a report must stay small)."""

from __future__ import annotations

from collections.abc import Iterable

MOST_LISTED = 20
"""Items a message lists before it says how many more there are."""


def listed(items: Iterable[object], most: int = MOST_LISTED, separator: str = ", ") -> str:
    """``a, b, c`` for at most ``most`` items, then ``… and N more``."""
    shown: list[str] = []
    left = 0
    for item in items:
        if len(shown) < most:
            shown.append(str(item))
        else:
            left += 1
    text = separator.join(shown)
    return f"{text}{separator}… and {left:,} more" if left else text
