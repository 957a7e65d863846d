"""The session's fast path gives exactly the straightforward results.

The fast path keeps each pod kind's totals per node and brings a kind up to date from
the nodes changed since it was last used (:class:`policytest.scoring.fast.SessionTotals`);
jobs whose pods differ only in labels no plugin reads share a kind; a discarded
statement takes its pods off the topology plugins' view one by one. The straightforward
path scores every node on its own for every task and rebuilds the view from every node
after a discard. Generated sessions (gangs that fit and that do not, extra tasks,
best-effort tasks, queues, priorities, selectors, taints, spreading and anti-affinity
that read the jobs' labels, 1 or 2 sessions) under confs with and without the topology
plugins give equal binds (nodes, ties, commit order), discards and PodGroup outcomes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from policytest.scoring.cluster import Pod
from policytest.scoring.fast import SessionTotals, build_nodes
from policytest.scoring.plugins.view import ClusterView
from policytest.scoring.schedulers import VolcanoCluster
from policytest.scoring.specs import pods_from_dict
from policytest.scoring.verdicts import INFEASIBLE, Scores
from policytest.scoring.workload import NO_OBJECTS
from policytest.sessions.build import build_jobs
from policytest.sessions.jobs import expand_jobs
from policytest.sessions.objects import scheduling_objects
from policytest.sessions.result import SessionsResult
from policytest.sessions.session import run_sessions
from tests.sessions.replay import scheduler

CONFS = {
    "helm default": """
actions: "enqueue, allocate, backfill"
tiers:
- plugins: [{name: priority}, {name: gang}, {name: conformance}]
- plugins: [{name: overcommit}, {name: drf}, {name: predicates}, {name: proportion},
            {name: nodeorder}, {name: binpack}]
""",
    "gpu binpack, no nodeorder resources": """
actions: "enqueue, allocate, backfill"
tiers:
- plugins: [{name: priority}, {name: gang}]
- plugins:
  - {name: drf}
  - {name: predicates}
  - {name: proportion}
  - name: nodeorder
    arguments: {leastrequested.weight: 0, balancedresource.weight: 0}
  - name: binpack
    arguments: {binpack.weight: 10, binpack.resources: nvidia.com/gpu,
                binpack.resources.nvidia.com/gpu: 8}
""",
    "capacity": """
actions: "enqueue, allocate, backfill"
tiers:
- plugins: [{name: priority}, {name: gang}]
- plugins: [{name: overcommit}, {name: drf}, {name: predicates}, {name: capacity},
            {name: nodeorder}, {name: binpack}]
""",
    "allocate only, no topology plugins": """
actions: "allocate, backfill"
tiers:
- plugins: [{name: priority}, {name: gang}]
- plugins: [{name: drf}, {name: predicates, arguments: {predicate.PodAffinityEnable: false}},
            {name: proportion}, {name: binpack}]
""",
}


class _Best:
    """A kind's ranking read straight from a full scoring."""

    def __init__(self, scores: Scores) -> None:
        self.totals = [v[2] if v[0] else INFEASIBLE for v in scores.verdicts]

    def best(self) -> list[int]:
        feasible = [total for total in self.totals if total != INFEASIBLE]
        if not feasible:
            return []
        top = max(feasible)
        return [index for index, total in enumerate(self.totals) if total == top]


class StraightforwardTotals(SessionTotals):
    """Every task scored on every node, each node on its own (no shared verdicts, no
    kept kinds); a node that lost pods makes the topology view again from every node."""

    def __init__(self, state: VolcanoCluster) -> None:
        super().__init__(state)
        state.memo = False
        self.cluster = state

    def of(self, pod: Pod) -> tuple[Any, Scores]:  # type: ignore[override]
        scores = self.cluster.score(pod)
        return _Best(scores), scores

    def bound(self, name: str) -> None:
        pass

    def changed(self, name: str) -> None:
        view = self.cluster.view
        if view is not None:
            self.cluster.view = ClusterView.of(list(self.cluster.nodes.values()), view.objects)


SCHEDULERS = {name: scheduler(conf, "1.15") for name, conf in CONFS.items()}

