"""Shared verdicts give exactly what scoring every node on its own gives.

A cluster keys each node by its accounting and computes a plain pod's verdict once per
key (``policytest.scoring.verdicts``). With ``memo`` off every node is scored on its
own; both must agree on every field of every ``NodeScore`` (totals compared bit for bit,
the lazily computed resource and balance details included), on the ranking, and after
each bind. Checked on the oracle corpora's clusters and on random clusters whose nodes
repeat states and carry taints, cordons and labels, with pods that tolerate and select;
pods with tolerations alone share verdicts on nodes without filtering taints, checked
against running every filter on every node.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policytest.harness.runner import rank
from policytest.scoring import schedulers
from policytest.scoring.cluster import Node, Pod
from policytest.scoring.filters import PodFilter
from policytest.scoring.protocol import NodeScore, Scheduler
from policytest.scoring.schedulers import (
    NODE_FILTERS,
    KubeScheduler,
    NodeOrderEntry,
    VolcanoScheduler,
)
from policytest.scoring.specs import node_from_dict, pod_from_dict
from policytest.scoring.verdicts import Scores
from policytest.scoring.weights import BinpackWeights, NodeOrderWeights
from tests.scoring.test_fast_path import (
    SCHEDULERS,
    _cluster,
    _kube_cases,
    _kube_scheduler,
    _oracle,
    _requests,
)

_KUBE_MOST_BALANCED = SCHEDULERS["kube-most-balanced"]
assert isinstance(_KUBE_MOST_BALANCED, KubeScheduler)
EVERY = {
    **SCHEDULERS,
    "volcano-nodeorder-balanced": VolcanoScheduler(
        (
            NodeOrderEntry("nodeorder", nodeorder=NodeOrderWeights(balancedresource=2)),
            NodeOrderEntry("binpack", binpack=BinpackWeights(weight=3)),
        )
    ),
    "volcano-no-predicates": VolcanoScheduler(
        (NodeOrderEntry("binpack", binpack=BinpackWeights(weight=1)),), predicates=None
    ),
    # NodeResourcesFit before the node filters: a rejected node's reason is Fit's when
    # the pod does not fit, so the node filters' rejections cannot be shared
    "kube-fit-first": replace(
        _KUBE_MOST_BALANCED, filter_order=(NODE_FILTERS[-1], *NODE_FILTERS[:-1])
    ),
}


def _exact(value: object) -> object:
    """A float bit for bit (``0.0`` and ``-0.0`` differ), anything else as it is."""
    return (float, value.hex()) if isinstance(value, float) else (type(value), value)


def _full(score: NodeScore) -> tuple[object, ...]:
    return (
        score.name,
        score.feasible,
        score.reason,
        _exact(score.total),
        {name: _exact(value) for name, value in score.plugins.items()},
        dict(score.resources),
        {name: {k: _exact(v) for k, v in part.items()} for name, part in score.parts.items()},
        dict(score.balance),
    )


def assert_shared_is_exact(
    scheduler: Scheduler, nodes: Sequence[Node], pods: Sequence[Pod]
) -> None:
    """Score and bind ``pods`` one by one with and without shared verdicts."""
    shared = scheduler.cluster(nodes)
    alone = scheduler.cluster(nodes)
    alone.memo = False  # type: ignore[attr-defined]
    for pod in pods:
        got, want = shared.score(pod), alone.score(pod)
        assert isinstance(got, Scores)
        assert [_full(score) for score in got] == [_full(score) for score in want]
        ranking = rank(list(want))
        assert rank(got) == ranking
        names = [score.name for score in want][::-1][:3]
        assert [_full(s) for s in shared.score(pod, only=names)] == [
            _full(s) for s in alone.score(pod, only=names)
        ]
        if ranking:
            shared.bind(ranking[0][0], pod)
            alone.bind(ranking[0][0], pod)
    assert shared.utilisation() == alone.utilisation()


def test_kube_oracle_clusters() -> None:
    checked = 0
    for case in _kube_cases(12):
        cluster = _cluster(case["nodes"], case["pod"])
        if cluster is not None:
            nodes = cluster[0]
            twins = [Node(f"{node.name}-twin", node.allocatable, node.pods) for node in nodes]
            assert_shared_is_exact(_kube_scheduler(case), nodes + twins, [cluster[1]] * 3)
            checked += 1
    assert checked > 200


@pytest.mark.parametrize("name", ["volcano-binpack-nodeorder", "volcano-nodeorder-balanced"])
def test_volcano_oracle_clusters(name: str) -> None:
    checked = 0
    for case in _oracle("volcano_binpack_score_cases.jsonl.gz", 3):
        cluster = _cluster(case["input"]["nodes"], case["input"]["task"])
        if cluster is not None:
            nodes = cluster[0]
            twins = [Node(f"{node.name}-twin", node.allocatable, node.pods) for node in nodes]
            assert_shared_is_exact(EVERY[name], nodes + twins, [cluster[1]] * 3)
            checked += 1
    assert checked > 400


# --- random clusters: nodes in repeated states, taints, cordons, labels, placements -------

_TAINTS = st.sampled_from(
    [
        [],
        [{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}],
        [{"key": "gpu", "value": "true", "effect": "NoExecute"}],
        [{"key": "spot", "effect": "PreferNoSchedule"}],
    ]
)


@st.composite
def _node(draw: st.DrawFn, index: int, shapes: list[dict[str, Any]]) -> dict[str, Any]:
    spec: dict[str, Any] = {"name": f"node-{index}", **draw(st.sampled_from(shapes))}
    taints = draw(_TAINTS)
    if taints:
        spec["taints"] = taints
    if draw(st.integers(0, 5)) == 0:
        spec["unschedulable"] = True
    if draw(st.booleans()):
        spec["labels"] = {"zone": draw(st.sampled_from(["a", "b"]))}
    return spec


@st.composite
def _shape(draw: st.DrawFn) -> dict[str, Any]:
    allocatable = {
        "cpu": draw(st.sampled_from(["2", "4", "8", "0"])),
        "memory": draw(st.sampled_from(["4Gi", "8Gi", "0"])),
        "pods": draw(st.sampled_from(["2", "10", "110"])),
    }
    if draw(st.booleans()):
        allocatable["nvidia.com/gpu"] = draw(st.sampled_from(["1", "4"]))
    pods = [{"requests": draw(_requests())} for _ in range(draw(st.integers(0, 2)))]
    return {"allocatable": allocatable, "pods": pods}


@st.composite
def _pod(draw: st.DrawFn) -> Pod:
    spec: dict[str, Any] = {"requests": draw(_requests())}
    choice = draw(st.integers(0, 3))
    if choice == 1:
        spec["tolerations"] = [{"operator": "Exists"}]
    elif choice == 2:
        spec["nodeSelector"] = {"zone": "a"}
    return pod_from_dict(spec, default_requests_from_limits=True)


@st.composite
def _workload(draw: st.DrawFn) -> tuple[list[Node], list[Pod]]:
    shapes = [draw(_shape()) for _ in range(draw(st.integers(1, 3)))]
    specs = [draw(_node(i, shapes)) for i in range(draw(st.integers(1, 10)))]
    nodes = [node_from_dict(spec, default_requests_from_limits=True) for spec in specs]
    kinds = [draw(_pod()) for _ in range(draw(st.integers(1, 3)))]
    return nodes, [draw(st.sampled_from(kinds)) for _ in range(draw(st.integers(1, 12)))]


@pytest.mark.parametrize("name", sorted(EVERY))
@settings(max_examples=60)
@given(workload=_workload())
def test_random_clusters(name: str, workload: tuple[list[Node], list[Pod]]) -> None:
    nodes, pods = workload
    assert_shared_is_exact(EVERY[name], nodes, pods)


def test_scores_is_a_sequence_of_node_scores() -> None:
    nodes = [
        node_from_dict(
            {"name": f"n{i}", "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}},
            default_requests_from_limits=True,
        )
        for i in range(3)
    ]
    pod = pod_from_dict({"requests": {"cpu": "1"}}, default_requests_from_limits=True)
    scores = SCHEDULERS["kube-most-balanced"].cluster(nodes).score(pod)
    materialised = list(scores)
    assert len(scores) == 3
    assert scores == materialised and scores == tuple(materialised)
    assert scores[1] == materialised[1] and scores[-1].name == "n2"
    assert scores[1:] == materialised[1:]
    assert scores.ranked() == rank(materialised) == (("n0", "n1", "n2"),)
    assert "n1" in repr(scores)


class _Unwalkable(dict[str, Any]):
    """A cluster's node table that fails the test when something walks all of it."""

    def __iter__(self) -> Any:
        raise AssertionError("rescoring one node walked every node of the cluster")


