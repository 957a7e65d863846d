"""Pod and node accounting: what each scheduler thinks a pod requests and a node holds."""

from __future__ import annotations

from typing import Any

import pytest

from policytest.scoring.accounting import (
    DEFAULT_MEMORY_REQUEST,
    is_extended_resource_name,
    is_scalar_resource_name,
    kube_node_info,
    kube_node_info_with_pod,
    kube_pod_non_zero_requests,
    kube_pod_requests,
    volcano_node_info,
    volcano_node_info_with_pod,
    volcano_pod_request,
)
from policytest.scoring.cluster import Node, Pod
from policytest.scoring.quantity import QuantityError
from policytest.scoring.specs import (
    MAX_POD_COUNT,
    ClusterSpecError,
    node_from_dict,
    pod_from_dict,
    pods_from_dict,
)

MI = 1024**2
GI = 1024**3


def pod(data: dict[str, Any], *, defaulting: bool = False) -> Pod:
    return pod_from_dict(data, default_requests_from_limits=defaulting)


def node(data: dict[str, Any], *, defaulting: bool = False) -> Node:
    return node_from_dict(data, default_requests_from_limits=defaulting)


def test_sidecars_accumulate_through_init_order() -> None:
    # KEP-753: init container i runs next to the sidecars started before it.
    spec = pod(
        {
            "containers": [{"requests": {"cpu": "1", "memory": "1Gi"}}],
            "initContainers": [
                {"requests": {"cpu": "500m", "memory": "1Gi"}, "restartPolicy": "Always"},
                {"requests": {"cpu": "3", "memory": "1Gi"}},
                {"requests": {"cpu": "200m"}, "restartPolicy": "Always"},
            ],
        }
    )
    # containers + sidecars = 1.7 cpu / 2Gi; init i1 with sidecar i0 = 3.5 cpu / 2Gi.
    assert kube_pod_requests(spec) == {"cpu": 3500, "memory": 2 * GI}
    assert volcano_pod_request(spec) == {"cpu": 3500.0, "memory": 2.0 * GI, "pods": 1.0}


def test_regular_init_container_only_raises_the_peak() -> None:
    spec = pod(
        {
            "containers": [{"requests": {"cpu": "500m", "memory": "512Mi"}}],
            "initContainers": [{"requests": {"cpu": "2", "memory": "100Mi"}}],
        }
    )
    assert kube_pod_requests(spec) == {"cpu": 2000, "memory": 512 * MI}
    assert kube_pod_non_zero_requests(spec) == {"cpu": 2000, "memory": 512 * MI}


def test_non_zero_defaults_fill_what_a_container_does_not_mention() -> None:
    spec = pod(
        {
            "containers": [{}, {"requests": {"cpu": "0"}}, {"requests": {"memory": "1Gi"}}],
            "initContainers": [{"restartPolicy": "Always"}],
        }
    )
    assert kube_pod_requests(spec) == {"cpu": 0, "memory": GI}
    # {} -> 100m + 200Mi; explicit "0" cpu stays 0 (+200Mi); memory-only -> +100m;
    # the sidecar that requests nothing gets both defaults too.
    assert kube_pod_non_zero_requests(spec) == {
        "cpu": 300,
        "memory": GI + 3 * DEFAULT_MEMORY_REQUEST,
    }


def test_overhead_is_added_after_the_init_container_peak() -> None:
    spec = pod(
        {
            "containers": [{"requests": {"cpu": "0"}}],
            "initContainers": [{"requests": {"cpu": "100m"}}],
            "overhead": {"cpu": "500m", "memory": "1Gi"},
        }
    )
    assert kube_pod_requests(spec)["cpu"] == 600
    assert volcano_pod_request(spec)["cpu"] == 600.0
    assert volcano_pod_request(spec)["memory"] == float(GI)


def test_kube_rounds_once_per_pod_volcano_once_per_container() -> None:
    spec = pod({"containers": [{"requests": {"cpu": "0.5m"}}, {"requests": {"cpu": "0.5m"}}]})
    assert kube_pod_requests(spec)["cpu"] == 1
    assert volcano_pod_request(spec)["cpu"] == 2.0
    bound = node(
        {"name": "n", "allocatable": {"cpu": "1"}, "pods": [{"requests": {"cpu": "0.5m"}}] * 2}
    )
    assert kube_node_info(bound).requested["cpu"] == 2  # NodeInfo adds rounded pods


