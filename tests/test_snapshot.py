"""Cluster snapshots: ``policytest snapshot``, the reader behind it, and fixtures that use one.

The input is the realistic generated dump of ``benchmarks/cluster_dump.py`` (control-plane
taints, a cordoned node, GPU nodes, DaemonSets everywhere, completed and pending pods),
written as kubectl writes it: JSON with 4-space indentation, or YAML.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from policytest import snapshot as snapshot_module
from policytest.cluster import pod_from_dict
from policytest.scoring.fast import build_nodes
from policytest.snapshot import (
    SnapshotError,
    anonymize,
    compact_json,
    read_snapshot_stream,
    stable_name,
)
from policytest.suite import scheduler_from_file
from tests.conftest import RunLine

ROOT = Path(__file__).parent.parent
FIXTURES = ROOT / "fixtures"
COMPACT = FIXTURES / "snapshots" / "cluster.json"
sys.path.insert(0, str(ROOT / "benchmarks"))

from cluster_dump import dump  # noqa: E402


def kubectl_json(value: Any) -> bytes:
    return (json.dumps(value, indent=4) + "\n").encode()


def kubectl_yaml(value: Any) -> bytes:
    stream = io.StringIO()
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.dump(value, stream)
    return stream.getvalue().encode()


def as_value(snapshot: snapshot_module.Snapshot) -> Any:
    return json.loads(compact_json(snapshot))


def read(data: bytes) -> snapshot_module.Snapshot:
    return read_snapshot_stream(io.BytesIO(data), "dump")


@pytest.fixture(scope="module")
def cluster() -> dict[str, Any]:
    return dump()


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Path]:
    shutil.copytree(FIXTURES, tmp_path / "fixtures")
    (tmp_path / ".git").mkdir()
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(cwd)


def test_the_bundled_compact_file_is_what_the_command_writes(
    run_line: RunLine, tmp_path: Path, cluster: dict[str, Any]
) -> None:
    source = tmp_path / "cluster.json"
    source.write_bytes(kubectl_json(cluster))
    result = run_line(["snapshot", str(source), "-o", str(tmp_path / "out.json")])
    assert result.exit_code == 0, result
    assert (tmp_path / "out.json").read_text() == COMPACT.read_text()
    assert result.stderr == (
        "policytest: kept 24 nodes, 193 bound pods, 7 pending pods; dropped 10 completed "
        "pods (Succeeded or Failed)\n"
    )
    compact = json.loads(COMPACT.read_text())
    assert compact["kind"] == "ClusterSnapshot"
    assert len(compact["nodes"]) == 24 and len(compact["pending"]) == 7
    cordoned = next(n for n in compact["nodes"] if n.get("unschedulable"))
    assert cordoned["name"] == "worker-17"
    assert all("limits" not in json.dumps(n["pods"]) for n in compact["nodes"])


def test_yaml_multi_document_and_chunked_json_give_the_same_snapshot(
    cluster: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = read(kubectl_json(cluster))
    # kubectl's YAML sorts keys, as this dumper does: compare the values, not the text
    assert as_value(read(kubectl_yaml(cluster))) == as_value(expected)
    nodes = [item for item in cluster["items"] if item["kind"] == "Node"]
    pods = [item for item in cluster["items"] if item["kind"] == "Pod"]
    documents = b"---\n".join(kubectl_yaml(item) for item in [*nodes, *pods])
    assert as_value(read(documents)) == as_value(expected)
    # pods before nodes, two Lists one after the other, read 7 characters at a time
    monkeypatch.setattr(snapshot_module, "_CHUNK", 7)
    two = kubectl_json({"kind": "List", "items": pods}) + kubectl_json(
        {"kind": "List", "items": nodes}
    )
    assert compact_json(read(two)) == compact_json(expected)
    assert compact_json(read(compact_json(expected).encode())) == compact_json(expected)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"kind": "ConfigMap", "data": {}}', "no Nodes found (1 other objects)"),
        (b'{"kind": "List", "items": [{"kind": "Pod"}', "not valid JSON"),
        (b"  \n", "empty input"),
        (b"kind: [unclosed\n", "dump:2:1: invalid YAML"),
        (b"\xff\xfe{}", "not UTF-8"),
    ],
)
def test_input_that_is_not_nodes_and_pods_is_one_clear_error(
    data: bytes, message: str, run_line: RunLine, tmp_path: Path
) -> None:
    with pytest.raises(SnapshotError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read(data)
    path = tmp_path / "in.json"
    path.write_bytes(data)
    result = run_line(["snapshot", str(path)])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("policytest: ") and "Traceback" not in result.stderr


def test_a_missing_input_is_a_usage_error(run_line: RunLine) -> None:
    assert run_line(["snapshot", "nope.json"]).exit_code == 2


def test_anonymize_keeps_every_scheduling_answer(cluster: dict[str, Any]) -> None:
    original = read(kubectl_json(cluster))
    hidden = anonymize(original)
    text = compact_json(hidden)
    for secret in ("worker-1", "cp-1", "web-pending", '"shop"', "ml"):
        assert secret not in text.replace("nvidia", "")
    renamed = {n["name"]: stable_name("node", n["name"]) for n in original.nodes}
    for node in hidden.nodes:
        assert node["labels"]["kubernetes.io/hostname"] == node["name"]
    scheduler = scheduler_from_file(str(FIXTURES / "configs" / "kube-most-allocated.yaml"))
    before = scheduler.cluster(build_nodes((n["name"], n) for n in original.nodes))
    after = scheduler.cluster(build_nodes((n["name"], n) for n in hidden.nodes))
    for mine, theirs in zip(original.pending, hidden.pending, strict=True):
        pod = pod_from_dict(mine, default_requests_from_limits=True)
        hidden_pod = pod_from_dict(theirs, default_requests_from_limits=True)
        expected = [(renamed[s.name], s.feasible, s.reason, s.total) for s in before.score(pod)]
        got = [(s.name, s.feasible, s.reason, s.total) for s in after.score(hidden_pod)]
        assert got == expected


def test_anonymize_renames_node_names_inside_selectors() -> None:
    snapshot = snapshot_module.Snapshot(
        nodes=[{"name": "a", "allocatable": {"pods": "1"}, "labels": {"pin": "a", "z": "x"}}],
        pending=[
            {
                "metadata": {"name": "p", "namespace": "n"},
                "spec": {
                    "nodeSelector": {"kubernetes.io/hostname": "a"},
                    "affinity": {
                        "nodeAffinity": {
                            "requiredDuringSchedulingIgnoredDuringExecution": {
                                "nodeSelectorTerms": [
                                    {
                                        "matchFields": [
                                            {
                                                "key": "metadata.name",
                                                "operator": "In",
                                                "values": ["a"],
                                            }
                                        ]
                                    }
                                ]
                            }
                        }
                    },
                },
            }
        ],
    )
    hidden = anonymize(snapshot)
    name = stable_name("node", "a")
    assert hidden.nodes[0]["labels"] == {"pin": name, "z": "x"}
    spec = hidden.pending[0]["spec"]
    assert spec["nodeSelector"] == {"kubernetes.io/hostname": name}
    terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert terms["nodeSelectorTerms"][0]["matchFields"][0]["values"] == [name]
    assert hidden.pending[0]["metadata"] == {
        "name": stable_name("pod", "p"),
        "namespace": stable_name("ns", "n"),
    }


def test_the_snapshot_fixtures_run_explain_simulate_and_diff(run_line: RunLine, repo: Path) -> None:
    kube = "fixtures/snapshot-kube-most-allocated.policytest.yaml"
    volcano = "fixtures/snapshot-volcano-binpack.policytest.yaml"
    ran = run_line(["run", kube, volcano, "--format", "json"])
    assert ran.exit_code == 0, ran
    results = json.loads(ran.stdout)["results"]
    assert [r["status"] for r in results] == ["passed"] * 8
    first = results[0]
    reasons = {node["name"]: node["reason"] for node in first["nodes"] if not node["feasible"]}
    assert reasons["cp-1"] == "node(s) had untolerated taint(s)"
    assert reasons["worker-17"] == "node(s) were unschedulable"
    assert "TaintToleration" in first["notScored"]
    assert "nodeorder.tainttoleration" in results[4]["notScored"]
    assert "spare-1" in {node["name"] for node in first["nodes"]}  # added beside the snapshot
    explained = run_line(["explain", kube, "--case", "the snapshot's pending pods, one by one"])
    assert explained.exit_code == 0 and "Not scored" in explained.stdout
    simulated = run_line(
        [
            "simulate",
            volcano,
            "--config",
            "fixture",
            "--config",
            "fixtures/configs/volcano-nodeorder-binpack-weight-1.yaml",
            "--format",
            "json",
        ]
    )
    assert simulated.exit_code == 0, simulated
    diffed = run_line(
        [
            "diff",
            "fixtures/configs/volcano-nodeorder-binpack-weight-10.yaml",
            "fixtures/configs/volcano-nodeorder-binpack-weight-1.yaml",
            "--fixtures",
            "fixtures",
            "--format",
            "json",
        ]
    )
    paths = {f["path"] for f in json.loads(diffed.stdout)["fixtures"]}
    assert volcano in paths
    assert run_line(["validate", "fixtures"]).exit_code == 0


FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
scheduler: {config: fixtures/configs/kube-most-allocated.yaml}
cluster: {snapshot: SNAPSHOT}
cases:
- name: pending
  pods: {fromSnapshot: pending}
  expect: {pending: 0}
"""


