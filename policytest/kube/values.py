"""Typed reads of the decoded JSON value that never raise.

The schema has already checked the Go types when these run, but a reader that trusts
nothing keeps every odd input a finding instead of a traceback.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")


def mapping(value: Any) -> dict[str, Any]:
    """A JSON object, or ``{}`` (Go: a null or missing struct is its zero value)."""
    return value if isinstance(value, dict) else {}


def items(value: Any) -> list[Any]:
    """A JSON array, or ``[]``."""
    return value if isinstance(value, list) else []


def text(value: Any, default: str = "") -> str:
    """A JSON string, or ``default``."""
    return value if isinstance(value, str) else default


def integer(value: Any) -> int | None:
    """A JSON integer (not a boolean), or ``None``."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def number(value: Any) -> float | None:
    """A JSON number (not a boolean), or ``None``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def flag(value: Any, default: bool) -> bool:
    """A JSON boolean, or ``default``."""
    return value if isinstance(value, bool) else default


def repeats(things: Iterable[T], key: Callable[[T], Hashable]) -> Iterator[tuple[T, T]]:
    """Each thing whose key an earlier thing already had, with that first thing."""
    first: dict[Hashable, T] = {}
    for thing in things:
        seen = first.setdefault(key(thing), thing)
        if seen is not thing:
            yield thing, seen
