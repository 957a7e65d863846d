"""Garbage collection while policytest builds big trees."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

OLDEST_GENERATION_THRESHOLD = 1_000_000


@contextlib.contextmanager
def young_collections_only() -> Iterator[None]:
    """Leave the oldest generation alone for the duration, then restore the thresholds.

    A full collection walks every live object. Loading a 50,000-pod fixture builds half
    a million YAML nodes, decoded values and scores, none of them garbage, and the full
    collections their growth triggers took 5 of 12 seconds. Young collections still
    reclaim short-lived cycles.
    """
    first, second, third = gc.get_threshold()
    gc.set_threshold(first, second, OLDEST_GENERATION_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(first, second, third)
