"""Resource limits for untrusted input: every reader and walker is bounded by these."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Upper bounds that keep hostile documents cheap to reject.

    ``max_nodes`` counts nodes as a walker visits them, so an alias bomb (a small
    document whose aliases expand exponentially) is stopped at the first walk.
    """

    max_file_bytes: int = 16 * 1024 * 1024
    max_documents: int = 10_000
    max_nodes: int = 1_000_000
    max_depth: int = 200


DEFAULT_LIMITS = Limits()
