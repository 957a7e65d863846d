"""Worked examples of the topology plugins' arithmetic, each from the upstream code
(and its unit tests where they pin the number)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from policytest.scoring.cluster import Node, Pod
from policytest.scoring.filters import NO_PLACEMENT, PodFilter, Taint, Toleration, pod_filter
from policytest.scoring.plugins import interpod, spread
from policytest.scoring.plugins.locality import (
    MB,
    NODE_PORTS_REASON,
    image_score,
    node_ports_filter,
)
from policytest.scoring.plugins.preferences import default_normalize, intolerable_taints
from policytest.scoring.plugins.view import ClusterView
from policytest.scoring.selectors import SelectorError, compile_selector
from policytest.scoring.specs import node_from_dict, pod_from_dict
from policytest.scoring.workload import HostPort, LabelSelector, PodWorkload, SelectorRequirement
from tests.scoring.reference import count_matching


def _node(
    name: str, zone: str | None, pods: Sequence[dict[str, object]] = (), **extra: object
) -> Node:
    labels = {"kubernetes.io/hostname": name}
    if zone:
        labels["topology.kubernetes.io/zone"] = zone
    return node_from_dict(
        {"name": name, "allocatable": {"cpu": "8"}, "labels": labels, "pods": list(pods), **extra},
        default_requests_from_limits=True,
    )


def _pod(**spec: object) -> Pod:
    return pod_from_dict({"requests": {"cpu": "1"}, **spec}, default_requests_from_limits=True)


@pytest.mark.parametrize(
    ("scores", "reverse", "expected"),
    [
        ([0, 1, 3], True, [100, 67, 0]),  # 100 - 100*1/3 = 100 - 33
        ([0, 0], True, [100, 100]),
        ([0, 0], False, [0, 0]),
        ([2, 5, 10], False, [20, 50, 100]),
    ],
)
def test_default_normalize(scores: list[int], reverse: bool, expected: list[int]) -> None:
    assert default_normalize(scores, reverse=reverse) == expected


def test_taint_toleration_counts_only_untolerated_prefer_no_schedule_taints() -> None:
    taints = (
        Taint("a", "1", "PreferNoSchedule"),
        Taint("b", "1", "PreferNoSchedule"),
        Taint("c", "1", "NoSchedule"),
    )
    assert intolerable_taints((), taints) == 2
    # a toleration with the NoSchedule effect does not count for scoring
    assert intolerable_taints((Toleration("a", "Exists", "", "NoSchedule"),), taints) == 2
    assert intolerable_taints((Toleration("a", "Exists"),), taints) == 1


def test_system_default_spreading_on_a_cluster_of_replicas() -> None:
    """Raw = round(sum count x ln(domains + 2) + (maxSkew - 1)); normalised
    100 x (max + min - raw) / max; a node without the zone label gets no zone term."""
    nodes = [
        _node("a", "z1", [{"requests": {"cpu": "1"}, "deployment": "web", "count": 2}]),
        _node("b", "z1"),
        _node("c", "z2"),
        _node("d", None),
    ]
    view = ClusterView.of(nodes)
    pod = _pod(deployment="web").workload
    assert pod.implied_owner is not None
    view.imply(pod.implied_owner)
    state = spread.prescore(pod, spread.SpreadArgs(), view.nodes, view, _no_filter())
    assert state is not None and all(c.origin == "system" for c in state.constraints)
    raw = [spread.raw_score(state, node) for node in view.nodes]
    hostname, zone = math.log(4 + 2), math.log(3 + 2)  # zones z1, z2 and "" (node d)
    assert raw == [
        round(2 * hostname + 2 + 2 * zone + 4),
        round(0 * hostname + 2 + 2 * zone + 4),
        (0 + 2 + 0 + 4),
        (0 + 2),
    ]
    assert spread.normalize(state, [n.name for n in view.nodes], raw) == [
        100 * (raw[0] + raw[3] - r) // raw[0] for r in raw
    ]


def test_a_pod_without_owner_or_service_is_not_spread() -> None:
    view = ClusterView.of([_node("a", "z1")])
    assert (
        spread.prescore(_pod().workload, spread.SpreadArgs(), view.nodes, view, _no_filter())
        is None
    )


def test_an_empty_selector_counts_no_pod() -> None:
    """``countPodsMatchSelector``: Everything is empty, so nothing is counted."""
    view = ClusterView.of([_node("a", "z1", [{"requests": {"cpu": "1"}, "labels": {"x": "y"}}])])
    assert count_matching(view.nodes[0], compile_selector(LabelSelector()), "default") == 0


def test_a_selector_with_an_unknown_operator_does_not_parse() -> None:
    with pytest.raises(SelectorError, match="not a valid label selector operator"):
        compile_selector(LabelSelector((), (SelectorRequirement("a", "Equals", ("b",)),)))


def test_min_domains_above_the_domains_measures_skew_from_zero() -> None:
    constraint = {
        "maxSkew": 1,
        "topologyKey": "topology.kubernetes.io/zone",
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "db"}},
        "minDomains": 3,
    }
    nodes = [
        _node("a", "z1", [{"requests": {"cpu": "1"}, "labels": {"app": "db"}}]),
        _node("b", "z2", [{"requests": {"cpu": "1"}, "labels": {"app": "db"}}]),
    ]
    view = ClusterView.of(nodes)
    pod = _pod(labels={"app": "db"}, topologySpreadConstraints=[constraint]).workload
    constraints = spread.constraints_for(pod, spread.SpreadArgs(), view, "DoNotSchedule")
    state = spread.filter_state(pod, constraints, view, _no_filter())
    assert state.minimums == (0,)  # two domains < minDomains 3
    # 1 matching + itself - 0 = 2 > maxSkew 1 on both zones
    assert spread.node_filter(state, view.nodes[0]) == spread.SKEW_REASON


def test_interpod_normalisation_is_min_max_truncated() -> None:
    state = interpod.ScoreState({"k": {"v": 1}})
    assert interpod.normalize(state, [-3, 0, 4]) == [0, int(100 * (3 / 7)), 100]
    assert interpod.normalize(state, [2, 2]) == [0, 0]


def test_image_locality_thresholds_and_spread() -> None:
    """1200 MiB on 3 of 7 nodes -> 514 MiB scaled -> 100 x (514 - 23) / (1000 - 23) = 50."""
    holder = {"images": [{"names": ["big:1"], "sizeBytes": 1200 * MB}]}
    nodes = [_node(f"n{i}", None, **(holder if i < 3 else {})) for i in range(7)]
    view = ClusterView.of(nodes)
    pod = _pod(image="big:1").workload
    scores = [image_score(pod, n, view.images, 7, image_volumes=True) for n in view.nodes]
    assert scores[:3] == [50, 50, 50] and scores[3:] == [0, 0, 0, 0]
    untagged = _pod(image="big").workload  # normalised to big:latest: not on any node
    assert image_score(untagged, view.nodes[0], view.images, 7, image_volumes=True) == 0


@pytest.mark.parametrize(
    ("held", "wanted", "conflicts"),
    [
        (HostPort(80), HostPort(80), True),
        (HostPort(80, "UDP"), HostPort(80), False),
        (HostPort(80, host_ip="10.0.0.1"), HostPort(80, host_ip="10.0.0.2"), False),
        (HostPort(80, host_ip="10.0.0.1"), HostPort(80), True),  # 0.0.0.0 conflicts with all
        (HostPort(80), HostPort(80, host_ip="10.0.0.2"), True),
    ],
)
def test_node_ports(held: HostPort, wanted: HostPort, conflicts: bool) -> None:
    view = ClusterView.of([_node("a", None)])
    view.bind("a", PodWorkload(host_ports=(held,)))
    verdict = node_ports_filter(PodWorkload(host_ports=(wanted,)), view.nodes[0], view)
    assert (verdict == NODE_PORTS_REASON) is conflicts


def _no_filter() -> PodFilter:
    return pod_filter(NO_PLACEMENT)
