"""The topology plugins scored by groups of nodes give exactly what scoring each node
on its own gives.

A cycle keys each feasible node by what every score plugin reads of it (taints, labels,
topology domains, its own matching pods, images) and scores each group once
(``policytest.scoring.plugins.profile``); PodTopologySpread counts matching pods from
the view's index of bound pods by label set. With a cluster's ``memo`` off every node
is scored on its own; both must agree on every field
and note of every node, on the ranking and after each bind, under kube-scheduler's
default profile, a ``List``-defaulted one and Volcano's nodeorder, on clusters with
varied labels, zones, taints, images, bound Deployment pods, affinity and Services. The
index's counts are held to counting each node's pods apart (``_assert_counts_exact``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policytest.core.options import CheckOptions
from policytest.harness.load import scheduler_from_file
from policytest.harness.runner import rank
from policytest.scoring.cluster import Node, Pod
from policytest.scoring.filters import pod_filter
from policytest.scoring.plugins import spread
from policytest.scoring.plugins.profile import with_rows
from policytest.scoring.plugins.view import ClusterView
from policytest.scoring.protocol import Scheduler
from policytest.scoring.selectors import Selector, compile_selector
from policytest.scoring.specs import node_from_dict, pod_from_dict
from policytest.scoring.verdicts import Scores, Verdict, filtered
from policytest.scoring.workload import ClusterObjects, LabelSelector, SelectorRequirement
from policytest.scoring.workload_specs import cluster_objects_from_dict
from tests.scoring.reference import count_matching
from tests.scoring.test_verdicts import _full

KUBE = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
KUBE_LIST = KUBE + (
    "profiles:\n"
    "- schedulerName: default-scheduler\n"
    "  pluginConfig:\n"
    "  - name: PodTopologySpread\n"
    "    args:\n"
    "      defaultingType: List\n"
    "      defaultConstraints:\n"
    "      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone,"
    " whenUnsatisfiable: ScheduleAnyway}\n"
    "      - {maxSkew: 2, topologyKey: kubernetes.io/hostname,"
    " whenUnsatisfiable: ScheduleAnyway}\n"
)
VOLCANO = (
    'actions: "enqueue, allocate, backfill"\ntiers:\n- plugins:\n  - name: predicates\n'
    "  - name: nodeorder\n  - name: binpack\n"
)
CONFIGS = {
    "kube-default": ("default.yaml", KUBE, None),
    "kube-list-defaults": ("list.yaml", KUBE_LIST, None),
    "volcano-1.15": ("volcano-scheduler.conf", VOLCANO, "1.15"),
    "volcano-1.16": ("volcano-scheduler.conf", VOLCANO, "1.16"),
}
ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
APP = "registry.example.com/app:1"
BIG = "registry.example.com/big:2"


@pytest.fixture(scope="module")
def schedulers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Scheduler]:
    found = {}
    for name, (file, text, release) in CONFIGS.items():
        path = tmp_path_factory.mktemp(name) / file
        path.write_text(text, encoding="utf-8")
        options = CheckOptions() if release is None else CheckOptions(volcano_version=release)
        found[name] = scheduler_from_file(str(path), options=options)
    return found


def _term(weight: int, app: str, key: str) -> dict[str, Any]:
    return {
        "weight": weight,
        "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key},
    }


def _constraint(key: str, skew: int, when: str, **extra: Any) -> dict[str, Any]:
    return {
        "maxSkew": skew,
        "topologyKey": key,
        "whenUnsatisfiable": when,
        "labelSelector": {"matchLabels": {"app": "web"}},
        **extra,
    }


BOUND = [
    {"requests": {"cpu": "100m"}, "deployment": "web"},
    {"requests": {"cpu": "250m"}, "deployment": "db"},
    {"requests": {"cpu": "100m"}, "deployment": "web", "namespace": "other"},
    {"requests": {"cpu": "100m"}, "labels": {"app": "web", "tier": "edge"}},
    {
        "requests": {"cpu": "100m"},
        "deployment": "api",
        "affinity": {
            "podAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [_term(7, "web", ZONE)]
            }
        },
    },
]
INCOMING = [
    {"deployment": "web", "image": APP},
    {"deployment": "db", "tolerations": [{"key": "spot", "operator": "Exists"}]},
    {
        "deployment": "web",
        "affinity": {
            "nodeAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 5,
                        "preference": {
                            "matchExpressions": [
                                {"key": "disk", "operator": "In", "values": ["ssd"]}
                            ]
                        },
                    }
                ]
            }
        },
    },
    {
        "labels": {"app": "web"},
        "topologySpreadConstraints": [
            _constraint(ZONE, 1, "ScheduleAnyway"),
            _constraint(HOSTNAME, 2, "ScheduleAnyway"),
        ],
    },
    {
        "labels": {"app": "web"},
        "topologySpreadConstraints": [_constraint(ZONE, 1, "DoNotSchedule")],
    },
    {
        "deployment": "web",
        "affinity": {
            "podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [_term(3, "web", HOSTNAME)]
            }
        },
    },
    {"image": BIG},
    {"deployment": "web", "nodeSelector": {"disk": "ssd"}},
    {
        "labels": {"app": "web"},
        "nodeSelector": {"disk": "ssd"},
        "topologySpreadConstraints": [
            _constraint(ZONE, 1, "ScheduleAnyway", nodeTaintsPolicy="Honor"),
            _constraint(HOSTNAME, 1, "ScheduleAnyway", nodeAffinityPolicy="Ignore"),
        ],
    },
    {"deployment": "web", "namespace": "other", "image": BIG, "initImage": APP},
]
TAINTS = [
    [],
    [{"key": "spot", "effect": "PreferNoSchedule"}],
    [{"key": "spot", "effect": "PreferNoSchedule"}, {"key": "gpu", "effect": "PreferNoSchedule"}],
    [{"key": "dedicated", "effect": "NoSchedule"}],
]


def _incoming(spec: dict[str, Any]) -> Pod:
    spec = {"requests": {"cpu": "200m", "memory": "256Mi"}, **spec}
    init = spec.pop("initImage", None)
    if init is not None:
        spec["initContainers"] = [{"image": init, "requests": {"cpu": "100m"}}]
    return pod_from_dict(spec, default_requests_from_limits=True)


@st.composite
def _node(draw: st.DrawFn, index: int) -> dict[str, Any]:
    name = f"n{index}"
    labels = {} if draw(st.integers(0, 7)) == 0 else {HOSTNAME: name}
    zone = draw(st.sampled_from([None, "z1", "z2", ""]))
    if zone is not None:
        labels[ZONE] = zone
    if draw(st.booleans()):
        labels["disk"] = draw(st.sampled_from(["ssd", "hdd"]))
    spec: dict[str, Any] = {
        "name": name,
        "allocatable": draw(
            st.sampled_from(
                [
                    {"cpu": "4", "memory": "8Gi", "pods": "110"},
                    {"cpu": "8", "memory": "16Gi", "pods": "110"},
                ]
            )
        ),
        "labels": labels,
        "pods": draw(st.lists(st.sampled_from(BOUND), max_size=4)),
    }
    taints = draw(st.sampled_from(TAINTS))
    if taints:
        spec["taints"] = taints
    images = draw(st.sets(st.sampled_from([APP, BIG])))
    if images:
        spec["images"] = {image: "300Mi" if image == APP else "900Mi" for image in images}
    return spec


@st.composite
def _cluster(draw: st.DrawFn) -> tuple[list[Node], ClusterObjects, list[Pod]]:
    specs = [draw(_node(i)) for i in range(draw(st.integers(2, 9)))]
    if draw(st.booleans()):  # nodes in equal states, as real clusters have
        specs += [{**spec, "name": f"{spec['name']}-twin"} for spec in specs[:3]]
        for spec in specs[-3:]:
            if HOSTNAME in spec["labels"]:
                spec["labels"] = {**spec["labels"], HOSTNAME: spec["name"]}
    nodes = [node_from_dict(spec, default_requests_from_limits=True) for spec in specs]
    services = [{"name": "web", "selector": {"app": "web"}}] if draw(st.booleans()) else []
    objects = cluster_objects_from_dict({"services": services})
    kinds = draw(st.lists(st.sampled_from(INCOMING), min_size=1, max_size=3))
    pods = [_incoming(draw(st.sampled_from(kinds))) for _ in range(draw(st.integers(1, 6)))]
    return nodes, objects, pods


def _every_field(scores: Sequence[Any]) -> list[tuple[object, ...]]:
    return [(*_full(s), dict(s.notes) if s.feasible else None) for s in scores]


def _assert_counts_exact(view: ClusterView, selectors: Sequence[Selector]) -> None:
    """The index's matching pods per node are ``countPodsMatchSelector``'s, node by node."""
    for selector in selectors:
        for namespace in ("default", "other"):
            counts = spread.matching_counts(view, selector, namespace)
            for node in view.nodes:
                assert counts.get(node.name, 0) == count_matching(node, selector, namespace)


def _assert_prescore_exact(args: spread.SpreadArgs, pod: Pod, view: ClusterView) -> None:
    """PodTopologySpread's PreScore (domains of the feasible nodes, here every other
    node; pods counted from the index) as upstream counts them, node by node."""
    feasible = view.nodes[::2]
    state = spread.prescore(pod.workload, args, feasible, view, pod_filter(pod.placement))
    if state is None:
        return
    keys = [c.topology_key for c in state.constraints]
    require_all = bool(pod.workload.spread) or not args.system_defaulted
    ignored = {n.name for n in feasible if require_all and not all(k in n.labels for k in keys)}
    counts: list[dict[str, int]] = [{} for _ in keys]
    for node in feasible:
        if node.name not in ignored:
            for key, domains in zip(keys, counts, strict=True):
                if key != HOSTNAME:
                    domains.setdefault(node.labels.get(key, ""), 0)
    for node in view.nodes:
        if require_all and not all(k in node.labels for k in keys):
            continue
        for c, domains in zip(state.constraints, counts, strict=True):
            value = node.labels.get(c.topology_key, "")
            if value in domains and spread._included(c, node, pod_filter(pod.placement)):
                domains[value] += count_matching(node, c.selector, state.namespace)
    assert state.ignored == ignored
    assert list(state.counts) == counts


WEB = compile_selector(LabelSelector((("app", "web"),)))
SELECTORS = [
    WEB,
    compile_selector(LabelSelector((), (SelectorRequirement("app", "Exists"),))),
    compile_selector(LabelSelector((), (SelectorRequirement("tier", "NotIn", ("edge",)),))),
]


@pytest.mark.parametrize("name", sorted(CONFIGS))
@settings(max_examples=50)
@given(cluster=_cluster())
def test_grouped_scores_equal_each_node_scored_alone(
    name: str,
    cluster: tuple[list[Node], ClusterObjects, list[Pod]],
    schedulers: dict[str, Scheduler],
) -> None:
    nodes, objects, pods = cluster
    scheduler: Any = schedulers[name]
    grouped: Any = scheduler.cluster(nodes, objects)
    alone: Any = scheduler.cluster(nodes, objects)
    alone.memo = False
    _assert_counts_exact(grouped.view, SELECTORS)
    for pod in pods:
        _assert_prescore_exact(scheduler.profile.spread, pod, grouped.view)
        got, want = grouped.score(pod), alone.score(pod)
        assert _every_field(got) == _every_field(want)
        ranking = rank(list(want))
        assert rank(got) == ranking
        names = [score.name for score in want][::-1][:3]
        assert _every_field(grouped.score(pod, only=names)) == _every_field(
            alone.score(pod, only=names)
        )
        if ranking:
            grouped.bind(ranking[0][0], pod)
            alone.bind(ranking[0][0], pod)
            _assert_counts_exact(grouped.view, SELECTORS)


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    matches: Callable[[Selector, Any], bool] = Selector.matches

    def counted(selector: Selector, labels: Any) -> bool:
        calls.append(1)
        return matches(selector, labels)

    monkeypatch.setattr(Selector, "matches", counted)
    return calls


def test_a_selector_is_matched_once_per_label_set_not_per_pod(
    monkeypatch: pytest.MonkeyPatch, schedulers: dict[str, Scheduler]
) -> None:
    """200 bound pods of two Deployments: spreading a third Deployment's pod matches its
    selector against the two label sets, and binding a pod of a known label set matches
    nothing again."""
    pods = [{"requests": {"cpu": "10m"}, "deployment": d} for d in ("web", "db")] * 2
    nodes = [
        node_from_dict(
            {
                "name": f"n{i}",
                "allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"},
                "labels": {HOSTNAME: f"n{i}", ZONE: f"z{i % 3}"},
                "pods": pods,
            },
            default_requests_from_limits=True,
        )
        for i in range(50)
    ]
    state: Any = schedulers["kube-default"].cluster(nodes)
    calls = _counting(monkeypatch)
    web = _incoming({"deployment": "web"})
    state.score(web)
    assert 0 < len(calls) <= 2  # the web selector against the web and db label sets
    state.bind("n7", web)
    state.score(web)
    assert len(calls) <= 2
    assert spread.matching_counts(state.view, WEB, "default")["n7"] == 3


def test_counts_read_to_keep_stay_as_read_and_the_others_change_in_place() -> None:
    """A cycle's PreScore keeps the matching pods it read (its notes read them after
    later binds), so a bind replaces counts read that way; counts read for now only (a
    kept kind catching up) are changed in place, not copied at every bind (which cost a
    50,000-pod repack half a minute). Either way the index counts as upstream does."""
    spec = {"requests": {"cpu": "10m"}, "labels": {"app": "web"}}
    nodes = [
        node_from_dict(
            {"name": f"n{i}", "allocatable": {"cpu": "8"}, "pods": [spec] * i},
            default_requests_from_limits=True,
        )
        for i in range(3)
    ]
    view = ClusterView.of(nodes)
    web = pod_from_dict(spec, default_requests_from_limits=True).workload
    kept = spread.matching_counts(view, WEB, "default")
    assert kept == {"n1": 1, "n2": 2}
    view.bind("n0", web)
    assert kept == {"n1": 1, "n2": 2}  # as PreScore read it
    now = spread.matching_counts(view, WEB, "default", keep=False)
    assert now == {"n0": 1, "n1": 1, "n2": 2}
    view.bind("n1", web)
    assert spread.matching_counts(view, WEB, "default", keep=False) is now
    assert now == {"n0": 1, "n1": 2, "n2": 2}
    _assert_counts_exact(view, [WEB])


@st.composite
def _verdicts_and_rows(
    draw: st.DrawFn,
) -> tuple[list[Verdict], list[dict[str, int]]]:
    """Verdicts of a cluster's nodes (some shared, some filtered out) and a row for each
    feasible node (some shared)."""
    shared = [
        (True, None, float(total), {"NodeResourcesFit": float(total)}, {}, {}, {})
        for total in range(draw(st.integers(1, 3)))
    ]
    out = filtered("Insufficient cpu")
    verdicts: list[Verdict] = [
        draw(st.sampled_from([*shared, out])) for _ in range(draw(st.integers(0, 12)))
    ]
    rows = [{"TaintToleration": 100 * score} for score in range(2)]
    feasible = sum(1 for verdict in verdicts if verdict[0])
    return verdicts, [draw(st.sampled_from(rows)) for _ in range(feasible)]


@settings(max_examples=200)
@given(drawn=_verdicts_and_rows())
def test_rows_are_added_to_each_feasible_node_whatever_how_few(
    drawn: tuple[list[Verdict], list[dict[str, int]]],
) -> None:
    """``with_rows`` adds each feasible node's row to its verdict and leaves the others
    as they are, whether most nodes are feasible (shared sums over all nodes) or a few
    (only those walked: a pod pinned to a node pool of a big cluster)."""
    verdicts, rows = drawn
    names = [f"n{i}" for i in range(len(verdicts))]
    found = with_rows(Scores(names, verdicts), rows, _plus)
    feasible = iter(rows)
    assert found == [_plus(v, next(feasible)) if v[0] else v for v in verdicts]


def _plus(verdict: Verdict, row: Mapping[str, int]) -> Verdict:
    return (True, None, verdict[2] + sum(row.values()), {**verdict[3], **row}, *verdict[4:])
