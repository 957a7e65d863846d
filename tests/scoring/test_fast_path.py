"""The fast paths give exactly the reference results.

``place_all`` (incremental totals, rescoring only the bound node) must choose the same
node, with the same ties, at every step as scoring every node and ranking them, and
``build_nodes`` (each distinct pod parsed once) must build the same nodes as
``node_from_dict``. Checked on the oracle corpora's clusters and on random clusters.
"""

from __future__ import annotations

import gzip
import json
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import cache
from itertools import islice
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policytest.core.options import CheckOptions
from policytest.harness.load import scheduler_from_file
from policytest.harness.runner import rank
from policytest.scoring.cluster import Node, Pod
from policytest.scoring.fast import Choice, build_nodes, place_all
from policytest.scoring.kube import (
    BalancedArgs,
    FitScoring,
)
from policytest.scoring.plugins import profile
from policytest.scoring.plugins.profile import PodCycle
from policytest.scoring.protocol import ClusterState, NodeScore, Scheduler
from policytest.scoring.quantity import QuantityError
from policytest.scoring.schedulers import (
    KubeCluster,
    KubeScheduler,
    NodeOrderEntry,
    VolcanoScheduler,
)
from policytest.scoring.snapshot import read_snapshot
from policytest.scoring.specs import (
    ClusterSpecError,
    node_from_dict,
    pod_from_dict,
    pods_from_dict,
)
from policytest.scoring.spreading_sequence import Ranked
from policytest.scoring.verdicts import INFEASIBLE, Scores, Verdict
from policytest.scoring.weights import BinpackWeights, NodeOrderWeights
from policytest.scoring.workload import ClusterObjects
from policytest.scoring.workload_specs import cluster_objects_from_dict
from tests.kube_args import balanced_args_from_dict, fit_args_from_dict

ORACLE = Path(__file__).parent.parent / "data" / "oracle"

SCHEDULERS: dict[str, Scheduler] = {
    "kube-most-balanced": KubeScheduler(
        FitScoring("MostAllocated", (("cpu", 1), ("memory", 1))), 1, BalancedArgs(), 1
    ),
    "kube-least": KubeScheduler(
        FitScoring("LeastAllocated", (("cpu", 1), ("memory", 1), ("nvidia.com/gpu", 3))), 2, None, 1
    ),
    "kube-rtcr": KubeScheduler(
        FitScoring("RequestedToCapacityRatio", (("cpu", 1), ("memory", 1)), ((0, 0), (100, 100))),
        1,
        None,
        1,
    ),
    "volcano-binpack-nodeorder": VolcanoScheduler(
        (
            NodeOrderEntry(
                "binpack",
                binpack=BinpackWeights(
                    weight=10, resources={"cpu": 1, "memory": 1, "nvidia.com/gpu": 2}
                ),
            ),
            NodeOrderEntry("nodeorder", nodeorder=NodeOrderWeights()),
        )
    ),
    "volcano-spread": VolcanoScheduler(
        (NodeOrderEntry("binpack", binpack=BinpackWeights(weight=-1)),)
    ),
}


def reference(
    scheduler: Scheduler, nodes: Sequence[Node], pods: Sequence[Pod]
) -> tuple[list[Choice], Sequence[NodeScore]]:
    """The scalar reference: score every node, rank, bind the first of the best group."""
    return _reference_in(scheduler.cluster(nodes), pods)


def _reference_in(
    state: ClusterState, pods: Sequence[Pod]
) -> tuple[list[Choice], Sequence[NodeScore]]:
    """``reference`` on a cluster already built."""
    choices: list[Choice] = []
    first: Sequence[NodeScore] = []
    for pod in pods:
        scores = state.score(pod)
        first = first or scores
        ranking = rank(scores)
        if not ranking:
            choices.append((None, ()))
            continue
        chosen, *tied = ranking[0]
        state.bind(chosen, pod)
        choices.append((chosen, tuple(tied)))
    return choices, first


def assert_same_placements(
    scheduler: Scheduler, nodes: Sequence[Node], pods: Sequence[Pod], max_kinds: int = 16
) -> None:
    expected = reference(scheduler, nodes, pods)
    state = scheduler.cluster(nodes)
    assert place_all(state, pods, max_kinds=max_kinds) == expected
    assert state.utilisation() == _utilisation_after(scheduler, nodes, expected[0], pods)
    assert_first_ties_named(scheduler.cluster(nodes), pods, max_kinds, expected[0])


def assert_first_ties_named(
    state: ClusterState, pods: Sequence[Pod], max_kinds: int, expected: Sequence[Choice]
) -> None:
    """Placing without listing the ties names only the first node a choice tied with."""
    choices, _ = place_all(state, pods, max_kinds=max_kinds, ties=False)
    assert choices == [(node, tied[:1]) for node, tied in expected]


def _utilisation_after(
    scheduler: Scheduler, nodes: Sequence[Node], choices: list[Choice], pods: Sequence[Pod]
) -> Mapping[str, Mapping[str, tuple[int, int]]]:
    state = scheduler.cluster(nodes)
    for (node, _), pod in zip(choices, pods, strict=True):
        if node is not None:
            state.bind(node, pod)
    return state.utilisation()


