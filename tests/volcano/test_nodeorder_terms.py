"""nodeorder's topology terms and predicates' topology filters: what Volcano does that
kube-scheduler does not, and what changes between Volcano releases (worked examples;
the oracle replay is ``test_nodeorder_oracle.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from policytest.core.options import CheckOptions
from policytest.harness.load import scheduler_from_file
from policytest.scoring.cluster import Pod
from policytest.scoring.protocol import NodeScore, Scheduler
from policytest.scoring.specs import node_from_dict, pod_from_dict

CONF = 'actions: "enqueue, allocate, backfill"\ntiers:\n- plugins:\n  - name: predicates\n'
NODEORDER = "  - name: nodeorder\n"
MIB = 1024 * 1024


def scheduler(tmp_path: Path, text: str, release: str = "1.15") -> Scheduler:
    path = tmp_path / "volcano-scheduler.conf"
    path.write_text(text, encoding="utf-8")
    return scheduler_from_file(str(path), options=CheckOptions(volcano_version=release))


def node(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"}, **extra}


def pod(**extra: Any) -> Pod:
    return pod_from_dict(
        {"requests": {"cpu": "1", "memory": "1Gi"}, **extra}, default_requests_from_limits=True
    )


def scores(sched: Scheduler, nodes: list[dict[str, Any]], incoming: Pod) -> dict[str, NodeScore]:
    built = [node_from_dict(spec, default_requests_from_limits=True) for spec in nodes]
    return {score.name: score for score in sched.cluster(built).score(incoming)}


def test_image_locality_counts_the_nodes_added_before(tmp_path: Path) -> None:
    """Volcano's cache keeps each node's image summary as it was when the node was added:
    with the image on the first and third of three nodes, the first sees 1 holder of 3,
    the third 2 of 3 (kube-scheduler gives both 2 of 3)."""
    sched = scheduler(tmp_path, CONF + NODEORDER)
    image = {"registry.example.com/app:1": 600 * MIB}
    found = scores(
        sched,
        [node("a", images=image), node("b"), node("c", images=image)],
        pod(image="registry.example.com/app:1"),
    )
    parts = {name: score.parts["nodeorder"]["imagelocality"] for name, score in found.items()}
    # sum = int(600 MiB x holders / 3), mapped from [23 MiB, 1000 MiB] to 0..100
    assert parts == {"a": 18.0, "b": 0.0, "c": 38.0}


def test_one_candidate_is_not_scored(tmp_path: Path) -> None:
    """allocate binds a single candidate without calling the node-order functions: no
    taint term (300 with two candidates) is added."""
    sched = scheduler(tmp_path, CONF + NODEORDER)
    full = node("full", allocatable={"cpu": "500m", "memory": "16Gi", "pods": "110"})
    one = scores(sched, [node("a"), full], pod())
    two = scores(sched, [node("a"), node("b")], pod())
    assert "tainttoleration" not in one["a"].parts["nodeorder"]
    assert two["a"].parts["nodeorder"]["tainttoleration"] == 300.0
    assert two["a"].total == one["a"].total + 300


def test_predicate_flags_switch_the_filter_not_the_score(tmp_path: Path) -> None:
    """``predicate.NodePortsEnable: false`` lets the pod onto a node whose port is taken."""
    taken = node("taken", pods=[{"requests": {"cpu": "1"}, "hostPorts": [8080]}])
    incoming = pod(hostPorts=[8080])
    on = scores(scheduler(tmp_path, CONF + NODEORDER), [taken, node("free")], incoming)
    off_conf = CONF + "    arguments: {predicate.NodePortsEnable: false}\n" + NODEORDER
    off = scores(scheduler(tmp_path, off_conf), [taken, node("free")], incoming)
    assert not on["taken"].feasible and on["free"].feasible
    assert off["taken"].feasible and off["free"].feasible


def test_a_zero_weight_removes_the_term(tmp_path: Path) -> None:
    conf = CONF + NODEORDER + "    arguments: {tainttoleration.weight: 0}\n"
    found = scores(scheduler(tmp_path, conf), [node("a"), node("b")], pod())
    assert "tainttoleration" not in found["a"].parts["nodeorder"]


@pytest.mark.parametrize(("release", "balanced"), [("1.14", 100.0), ("1.15", 0.0)])
def test_best_effort_pods_and_balanced_allocation(
    tmp_path: Path, release: str, balanced: float
) -> None:
    """Up to 1.14 nodeorder calls BalancedAllocation's Score directly; from 1.15 after
    its PreScore, which skips a pod that requests nothing (it then scores 0)."""
    sched = scheduler(tmp_path, CONF + NODEORDER, release)
    best_effort = pod_from_dict({}, default_requests_from_limits=True)
    found = scores(sched, [node("a"), node("b")], best_effort)
    assert found["a"].parts["nodeorder"].get("balancedresource") == balanced


def test_best_effort_pods_go_to_overcommitted_nodes(tmp_path: Path) -> None:
    """backfill places best-effort pods with the predicates alone: a node whose pods
    request more than it has stays a candidate."""
    sched = scheduler(tmp_path, CONF + NODEORDER)
    over = node("over", used={"cpu": "9"})
    best_effort = pod_from_dict({}, default_requests_from_limits=True)
    assert scores(sched, [over, node("b")], best_effort)["over"].feasible
    assert not scores(sched, [over, node("b")], pod())["over"].feasible


@pytest.mark.parametrize(
    ("release", "expected"),
    [
        ("1.9", {"a": 160.0, "b": 40.0, "c": 0.0}),  # raw sums 80, 20, 0 x weight 2
        ("1.14", {"a": 160.0, "b": 40.0, "c": 0.0}),
        ("1.15", {"a": 200.0, "b": 50.0, "c": 0.0}),  # 100 x sum / best 80, x 2
    ],
)
def test_node_affinity_is_normalised_from_1_15(
    tmp_path: Path, release: str, expected: dict[str, float]
) -> None:
    """Before 1.15 nodeorder calls NodeAffinity's Score node by node without PreScore
    (the plugin then reads the pod's preferred terms itself) and adds the raw sum of the
    matched weights times ``nodeaffinity.weight``; from 1.15 it runs in the batch
    function, normalised over the candidates (the best one 100)."""
    sched = scheduler(tmp_path, CONF + NODEORDER, release)
    preferred = [
        {"weight": 60, "preference": {"matchExpressions": [_in("tier", "gold")]}},
        {"weight": 20, "preference": {"matchExpressions": [_in("disk", "ssd")]}},
    ]
    incoming = pod(affinity={"nodeAffinity": {_PREFERRED: preferred}})
    found = scores(
        sched,
        [
            node("a", labels={"tier": "gold", "disk": "ssd"}),
            node("b", labels={"disk": "ssd"}),
            node("c"),
        ],
        incoming,
    )
    parts = {name: score.parts["nodeorder"]["nodeaffinity"] for name, score in found.items()}
    assert parts == expected
    assert "nodeorder.nodeaffinity" not in sched.not_modelled
    totals = {name: score.total for name, score in found.items()}
    assert totals["a"] - totals["c"] == expected["a"]  # the rest scores a and c alike


_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def _in(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "operator": "In", "values": [value]}
