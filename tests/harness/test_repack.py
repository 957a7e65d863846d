"""Repacking a snapshot (``pods: {fromSnapshot: bound}``, ``simulate --snapshot --repack``):
what stays, what moves and in which order, what the snapshot carries for it, and what
``run``, ``explain`` and ``simulate`` report."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policytest.harness.model import OBJECT_KEYS, NodeSpec
from policytest.harness.repack import (
    DAEMON_SET,
    KEPT_BY_CASE,
    LOCAL_VOLUME,
    STATIC,
    UNKNOWN_VOLUME,
    RepackError,
    keep_rules,
    plan,
)
from policytest.read.source import empty_root
from policytest.scoring.snapshot import (
    anonymize,
    compact_json,
    read_snapshot_stream,
)
from tests.conftest import RunLine

ROOT = Path(__file__).parent.parent.parent
FIXTURES = ROOT / "fixtures"
sys.path.insert(0, str(ROOT / "benchmarks"))

from cluster_dump import dump, node, pod  # noqa: E402

SPOT = empty_root()
"""Any source node: the planner's inputs need one, its verdicts never read it."""
NODE = {"name": "n", "allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}}


def entry(**metadata: Any) -> dict[str, Any]:
    """A bound pod entry as a compact snapshot holds it (one container asking 1 cpu)."""
    volumes = metadata.pop("volumes", None)
    spec: dict[str, Any] = {"containers": [{"resources": {"requests": {"cpu": "1"}}}]}
    if volumes:
        spec["volumes"] = volumes
    return {"metadata": metadata, "spec": spec}


def owned(kind: str, name: str, **metadata: Any) -> dict[str, Any]:
    owner = {"apiVersion": "apps/v1", "kind": kind, "name": name, "controller": True}
    return entry(ownerReferences=[owner], **metadata)


def claim(name: str) -> list[dict[str, Any]]:
    return [{"name": "data", "persistentVolumeClaim": {"claimName": name}}]


VOLUMES = {
    "persistentVolumeClaims": [
        {"name": "zonal", "namespace": "default", "volumeName": "pv-zonal"},
        {"name": "local", "namespace": "default", "volumeName": "pv-local"},
        {"name": "unbound", "namespace": "default"},
    ],
    "persistentVolumes": [
        {
            "name": "pv-zonal",
            "nodeAffinity": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
                ]
            },
        },
        {"name": "pv-local", "local": True},
    ],
}


def planned(pods: list[dict[str, Any]], keep: list[dict[str, Any]] | None = None) -> Any:
    return plan([NodeSpec("n", {**NODE, "pods": pods}, SPOT)], VOLUMES, keep_rules(keep or []))


@pytest.mark.parametrize(
    ("pod_entry", "reason"),
    [
        pytest.param(owned("DaemonSet", "proxy"), DAEMON_SET, id="daemonset"),
        pytest.param(
            entry(annotations={"kubernetes.io/config.mirror": "abc"}), STATIC, id="mirror"
        ),
        pytest.param(owned("Node", "n"), STATIC, id="owned-by-its-node"),
        pytest.param(
            entry(volumes=[{"name": "c", "hostPath": {"path": "/var/c"}}]),
            LOCAL_VOLUME,
            id="hostpath",
        ),
        pytest.param(entry(volumes=claim("local")), LOCAL_VOLUME, id="local-volume"),
        pytest.param(entry(volumes=claim("unbound")), UNKNOWN_VOLUME, id="unbound-claim"),
        pytest.param(entry(volumes=claim("missing")), UNKNOWN_VOLUME, id="unknown-claim"),
        pytest.param(owned("ReplicaSet", "web-1"), None, id="deployment-moves"),
        pytest.param(entry(volumes=claim("zonal")), None, id="zonal-volume-moves"),
    ],
)
def test_what_stays_and_why(pod_entry: dict[str, Any], reason: str | None) -> None:
    start = planned([pod_entry])
    if reason is None:
        assert len(start.pods) == 1 and start.kept == ()
        assert start.nodes[0].spec.get("pods") is None  # emptied
    else:
        assert start.pods == () and start.kept == ((reason, 1),)
        assert start.nodes[0].spec["pods"] == [pod_entry]
    # a node holding only a DaemonSet pod is not in use, before or whatever the config
    busy = reason != DAEMON_SET
    assert start.in_use_before == (("n",) if busy else ())
    assert start.anchored == frozenset({"n"} if reason not in (None, DAEMON_SET) else set())