# --- the oracle corpora's clusters --------------------------------------------------------


def _oracle(
    name: str, every: int = 1, keep: Callable[[dict[str, Any]], bool] = lambda case: True
) -> Iterator[dict[str, Any]]:
    """Every ``every``-th case of a corpus that ``keep`` keeps, parsed one at a time (the
    kube corpus parsed whole was about 140 MB that a worker's allocator kept)."""
    with gzip.open(ORACLE / name, "rt", encoding="utf-8") as handle:
        kept = (case for case in map(json.loads, handle) if keep(case))
        yield from islice(kept, 0, None, every)


def _kube_cases(every: int) -> Iterator[dict[str, Any]]:
    return _oracle("kube_score_cases.jsonl.gz", every, lambda case: case.get("mode") == "score")


def _kube_scheduler(case: dict[str, Any]) -> KubeScheduler:
    if case["plugin"] == "NodeResourcesFit":
        return KubeScheduler(fit_args_from_dict(case["args"]), 1, None, 1)
    return KubeScheduler(None, 1, balanced_args_from_dict(case["args"]), 1)


def _cluster(nodes: list[Any], pod: Any) -> tuple[list[Node], Pod] | None:
    """The oracle's cluster and pod as replayed (no defaulting); None if refused."""
    try:
        return (
            [node_from_dict(node, default_requests_from_limits=False) for node in nodes],
            pod_from_dict(pod, default_requests_from_limits=False),
        )
    except (ClusterSpecError, QuantityError):
        return None


def test_kube_oracle_clusters() -> None:
    checked = 0
    for case in _kube_cases(12):  # a spread sample: every strategy, shape and edge kind
        cluster = _cluster(case["nodes"], case["pod"])
        if cluster is not None:
            assert_same_placements(_kube_scheduler(case), cluster[0], [cluster[1]] * 3, 1)
            checked += 1
    assert checked > 200  # most of the sample replays (a few clusters are refused)


@pytest.mark.parametrize("name", ["volcano-binpack-nodeorder", "volcano-spread"])
def test_volcano_oracle_clusters(name: str) -> None:
    checked = 0
    for case in _oracle("volcano_binpack_score_cases.jsonl.gz", 3):
        cluster = _cluster(case["input"]["nodes"], case["input"]["task"])
        if cluster is not None:
            assert_same_placements(SCHEDULERS[name], cluster[0], [cluster[1]] * 3)
            checked += 1
    assert checked > 400  # most of the sample replays (a few clusters are refused)


# --- random clusters ---------------------------------------------------------------------

_CPU = st.sampled_from(["0", "100m", "250m", "500m", "1", "2", "3500m", "4", "8", "16"])
_MEMORY = st.sampled_from(["0", "128Mi", "512Mi", "1Gi", "2Gi", "4Gi", "16Gi", "64Gi"])
_GPU = st.sampled_from(["0", "1", "2", "4"])


@st.composite
def _requests(draw: st.DrawFn) -> dict[str, str]:
    requests = {"cpu": draw(_CPU), "memory": draw(_MEMORY)}
    if draw(st.booleans()):
        requests["nvidia.com/gpu"] = draw(_GPU)
    return {name: value for name, value in requests.items() if draw(st.booleans()) or value != "0"}


@st.composite
def _node(draw: st.DrawFn, index: int) -> dict[str, Any]:
    allocatable = {
        "cpu": draw(st.sampled_from(["2", "4", "8", "16", "0"])),
        "memory": draw(st.sampled_from(["4Gi", "8Gi", "32Gi", "0"])),
        "pods": draw(st.sampled_from(["3", "10", "110"])),
    }
    if draw(st.booleans()):
        allocatable["nvidia.com/gpu"] = draw(_GPU)
    pods = [{"requests": draw(_requests())} for _ in range(draw(st.integers(0, 3)))]
    return {"name": f"node-{index}", "allocatable": allocatable, "pods": pods}


@st.composite
def _workload(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[Pod]]:
    nodes = [draw(_node(i)) for i in range(draw(st.integers(1, 6)))]
    kinds = [
        pod_from_dict({"requests": draw(_requests())}, default_requests_from_limits=True)
        for _ in range(draw(st.integers(1, 4)))
    ]
    pods = [draw(st.sampled_from(kinds)) for _ in range(draw(st.integers(1, 25)))]
    return nodes, pods


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
@settings(max_examples=60)
@given(workload=_workload(), max_kinds=st.sampled_from([1, 2, 16]))
def test_random_clusters(
    name: str, workload: tuple[list[dict[str, Any]], list[Pod]], max_kinds: int
) -> None:
    specs, pods = workload
    nodes = [node_from_dict(spec, default_requests_from_limits=True) for spec in specs]
    assert_same_placements(SCHEDULERS[name], nodes, pods, max_kinds)


_PLACEMENTS: tuple[dict[str, Any], ...] = (
    {},
    {"nodeSelector": {"zone": "a"}},
    {"nodeSelector": {"zone": "b"}},
    {"tolerations": [{"key": "dedicated", "operator": "Exists"}]},
    {
        "tolerations": [{"key": "dedicated", "operator": "Exists"}],
        "nodeSelector": {"zone": "b"},
    },
)


