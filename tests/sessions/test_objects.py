"""PriorityClasses, Queues and PodGroups: read from the Kubernetes objects and the short
forms alike, bad ones refused in one line naming where, and carried through a snapshot
(kubectl dump -> compact file -> read back) with ``--anonymize`` keeping every reference
between them consistent."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from policytest.scoring.snapshot import anonymize, compact_json, read_snapshot_stream
from policytest.sessions.objects import (
    PodGroup,
    PriorityClass,
    Queue,
    SchedulingSpecError,
    membership,
    scheduling_objects,
)
from tests.conftest import RunLine

PRIORITY_CLASS = {
    "apiVersion": "scheduling.k8s.io/v1",
    "kind": "PriorityClass",
    "metadata": {"name": "high"},
    "value": 1000,
}
QUEUE = {
    "apiVersion": "scheduling.volcano.sh/v1beta1",
    "kind": "Queue",
    "metadata": {"name": "research", "uid": "uid-q", "creationTimestamp": "2026-01-01T00:00:00Z"},
    "spec": {"weight": 3, "capability": {"cpu": "8"}, "guarantee": {"resource": {"cpu": "2"}}},
    "status": {"state": "Open"},
}
POD_GROUP = {
    "apiVersion": "scheduling.volcano.sh/v1beta1",
    "kind": "PodGroup",
    "metadata": {
        "name": "train",
        "namespace": "ml",
        "uid": "uid-pg",
        "creationTimestamp": "2026-01-01T00:00:10Z",
    },
    "spec": {
        "minMember": 2,
        "minResources": {"cpu": "8", "nvidia.com/gpu": "4"},
        "queue": "research",
        "priorityClassName": "high",
    },
    "status": {"phase": "Inqueue"},
}
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {
        "name": "train-worker-1",
        "namespace": "ml",
        "uid": "uid-p1",
        "creationTimestamp": "2026-01-01T00:00:10Z",
        "annotations": {
            "scheduling.k8s.io/group-name": "train",
            "volcano.sh/task-spec": "worker",
            "volcano.sh/task-index": "1",
        },
    },
    "spec": {
        "schedulerName": "volcano",
        "priority": 1000,
        "priorityClassName": "high",
        "containers": [{"name": "main", "resources": {"requests": {"cpu": "4"}}}],
    },
    "status": {"phase": "Pending"},
}
NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "gpu-0"},
    "status": {"allocatable": {"cpu": "64", "pods": "110"}},
}
EXPECTED = scheduling_objects(
    {
        "priorityClasses": [{"name": "high", "value": 1000}],
        "queues": [
            {
                "name": "research",
                "weight": 3,
                "capability": {"cpu": "8"},
                "guarantee": {"cpu": "2"},
                "uid": "uid-q",
                "creationTimestamp": "2026-01-01T00:00:00Z",
            }
        ],
        "podGroups": [
            {
                "name": "train",
                "namespace": "ml",
                "minMember": 2,
                "minResources": {"cpu": "8", "nvidia.com/gpu": "4"},
                "queue": "research",
                "priorityClassName": "high",
                "phase": "Inqueue",
                "uid": "uid-pg",
                "creationTimestamp": "2026-01-01T00:00:10Z",
            }
        ],
    }
)


def test_the_objects_and_the_short_forms_read_alike() -> None:
    full = scheduling_objects(
        {"priorityClasses": [PRIORITY_CLASS], "queues": [QUEUE], "podGroups": [POD_GROUP]}
    )
    assert full == EXPECTED
    assert full.priority_classes == (PriorityClass("high", 1000),)
    assert full.queues[0].weight == 3 and full.queues[0].guarantee == {"cpu": "2"}
    assert full.pod_groups[0].key == "ml/train"


def test_the_api_servers_defaults() -> None:
    objects = scheduling_objects({"queues": [{"name": "q"}], "podGroups": [{"name": "pg"}]})
    assert objects.queues == (Queue("q"),)
    assert objects.queues[0].weight == 1 and objects.queues[0].state == "Open"
    assert objects.pod_groups == (PodGroup("pg"),)
    assert objects.pod_groups[0].queue == "default" and objects.pod_groups[0].phase == "Pending"


def test_the_global_default_priority() -> None:
    objects = scheduling_objects(
        {"priorityClasses": [{"name": "a", "value": 5, "globalDefault": True}, {"name": "b"}]}
    )
    assert objects.default_priority == 5
    assert scheduling_objects({}).default_priority == 0


@pytest.mark.parametrize(
    ("cluster", "message"),
    [
        pytest.param(
            {"priorityClasses": [{"value": 1}]},
            "cluster.priorityClasses[0]: needs a `name`",
            id="no-name",
        ),
        pytest.param(
            {"queues": [{"name": "q", "weight": "2"}]},
            "cluster.queues[0].weight: must be an integer",
            id="quoted-weight",
        ),
        pytest.param(
            {"queues": [{"name": "q", "state": "open"}]},
            "cluster.queues[0].state: one of Open, Closed, Closing, Unknown",
            id="state-case",
        ),
        pytest.param(
            {"podGroups": [{"name": "g", "minResources": {"cpu": "lots"}}]},
            "cluster.podGroups[0].minResources.cpu:",
            id="bad-quantity",
        ),
        pytest.param(
            {"podGroups": {"name": "g"}}, "cluster.podGroups: expected a list", id="not-a-list"
        ),
    ],
)
def test_bad_objects_are_refused_saying_where(cluster: dict[str, Any], message: str) -> None:
    with pytest.raises(SchedulingSpecError, match="^" + message.replace("[", r"\[")) as error:
        scheduling_objects(cluster)
    assert error.value.key == next(iter(cluster))


def test_a_pods_membership() -> None:
    member = membership(POD)
    assert (member.job, member.role, member.priority, member.scheduler_name) == (
        "ml/train",
        "worker",
        1000,
        "volcano",
    )
    annotated = {**POD, "metadata": {**POD["metadata"], "annotations": {
        **POD["metadata"]["annotations"], "volcano.sh/task-priority": "7"}}}  # fmt: skip
    assert membership(annotated).priority == 7
    unparsable = {**POD, "metadata": {"annotations": {"volcano.sh/task-priority": "7.5"}}}
    assert membership(unparsable).priority == 1000  # ParseInt fails: spec.priority stays
    assert membership({"requests": {"cpu": "1"}}).job == ""


def _snapshot(items: list[dict[str, Any]]) -> Any:
    dump = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}).encode()
    return read_snapshot_stream(io.BytesIO(dump), "dump.json")


def test_a_snapshot_carries_them_through_its_compact_file() -> None:
    snapshot = _snapshot([NODE, PRIORITY_CLASS, QUEUE, POD_GROUP, POD])
    assert snapshot.counts.scheduling_objects == 3
    assert scheduling_objects(snapshot.objects) == EXPECTED
    pending = snapshot.pending[0]
    assert pending["metadata"]["annotations"]["scheduling.k8s.io/group-name"] == "train"
    assert pending["spec"]["priorityClassName"] == "high"
    assert pending["spec"]["schedulerName"] == "volcano"
    again = read_snapshot_stream(io.BytesIO(compact_json(snapshot).encode()), "compact.json")
    assert again.objects == snapshot.objects
    assert again.pending == snapshot.pending
    assert again.counts.scheduling_objects == 3


def test_anonymize_keeps_every_reference_consistent() -> None:
    default_group = {**POD_GROUP, "spec": {"minMember": 1}}  # the queue `default`, implied
    default_queue = {**QUEUE, "metadata": {"name": "default"}}
    solo = {**default_group, "metadata": {"name": "solo"}}
    items = [NODE, PRIORITY_CLASS, QUEUE, default_queue, POD_GROUP, solo, POD]
    snapshot = anonymize(_snapshot(items))
    objects = scheduling_objects(snapshot.objects)
    pod = snapshot.pending[0]
    member = membership(pod)
    group = objects.pod_groups[0]
    assert member.group == group.name != "train"
    assert member.namespace == group.namespace != "ml"
    assert member.priority_class == group.priority_class == objects.priority_classes[0].name
    assert group.queue == objects.queues[0].name != "research"
    assert objects.pod_groups[1].queue == objects.queues[1].name != "default"
    assert member.role != "worker" and member.role  # hashed, still a role
    # what orders jobs and tasks is kept: the index at the end of the name, creation times
    assert pod["metadata"]["name"].endswith("-1") and "train" not in pod["metadata"]["name"]
    assert pod["metadata"]["annotations"]["volcano.sh/task-index"] == "1"
    assert group.created == "2026-01-01T00:00:10Z" and group.min_resources == {
        "cpu": "8",
        "nvidia.com/gpu": "4",
    }


def test_validate_points_at_the_bad_object(run_line: RunLine, tmp_path: Path) -> None:
    fixture = tmp_path / "jobs.policytest.yaml"
    fixture.write_text(
        "apiVersion: policytest/v1\nkind: PolicyTest\nscheduler:\n"
        "  volcano: {actions: allocate, tiers: [{plugins: [{name: binpack}]}]}\n"
        "cluster:\n  nodes:\n  - {name: n1, allocatable: {cpu: '8', pods: '110'}}\n"
        "  queues:\n  - {name: research, weight: '3'}\n"
        "cases:\n- name: one\n  pod: {requests: {cpu: '1'}}\n  expect: {top: n1}\n"
    )
    result = run_line(["validate", str(fixture)])
    assert result.exit_code == 1
    assert (
        "jobs.policytest.yaml:9:3: PT003 error: cluster.queues[0].weight: must be an integer"
        in (result.stdout)
    )