@pytest.mark.parametrize("name", sorted(EVERY))
def test_rescoring_one_node_does_not_walk_the_cluster(name: str) -> None:
    """A sequence rescores the bound node after every bind: on a cluster whose nodes
    share no state that is most of the work, and it must not cost the whole cluster."""
    nodes = [
        node_from_dict(
            {"name": f"n{i}", "allocatable": {"cpu": str(4 + i), "memory": "8Gi", "pods": "10"}},
            default_requests_from_limits=True,
        )
        for i in range(3)
    ]
    pod = pod_from_dict({"requests": {"cpu": "1"}}, default_requests_from_limits=True)
    state: Any = EVERY[name].cluster(nodes)
    expected = list(state.score(pod))[1]
    state.infos = _Unwalkable(state.infos)
    assert list(state.score(pod, only=["n1"])) == [expected]


# --- tolerations alone: a plain node's verdict is its state's ------------------------------

_DEFAULT_TOLERATIONS = [  # what the API server adds to every pod
    {
        "key": "node.kubernetes.io/not-ready",
        "operator": "Exists",
        "effect": "NoExecute",
        "tolerationSeconds": 300,
    },
    {
        "key": "node.kubernetes.io/unreachable",
        "operator": "Exists",
        "effect": "NoExecute",
        "tolerationSeconds": 300,
    },
]
_TOLERATIONS = st.sampled_from(
    [
        _DEFAULT_TOLERATIONS,
        [*_DEFAULT_TOLERATIONS, {"key": "gpu", "operator": "Exists", "effect": "NoExecute"}],
        [{"key": "node-role.kubernetes.io/control-plane", "operator": "Exists"}],
        [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists"}],
        [{"key": "spot", "operator": "Exists", "effect": "PreferNoSchedule"}],
        [{"operator": "Exists"}],
    ]
)


@st.composite
def _tolerating_workload(draw: st.DrawFn) -> tuple[list[Node], list[Pod]]:
    """Nodes as ``_workload``'s (filtering and preferred taints, cordons, zones), pods
    that tolerate some of the taints and select nothing."""
    shapes = [draw(_shape()) for _ in range(draw(st.integers(1, 3)))]
    specs = [draw(_node(i, shapes)) for i in range(draw(st.integers(1, 10)))]
    nodes = [node_from_dict(spec, default_requests_from_limits=True) for spec in specs]
    kinds = [
        pod_from_dict(
            {"requests": draw(_requests()), "tolerations": draw(_TOLERATIONS)},
            default_requests_from_limits=True,
        )
        for _ in range(draw(st.integers(1, 3)))
    ]
    return nodes, [draw(st.sampled_from(kinds)) for _ in range(draw(st.integers(1, 12)))]


def _scored_in_turn(
    scheduler: Scheduler, nodes: Sequence[Node], pods: Sequence[Pod], *, memo: bool
) -> list[list[tuple[object, ...]]]:
    """Every node's full score for each pod in turn, the best node bound after each."""
    state = scheduler.cluster(nodes)
    state.memo = memo  # type: ignore[attr-defined]
    found = []
    for pod in pods:
        scores = list(state.score(pod))
        found.append([_full(score) for score in scores])
        ranking = rank(scores)
        if ranking:
            state.bind(ranking[0][0], pod)
    return found


@pytest.mark.parametrize("name", sorted(EVERY))
@settings(max_examples=60)
@given(workload=_tolerating_workload())
def test_tolerations_alone_share_verdicts_as_running_every_filter(
    name: str, workload: tuple[list[Node], list[Pod]]
) -> None:
    """A pod whose only placement is tolerations passes every node filter on a node
    without a filtering taint or cordon, as a pod without any does: sharing its verdicts
    by node state there gives what running every filter on every node gives."""
    nodes, pods = workload
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PodFilter, "trivial", property(lambda _: False))
        expected = _scored_in_turn(EVERY[name], nodes, pods, memo=False)
    assert _scored_in_turn(EVERY[name], nodes, pods, memo=True) == expected


