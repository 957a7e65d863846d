"""The node filters against the real schedulers' verdicts (``data/oracle/filter_cases``).

Each line is one incoming pod on one node, judged by kube-scheduler v1.35.4's
NodeUnschedulable, TaintToleration and NodeAffinity plugins (cross-checked with the real
scheduler's SchedulePod) and by Volcano v1.15.1's ``predicates`` code. The node goes
through the snapshot reader and the pod through the fixture's pod form, as a snapshot's
would, so the whole path is exercised: every case, verdict and reason.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from policytest.core.options import CheckOptions
from policytest.harness.load import scheduler_from_file
from policytest.scoring.cluster import Node, Pod
from policytest.scoring.schedulers import (
    NODE_FILTERS,
    KubeScheduler,
    VolcanoPredicates,
    VolcanoScheduler,
)
from policytest.scoring.snapshot import _node as snapshot_node
from policytest.scoring.specs import node_from_dict, pod_from_dict
from tests.corpus import Corpus

DATA = Path(__file__).parent.parent / "data" / "oracle" / "filter_cases.jsonl.gz"


CASES = Corpus.read(DATA)
INDICES, IDS = CASES.select()


def node_of(case: dict[str, Any]) -> Node:
    return node_from_dict(
        snapshot_node(case["node"], "oracle", 0), default_requests_from_limits=True
    )


def pod_of(case: dict[str, Any]) -> Pod:
    return pod_from_dict(case["pod"], default_requests_from_limits=True)


def kube(order: tuple[str, ...] = NODE_FILTERS) -> KubeScheduler:
    return KubeScheduler(None, 0, None, 0, filter_order=order)


def kube_reason(result: dict[str, Any]) -> str | None:
    scheduler = result["scheduler"]
    return None if scheduler["feasible"] else scheduler["reasons"][0]


def volcano_reason(result: dict[str, Any]) -> str | None:
    volcano = result["volcano"]
    if volcano["prepredicate"] not in ("Skip", "Success"):
        return str(volcano["prepredicate"])
    return volcano["statuses"][0]["reason"] if volcano["statuses"] else None


def test_the_data_is_the_whole_set() -> None:
    assert len(CASES) == 1647
    groups = {case["group"] for case in CASES.cases()}
    assert groups == {
        "control_plane",
        "unschedulable",
        "taints",
        "node_selector",
        "affinity_required",
        "preferred_only",
        "random",
    }


@pytest.mark.parametrize("index", INDICES, ids=IDS)
def test_every_case_as_kube_scheduler_and_volcano_judge_it(index: int) -> None:
    case = CASES.case(index)
    result = case["result"]
    node, pod = node_of(case), pod_of(case)
    (kube_score,) = kube().cluster([node]).score(pod)
    assert (kube_score.feasible, kube_score.reason) == (result["feasible"], kube_reason(result))
    assert result["scheduler"]["feasible"] == result["feasible"]
    volcano = VolcanoScheduler((), predicates=VolcanoPredicates())
    (volcano_score,) = volcano.cluster([node]).score(pod)
    assert (volcano_score.feasible, volcano_score.reason) == (
        result["volcano_feasible"],
        volcano_reason(result),
    )


def _passes(result: dict[str, Any], plugin: str) -> bool:
    if plugin == "NodeAffinity":
        affinity = result[plugin]
        prefilter = affinity["prefilter"]["code"]
        if prefilter not in ("Skip", "Success") or affinity.get("excluded_by_prefilter_result"):
            return False  # outside PreFilter's node names, Filter rejects the node too
        verdict = affinity["filter"]
        return verdict is None or verdict["code"] == "Success"
    return bool(result[plugin]["code"] == "Success")


@pytest.mark.parametrize(
    ("node_affinity", "taint_toleration"), [(False, True), (True, False), (False, False)]
)
def test_volcano_predicate_flags_turn_filters_off(
    node_affinity: bool, taint_toleration: bool
) -> None:
    """``predicate.NodeAffinityEnable`` / ``TaintTolerationEnable: false`` drop exactly that
    plugin's verdict (NodeUnschedulable has no flag)."""
    scheduler = VolcanoScheduler((), predicates=VolcanoPredicates(node_affinity, taint_toleration))
    for case in CASES.cases():
        result = case["result"]
        wanted = _passes(result, "NodeUnschedulable")
        if node_affinity:
            wanted = wanted and _passes(result, "NodeAffinity")
        if taint_toleration:
            wanted = wanted and _passes(result, "TaintToleration")
        (score,) = scheduler.cluster([node_of(case)]).score(pod_of(case))
        assert score.feasible == wanted, case["id"]


def test_without_predicates_volcano_filters_nothing() -> None:
    scheduler = VolcanoScheduler((), predicates=None)
    for case in CASES.cases(list(range(200))):
        (score,) = scheduler.cluster([node_of(case)]).score(pod_of(case))
        assert score.feasible, case["id"]


def test_whole_scenarios_through_a_real_default_profile(tmp_path: Path) -> None:
    """All nodes of a scenario in one cluster, the config's own default profile: the
    number of feasible nodes is the real scheduler's (0 where it failed the cycle)."""
    config = tmp_path / "kube.yaml"
    config.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    )
    scheduler = scheduler_from_file(str(config))
    scenarios: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for case in CASES.cases():
        scenarios[case["scenario"]].append(case)
    for name, members in scenarios.items():
        scores = scheduler.cluster([node_of(c) for c in members]).score(pod_of(members[0]))
        feasible = sum(1 for score in scores if score.feasible)
        schedule = members[0]["result"]["scenario_schedule"]
        if "feasible_nodes" in schedule:
            assert feasible == schedule["feasible_nodes"], name
        else:
            # a failed cycle: no feasible node, or the PreScore error of an unparsable
            # preferred term (filters pass; the scheduler fails later, at scoring)
            assert feasible == 0 or "Gt" in json.dumps(members[0]["pod"]), name