_node = st.fixed_dictionaries(
    {
        "shape": st.sampled_from(
            [
                {"cpu": "4", "memory": "16Gi", "pods": "110"},
                {"cpu": "8", "memory": "32Gi", "pods": "4"},
                {"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": "8", "pods": "110"},
            ]
        ),
        "zone": st.sampled_from(["a", "b", None]),
        "tainted": st.sampled_from([False, False, True]),
        "used": st.sampled_from([None, {"cpu": "2", "memory": "4Gi"}, {"nvidia.com/gpu": "4"}]),
        "anti": st.booleans(),
    }
)
_task = st.fixed_dictionaries(
    {
        "replicas": st.integers(1, 6),
        "requests": st.sampled_from(
            [
                {"cpu": "1", "memory": "2Gi"},
                {"cpu": "3", "memory": "4Gi"},
                {"cpu": "4", "memory": "8Gi", "nvidia.com/gpu": "2"},
                {"nvidia.com/gpu": "8"},
                {},
            ]
        ),
        "zone": st.sampled_from([None, None, "a"]),
        "spread": st.booleans(),
        "anti": st.booleans(),
    }
)
_job = st.fixed_dictionaries(
    {
        "queue": st.sampled_from(["q1", "q2"]),
        "priority": st.sampled_from(["high", "low", ""]),
        "tasks": st.lists(_task, min_size=1, max_size=2),
        "extra": st.integers(-2, 1),
    }
)


def _node_spec(index: int, node: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    name = f"n{index}"
    spec: dict[str, Any] = {"name": name, "allocatable": node["shape"]}
    labels = {"kubernetes.io/hostname": name}
    if node["zone"]:
        labels["topology.kubernetes.io/zone"] = node["zone"]
    spec["labels"] = labels
    if node["tainted"]:
        spec["taints"] = [{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]
    pods: list[dict[str, Any]] = []
    if node["used"]:
        pods.append({"requests": node["used"], "labels": {"app": "svc"}})
    if node["anti"]:  # a bound pod whose anti-affinity reads the jobs' labels
        pods.append(
            {
                "requests": {"cpu": "100m"},
                "labels": {"app": "guard"},
                "affinity": {
                    "podAntiAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": [
                            {
                                "labelSelector": {"matchLabels": {"volcano.sh/task-spec": "t1"}},
                                "topologyKey": "kubernetes.io/hostname",
                            }
                        ]
                    }
                },
            }
        )
    if pods:
        spec["pods"] = pods
    return name, spec


def _task_entry(job: str, index: int, task: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": f"t{index}", "replicas": task["replicas"]}
    if task["requests"]:
        entry["requests"] = task["requests"]
    if task["zone"]:
        entry["nodeSelector"] = {"topology.kubernetes.io/zone": task["zone"]}
    if task["requests"].get("nvidia.com/gpu"):
        entry["tolerations"] = [{"key": "gpu", "operator": "Exists"}]
    if task["spread"]:
        entry["topologySpreadConstraints"] = [
            {
                "maxSkew": 1,
                "topologyKey": "kubernetes.io/hostname",
                "whenUnsatisfiable": "ScheduleAnyway",
                "labelSelector": {"matchLabels": {"volcano.sh/job-name": job}},
            }
        ]
    if task["anti"]:
        entry["affinity"] = {
            "podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 10,
                        "podAffinityTerm": {
                            "labelSelector": {"matchLabels": {"volcano.sh/task-spec": "t0"}},
                            "topologyKey": "topology.kubernetes.io/zone",
                        },
                    }
                ]
            }
        }
    return entry


def _run(
    conf: str,
    nodes: Sequence[dict[str, Any]],
    jobs: Sequence[dict[str, Any]],
    sessions: int,
    straightforward: bool,
) -> SessionsResult:
    cluster = {
        "priorityClasses": [{"name": "high", "value": 1000}, {"name": "low", "value": 10}],
        "queues": [
            {"name": "q1", "weight": 2, "capability": {"cpu": "12"}},
            {"name": "q2", "deserved": {"cpu": "6", "memory": "16Gi"}},
        ],
    }
    entries = []
    for index, job in enumerate(jobs):
        tasks = [_task_entry(f"job{index}", i, task) for i, task in enumerate(job["tasks"])]
        size = sum(task["replicas"] for task in job["tasks"])
        entries.append(
            {
                "name": f"job{index}",
                "queue": job["queue"],
                "priority": job["priority"],
                "minAvailable": max(1, size + job["extra"]),
                "tasks": tasks,
            }
        )
    scheduling = scheduling_objects(cluster)
    expanded = expand_jobs(entries, scheduling)
    scheduling = replace(scheduling, pod_groups=tuple(job.group for job in expanded))
    pods = [
        (entry, pod)
        for job in expanded
        for entry in job.pods
        for pod in pods_from_dict(entry, default_requests_from_limits=True)
    ]
    built_nodes = build_nodes(_node_spec(i, node) for i, node in enumerate(nodes))
    scheduler = SCHEDULERS[conf]
    built = build_jobs(
        scheduling,
        pods,
        scheduler.overhead_first,
        ((node.name, pod) for node in built_nodes for pod in node.pods),
    )
    assert scheduler.session is not None
    totals = StraightforwardTotals if straightforward else SessionTotals
    return run_sessions(
        scheduler.session, scheduler, built_nodes, NO_OBJECTS, built.jobs, built.queues,
        sessions, totals,
    )  # fmt: skip


