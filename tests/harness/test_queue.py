"""kube-scheduler's queue: the Priority admission plugin, then PrioritySort.

The tables are upstream's own unit tests, transcribed as data:
``plugin/pkg/admission/priority/admission_test.go`` (``TestPodAdmission``,
``TestDefaultPriority``) and ``pkg/scheduler/framework/plugins/queuesort/
priority_sort_test.go`` (``TestLess``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from policytest.harness.queue import (
    QueueSpecError,
    admitted_priority,
    pod_queue,
    stored_priority,
)


@dataclass(frozen=True)
class Class:
    name: str
    value: int
    global_default: bool = False


DEFAULT1 = Class("default1", 1000, global_default=True)
DEFAULT2 = Class("default2", 2000, global_default=True)
NONDEFAULT1 = Class("nondefault1", 2000)
SYSTEM_CLUSTER_CRITICAL = Class("system-cluster-critical", 2000000000, global_default=True)
PREEMPTION_POLICY_CLASS = Class("nopreemptionpolicy", 2000, global_default=True)

# TestPodAdmission: (name, existing classes, pod spec, expected priority or None: refused)
POD_ADMISSION: list[tuple[str, list[Class], dict[str, Any], int | None]] = [
    ("Pod with priority class", [DEFAULT1, NONDEFAULT1], {"priorityClassName": "default1"}, 1000),
    ("Pod without priority class", [DEFAULT1], {}, 1000),
    ("pod without priority class and no existing priority class", [], {}, 0),
    ("pod without priority class and no default class", [NONDEFAULT1], {}, 0),
    (
        "pod with a system priority class",
        [SYSTEM_CLUSTER_CRITICAL],
        {"priorityClassName": "system-cluster-critical"},
        2000000000,
    ),
    (
        "Pod with non-existing priority class",
        [DEFAULT1, NONDEFAULT1],
        {"priorityClassName": "non-existing"},
        None,
    ),
    ("pod with integer priority", [], {"priorityClassName": "default1", "priority": 1000}, None),
    (
        "pod with system critical priority in non-system namespace",
        [SYSTEM_CLUSTER_CRITICAL],
        {"priorityClassName": "system-cluster-critical"},
        2000000000,
    ),
    ("pod with priority that matches computed priority", [NONDEFAULT1], {"priority": 0}, 0),
    ("pod with priority that matches default priority", [DEFAULT2], {"priority": 2000}, 2000),
    (
        "pod with priority that matches resolved priority",
        [SYSTEM_CLUSTER_CRITICAL],
        {"priorityClassName": "system-cluster-critical", "priority": 2000000000},
        2000000000,
    ),
    (
        "pod with nil preemtpion policy",
        [PREEMPTION_POLICY_CLASS],
        {"priorityClassName": "nopreemptionpolicy", "priority": 2000},
        2000,
    ),
]


@pytest.mark.parametrize(
    ("classes", "spec", "expected"),
    [pytest.param(c, s, e, id=name) for name, c, s, e in POD_ADMISSION],
)
def test_pod_admission_as_upstream(
    classes: list[Class], spec: dict[str, Any], expected: int | None
) -> None:
    pod = {"metadata": {"name": "pod"}, "spec": {"containers": [{"name": "c"}], **spec}}
    if expected is None:
        with pytest.raises(QueueSpecError):
            admitted_priority(pod, classes)
    else:
        assert admitted_priority(pod, classes) == expected


# TestDefaultPriority: the default a pod without a class gets
@pytest.mark.parametrize(
    ("classes", "expected"),
    [
        pytest.param([DEFAULT1], 1000, id="simple resolution with a default class"),
        pytest.param([NONDEFAULT1], 0, id="no default class"),
        pytest.param([DEFAULT1, DEFAULT2], 1000, id="multiple default classes: the minimum value"),
        pytest.param([], 0, id="no class at all"),
    ],
)
def test_default_priority_as_upstream(classes: list[Class], expected: int) -> None:
    assert admitted_priority({"requests": {"cpu": "1"}}, classes) == expected


def test_the_system_classes_exist_without_being_listed() -> None:
    assert admitted_priority({"priorityClassName": "system-node-critical"}) == 2000001000


def test_refusals_say_what_the_api_server_says() -> None:
    with pytest.raises(QueueSpecError, match="no PriorityClass with name high was found"):
        admitted_priority({"priorityClassName": "high"}, where="case `c`.pods[0]")
    with pytest.raises(QueueSpecError, match=r"priority \(5\) must not be provided"):
        admitted_priority({"priority": 5})
    for bad in (True, "5", 1.5, 1 << 31):
        with pytest.raises(QueueSpecError, match="must be a 32-bit integer"):
            admitted_priority({"priority": bad})


def test_a_snapshots_pods_keep_their_stored_priority() -> None:
    """Admitted long ago: the class is not looked up again (it may be gone)."""
    pod = {"spec": {"priorityClassName": "gone", "priority": 7}}
    assert stored_priority(pod) == 7
    assert stored_priority({"spec": {}}) == 0
    queue = pod_queue([{"spec": {"priority": 1}}, pod], admitted=True)
    assert queue.priorities == (1, 7) and queue.order == (1, 0)


def _timed(priority: int, second: int | None) -> dict[str, Any]:
    metadata = {} if second is None else {"creationTimestamp": f"2026-01-01T00:00:0{second}Z"}
    return {"metadata": metadata, "spec": {"priority": priority}}


# TestLess: (p1, p2, p1 ahead of p2); a pod is (priority, second it was queued or None)
LESS = [
    ("p1.priority less than p2.priority", (10, None), (100, None), False),
    ("p1.priority greater than p2.priority", (100, None), (10, None), True),
    ("equal priority. p1 is added to schedulingQ earlier than p2", (100, 1), (100, 2), True),
    ("equal priority. p2 is added to schedulingQ earlier than p1", (100, 2), (100, 1), False),
]


@pytest.mark.parametrize(
    ("p1", "p2", "ahead"), [pytest.param(a, b, e, id=name) for name, a, b, e in LESS]
)
def test_priority_sort_as_upstream(
    p1: tuple[int, int | None], p2: tuple[int, int | None], ahead: bool
) -> None:
    queue = pod_queue([_timed(*p1), _timed(*p2)], admitted=True)
    assert queue.order == ((0, 1) if ahead else (1, 0))


def test_arrival_is_the_listed_order_unless_every_pod_has_a_creation_time() -> None:
    listed = [_timed(0, 3), _timed(0, None), _timed(0, 1)]
    assert pod_queue(listed, admitted=True).order == (0, 1, 2)
    timed = [_timed(0, 3), _timed(0, 1), _timed(0, 1), _timed(0, 2)]
    queue = pod_queue(timed, admitted=True)
    assert queue.order == (1, 2, 3, 0) and queue.by_creation
    with pytest.raises(QueueSpecError, match="not an RFC 3339 time"):
        pod_queue([{"metadata": {"creationTimestamp": "yesterday"}}])


def test_another_queue_sort_takes_the_pods_as_they_arrived() -> None:
    pods = [{"priority": 0}, {"priorityClassName": "system-node-critical"}]
    assert pod_queue(pods).order == (1, 0)
    assert pod_queue(pods, priority_sort=False).order == (0, 1)


def test_count_repeats_a_pod_in_the_queue() -> None:
    queue = pod_queue([{"count": 2}, {"count": 3, "priorityClassName": "high"}], [Class("high", 9)])
    assert queue.priorities == (0, 0, 9, 9, 9)
    assert queue.order == (2, 3, 4, 0, 1)


@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(0, 3)), max_size=30))
def test_the_queue_pops_by_priority_then_arrival(pods: list[tuple[int, int]]) -> None:
    """Every pod once; priorities never rise; equal priorities in arrival order."""
    queue = pod_queue([_timed(priority, second) for priority, second in pods], admitted=True)
    assert sorted(queue.order) == list(range(len(pods)))
    keys = [(-pods[p][0], pods[p][1], p) for p in queue.order]
    assert keys == sorted(keys)
