"""Resource limits for untrusted input: every reader and walker is bounded by these.

Each limit has a short name for the command line (``--limit pods=500000``); the table
in ``docs/robustness.md`` lists them with their defaults and the error each one gives.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from policytest.core.errors import PolicytestError

SAFE_MAX_DEPTH = 300
"""The deepest nesting any walk may be asked to follow: the YAML composer and the walks
recurse a few Python frames per level, and Python stops (or, with its limit raised,
crashes) somewhere above 400 levels."""
SAFE_MAX_FILE_BYTES = 1 << 30
"""The most bytes ``--limit file-bytes`` may allow: a file is read into memory whole."""


def _limit(default: int, name: str, summary: str, maximum: int = sys.maxsize) -> int:
    return field(default=default, metadata={"name": name, "summary": summary, "maximum": maximum})


@dataclass(frozen=True)
class Limits:
    """Upper bounds that keep hostile documents cheap to reject.

    ``max_nodes`` counts nodes as the composer builds them (a big flat file is refused
    before its memory is spent: a node costs about 450 bytes) and as a walker visits
    them, so an alias bomb (a small document whose aliases expand exponentially) is
    stopped at the first walk;
    ``max_alias_nodes`` stops it far sooner by counting only the nodes a walk reaches
    again through an alias. The fixture limits bound what a fixture makes the scorers
    do: its nodes, its pods after ``count`` expansion (bound and incoming), and the
    node scores its cases compute (incoming pods times nodes, summed over the cases).
    """

    max_file_bytes: int = _limit(
        16 * 1024 * 1024, "file-bytes", "bytes read from one file", SAFE_MAX_FILE_BYTES
    )
    max_documents: int = _limit(10_000, "documents", "YAML documents in one file")
    max_nodes: int = _limit(
        600_000, "yaml-nodes", "YAML nodes composed from one file or visited by one walk"
    )
    max_alias_nodes: int = _limit(
        50_000, "alias-nodes", "YAML nodes one walk reaches again through aliases"
    )
    max_depth: int = _limit(200, "depth", "nesting depth of a document", SAFE_MAX_DEPTH)
    max_cluster_nodes: int = _limit(10_000, "cluster-nodes", "nodes in a fixture's cluster")
    max_pods: int = _limit(300_000, "pods", "pods in a fixture, after count expansion")
    max_node_scores: int = _limit(
        20_000_000, "node-scores", "node scores a fixture's cases compute (pods x nodes)"
    )

    def overridden(self, settings: Iterable[tuple[str, int]]) -> Limits:
        """A copy with the limits named by their short names (``pods``) changed."""
        by_name = {name: attribute for attribute, name, _ in describe()}
        return dataclasses.replace(self, **{by_name[name]: value for name, value in settings})


class TooManyNodes(PolicytestError):
    """Composing stopped: the file holds more YAML nodes than ``max_nodes``."""


class NodeCounter:
    """Called once per node as it is composed; raises :class:`TooManyNodes` past the limit."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.left = limit

    def __call__(self, *_: object) -> None:
        self.left -= 1
        if self.left < 0:
            raise TooManyNodes(self.limit)


def describe() -> Iterator[tuple[str, str, str]]:
    """``(attribute, short name, summary)`` of every limit, in declaration order."""
    for item in dataclasses.fields(Limits):
        yield item.name, item.metadata["name"], item.metadata["summary"]


def maximum(name: str) -> int:
    """The largest value the limit called ``name`` (``depth``) may be given."""
    by_name = {item.metadata["name"]: item for item in dataclasses.fields(Limits)}
    return int(by_name[name].metadata["maximum"])


def limit_names() -> tuple[str, ...]:
    """The short names ``--limit`` accepts."""
    return tuple(name for _, name, _ in describe())


DEFAULT_LIMITS = Limits()
