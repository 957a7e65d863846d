"""Every problem of a fixture in one pass, also when the schema refuses part of it.

A fixture whose node lacks its ``name`` is refused by the schema; without more, the
author would fix that, run ``validate`` again and only then hear of the duplicate
case, then of the unknown node. Here the items the schema refuses (a node, a case, or
``metadata``) are left out and the rest is checked as usual, when what is left is
itself valid: every problem is reported at once, and nothing is ever run from it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from policytest.schema import schema_error_paths

FIXTURE_SCHEMA = "policytest-fixture"


def salvageable(value: object) -> tuple[frozenset[int], frozenset[int]] | None:
    """The node and case indices to leave out so that the rest of the fixture is valid,
    or ``None`` when a problem lies elsewhere (its scheduler, its shape)."""
    if not isinstance(value, Mapping):
        return None
    nodes: set[int] = set()
    cases: set[int] = set()
    for path in schema_error_paths(FIXTURE_SCHEMA, value):
        if path[:1] == ("metadata",):
            continue
        if len(path) >= 3 and path[:2] == ("cluster", "nodes") and isinstance(path[2], int):
            nodes.add(path[2])
        elif len(path) >= 2 and path[0] == "cases" and isinstance(path[1], int):
            cases.add(path[1])
        else:
            return None
    reduced = _without(value, nodes, cases)
    if reduced is None or schema_error_paths(FIXTURE_SCHEMA, reduced):
        return None
    return frozenset(nodes), frozenset(cases)


def _without(value: Mapping[str, Any], nodes: set[int], cases: set[int]) -> object:
    """``value`` without those nodes and cases, and with a plain ``metadata``."""
    cluster = value.get("cluster")
    if not isinstance(cluster, Mapping):
        return None
    reduced = dict(value)
    reduced["metadata"] = {"name": "salvaged"}
    reduced["cluster"] = {**cluster, "nodes": _kept(cluster.get("nodes"), nodes)}
    reduced["cases"] = _kept(value.get("cases"), cases)
    return reduced


def _kept(items: object, dropped: set[int]) -> object:
    if not isinstance(items, Sequence) or isinstance(items, str):
        return items
    return [item for index, item in enumerate(items) if index not in dropped]