@pytest.mark.parametrize(
    ("snapshot", "message"),
    [
        ("../outside.json", "is outside the repository root"),
        ("missing.json", "does not exist"),
        ("fixtures/configs/kube-most-allocated.yaml", "cannot be used: "),
    ],
)
def test_a_snapshot_that_cannot_be_used_is_pt003(
    run_line: RunLine, repo: Path, snapshot: str, message: str
) -> None:
    (repo.parent / "outside.json").write_text(COMPACT.read_text())
    path = repo / "f.policytest.yaml"
    path.write_text(FIXTURE.replace("SNAPSHOT", snapshot))
    validated = run_line(["validate", str(path), "--format", "json"])
    assert validated.exit_code == 1
    (finding,) = json.loads(validated.stdout)["findings"]
    assert finding["rule"] == "PT003" and message in finding["message"]
    assert (finding["line"], finding["column"]) == (4, 21)
    ran = run_line(["run", str(path)])
    assert ran.exit_code == 1 and message in ran.stdout


def test_a_snapshot_over_the_file_limit_is_refused_unread(run_line: RunLine, repo: Path) -> None:
    path = repo / "f.policytest.yaml"
    path.write_text(FIXTURE.replace("SNAPSHOT", "fixtures/snapshots/cluster.json"))
    result = run_line(["run", str(path), "--max-file-bytes", "1000"])
    assert result.exit_code == 1
    assert "more than the limit of 1,000; not read" in result.stdout
    assert "not read" not in run_line(["run", str(path)]).stdout