def test_pod_level_requests_replace_cpu_and_memory() -> None:
    spec = pod(
        {
            "containers": [{"requests": {"cpu": "1", "memory": "1Gi", "example.com/foo": "2"}}],
            "resources": {"requests": {"cpu": "500m"}},
        }
    )
    assert kube_pod_requests(spec) == {"cpu": 500, "memory": GI, "example.com/foo": 2}
    assert volcano_pod_request(spec) == {
        "cpu": 500.0,
        "memory": float(GI),
        "example.com/foo": 2000.0,
        "pods": 1.0,
    }


def test_pod_level_requests_and_node_non_zero_defaults() -> None:
    # With pod-level requests set, NodeInfo defaults only what the pod's requests lack.
    spec = pod({"containers": [{}], "resources": {"requests": {"cpu": "2"}}})
    assert kube_pod_non_zero_requests(spec, True) == {"cpu": 2000, "memory": DEFAULT_MEMORY_REQUEST}
    # Fit's score never gets the gate: it sums the containers (k136-fit-0087's quirk).
    assert kube_pod_non_zero_requests(spec) == {"cpu": 100, "memory": DEFAULT_MEMORY_REQUEST}
    # With PodLevelResources off (1.33) the pod-level requests count nowhere.
    assert kube_pod_requests(spec, False) == {} or kube_pod_requests(spec, False)["cpu"] == 0
    assert kube_node_info(Node("n", pods=(spec,)), False).requested["cpu"] == 0
    info = kube_node_info(Node("n", pods=(spec,)))
    assert info.non_zero_requested == {"cpu": 2000, "memory": DEFAULT_MEMORY_REQUEST}
    full = pod({"containers": [{}], "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}})
    assert kube_node_info(Node("n", pods=(full,))).non_zero_requested == {"cpu": 2000, "memory": GI}


def test_requests_default_to_limits_only_with_api_server_defaulting() -> None:
    data = {"containers": [{"resources": {"limits": {"cpu": "2"}, "requests": {"memory": "1Gi"}}}]}
    assert kube_pod_requests(pod(data)) == {"memory": GI}
    assert kube_pod_requests(pod(data, defaulting=True)) == {"cpu": 2000, "memory": GI}


def test_pod_level_requests_default_from_pod_level_limits() -> None:
    data = {
        "containers": [{"requests": {"cpu": "1"}}, {}],
        "resources": {"limits": {"cpu": "4", "memory": "2Gi"}},
    }
    # cpu: the containers' aggregate request (1); memory: nobody requests it -> the limit.
    assert kube_pod_requests(pod(data, defaulting=True)) == {"cpu": 1000, "memory": 2 * GI}
    assert kube_pod_requests(pod(data)) == {"cpu": 1000}


@pytest.mark.parametrize(
    ("name", "extended", "scalar"),
    [
        ("nvidia.com/gpu", True, True),
        ("example.com/foo", True, True),
        ("count/pods", True, True),
        ("hugepages-2Mi", False, True),
        ("kubernetes.io/batch-cpu", False, True),
        ("attachable-volumes-csi-x", False, True),
        ("foo", False, False),
        ("requests.nvidia.com/gpu", False, False),
        ("cpu", False, False),
        ("Bad_Domain/x", False, False),
    ],
)
def test_resource_name_classes(name: str, extended: bool, scalar: bool) -> None:
    assert (is_extended_resource_name(name), is_scalar_resource_name(name)) == (extended, scalar)


def test_node_views_keep_what_each_scheduler_keeps() -> None:
    data = {
        "name": "m",
        "allocatable": {
            "cpu": "2",
            "memory": "2Gi",
            "pods": "10",
            "ephemeral-storage": "10Gi",
            "foo": "5",
            "count/pods": "5",
            "nvidia.com/gpu": "4",
        },
        "pods": [{"requests": {"nvidia.com/gpu": "1", "ephemeral-storage": "1Gi"}}],
    }
    kube = kube_node_info(node(data))
    assert kube.allocatable == {
        "cpu": 2000,
        "memory": 2 * GI,
        "ephemeral-storage": 10 * GI,
        "count/pods": 5,
        "nvidia.com/gpu": 4,
    }
    assert kube.allowed_pod_number == 10
    assert kube.requested == {"cpu": 0, "memory": 0, "ephemeral-storage": GI, "nvidia.com/gpu": 1}
    assert kube.non_zero_requested == {"cpu": 100, "memory": DEFAULT_MEMORY_REQUEST}
    volcano = volcano_node_info(node(data))
    assert volcano.allocatable == {
        "cpu": 2000.0,
        "memory": 2.0 * GI,
        "pods": 10.0,
        "ephemeral-storage": 10.0 * GI * 1000,
        "nvidia.com/gpu": 4000.0,
    }
    assert volcano.used == {
        "cpu": 0.0,
        "memory": 0.0,
        "nvidia.com/gpu": 1000.0,
        "ephemeral-storage": 1000.0 * GI,
        "pods": 1.0,
    }
    assert (volcano.pod_count, volcano.max_task_num) == (1, 10)


def test_binding_a_pod_equals_rebuilding_the_node() -> None:
    data = {"name": "n", "allocatable": {"cpu": "4", "pods": "5"}, "used": {"cpu": "1"}}
    extra = pod({"containers": [{}, {"requests": {"cpu": "250m", "nvidia.com/gpu": "1"}}]})
    bound = node(data)
    rebuilt = Node(bound.name, bound.allocatable, (*bound.pods, extra))
    assert kube_node_info_with_pod(kube_node_info(bound), extra) == kube_node_info(rebuilt)
    assert volcano_node_info_with_pod(volcano_node_info(bound), extra) == volcano_node_info(rebuilt)


def test_fixture_pod_forms() -> None:
    shorthand = pods_from_dict(
        {"requests": {"cpu": "1"}, "count": 3}, default_requests_from_limits=True
    )
    assert len(shorthand) == 3 and len(set(shorthand)) == 1
    manifest = pod(
        {
            "metadata": {"name": "web"},
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
        }
    )
    assert manifest.name == "web" and kube_pod_requests(manifest) == {"cpu": 1000}
    used = node({"name": "n", "used": {"cpu": "6", "memory": "4Gi"}, "pods": [{"count": 2}]})
    assert len(used.pods) == 3
    assert kube_node_info(used).requested["cpu"] == 6000
    assert pods_from_dict({"count": 0}, default_requests_from_limits=True) == ()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param([], "expected a mapping", id="not-a-mapping"),
        pytest.param({"count": -1}, "count", id="negative-count"),
        pytest.param({"count": True}, "count", id="bool-count"),
        pytest.param({"count": MAX_POD_COUNT + 1}, "count", id="huge-count"),
        pytest.param({"containers": {}}, "list of containers", id="containers-not-a-list"),
        pytest.param(
            {"requests": {"cpu": "1"}, "containers": []}, "not both", id="shorthand-and-containers"
        ),
        pytest.param(
            {"containers": [{"restartPolicy": "Always"}]}, "only init containers", id="sidecar"
        ),
        pytest.param({"requests": {"": "1"}}, "non-empty strings", id="empty-resource-name"),
        pytest.param(
            {"containers": [{"requests": {}, "resources": {}}]}, "not both", id="two-spellings"
        ),
    ],
)
def test_malformed_pods_raise_cluster_spec_error(data: object, message: str) -> None:
    with pytest.raises(ClusterSpecError, match=message):
        pods_from_dict(data, default_requests_from_limits=True, where="case `x`")


def test_malformed_quantity_is_located() -> None:
    with pytest.raises(QuantityError, match=r"^pods\[0\]\.containers\[1\]\.requests\.cpu: "):
        node_from_dict(
            {"name": "n", "pods": [{"containers": [{}, {"requests": {"cpu": "2x"}}]}]},
            default_requests_from_limits=True,
        )


@pytest.mark.parametrize(
    "data",
    [
        pytest.param({"allocatable": {}}, id="no-name"),
        pytest.param({"name": "n", "pods": {}}, id="pods-not-a-list"),
    ],
)
def test_malformed_nodes(data: dict[str, Any]) -> None:
    with pytest.raises(ClusterSpecError):
        node(data)