@st.composite
def _placed_workload(draw: st.DrawFn) -> tuple[list[Node], list[Pod]]:
    """Nodes in two zones (some in none), some tainted ``dedicated`` or cordoned, small
    enough to fill up; pod kinds that select a zone, tolerate the taint, both or
    neither, in blocks: kept kinds that cannot go to many of the nodes bound."""
    specs = []
    for index in range(draw(st.integers(1, 8))):
        spec = draw(_node(index))
        zone = draw(st.sampled_from(["a", "b", None]))
        if zone is not None:
            spec["labels"] = {"zone": zone}
        if draw(st.integers(0, 3)) == 0:
            spec["taints"] = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]
        spec["unschedulable"] = draw(st.integers(0, 7)) == 0
        specs.append(spec)
    nodes = [node_from_dict(spec, default_requests_from_limits=True) for spec in specs]
    kinds = [
        pod_from_dict(
            {"requests": draw(_requests()), **draw(st.sampled_from(_PLACEMENTS))},
            default_requests_from_limits=True,
        )
        for _ in range(draw(st.integers(1, 4)))
    ]
    pods: list[Pod] = []
    for _ in range(draw(st.integers(1, 8))):
        pods += [draw(st.sampled_from(kinds))] * draw(st.integers(1, 5))
    return nodes, pods


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
@settings(max_examples=60)
@given(workload=_placed_workload(), max_kinds=st.sampled_from([1, 2, 16]))
def test_kinds_kept_on_nodes_they_cannot_go_to_place_as_the_reference(
    name: str, workload: tuple[list[Node], list[Pod]], max_kinds: int
) -> None:
    """A node a kept kind's filters rejected is not rescored after a bind there (binds
    only add to what the filters read): the placements and ties stay the reference's."""
    nodes, pods = workload
    assert_same_placements(SCHEDULERS[name], nodes, pods, max_kinds)


def test_a_bind_on_a_node_a_kept_kind_cannot_go_to_does_not_rescore_it() -> None:
    """Two kinds kept, each selecting its own zone: a bind in one zone rescores only the
    kind that can go there (a repack keeps kinds pinned to a zone or a node, and every
    bind rescored each of them through a scoring of every node)."""
    scheduler = SCHEDULERS["kube-most-balanced"]
    nodes = build_nodes(
        (
            f"n{i}",
            {
                "name": f"n{i}",
                "allocatable": {"cpu": "16", "memory": "32Gi", "pods": "110"},
                "labels": {"zone": "ab"[i % 2]},
            },
        )
        for i in range(8)
    )
    kinds = [
        pod_from_dict(
            {"requests": {"cpu": "100m"}, "nodeSelector": {"zone": zone}},
            default_requests_from_limits=True,
        )
        for zone in "ab"
    ]
    pods = [kinds[i % 2] for i in range(20)]
    counting = _CountingState(scheduler.cluster(nodes))
    assert place_all(counting, pods) == reference(scheduler, nodes, pods)
    assert counting.full_scorings == len(kinds)
    assert counting.nodes_scored == len(kinds) * len(nodes) + len(pods)  # its own kind


@settings(max_examples=60)
@given(workload=_workload())
def test_build_nodes_equals_node_from_dict(
    workload: tuple[list[dict[str, Any]], list[Pod]],
) -> None:
    specs, _ = workload
    specs = [{**spec, "pods": spec["pods"] * 2} for spec in specs]
    expected = [
        node_from_dict(s, default_requests_from_limits=True, where=s["name"]) for s in specs
    ]
    assert build_nodes((spec["name"], spec) for spec in specs) == expected


@pytest.mark.parametrize(
    "pods",
    [
        pytest.param([{"requests": {"cpu": "1"}}, {"requests": {"cpu": 1}}], id="int-vs-string"),
        pytest.param([{"requests": {"cpu": 1.0}}, {"requests": {"cpu": True}}], id="float-vs-bool"),
    ],
)
def test_build_nodes_tells_equal_looking_values_apart(pods: list[dict[str, Any]]) -> None:
    spec = {"name": "n", "allocatable": {"cpu": "8"}, "pods": pods}
    try:
        expected: object = node_from_dict(spec, default_requests_from_limits=True, where="n")
    except (ClusterSpecError, QuantityError) as error:
        expected = str(error)
    try:
        actual: object = build_nodes([("n", spec)])[0]
    except (ClusterSpecError, QuantityError) as error:
        actual = str(error)
    assert actual == expected


# --- sequences of Deployments under the default profile -----------------------------------


