"""Garbage collection while policytest builds big trees."""

from __future__ import annotations

import gc

OLDEST_GENERATION_THRESHOLD = 1_000_000


def leave_oldest_generation() -> None:
    """Set the collector to young collections only (for good: a worker process that runs
    nothing else; :class:`young_collections_only` restores the thresholds)."""
    first, second, _ = gc.get_threshold()
    gc.set_threshold(first, second, OLDEST_GENERATION_THRESHOLD)


class young_collections_only:  # named as the function it replaces: `with young_collections_only():`
    """Leave the oldest generation alone for the duration, then restore the thresholds.

    A full collection walks every live object. Loading a 50,000-pod fixture builds half
    a million YAML nodes, decoded values and scores, none of them garbage, and the full
    collections their growth triggers took 5 of 12 seconds. Young collections still
    reclaim short-lived cycles. A class, not ``contextlib.contextmanager``: the hook
    would import contextlib for this alone.
    """

    def __enter__(self) -> None:
        self.thresholds = gc.get_threshold()
        leave_oldest_generation()

    def __exit__(self, *_: object) -> None:
        gc.set_threshold(*self.thresholds)
