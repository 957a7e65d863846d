"""Volcano's whole node order against the real v1.15.1 and v1.16.0-alpha.1 schedulers.

``data/oracle/volcano_nodeorder_cases.jsonl.gz`` holds the 137 scenarios of the shared
Volcano nodeorder oracle that were published (its README: the real ``predicates``,
allocate's resource check, every ``nodeorder`` weight, ``binpack``, ``PrioritizeNodes``
and ``BestNodeFn`` on mock-cache sessions), reduced to what is compared here, both
releases' results side by side. Each scenario is replayed as a user would: its objects
as a kubectl ``List`` snapshot with the incoming pod pending, its conf as a file, a
fixture that places the snapshot's pending pod, and ``policytest run --format json``
with the release's ``--volcano-version``. Compared per node: candidate or not, and for a
scored scenario (more than one candidate) nodeorder's and binpack's parts and the total,
exactly; the pod must land in the recorded best set (``bestNodes``: Volcano picks one of
them at random).

Beyond resources this covers nodeorder's taint, node affinity, pod affinity, spreading
and image terms and predicates' ports, pod affinity and spreading filters, on the
kube-scheduler topology plugins (:mod:`policytest.scoring.plugins.nodeorder`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RunLine
from tests.corpus import Corpus

DATA = Path(__file__).parent.parent / "data" / "oracle" / "volcano_nodeorder_cases.jsonl.gz"
RELEASES = ("1.15", "1.16")
KINDS = ("nodes", "pods", "services", "replicasets", "statefulsets", "replicationcontrollers")

RECORDS = Corpus.read(DATA)


def write_scenario(record: dict[str, Any], directory: Path) -> Path:
    """The scenario as a user's files: snapshot, conf and fixture; returns the fixture."""
    given = record["input"]
    items = [obj for kind in (*KINDS, "namespaces") for obj in given.get(kind, ())]
    snapshot = {"apiVersion": "v1", "kind": "List", "items": [*items, given["incoming"]]}
    (directory / "cluster.json").write_text(json.dumps(snapshot), encoding="utf-8")
    (directory / "volcano-scheduler.conf").write_text(given["conf"], encoding="utf-8")
    fixture = directory / "oracle.policytest.yaml"
    fixture.write_text(
        "apiVersion: policytest/v1\nkind: PolicyTest\nmetadata: {name: oracle}\n"
        "scheduler: {config: volcano-scheduler.conf}\ncluster: {snapshot: cluster.json}\n"
        "cases:\n- name: incoming\n  pods: {fromSnapshot: pending}\n  ties: allow\n"
        f"  expect: {{pending: {0 if record['results']['1.15']['bestNodes'] else 1}}}\n",
        encoding="utf-8",
    )
    return fixture


def differences(record: dict[str, Any], release: str, got: dict[str, Any]) -> Iterator[str]:
    """Every way ``run``'s result for the scenario differs from the recorded one."""
    expected = record["results"][release]
    ours = {node["name"]: node for node in got["nodes"]}
    for node in expected["nodes"]:
        name, mine = node["name"], ours.get(node["name"])
        if mine is None:
            yield f"{name}: missing"
            continue
        if mine["feasible"] != node["candidate"]:
            yield f"{name}: candidate {mine['feasible']} ({mine['reason']}), recorded {node}"
            continue
        if not (expected["scored"] and node["candidate"]):
            continue
        by_plugin = {**node["nodeOrder"]}
        by_plugin["nodeorder"] = node["batchNodeOrder"].get("nodeorder", 0) + by_plugin.get(
            "nodeorder", 0
        )
        for plugin in ("nodeorder", "binpack"):
            if plugin in node["nodeOrder"] and mine["plugins"].get(plugin) != by_plugin[plugin]:
                yield f"{name}: {plugin} {mine['plugins'].get(plugin)}, recorded {by_plugin}"
        if mine["total"] != node["total"]:
            yield f"{name}: total {mine['total']}, recorded {node['total']}"
    placed = [name for name, count in got["placements"].items() if count]
    best = expected["bestNodes"]
    if placed != [n for n in placed if n in best] or len(placed) != min(len(best), 1):
        yield f"placed on {placed}, recorded best {best}"


def params() -> Iterator[Any]:
    indices, ids = RECORDS.select()
    for index, name in zip(indices, ids, strict=True):
        for release in RELEASES:
            yield pytest.param(index, release, id=f"{release}-{name}")


def test_the_published_half_is_here() -> None:
    assert len(RECORDS) == 137
    assert all(set(record["results"]) == set(RELEASES) for record in RECORDS.cases())


@pytest.mark.parametrize(("index", "release"), list(params()))
def test_scenario(index: int, release: str, tmp_path: Path, run_line: RunLine) -> None:
    record = RECORDS.case(index)
    (tmp_path / ".git").mkdir()
    fixture = write_scenario(record, tmp_path)
    ran = run_line(["run", "--format", "json", "--volcano-version", release, str(fixture)])
    (result,) = json.loads(ran.stdout)["results"]
    assert result["status"] == "passed", result.get("message")
    problems = list(differences(record, release, result))
    assert not problems, "\n".join(problems[:10])