class _CountingState:
    """A cluster that counts the nodes it scores (every node for a full scoring), also
    through the kube cluster's cycle and one-node resource verdicts."""

    def __init__(self, state: ClusterState) -> None:
        self.state = state
        self.nodes_scored = 0
        self.full_scorings = 0
        self.resource_verdicts = 0

    def score(self, pod: Pod, only: Sequence[str] | None = None) -> Sequence[NodeScore]:
        scores = self.state.score(pod, only)
        self.nodes_scored += len(scores)
        return scores

    def score_cycle(
        self, pod: Pod, only: Sequence[str] | None = None
    ) -> tuple[Scores, PodCycle | None]:
        assert isinstance(self.state, KubeCluster)
        scores, cycle = self.state.score_cycle(pod, only)
        self.nodes_scored += len(scores)
        self.full_scorings += only is None
        return scores, cycle

    def resource_verdict(self, pod: Pod, name: str) -> Verdict:
        assert isinstance(self.state, KubeCluster)
        self.nodes_scored += 1
        self.resource_verdicts += 1
        return self.state.resource_verdict(pod, name)

    def kept_total(self, pod: Pod, name: str, kept: Verdict) -> float | None:
        assert isinstance(self.state, KubeCluster)
        total = self.state.kept_total(pod, name, kept)
        if total is not None:  # one resource verdict
            self.nodes_scored += 1
            self.resource_verdicts += 1
        return total

    def __getattr__(self, name: str) -> Any:
        return getattr(self.state, name)


def test_deployment_sequence_scores_each_spreading_kind_only_when_placed(tmp_path: Path) -> None:
    """Spreading moves every node's score at each bind; a kind not being placed is
    scored again when it is next placed, not after every other kind's bind (which made
    a sequence of Deployments scale with the kinds kept times the pods times the nodes)."""
    config = tmp_path / "default.yaml"
    config.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    )
    scheduler = scheduler_from_file(str(config))
    nodes = build_nodes(
        (
            f"n{i}",
            {
                "name": f"n{i}",
                "allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"},
                "labels": {"topology.kubernetes.io/zone": f"z{i % 3}"},
            },
        )
        for i in range(12)
    )
    pods = [
        pod_from_dict(
            {"requests": {"cpu": "100m"}, "deployment": f"web-{d}"},
            default_requests_from_limits=True,
        )
        for d in range(6)
        for _ in range(5)
    ]
    counting = _CountingState(scheduler.cluster(nodes))
    assert place_all(counting, pods) == reference(scheduler, nodes, pods)
    # each kind is scored on every node when its first pod is placed, then kept: each
    # later bind of it rescores the bound node alone; no kind is scored for another's bind
    kinds = 6
    assert counting.full_scorings == kinds
    assert counting.resource_verdicts == len(pods) - kinds
    assert counting.nodes_scored == kinds * len(nodes) + len(pods) - kinds