def test_the_default_tolerations_share_verdicts_between_equal_nodes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Nearly every real pod carries the API server's tolerations: they must not make
    every node be filtered on its own (a repack of 5,000 nodes did, for every pod)."""
    fitted: list[str] = []
    fit_filter = schedulers.fit_filter

    def counted(pod: Pod, info: Any, **options: Any) -> str | None:
        fitted.append("fit")
        return fit_filter(pod, info, **options)

    monkeypatch.setattr(schedulers, "fit_filter", counted)
    nodes = [
        node_from_dict(
            {"name": f"n{i}", "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}},
            default_requests_from_limits=True,
        )
        for i in range(20)
    ]
    pod = pod_from_dict(
        {"requests": {"cpu": "1"}, "tolerations": _DEFAULT_TOLERATIONS},
        default_requests_from_limits=True,
    )
    scores = SCHEDULERS["kube-most-balanced"].cluster(nodes).score(pod)
    assert [score.feasible for score in scores] == [True] * 20
    assert len(fitted) == 1  # one node state, one verdict


def test_a_placement_s_node_filters_judge_each_node_once_for_all_its_pods(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pods of one placement (a node pool's selector, the API server's tolerations)
    that differ otherwise (a repack's jobs each run their own image) are kept off the
    same nodes: the node filters judge each node once for them all (a repack filtered
    5,000 nodes for each of 833 such pods), and the nodes they pass share verdicts."""
    judged: list[str] = []
    kube_filter = schedulers.kube_filter

    def counted(pod: PodFilter, name: str, *args: Any, **options: Any) -> str | None:
        judged.append(name)
        return kube_filter(pod, name, *args, **options)

    monkeypatch.setattr(schedulers, "kube_filter", counted)
    pools = ["gpu" if i % 5 == 0 else "cpu" for i in range(20)]
    nodes = [
        node_from_dict(
            {
                "name": f"n{i}",
                "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"},
                "labels": {"pool": pool},
            },
            default_requests_from_limits=True,
        )
        for i, pool in enumerate(pools)
    ]
    pods = [
        pod_from_dict(
            {
                "requests": {"cpu": f"{i + 1}00m"},
                "nodeSelector": {"pool": "gpu"},
                "tolerations": _DEFAULT_TOLERATIONS,
                "image": f"train-{i}:1",
            },
            default_requests_from_limits=True,
        )
        for i in range(5)
    ]
    state = SCHEDULERS["kube-most-balanced"].cluster(nodes)
    for pod in pods:
        scores = state.score(pod)
        assert [score.feasible for score in scores] == [pool == "gpu" for pool in pools]
        assert {score.reason for score in scores if not score.feasible} == {
            "node(s) didn't match Pod's node affinity/selector"
        }
    assert judged == [node.name for node in nodes]  # once per node, not per pod
