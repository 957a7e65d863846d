"""The topology plugins' inputs read from the fixture short forms and the Kubernetes shapes."""

from __future__ import annotations

import pytest

from policytest.scoring.cluster import Pod
from policytest.scoring.specs import ClusterSpecError, node_from_dict, pod_from_dict
from policytest.scoring.workload import (
    AffinityTerm,
    HostPort,
    LabelSelector,
    NodeImage,
    OwnerReference,
    SelectorRequirement,
    WorkloadObject,
)
from policytest.scoring.workload_specs import cluster_objects_from_dict, template_hash


def _pod(data: object) -> Pod:
    return pod_from_dict(data, default_requests_from_limits=True)


def test_a_pod_of_a_deployment_is_labelled_and_owned_by_its_replicaset() -> None:
    workload = _pod({"requests": {"cpu": "1"}, "deployment": "web", "image": "nginx"}).workload
    hashed = template_hash("web")
    assert dict(workload.labels) == {"app": "web", "pod-template-hash": hashed}
    assert workload.controller == OwnerReference("ReplicaSet", f"web-{hashed}", "apps/v1", True)
    assert workload.implied_owner is not None
    assert workload.implied_owner.selector == LabelSelector(workload.labels)
    assert workload.images == ("nginx",)


def test_a_full_pod_keeps_metadata_constraints_affinity_and_ports() -> None:
    pod = _pod(
        {
            "metadata": {
                "namespace": "shop",
                "labels": {"app": "cart"},
                "ownerReferences": [{"kind": "StatefulSet", "name": "db", "controller": False}],
            },
            "spec": {
                "containers": [
                    {"image": "a:1", "ports": [{"containerPort": 80, "hostPort": 8080}]},
                    {"image": "b", "ports": [{"containerPort": 81}]},
                ],
                "initContainers": [
                    {
                        "image": "side",
                        "restartPolicy": "Always",
                        "ports": [{"hostPort": 9, "protocol": "UDP"}],
                    },
                    {"image": "init", "ports": [{"hostPort": 10}]},
                ],
                "topologySpreadConstraints": [
                    {
                        "maxSkew": 1,
                        "topologyKey": "zone",
                        "whenUnsatisfiable": "DoNotSchedule",
                        "labelSelector": {"matchLabels": {"app": "cart"}},
                        "minDomains": 3,
                    }
                ],
                "affinity": {
                    "podAntiAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": [
                            {
                                "topologyKey": "kubernetes.io/hostname",
                                "labelSelector": {
                                    "matchExpressions": [
                                        {"key": "app", "operator": "In", "values": ["cart"]}
                                    ]
                                },
                                "namespaceSelector": {},
                            }
                        ]
                    },
                    "nodeAffinity": {
                        "preferredDuringSchedulingIgnoredDuringExecution": [
                            {
                                "weight": 5,
                                "preference": {
                                    "matchExpressions": [{"key": "disk", "operator": "Exists"}]
                                },
                            }
                        ],
                    },
                },
                "volumes": [{"name": "v", "image": {"reference": "data:1"}}],
            },
        }
    )
    workload = pod.workload
    assert workload.namespace == "shop"
    assert workload.controller is None
    assert workload.images == ("a:1", "b")
    assert workload.init_images == ("side", "init")
    assert workload.image_volumes == ("data:1",)
    assert workload.host_ports == (HostPort(9, "UDP"), HostPort(8080))
    assert workload.spread[0].min_domains == 3
    assert workload.affinity.anti_required == (
        AffinityTerm(
            "kubernetes.io/hostname",
            LabelSelector((), (SelectorRequirement("app", "In", ("cart",)),)),
            namespace_selector=LabelSelector(),
        ),
    )
    assert workload.preferred_node_terms is not None
    assert workload.preferred_node_terms[0].weight == 5


def test_node_images_in_both_forms() -> None:
    short = node_from_dict(
        {"name": "a", "allocatable": {"cpu": "1"}, "images": {"nginx:1": "100Mi"}},
        default_requests_from_limits=True,
    )
    assert short.images == (NodeImage(("nginx:1",), 100 * 1024 * 1024),)
    full = node_from_dict(
        {"name": "a", "images": [{"names": ["x@sha256:1", "x:2"], "sizeBytes": 7}]},
        default_requests_from_limits=True,
    )
    assert full.images == (NodeImage(("x@sha256:1", "x:2"), 7),)


def test_cluster_objects_in_both_forms() -> None:
    objects = cluster_objects_from_dict(
        {
            "services": [{"name": "web", "namespace": "shop", "selector": {"app": "web"}}],
            "replicaSets": [
                {
                    "metadata": {"name": "web-1", "namespace": "shop"},
                    "spec": {"selector": {"matchLabels": {"app": "web"}}},
                }
            ],
            "namespaces": [{"name": "shop", "labels": {"team": "a"}}],
        }
    )
    assert objects.services("shop") == [WorkloadObject("Service", "web", "shop", (("app", "web"),))]
    found = objects.find("ReplicaSet", "shop", "web-1")
    assert found is not None and found.selector == LabelSelector((("app", "web"),))
    assert objects.namespace_labels("shop") == {"kubernetes.io/metadata.name": "shop", "team": "a"}
    assert objects.namespace_labels("other") is None


@pytest.mark.parametrize(
    "pod",
    [
        pytest.param({"requests": {}, "labels": {"a": 1}}, id="label-value-not-a-string"),
        pytest.param(
            {"requests": {}, "topologySpreadConstraints": {}}, id="constraints-not-a-list"
        ),
        pytest.param({"requests": {}, "hostPorts": ["x"]}, id="host-port-not-a-number"),
    ],
)
def test_a_malformed_pod_is_a_one_line_error(pod: dict[str, object]) -> None:
    with pytest.raises(ClusterSpecError):
        _pod(pod)