def test_pending_pods_with_unsimulated_features_make_the_case_an_error(
    run_line: RunLine, repo: Path
) -> None:
    data = json.loads(COMPACT.read_text())
    data["pending"][0]["spec"]["affinity"] = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"topologyKey": "kubernetes.io/hostname"}
            ]
        }
    }
    (repo / "snap.json").write_text(json.dumps(data))
    path = repo / "f.policytest.yaml"
    path.write_text(FIXTURE.replace("SNAPSHOT", "snap.json"))
    ran = run_line(["run", str(path), "--format", "json"])
    (result,) = json.loads(ran.stdout)["results"]
    assert result["status"] == "error"
    assert "affinity.podAntiAffinity" in result["message"]


def test_from_snapshot_needs_a_snapshot_and_pending_pods(run_line: RunLine, repo: Path) -> None:
    path = repo / "f.policytest.yaml"
    path.write_text(
        FIXTURE.replace(
            "cluster: {snapshot: SNAPSHOT}",
            "cluster:\n  nodes: [{name: a, allocatable: {cpu: '1', pods: '110'}}]",
        )
    )
    result = run_line(["run", str(path)])
    assert result.exit_code == 1 and "has no `snapshot`" in result.stdout
    data = json.loads(COMPACT.read_text())
    data["pending"] = []
    (repo / "snap.json").write_text(json.dumps(data))
    path.write_text(FIXTURE.replace("SNAPSHOT", "snap.json"))
    result = run_line(["run", str(path)])
    assert result.exit_code == 1 and "has none" in result.stdout


