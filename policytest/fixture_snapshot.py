"""A fixture's ``cluster.snapshot``: its nodes join the cluster, its pending pods can be
a case's incoming pods (``pods: {fromSnapshot: pending}``).

The snapshot's nodes come first, then the nodes written beside ``snapshot:``. Each
snapshot node is a :class:`~policytest.fixture.NodeSpec` in the fixture's own node form,
so everything downstream (checks, limits, the runner, ``simulate``, ``diff``) treats it
as a written node; findings about it point at the ``snapshot:`` key.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Final

from policytest.findings import Finding
from policytest.fixture import (
    FIXTURE_ERROR,
    Fixture,
    NodeSpec,
    cluster_names_problem,
)
from policytest.snapshot import Snapshot, SnapshotError, read_snapshot

__all__ = ["PENDING", "with_snapshot"]

PENDING: Final = "pending"

_READ: dict[tuple[str, int, int], Snapshot] = {}
_READ_MAX: Final = 4


def with_snapshot(fixture: Fixture, resolved: str, max_bytes: int) -> Fixture | Finding:
    """``fixture`` with the snapshot at ``resolved`` (a real path, already checked to be
    inside the root) read into its nodes and its ``fromSnapshot`` cases. A snapshot
    larger than ``max_bytes`` (``--max-file-bytes``) is refused before it is read."""
    ref = fixture.snapshot
    assert ref is not None
    size = os.path.getsize(resolved)
    if size > max_bytes:
        return FIXTURE_ERROR.at(
            fixture.document,
            ref.node,
            f"snapshot `{ref.path}` is {size:,} bytes, more than the limit of {max_bytes:,}; "
            "not read (reduce it with `policytest snapshot`, or raise --max-file-bytes)",
        )
    try:
        snapshot = _read(resolved)
    except SnapshotError as error:
        return FIXTURE_ERROR.at(
            fixture.document, ref.node, f"snapshot `{ref.path}` cannot be used: {error}"
        )
    nodes = tuple(NodeSpec(spec["name"], spec, ref.node) for spec in snapshot.nodes)
    cases = []
    for case in fixture.cases:
        if case.from_snapshot is None:
            cases.append(case)
            continue
        if case.from_snapshot != PENDING or not snapshot.pending:
            return FIXTURE_ERROR.at(
                fixture.document,
                case.node,
                f"case `{case.name}` takes the snapshot's pending pods, but `{ref.path}` "
                "has none (pods with no spec.nodeName in phase Pending)",
            )
        cases.append(dataclasses.replace(case, pods=tuple(snapshot.pending)))
    merged = dataclasses.replace(fixture, nodes=nodes + fixture.nodes, cases=tuple(cases))
    return cluster_names_problem(merged) or merged


def _read(path: str) -> Snapshot:
    """The snapshot at ``path``, read once per process while the file is unchanged."""
    status = os.stat(path)
    key = (path, status.st_mtime_ns, status.st_size)
    snapshot = _READ.get(key)
    if snapshot is None:
        snapshot = read_snapshot(path)
        if len(_READ) >= _READ_MAX:
            _READ.clear()
        _READ[key] = snapshot
    return snapshot