@settings(max_examples=80, suppress_health_check=[HealthCheck.too_slow])
@given(
    conf=st.sampled_from(sorted(CONFS)),
    nodes=st.lists(_node, min_size=1, max_size=5),
    jobs=st.lists(_job, min_size=1, max_size=6),
    sessions=st.integers(1, 2),
)
def test_generated_sessions_match_the_straightforward_path(
    conf: str, nodes: list[dict[str, Any]], jobs: list[dict[str, Any]], sessions: int
) -> None:
    fast = _run(conf, nodes, jobs, sessions, straightforward=False)
    event("discarded" if any(record.discarded for record in fast.sessions) else "none discarded")
    assert fast == _run(conf, nodes, jobs, sessions, straightforward=True)


_bound_pod = st.fixed_dictionaries(
    {
        "node": st.integers(0, 2),
        "app": st.sampled_from(["a", "b"]),
        "anti": st.booleans(),
    }
)


@given(
    before=st.lists(_bound_pod, max_size=4),
    bound=st.lists(_bound_pod, min_size=1, max_size=6),
    matched_first=st.booleans(),
)
def test_taking_binds_back_leaves_the_view_as_if_made_again(
    before: list[dict[str, Any]], bound: list[dict[str, Any]], matched_first: bool
) -> None:
    """A discarded statement takes its pods off the view last first: every count a
    selector reads (matched before the binds or after the undo), the pods per node and
    the pods with affinity equal those of a view made from the nodes afterwards, and the
    view's version has moved when a pod with affinity left."""
    from policytest.scoring.selectors import selector_from_set

    def pod(entry: dict[str, Any]) -> Pod:
        spec: dict[str, Any] = {"requests": {"cpu": "100m"}, "labels": {"app": entry["app"]}}
        if entry["anti"]:
            spec["affinity"] = {
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": {"app": "a"}},
                         "topologyKey": "kubernetes.io/hostname"}
                    ]
                }
            }  # fmt: skip
        (made,) = pods_from_dict(spec, default_requests_from_limits=True)
        return made

    specs = [(f"n{i}", {"name": f"n{i}", "allocatable": {"cpu": "8"}}) for i in range(3)]
    for entry in before:
        specs[entry["node"]][1].setdefault("pods", []).append(
            {"requests": {"cpu": "100m"}, "labels": {"app": entry["app"]}}
        )
    nodes = build_nodes(specs)
    view = ClusterView.of(nodes)
    selectors = [selector_from_set({"app": "a"}), selector_from_set({"app": "b"})]
    if matched_first:
        for selector in selectors:
            view.matching(selector, "default")
    version = view.version
    taken = [(f"n{entry['node']}", pod(entry)) for entry in bound]
    for name, made in taken:
        view.bind(name, made.workload)
    for name, made in reversed(taken):
        view.unbind(name, made.workload)
    again = ClusterView.of(nodes)
    for selector in selectors:
        assert view.matching(selector, "default") == again.matching(selector, "default")
    assert _held(view) == _held(again)
    assert [(g.node.name, g.workload, g.count) for g in view.with_affinity] == [
        (g.node.name, g.workload, g.count) for g in again.with_affinity
    ]
    assert (view.version != version) == any(entry["anti"] for entry in bound)


def _held(view: ClusterView) -> list[list[tuple[object, int]]]:
    """Each node's bound pods, as the view groups them (pod object, count)."""
    return [[(g.workload, g.count) for g in node.groups.values()] for node in view.nodes]