def test_a_zonal_volume_keeps_its_pod_in_the_zone_and_with_its_own_affinity() -> None:
    own = {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}
    other = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n"]}]}
    moving = entry(volumes=claim("zonal"))
    moving["spec"]["affinity"] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [own, other]}
        }
    }
    (moved,) = planned([moving]).pods
    zone = {"key": "zone", "operator": "In", "values": ["a"]}
    required = moved["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]
    # (own OR other) AND zone == (own AND zone) OR (other AND zone)
    assert required == {
        "nodeSelectorTerms": [
            {"matchExpressions": [*own["matchExpressions"], zone]},
            {"matchExpressions": [zone], "matchFields": other["matchFields"]},
        ]
    }
    assert "volumes" not in moved["spec"] and "order" not in moved
    assert moving["spec"]["volumes"] == claim("zonal")  # the input is left as it was


@pytest.mark.parametrize(
    ("keep", "kept"),
    [
        ({"namespace": "data"}, ["data-web", "data-db"]),
        ({"labelSelector": {"matchLabels": {"tier": "db"}}}, ["data-db", "shop-db"]),
        (
            {
                "labelSelector": {
                    "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["db"]}]
                }
            },
            ["data-web", "shop-web"],
        ),
        ({"owner": {"kind": "StatefulSet"}}, ["data-db", "shop-db"]),
        ({"owner": {"kind": "StatefulSet", "name": "db"}}, ["shop-db"]),
        ({"owner": {"kind": "Deployment", "name": "web"}}, ["shop-web"]),
        ({"owner": {"kind": "Deployment"}}, ["data-web", "shop-web"]),
        ({"namespace": "data", "owner": {"kind": "StatefulSet"}}, ["data-db"]),
    ],
)
def test_keep_selectors_match_every_field_they_give(keep: dict[str, Any], kept: list[str]) -> None:
    pods = {
        "shop-web": owned(
            "ReplicaSet",
            "web-5d4",
            namespace="shop",
            labels={"app": "web", "pod-template-hash": "5d4"},
        ),
        "data-web": owned(
            "ReplicaSet", "ingest-7f", namespace="data", labels={"pod-template-hash": "7f"}
        ),
        "shop-db": owned("StatefulSet", "db", namespace="shop", labels={"tier": "db"}),
        "data-db": owned("StatefulSet", "pg", namespace="data", labels={"tier": "db"}),
    }
    start = planned(list(pods.values()), [keep])
    staying = start.nodes[0].spec.get("pods", [])
    assert sorted(name for name, item in pods.items() if item in staying) == sorted(kept)
    assert dict(start.kept).get(KEPT_BY_CASE, 0) == len(kept)


def test_a_label_selector_the_api_server_refuses_is_an_error() -> None:
    bad = {"labelSelector": {"matchExpressions": [{"key": "a", "operator": "In", "values": []}]}}
    with pytest.raises(RepackError, match=r"keep\[0\]\.labelSelector"):
        keep_rules([bad])


def test_pods_move_in_creation_order_and_those_without_one_follow_node_by_node() -> None:
    first = {**owned("ReplicaSet", "a-1"), "count": 2, "order": [3, 0]}
    second = {**owned("ReplicaSet", "b-1"), "order": [1]}
    unordered = owned("ReplicaSet", "c-1")
    start = plan(
        [
            NodeSpec("n1", {**NODE, "name": "n1", "pods": [first, unordered]}, SPOT),
            NodeSpec("n2", {**NODE, "name": "n2", "pods": [second], "used": {"cpu": "1"}}, SPOT),
        ],
        {},
        (),
    )
    names = [
        item.get("metadata", {}).get("ownerReferences", [{"name": "used"}])[0]["name"]
        for item in start.pods
    ]
    assert names == ["a-1", "b-1", "a-1", "c-1", "used"]
    assert "1 pods record no creation order" not in start.notes[0]
    assert start.notes == (
        "2 pods record no creation order (written in the fixture, or by an older `policytest "
        "snapshot`): placed after the others, node by node",
    )
    assert start.nodes[1].spec == {k: v for k, v in NODE.items() if k != "name"} | {"name": "n2"}


def test_an_order_that_does_not_count_the_pods_is_an_error() -> None:
    with pytest.raises(RepackError, match=r"node `n` pods\[0\]: `order` must list one place"):
        planned([{**entry(), "count": 2, "order": [1]}])


def test_a_snapshot_without_bound_pods_says_so() -> None:
    with pytest.raises(RepackError, match="the snapshot has no bound pods"):
        plan([NodeSpec("n", NODE, SPOT)], {}, ())


def test_pods_over_a_nodes_allocatable_are_noted() -> None:
    many = {**entry(), "count": 9, "order": list(range(9))}
    start = planned([many, {**owned("DaemonSet", "d"), "count": 2}])
    (note,) = start.notes
    assert note.startswith(
        "1 node holds pods requesting more than their allocatable: `n` (cpu 11 of 8)"
    )
    assert "the kubelet admits no such pod" in note


# --- the snapshot carries what a repack reads ------------------------------------------------


def kubectl(items: list[dict[str, Any]]) -> Any:
    data = json.dumps({"kind": "List", "items": items}).encode()
    return read_snapshot_stream(io.BytesIO(data), "dump")


def test_the_snapshot_records_creation_order_owners_volumes_and_mirror_pods() -> None:
    import random

    items = [node("n1", "worker", "a", random.Random(1))]
    stamped = [
        ("shop", "web-b", "2026-01-06T08:00:05Z"),
        ("shop", "web-a", "2026-01-06T08:00:05Z"),  # a tie: namespace, then name
        ("data", "db-0", "2026-01-06T08:00:05+01:00"),  # an hour earlier, in another zone
        ("shop", "web-c", None),  # no timestamp: after every pod that has one
        ("shop", "web-d", "not a time"),
    ]
    for namespace, name, created in stamped:
        item = pod(namespace, name, {"cpu": "1"}, node_name="n1", volumes=claim(f"data-{name}"))
        if created is None:
            del item["metadata"]["creationTimestamp"]
        else:
            item["metadata"]["creationTimestamp"] = created
        item["metadata"]["annotations"] = {
            "kubernetes.io/config.mirror": "x",
            "cni.projectcalico.org/podIP": name,  # differs per pod: not kept
        }
        items.append(item)
    snapshot = kubectl(items)
    entries = snapshot.nodes[0]["pods"]
    order = {
        e["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"]: e["order"] for e in entries
    }
    assert order == {
        "data-db-0": [0],
        "data-web-a": [1],
        "data-web-b": [2],
        "data-web-c": [3],
        "data-web-d": [4],
    }
    assert all(
        e["metadata"]["annotations"] == {"kubernetes.io/config.mirror": "x"} for e in entries
    )
    back = json.loads(compact_json(snapshot))
    assert back["nodes"][0]["pods"] == entries  # the compact file carries it all


def test_identical_pods_are_still_counted_once_with_their_places() -> None:
    import random

    items: list[dict[str, Any]] = [node("n1", "worker", "a", random.Random(1))]
    for index in range(3):
        item = pod("shop", f"web-{index}", {"cpu": "1"}, node_name="n1")
        item["metadata"]["creationTimestamp"] = f"2026-01-06T08:00:0{2 - index}Z"
        items.append(item)
    (grouped,) = kubectl(items).nodes[0]["pods"]
    assert grouped["count"] == 3 and grouped["order"] == [0, 1, 2]


def test_generic_ephemeral_volumes_are_the_claims_kubernetes_makes_for_them() -> None:
    import random

    item = pod("data", "db-0", {"cpu": "1"}, node_name="n1")
    item["spec"]["volumes"].append({"name": "scratch", "ephemeral": {"volumeClaimTemplate": {}}})
    snapshot = kubectl([node("n1", "worker", "a", random.Random(1)), item])
    (kept,) = snapshot.nodes[0]["pods"]
    assert kept["spec"]["volumes"] == [
        {"name": "scratch", "persistentVolumeClaim": {"claimName": "db-0-scratch"}}
    ]


def test_anonymize_keeps_what_a_repack_reads() -> None:
    """Names are hashed alike wherever they stand: a claim still finds its volume, a
    volume's zone still matches the nodes'."""
    snapshot = kubectl(dump(nodes=12, stateful=True)["items"])
    hidden = anonymize(snapshot)
    for taken in (snapshot, hidden):
        start = plan(
            [NodeSpec(n["name"], n, SPOT) for n in taken.nodes],
            {key: taken.objects.get(key, ()) for key in VOLUMES},
            (),
        )
        assert dict(start.kept)[LOCAL_VOLUME] == 2  # the ledger and the cache
        assert UNKNOWN_VOLUME not in dict(start.kept)
        zonal = [p for p in start.pods if "affinity" in p.get("spec", {})]
        assert zonal, "the StatefulSet's pods move within their zones"
    assert [e.get("order") for n in hidden.nodes for e in n.get("pods", ())] == [
        e.get("order") for n in snapshot.nodes for e in n.get("pods", ())
    ]


# --- a repack is a sequence on the emptied nodes -------------------------------------------


def repack_and_sequence(
    run_line: RunLine, directory: Path, snapshot: Any, config: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The repack case of ``snapshot`` run with ``config``, and the sequence fixture of
    its emptied nodes and moved pods (written out in full) run with the same config."""
    from policytest.core.options import CheckOptions
    from policytest.harness.load import load_fixture
    from policytest.harness.simulate import snapshot_fixture
    from policytest.read.source import read_bytes

    (directory / ".git").mkdir(exist_ok=True)
    (directory / "cluster.json").write_text(compact_json(snapshot))
    (directory / "config.yaml").write_text((FIXTURES / "configs" / config).read_text())
    made = snapshot_fixture(str(directory / "cluster.json"), "bound")
    options = CheckOptions()
    (document,) = read_bytes(str(directory / "made.yaml"), made, options.limits).documents
    fixture, problems = load_fixture(document, options)
    assert fixture is not None, problems
    start = fixture.cases[0].repack
    assert start is not None
    repack = {
        "apiVersion": "policytest/v1",
        "kind": "PolicyTest",
        "scheduler": {"config": "config.yaml"},
        "cluster": {"snapshot": "cluster.json"},
        "cases": [
            {
                "name": "repack",
                "pods": {"fromSnapshot": "bound"},
                "ties": "allow",
                "expect": {"pending": 0},
            }
        ],
    }
    sequence = {
        **repack,
        "cluster": {
            "nodes": [spec.spec for spec in start.nodes],
            **{key: value for key, value in snapshot.objects.items() if key in OBJECT_KEYS},
        },
        "cases": [
            {"name": "repack", "pods": list(start.pods), "ties": "allow", "expect": {"pending": 0}}
        ],
    }
    results = []
    for name, fixture in (("repack", repack), ("sequence", sequence)):
        path = directory / f"{name}.policytest.yaml"
        path.write_text(json.dumps(fixture))
        ran = run_line(["run", path, "--format", "json", "--limit", "pods=1000000"])
        (result,) = json.loads(ran.stdout)["results"]
        assert result["status"] != "error", result["message"]
        results.append(result)
    return results[0], results[1]


@pytest.mark.parametrize(
    "config",
    [
        "kube-most-allocated.yaml",
        "kube-least-allocated.yaml",
        "volcano-binpack-deployment-no-spreading.yaml",
    ],
)
def test_a_repack_places_as_the_same_pods_in_sequence_on_the_emptied_nodes(
    run_line: RunLine, tmp_path: Path, config: str
) -> None:
    snapshot = read_snapshot_stream(
        io.BytesIO((FIXTURES / "snapshots" / "repack.json").read_bytes()), "s"
    )
    repacked, sequence = repack_and_sequence(run_line, tmp_path, snapshot, config)
    assert repacked["placements"] == sequence["placements"]
    assert repacked["ties"] == sequence["ties"]
    assert repacked["podsMoved"] == sum(repacked["placements"].values()) + repacked["pending"]


@settings(max_examples=6, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    nodes=st.integers(min_value=6, max_value=14),
    pods=st.integers(min_value=5, max_value=60),
    seed=st.integers(min_value=0, max_value=1000),
    stateful=st.booleans(),
)
def test_any_generated_cluster_repacks_as_its_sequence(
    run_line: RunLine,
    tmp_path_factory: pytest.TempPathFactory,
    nodes: int,
    pods: int,
    seed: int,
    stateful: bool,
) -> None:
    snapshot = kubectl(dump(nodes, pods, seed, stateful)["items"])
    repacked, sequence = repack_and_sequence(
        run_line, tmp_path_factory.mktemp("repack"), snapshot, "kube-most-allocated.yaml"
    )
    assert repacked["placements"] == sequence["placements"]
    assert repacked["nodesInUse"] <= repacked["nodesInUseBefore"] + len(repacked["placements"])


# --- through the real entry point --------------------------------------------------------------


BUNDLED = FIXTURES / "snapshot-kube-repack.policytest.yaml"


def test_the_bundled_repack_fixture_passes_and_reports_its_counts(run_line: RunLine) -> None:
    ran = run_line(["run", BUNDLED, "--format", "json"])
    assert ran.exit_code == 0, ran
    first, kept = json.loads(ran.stdout)["results"]
    assert (first["nodesInUseBefore"], first["nodesInUse"], first["nodesFreed"]) == (39, 23, 16)
    assert first["podsMoved"] == 208 and first["notes"] == []
    assert first["podsKept"] == {
        DAEMON_SET: 120,
        STATIC: 12,
        LOCAL_VOLUME: 2,
    }
    assert kept["podsKept"][KEPT_BY_CASE] == 37 and kept["podsMoved"] == 171


def test_a_repack_that_loses_packing_fails_the_case(run_line: RunLine, bundled_repo: Path) -> None:
    fixture = bundled_repo / "fixtures" / BUNDLED.name
    text = fixture.read_text().replace("nodesInUse: {max: 23}", "nodesInUse: {max: 20}")
    fixture.write_text(text.replace("nodesFreed: {min: 16}", "nodesFreed: {min: 17, max: 30}"))
    ran = run_line(["run", fixture])
    assert ran.exit_code == 1
    assert "nodesInUse: expected at most 20, got 23" in ran.stdout
    assert "nodesFreed: expected at least 17 and at most 30, got 16" in ran.stdout
    assert "repack: 23 nodes in use (39 today), frees 16; 208 pods moved, 134 stayed" in ran.stdout


def test_explain_shows_what_the_repack_needs(run_line: RunLine) -> None:
    ran = run_line(["explain", BUNDLED, "--case", "the cluster's pods repacked"])
    assert ran.exit_code == 0, ran
    assert "repack: 23 nodes in use (39 today), frees 16; 208 pods moved, 134 stayed" in ran.stdout


@pytest.mark.parametrize(
    ("case", "message"),
    [
        (
            "- name: c\n  pods: [{requests: {cpu: '1'}}]\n  expect: {nodesInUse: 3}\n",
            "which count what a repack needs",
        ),
        (
            "- name: c\n  pods: {fromSnapshot: pending, keep: [{namespace: x}]}\n"
            "  expect: {pending: 0}\n",
            'must be one of "bound", not the string "pending"',  # keep is for a repack
        ),
    ],
)
def test_repack_keys_elsewhere_are_errors(
    run_line: RunLine, tmp_path: Path, case: str, message: str
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "cluster.json").write_text((FIXTURES / "snapshots" / "cluster.json").read_text())
    (tmp_path / "config.yaml").write_text(
        (FIXTURES / "configs" / "kube-most-allocated.yaml").read_text()
    )
    path = tmp_path / "f.policytest.yaml"
    path.write_text(
        "apiVersion: policytest/v1\nkind: PolicyTest\nscheduler: {config: config.yaml}\n"
        f"cluster: {{snapshot: cluster.json}}\ncases:\n{case}"
    )
    ran = run_line(["run", path])
    assert ran.exit_code == 1
    assert message in ran.stdout


def test_simulate_compares_configs_on_a_kubectl_dump_in_one_command(
    run_line: RunLine, tmp_path: Path
) -> None:
    dumped = tmp_path / "cluster.json"
    dumped.write_text(json.dumps(dump(nodes=40, stateful=True), indent=4))
    configs = FIXTURES / "configs"
    most = f"MostAllocated={configs / 'kube-most-allocated-no-default-spreading.yaml'}"
    least = f"LeastAllocated={configs / 'kube-least-allocated.yaml'}"
    ran = run_line(
        ["simulate", "--snapshot", dumped, "--repack", "--config", most, "--config", least]
    )
    assert ran.exit_code == 0, ran
    assert (
        "  repack: MostAllocated needs 23 of the 39 nodes in use today, frees 16; "
        "LeastAllocated needs 39, frees 0\n"
    ) in ran.stdout
    ran = run_line(
        [
            "simulate",
            "--snapshot",
            dumped,
            "--repack",
            "--config",
            most,
            "--format",
            "json",
            "--keep",
            "namespace=data,owner=Deployment/ingest",
        ]
    )
    (report,) = json.loads(ran.stdout)["reports"]
    assert (report["nodesInUseBefore"], report["nodesInUse"], report["nodesFreed"]) == (39, 27, 12)
    assert report["pods"] == 171 and report["label"] == "MostAllocated"
    assert report["repack"]["podsKept"][KEPT_BY_CASE] == 37
    shapes = {row["name"]: row for row in report["repack"]["shapes"]}
    assert sum(row["inUse"] for row in shapes.values()) == 27
    assert sum(row["nodes"] for row in report["repack"]["zones"]) == 40


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--repack"], "give a fixture, or --snapshot FILE"),
        (["fixture.yaml", "--snapshot", "x.json"], "give a fixture, or --snapshot FILE (not both)"),
        (["--snapshot", "x.json"], "--snapshot needs the configs to compare"),
        (["--snapshot", "x.json", "--config", "c.yaml", "--keep", "namespace=a"], "add --repack"),
        (
            ["--snapshot", "x.json", "--repack", "--config", "c.yaml", "--keep", "namespace"],
            "expected KEY=VALUE",
        ),
    ],
)
def test_simulate_snapshot_usage_errors(run_line: RunLine, args: list[str], message: str) -> None:
    ran = run_line(["simulate", *args])
    assert ran.exit_code == 2
    assert message in ran.stderr


def repack_dump(run_line: RunLine, path: Path, pods: list[dict[str, Any]]) -> Any:
    """``simulate --snapshot --repack`` of a dump of one node, ``n1``, and ``pods``."""
    import random

    items = [node("n1", "worker", "a", random.Random(1)), *pods]
    path.write_text(json.dumps({"kind": "List", "items": items}))
    least = FIXTURES / "configs" / "kube-least-allocated.yaml"
    return run_line(["simulate", "--snapshot", path, "--repack", "--config", least])


def test_simulate_says_a_snapshot_has_no_bound_pods(run_line: RunLine, tmp_path: Path) -> None:
    ran = repack_dump(run_line, tmp_path / "empty.json", [])
    assert ran.exit_code == 1
    assert "the snapshot has no bound pods" in ran.stderr and "Traceback" not in ran.stderr


def test_simulate_names_pods_bound_to_nodes_the_dump_lacks(
    run_line: RunLine, tmp_path: Path
) -> None:
    pods = [pod("shop", f"web-{i}", {"cpu": "1"}, node_name=f"n{i % 2 + 1}") for i in range(4)]
    ran = repack_dump(run_line, tmp_path / "orphans.json", pods)
    assert ran.exit_code == 0, ran
    assert "note: 2 pods bound to nodes the snapshot does not have left out" in ran.stdout