TAINTED = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "cp", "labels": {"kubernetes.io/hostname": "cp"}},
    "spec": {"taints": [{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]},
    "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"}},
}
PLAIN_POD = {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}


@pytest.mark.parametrize(
    ("config", "feasible"),
    [
        ("", False),
        ("profiles:\n- plugins:\n    filter:\n      disabled: [{name: TaintToleration}]\n", True),
        (
            "profiles:\n- plugins:\n    multiPoint:\n      disabled: [{name: TaintToleration}]\n",
            True,
        ),
    ],
)
def test_a_kube_profile_runs_the_filters_it_enables(
    tmp_path: Path, config: str, feasible: bool
) -> None:
    path = tmp_path / "kube.yaml"
    path.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" + config
    )
    node = node_from_dict(snapshot_node(TAINTED, "t", 0), default_requests_from_limits=True)
    pod = pod_from_dict(PLAIN_POD, default_requests_from_limits=True)
    (score,) = scheduler_from_file(str(path)).cluster([node]).score(pod)
    assert score.feasible is feasible


@pytest.mark.parametrize(
    ("arguments", "release", "feasible"),
    [
        ("", "1.15", False),
        ("{predicate.TaintTolerationEnable: false}", "1.15", True),
        ('{predicate.TaintTolerationEnable: "false"}', "1.15", True),  # strconv.ParseBool
        ('{predicate.TaintTolerationEnable: "false"}', "1.14", False),  # strings ignored
        ("{predicate.TaintTolerationEnable: false}", "1.9", True),
        ('{predicate.TaintTolerationEnable: "no"}', "1.15", False),  # not a Go bool
        ("{predicate.TaintTolerationEnable: 0}", "1.15", False),  # not a bool nor a string
        ("{predicate.NodeAffinityEnable: false}", "1.15", False),
    ],
)
def test_volcano_predicates_arguments(
    tmp_path: Path, arguments: str, release: str, feasible: bool
) -> None:
    path = tmp_path / "volcano.yaml"
    line = f"    arguments: {arguments}\n" if arguments else ""
    path.write_text('actions: "allocate"\ntiers:\n- plugins:\n  - name: predicates\n' + line)
    node = node_from_dict(snapshot_node(TAINTED, "t", 0), default_requests_from_limits=True)
    pod = pod_from_dict(PLAIN_POD, default_requests_from_limits=True)
    options = CheckOptions(volcano_version=release)
    (score,) = scheduler_from_file(str(path), options=options).cluster([node]).score(pod)
    assert score.feasible is feasible
    if not feasible:
        assert score.reason == "node(s) had untolerated taint(s)"


def test_volcano_enable_predicate_false_turns_the_filters_off(tmp_path: Path) -> None:
    path = tmp_path / "volcano.yaml"
    path.write_text(
        'actions: "allocate"\ntiers:\n- plugins:\n  - name: predicates\n'
        "    enablePredicate: false\n"
    )
    node = node_from_dict(snapshot_node(TAINTED, "t", 0), default_requests_from_limits=True)
    pod = pod_from_dict(PLAIN_POD, default_requests_from_limits=True)
    (score,) = scheduler_from_file(str(path)).cluster([node]).score(pod)
    assert score.feasible


ADDED_AFFINITY = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- pluginConfig:
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions: [{key: pool, operator: In, values: [batch]}]
"""


def test_a_profiles_added_affinity_is_enforced_on_every_pod(tmp_path: Path) -> None:
    """NodeAffinityArgs.addedAffinity: every pod must match it too, before its own."""
    path = tmp_path / "kube.yaml"
    path.write_text(ADDED_AFFINITY)
    nodes = [
        node_from_dict(
            {"name": name, "allocatable": {"cpu": "4", "pods": "110"}, "labels": labels},
            default_requests_from_limits=True,
        )
        for name, labels in (("batch", {"pool": "batch"}), ("web", {"pool": "web"}), ("bare", {}))
    ]
    plain = pod_from_dict(PLAIN_POD, default_requests_from_limits=True)
    selecting = pod_from_dict(
        {"requests": {"cpu": "1"}, "nodeSelector": {"pool": "web"}},
        default_requests_from_limits=True,
    )
    cluster = scheduler_from_file(str(path)).cluster(nodes)
    enforced = "node(s) didn't match scheduler-enforced node affinity"
    assert [(s.name, s.reason) for s in cluster.score(plain)] == [
        ("batch", None),
        ("web", enforced),
        ("bare", enforced),
    ]
    assert [s.reason for s in cluster.score(selecting)] == [
        "node(s) didn't match Pod's node affinity/selector",
        enforced,
        enforced,
    ]


@pytest.mark.parametrize(
    ("flag", "field"),
    [
        ("NodeAffinityEnable", "node_affinity"),
        ("TaintTolerationEnable", "taint_toleration"),
        ("NodePortsEnable", "node_ports"),
        ("PodAffinityEnable", "pod_affinity"),
        ("PodTopologySpreadEnable", "pod_topology_spread"),
    ],
)
def test_each_predicate_flag_switches_its_own_filter(tmp_path: Path, flag: str, field: str) -> None:
    path = tmp_path / "volcano.yaml"
    path.write_text(
        'actions: "allocate"\ntiers:\n- plugins:\n  - name: predicates\n'
        f"    arguments: {{predicate.{flag}: false}}\n"
    )
    predicates = scheduler_from_file(str(path)).predicates
    assert predicates == replace(VolcanoPredicates(), **{field: False})
