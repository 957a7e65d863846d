"""Volcano's ``util.PriorityQueue``: Go's ``container/heap`` over a live less function.

The comparison is made when an item moves, with the values of that moment: a key that
changes while its item sits in the heap (a queue's share, before v1.10, when allocate
pushed the queue back before allocating) leaves the heap as Go's would, so the port is
the sift-up and sift-down of ``container/heap`` itself, not ``heapq``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["PriorityQueue"]

T = TypeVar("T")


class PriorityQueue(Generic[T]):
    """``Push``, ``Pop``, ``Len``, ``Empty`` of ``util.PriorityQueue``."""

    __slots__ = ("items", "less")

    def __init__(self, less: Callable[[T, T], bool]) -> None:
        self.items: list[T] = []
        self.less = less

    def __len__(self) -> int:
        return len(self.items)

    def push(self, item: T) -> None:
        self.items.append(item)
        self._up(len(self.items) - 1)

    def pop(self) -> T:
        items = self.items
        last = len(items) - 1
        items[0], items[last] = items[last], items[0]
        self._down(0, last)
        return items.pop()

    def _up(self, j: int) -> None:
        items, less = self.items, self.less
        while True:
            i = (j - 1) // 2  # parent
            if i == j or j <= 0 or not less(items[j], items[i]):
                break
            items[i], items[j] = items[j], items[i]
            j = i

    def _down(self, i0: int, n: int) -> None:
        items, less = self.items, self.less
        i = i0
        while True:
            j1 = 2 * i + 1
            if j1 >= n or j1 < 0:
                break
            j = j1
            j2 = j1 + 1
            if j2 < n and less(items[j2], items[j1]):
                j = j2
            if not less(items[j], items[i]):
                break
            items[i], items[j] = items[j], items[i]
            i = j