def test_sequence_asks_once_per_kind_whether_its_binds_are_local(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether a kind's scores move only on the bound node is remembered per kind while
    nothing it reads changes: looking its spreading constraints up again for every kept
    kind after every bind cost most of a varied sequence."""
    asked: list[Pod] = []
    local = profile.PodCycle._local

    def counted(cycle: profile.PodCycle) -> bool:
        asked.append(cycle.pod)
        return local(cycle)

    monkeypatch.setattr(profile.PodCycle, "_local", counted)
    config = tmp_path / "default.yaml"
    config.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    )
    scheduler = scheduler_from_file(str(config))
    nodes = build_nodes(
        (f"n{i}", {"name": f"n{i}", "allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"}})
        for i in range(6)
    )
    shapes = [
        pod_from_dict({"requests": {"cpu": cpu}}, default_requests_from_limits=True)
        for cpu in ("100m", "200m", "300m", "400m")
    ]
    pods = [shapes[i % len(shapes)] for i in range(40)]
    assert place_all(scheduler.cluster(nodes), pods) == reference(scheduler, nodes, pods)
    assert len(asked) == len(shapes)  # once per kind, not once per kind per bind


# --- spreading kinds kept across binds (kube-scheduler's default profile) -----------------

_DEFAULT = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
_MOST_ALLOCATED = _DEFAULT + (
    "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
    "      scoringStrategy:\n        type: MostAllocated\n        resources:\n"
    "        - {name: cpu, weight: 1}\n        - {name: memory, weight: 1}\n"
)
_KUBE_CONFIGS = {
    ("default", "1.36"): _DEFAULT,
    ("default", "1.33"): _DEFAULT,
    ("most-allocated", "1.36"): _MOST_ALLOCATED,
}
ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"


@cache
def _kube_profile(name: str, release: str) -> Scheduler:
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "config.yaml"
        path.write_text(_KUBE_CONFIGS[name, release])
        return scheduler_from_file(str(path), options=CheckOptions(kubernetes_version=release))


def _spread(key: str, when: str, app: str, skew: int = 1) -> dict[str, Any]:
    return {
        "maxSkew": skew,
        "topologyKey": key,
        "whenUnsatisfiable": when,
        "labelSelector": {"matchLabels": {"app": app}},
    }


def _zonal(spec: dict[str, Any], zone: str) -> dict[str, Any]:
    """``spec`` required to run in ``zone`` (as a pod claiming a zonal volume is)."""
    term = {"matchExpressions": [{"key": ZONE, "operator": "In", "values": [zone]}]}
    required = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}
    return {**spec, "affinity": {"nodeAffinity": required}}


_POD_KINDS: tuple[dict[str, Any], ...] = (
    {"requests": {"cpu": "500m", "memory": "256Mi"}, "deployment": "web-0"},
    {"requests": {"cpu": "250m", "memory": "512Mi"}, "deployment": "web-1"},
    {"requests": {"cpu": "1"}, "deployment": "web-2", "labels": {"tier": "front"}},
    {"requests": {"cpu": "100m"}},  # no owner: nothing spreads it
    # web-0's selector, another kind: its binds move web-0's counts
    {
        "requests": {"cpu": "250m"},
        "deployment": "web-0",
        "tolerations": [{"key": "dedicated", "operator": "Exists"}],
    },
    {"requests": {"cpu": "250m"}, "statefulSet": "db"},
    # its own ScheduleAnyway constraints: nodes without a zone are left out
    {
        "requests": {"cpu": "250m"},
        "labels": {"app": "spread"},
        "topologySpreadConstraints": [
            _spread(ZONE, "ScheduleAnyway", "spread"),
            _spread(HOSTNAME, "ScheduleAnyway", "spread", 2),
        ],
    },
    {"requests": {"cpu": "250m"}, "deployment": "web-1", "image": "app:1"},
    {  # preferred node affinity: NodeAffinity normalised over the feasible nodes
        "requests": {"cpu": "500m"},
        "deployment": "web-3",
        "affinity": {
            "nodeAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 10,
                        "preference": {
                            "matchExpressions": [{"key": ZONE, "operator": "In", "values": ["z0"]}]
                        },
                    },
                    {
                        "weight": 30,
                        "preference": {
                            "matchExpressions": [
                                {"key": "disk", "operator": "In", "values": ["ssd"]}
                            ]
                        },
                    },
                ]
            }
        },
    },
    {  # affinity terms: kept out of the spreading path; once bound, others' too
        "requests": {"cpu": "100m"},
        "deployment": "web-4",
        "affinity": {
            "podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 50,
                        "podAffinityTerm": {
                            "topologyKey": HOSTNAME,
                            "labelSelector": {"matchLabels": {"app": "web-0"}},
                        },
                    }
                ]
            }
        },
    },
    {"requests": {"cpu": "100m"}, "deployment": "web-0", "namespace": "other"},
    {  # a spreading filter: kept out of the spreading path
        "requests": {"cpu": "250m"},
        "labels": {"app": "dns"},
        "topologySpreadConstraints": [_spread(HOSTNAME, "DoNotSchedule", "dns")],
    },
    # the StatefulSet's pods pinned to a zone (a zonal volume): the other zones' nodes
    # are filtered out for good, while its binds there still move its counts
    _zonal({"requests": {"cpu": "250m"}, "statefulSet": "db"}, "z0"),
    _zonal({"requests": {"cpu": "250m"}, "statefulSet": "db"}, "z1"),
    # jobs of their build's own image, which no node holds (one kind for ImageLocality)
    {"requests": {"cpu": "100m"}, "image": "job:7"},
    {"requests": {"cpu": "100m"}, "image": "job:8", "deployment": "web-1"},
    {"requests": {"cpu": "100m"}, "image": "app:1:latest"},
)
_TAINTS = (
    [],
    [],
    [{"key": "spot", "value": "true", "effect": "PreferNoSchedule"}],
    [  # the most PreferNoSchedule taints: when it fills up, the others' scores move
        {"key": "spot", "value": "true", "effect": "PreferNoSchedule"},
        {"key": "old", "value": "true", "effect": "PreferNoSchedule"},
    ],
    [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}],
)


@st.composite
def _topology_node(draw: st.DrawFn, index: int, kinds: int) -> dict[str, Any]:
    name = f"n{index}"
    labels = {HOSTNAME: name} if draw(st.integers(0, 9)) else {}
    zone = draw(st.sampled_from(["z0", "z1", "z2", None, ""]))
    if zone is not None:
        labels[ZONE] = zone
    if draw(st.integers(0, 3)) == 0:
        labels["disk"] = "ssd"
    node: dict[str, Any] = {
        "name": name,
        "allocatable": {
            "cpu": draw(st.sampled_from(["1", "2", "4"])),
            "memory": draw(st.sampled_from(["1Gi", "4Gi"])),
            "pods": draw(st.sampled_from(["2", "4", "110"])),
        },
        "labels": labels,
        "taints": draw(st.sampled_from(_TAINTS)),
        "pods": [
            _POD_KINDS[draw(st.integers(0, kinds - 1))] for _ in range(draw(st.integers(0, 2)))
        ],
    }
    if draw(st.booleans()):
        node["images"] = {"app:1": "300Mi"}
    return node


@st.composite
def _topology_workload(
    draw: st.DrawFn, kinds: int = len(_POD_KINDS)
) -> tuple[list[Node], list[Pod], ClusterObjects]:
    """Nodes of three zones (some without one, one with an empty zone), PreferNoSchedule
    and NoSchedule taints, images, small pod limits (nodes fill up), and a sequence of
    pod kinds in blocks: Deployments, a StatefulSet, a Service across Deployments, own
    spread constraints, node and pod affinity, another namespace."""
    specs = [draw(_topology_node(i, kinds)) for i in range(draw(st.integers(2, 9)))]
    nodes = build_nodes((spec["name"], spec) for spec in specs)
    parsed = [pod_from_dict(spec, default_requests_from_limits=True) for spec in _POD_KINDS]
    pods: list[Pod] = []
    for _ in range(draw(st.integers(1, 8))):
        pods += [parsed[draw(st.integers(0, kinds - 1))]] * draw(st.integers(1, 6))
    services = {
        "services": [{"name": "front", "namespace": "default", "selector": {"tier": "front"}}]
    }
    objects = cluster_objects_from_dict(services if draw(st.booleans()) else {})
    return nodes, pods, objects


@pytest.mark.parametrize("config", sorted(_KUBE_CONFIGS))
@settings(max_examples=120)
@given(workload=_topology_workload(), max_kinds=st.sampled_from([1, 3, 16]))
def test_spreading_sequences_place_as_the_reference(
    config: tuple[str, str], workload: tuple[list[Node], list[Pod], ClusterObjects], max_kinds: int
) -> None:
    """Every placement and every tie, with spreading kinds kept across binds, equals
    scoring every node for every pod; so do the nodes' states after the sequence."""
    nodes, pods, objects = workload
    scheduler = _kube_profile(*config)
    expected = scheduler.cluster(nodes, objects)
    state = scheduler.cluster(nodes, objects)
    placed = _reference_in(expected, pods)
    assert place_all(state, pods, max_kinds=max_kinds) == placed
    assert state.utilisation() == expected.utilisation()
    assert_first_ties_named(scheduler.cluster(nodes, objects), pods, max_kinds, placed[0])


def _varied_nodes(count: int) -> list[Node]:
    """Nodes of three sizes in three zones (one in seven without a zone), some with a
    PreferNoSchedule taint: room for every pod of the tests below."""
    specs = []
    for i in range(count):
        labels = {HOSTNAME: f"n{i}"} | ({ZONE: f"z{i % 3}"} if i % 7 else {})
        spec: dict[str, Any] = {
            "name": f"n{i}",
            "allocatable": {"cpu": f"{8 * (1 + i % 3)}", "memory": "64Gi", "pods": "110"},
            "labels": labels,
        }
        if i % 5 == 2:
            spec["taints"] = [_TAINTS[2][0]]
        specs.append((f"n{i}", spec))
    return build_nodes(specs)


def test_spreading_kinds_rescore_only_the_nodes_bound_since_they_were_placed() -> None:
    """A Deployment's pods are scored on every node once per kind (and once more when a
    new Deployment's owner appeared meanwhile), whatever their names; after that each
    placement rescores only the nodes bound since the kind was last placed."""
    scheduler = _kube_profile("default", "1.36")
    nodes = _varied_nodes(40)
    kinds = [
        pod_from_dict(
            {"requests": {"cpu": f"{100 * (1 + d % 4)}m"}, "deployment": f"web-{d}"},
            default_requests_from_limits=True,
        )
        for d in range(8)
    ]
    blocks = [kind for kind in kinds for _ in range(10)]
    interleaved = [kinds[i % 2] for i in range(20)]
    # each pod named, as a snapshot's pending pods are: no scorer reads the name
    pods = [replace(pod, name=f"pod-{i}") for i, pod in enumerate(blocks + interleaved)]
    counting = _CountingState(scheduler.cluster(nodes))
    assert place_all(counting, pods) == reference(scheduler, nodes, pods)
    # 8 kinds in blocks, then the first two again: each scored in full once more (the
    # other Deployments' owners appeared since), then kept
    assert counting.full_scorings == len(kinds) + 2
    rescored = counting.nodes_scored - counting.full_scorings * len(nodes)
    assert rescored <= len(blocks) + 2 * len(interleaved)  # the nodes bound since
    assert counting.nodes_scored < len(pods) * len(nodes) // 4


def test_pods_bound_where_a_spreading_kind_cannot_go_still_count_in_its_zone() -> None:
    """web-0's pods that tolerate a taint fill the tainted node of zone z0, which the
    plain web-0 kind cannot go to: they count in z0 for it all the same (the taints
    policy is Ignore), so its next pods avoid z0. The kind catches up from those binds
    without being scored on every node again."""
    scheduler = _kube_profile("default", "1.36")
    specs = []
    for i, zone in enumerate(["z0", "z0", "z1", "z2"]):
        spec: dict[str, Any] = {
            "name": f"n{i}",
            "allocatable": {"cpu": "16" if i == 0 else "4", "memory": "16Gi", "pods": "110"},
            "labels": {HOSTNAME: f"n{i}", ZONE: zone},
        }
        if i == 0:
            spec["taints"] = _TAINTS[4]
        specs.append((f"n{i}", spec))
    nodes = build_nodes(specs)
    plain, tolerating = (
        pod_from_dict(_POD_KINDS[0], default_requests_from_limits=True),
        pod_from_dict(
            {**_POD_KINDS[4], "requests": {"cpu": "5"}}, default_requests_from_limits=True
        ),
    )
    pods = [plain, tolerating, tolerating, tolerating, plain, plain, plain]
    counting = _CountingState(scheduler.cluster(nodes))
    choices, _ = place_all(counting, pods)
    assert choices == reference(scheduler, nodes, pods)[0]
    assert [node for node, _ in choices[1:4]] == ["n0"] * 3
    assert "n1" not in [node for node, _ in choices[4:6]]  # z0 holds three of them
    assert counting.full_scorings == 2  # each kind once


def test_a_spreading_kind_of_named_pods_is_prepared_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot's pods are all distinct objects (each has its name): the nodes a kind
    catches up on are rescored for the kind, which the cluster prepares once, not for
    each pod placed (the prepared pods were dropped every 32 pods and made again)."""
    prepared: list[Pod] = []
    prepare = KubeCluster._prepare

    def counted(cluster: KubeCluster, pod: Pod) -> Any:
        prepared.append(pod)
        return prepare(cluster, pod)

    monkeypatch.setattr(KubeCluster, "_prepare", counted)
    scheduler = _kube_profile("default", "1.36")
    nodes = _varied_nodes(12)
    web = pod_from_dict(_POD_KINDS[0], default_requests_from_limits=True)
    pods = [replace(web, name=f"web-{i}") for i in range(80)]
    assert place_all(scheduler.cluster(nodes), pods) == reference(scheduler, nodes, pods)
    assert len(prepared) - len(pods) == 1  # the reference prepares each pod; the kind once


def test_a_pod_with_affinity_bound_meanwhile_makes_a_spreading_kind_scored_again() -> None:
    """A bound pod's preferred anti-affinity scores the Deployment it names: its kind,
    kept across binds, must not miss it (MostAllocated would put the next web-0 pod
    beside the web-4 pod, InterPodAffinity keeps it away)."""
    scheduler = _kube_profile("most-allocated", "1.36")
    nodes = build_nodes(
        (
            f"n{i}",
            {
                "name": f"n{i}",
                "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                "labels": {HOSTNAME: f"n{i}"},
            },
        )
        for i in range(6)
    )
    web0, web4 = (
        pod_from_dict(_POD_KINDS[index], default_requests_from_limits=True) for index in (0, 9)
    )
    pods = [web0, web4, web0]
    counting = _CountingState(scheduler.cluster(nodes))
    choices, _ = place_all(counting, pods)
    assert choices == reference(scheduler, nodes, pods)[0]
    assert [node for node, _ in choices] == ["n0", "n1", "n2"]
    assert counting.full_scorings == 3


def _oracle_sequences() -> list[dict[str, Any]]:
    with gzip.open(ORACLE / "kube_full_profile_sequences.jsonl.gz", "rt") as handle:
        _, *records = (json.loads(line) for line in handle)
    return records


@pytest.mark.parametrize("release", ["1.33", "1.34", "1.35", "1.36"])
def test_the_full_profile_oracle_sequences_place_as_the_reference(
    release: str, tmp_path: Path
) -> None:
    """The real scheduler's sequences (Deployments, Services, StatefulSets, spread
    constraints, affinity, images, taints, ports): every placement and tie as scoring
    every node for every pod."""
    records = _oracle_sequences()
    for record in records:
        config = tmp_path / f"{record['id']}.json"
        config.write_text(json.dumps(record["config"]))
        scheduler = scheduler_from_file(
            str(config), options=CheckOptions(kubernetes_version=release)
        )
        dump = tmp_path / f"{record['id']}.cluster.json"
        dump.write_text(json.dumps({"kind": "List", "items": record["items"] + record["pending"]}))
        snapshot = read_snapshot(str(dump))
        nodes = build_nodes((spec["name"], spec) for spec in snapshot.nodes)
        pods = [
            pod
            for entry in snapshot.pending
            for pod in pods_from_dict(entry, default_requests_from_limits=True)
        ]
        objects = cluster_objects_from_dict(snapshot.objects)
        expected = _reference_in(scheduler.cluster(nodes, objects), pods)
        assert place_all(scheduler.cluster(nodes, objects), pods) == expected, record["id"]
    assert len(records) == 7


_IMAGE = "registry.example.com/app-0:1"


def _image_nodes(count: int, *, zones: bool) -> list[Node]:
    """Nodes of three sizes, one in four holding ``_IMAGE`` (ImageLocality tells them
    apart), with hostname and zone labels when ``zones``."""
    return build_nodes(
        (
            f"n{i}",
            {
                "name": f"n{i}",
                "allocatable": {"cpu": f"{4 * (1 + i % 3)}", "memory": "64Gi", "pods": "110"},
                **({"labels": {HOSTNAME: f"n{i}", ZONE: f"z{i % 3}"}} if zones else {}),
                **({"images": {_IMAGE: "500Mi"}} if i % 4 == 0 else {}),
            },
        )
        for i in range(count)
    )


def _image_kinds() -> list[Pod]:
    """Three pods without owners, of three sizes, running ``_IMAGE``."""
    return [
        pod_from_dict(
            {"requests": {"cpu": f"{250 * (1 + k)}m"}, "image": _IMAGE},
            default_requests_from_limits=True,
        )
        for k in range(3)
    ]


def test_kinds_no_bind_moves_elsewhere_rescore_the_bound_node_from_its_resources() -> None:
    """Pods without owners under the default profile on nodes whose topology scores
    differ (ImageLocality: some hold the pods' image): after a bind, each kept kind adds
    the bound node's resource verdict to the topology part it had, which no bind moves;
    the placements and ties are the reference's."""
    scheduler = _kube_profile("default", "1.36")
    nodes = _image_nodes(30, zones=True)
    kinds = _image_kinds()
    pods = [kinds[i % 3] for i in range(60)]
    counting = _CountingState(scheduler.cluster(nodes))
    assert place_all(counting, pods) == reference(scheduler, nodes, pods)
    assert counting.full_scorings == len(kinds)
    # every other scoring is one resource verdict: each bind, once per kind kept by then
    kept = sum(min(count, len(kinds)) for count in range(1, len(pods) + 1))
    assert counting.resource_verdicts == kept
    assert counting.nodes_scored == len(kinds) * len(nodes) + kept


@pytest.mark.parametrize("release", ["1.14", "1.15", "1.16"])
def test_volcano_kinds_rescore_the_bound_node_with_the_terms_they_had(
    release: str, tmp_path: Path
) -> None:
    """Volcano's nodeorder under its defaults, pods without owners on nodes some of
    which hold their image (ImageLocality differs per node): a bound node is rescored
    from its predicates, fit check and per-node scores plus the nodeorder terms it had,
    summed as PrioritizeNodes sums them; the placements and ties are the reference's."""
    conf = tmp_path / "volcano-scheduler.conf"
    conf.write_text(
        'actions: "enqueue, allocate, backfill"\ntiers:\n- plugins:\n  - name: predicates\n'
        "  - name: nodeorder\n  - name: binpack\n    arguments: {binpack.weight: 10}\n"
    )
    scheduler = scheduler_from_file(str(conf), options=CheckOptions(volcano_version=release))
    nodes = _image_nodes(20, zones=False)
    kinds = _image_kinds()
    pods = [kinds[i % 3] for i in range(40)]
    state = scheduler.cluster(nodes)
    one_node = []
    original = state.score

    def counted(pod: Pod, only: Sequence[str] | None = None) -> Sequence[NodeScore]:
        one_node.append(only is not None)
        return original(pod, only)

    state.score = counted  # type: ignore[method-assign]
    assert place_all(state, pods) == reference(scheduler, nodes, pods)
    assert one_node == [False] * len(kinds)  # three full scorings, no one-node scoring


@settings(max_examples=200)
@given(
    steps=st.lists(
        st.tuples(st.booleans(), st.integers(0, 9), st.sampled_from([1.0, 2.0, 3.0])),
        max_size=60,
    ),
    asked=st.lists(st.integers(0, 60), max_size=8),
)
def test_ranked_lowest_indices_follow_adds_and_removes(
    steps: list[tuple[bool, int, float]], asked: list[int]
) -> None:
    """The lowest two indices of the best value, asked at any point (an index removed
    and added again, a value emptied and filled again) are the lowest two it holds."""
    ranked, held = Ranked(), {}
    for position, (adding, index, value) in enumerate(steps):
        if adding and index not in held:
            ranked.add(index, value)
            held[index] = value
        elif not adding and index in held:
            ranked.remove(index, held.pop(index))
        if position in asked and ranked:
            top = ranked.top()
            assert top == max(held.values())
            assert ranked.lowest(top) == sorted(i for i, v in held.items() if v == top)[:2]


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
@settings(max_examples=40)
@given(workload=_workload())
def test_a_scheduler_s_utilisation_of_nodes_is_its_cluster_s(
    name: str, workload: tuple[list[dict[str, Any]], list[Pod]]
) -> None:
    """What a repack's today is measured with, without the topology plugins' view."""
    specs, _ = workload
    nodes = build_nodes((spec["name"], spec) for spec in specs)
    scheduler = SCHEDULERS[name]
    assert scheduler.utilisation(nodes) == scheduler.cluster(nodes).utilisation()


@given(st.lists(st.sampled_from([INFEASIBLE, 0.0, 1.5, 2.0, 7.0]), max_size=40))
def test_ranked_of_values_is_adding_them_one_by_one(values: list[float]) -> None:
    added = Ranked()
    for index, value in enumerate(values):
        if value != INFEASIBLE:
            added.add(index, value)
    made = Ranked.of(values, INFEASIBLE)
    assert made.members == added.members
    assert bool(made) == bool(added)
    if added:
        assert made.top() == added.top()
        assert made.lowest(made.top()) == added.lowest(added.top())


def test_jobs_that_differ_only_in_images_no_node_holds_are_one_kind() -> None:
    """ImageLocality counts only the images nodes hold: jobs of their own image tags are
    scored on every node once, not once each, and place as each scored on its own."""
    nodes = build_nodes(
        (
            f"n{i}",
            {
                "name": f"n{i}",
                "allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"},
                **({"images": {"app:1": "300Mi"}} if i == 3 else {}),
            },
        )
        for i in range(6)
    )
    jobs = [
        pod_from_dict(
            {"requests": {"cpu": "100m"}, "image": image}, default_requests_from_limits=True
        )
        for image in ("build:1", "build:2", "build:3", "app:1", "build:4", "app:1")
    ]
    scheduler = _kube_profile(*sorted(_KUBE_CONFIGS)[0])
    counting = _CountingState(scheduler.cluster(nodes))
    assert place_all(counting, jobs) == _reference_in(scheduler.cluster(nodes), jobs)
    assert counting.full_scorings == 2  # the unheld images' kind, and app:1's