def test_nodes_beside_a_snapshot_must_not_repeat_its_names(run_line: RunLine, repo: Path) -> None:
    path = repo / "f.policytest.yaml"
    path.write_text(
        FIXTURE.replace(
            "cluster: {snapshot: SNAPSHOT}",
            "cluster:\n  snapshot: fixtures/snapshots/cluster.json\n"
            "  nodes: [{name: cp-1, allocatable: {cpu: '1', pods: '110'}}]",
        )
    )
    result = run_line(["run", str(path)])
    assert result.exit_code == 1 and "node `cp-1` is listed twice" in result.stdout


RICH_PODS = [
    {  # a sidecar, a regular init container, overhead and limits-only memory
        "spec": {
            "nodeName": "n",
            "initContainers": [
                {"name": "setup", "resources": {"requests": {"cpu": "3", "memory": "1Gi"}}},
                {
                    "name": "proxy",
                    "restartPolicy": "Always",
                    "resources": {"requests": {"cpu": "200m", "memory": "64Mi"}},
                },
            ],
            "containers": [
                {"name": "a", "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "2"}}},
                {"name": "b", "resources": {}},
            ],
            "overhead": {"cpu": "250m", "memory": "160Mi"},
        },
        "status": {"phase": "Running"},
    },
    {  # pod-level resources (KEP-2837)
        "spec": {
            "nodeName": "n",
            "resources": {"requests": {"cpu": "2", "memory": "2Gi"}, "limits": {"cpu": "4"}},
            "containers": [{"name": "a"}, {"name": "b", "resources": {"requests": {"cpu": "1"}}}],
        },
        "status": {"phase": "Running"},
    },
    {"spec": {"nodeName": "n", "containers": [{"name": "a"}]}, "status": {"phase": "Unknown"}},
]


def test_a_bound_pod_keeps_exactly_what_the_schedulers_count(cluster: dict[str, Any]) -> None:
    """Every bound pod of the dump, and pods with sidecars, overhead and pod-level
    resources, request the same through the compact file as written in full."""
    from policytest.scoring.accounting import (
        kube_pod_non_zero_requests,
        kube_pod_requests,
        volcano_pod_request,
    )

    node = {
        "kind": "Node",
        "metadata": {"name": "n"},
        "status": {"allocatable": {"cpu": "64", "pods": "110"}},
    }
    rich = [
        {"kind": "Pod", "metadata": {"name": f"p{i}"}, **pod} for i, pod in enumerate(RICH_PODS)
    ]
    for items in (cluster["items"], [node, *rich]):
        bound = [
            item
            for item in items
            if item["kind"] == "Pod"
            and item["spec"].get("nodeName")
            and item["status"]["phase"] not in ("Succeeded", "Failed")
        ]
        snapshot = read(kubectl_json({"kind": "List", "items": items}))
        compact = [
            pod
            for spec in snapshot.nodes
            for entry in spec.get("pods", [])
            for pod in [pod_from_dict(entry, default_requests_from_limits=True)]
            * entry.get("count", 1)
        ]
        written = [pod_from_dict(item, default_requests_from_limits=True) for item in bound]

        def totals(pods: list[Any]) -> list[tuple[Any, ...]]:
            return sorted(
                (
                    tuple(sorted(kube_pod_requests(pod).items())),
                    tuple(sorted(kube_pod_non_zero_requests(pod).items())),
                    tuple(sorted(volcano_pod_request(pod).items())),
                )
                for pod in pods
            )

        assert totals(compact) == totals(written)
