"""Upstream Volcano's own session tests, replayed: the cases of allocate's
``TestAllocate`` and ``TestFareShareAllocate`` and proportion's ``TestEnqueueAndAllocable``
and ``TestAllocate`` (tests/data/volcano/session_upstream_tests.json, their tables as
data) run as one session of the test's actions under its tiers, for v1.15.1 and
v1.16.0-alpha.1. Every case binds exactly the pods upstream expects, on the nodes it
expects, as the session oracle's replay of the same tests through the real scheduler
did (tests/data/oracle/volcano-session/proof-*.json: 15 of 15 on both releases)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.sessions.replay import replay_list, scheduler

DATA = Path(__file__).parent.parent / "data"
UPSTREAM = json.loads((DATA / "volcano" / "session_upstream_tests.json").read_text())
RELEASES = ("1.15.1", "1.16.0-alpha.1")


def _pod(pod: dict[str, Any]) -> dict[str, Any]:
    """``util.BuildPod``, named for the mock cache's scheduler."""
    spec: dict[str, Any] = {
        "schedulerName": "volcano",
        "containers": [{"name": "main", "resources": {"requests": pod["requests"]}}],
    }
    if pod.get("nodeName"):
        spec["nodeName"] = pod["nodeName"]
    if pod.get("nodeSelector"):
        spec["nodeSelector"] = pod["nodeSelector"]
    metadata = {
        "name": pod["name"],
        "namespace": pod["namespace"],
        "uid": f"{pod['namespace']}-{pod['name']}",
        "annotations": {"scheduling.k8s.io/group-name": pod["group"]},
        **({"labels": pod["labels"]} if pod.get("labels") else {}),
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": spec,
        "status": {"phase": pod["phase"]},
    }


def _objects(case: dict[str, Any]) -> dict[str, Any]:
    """The case's objects as a ``List``, as the ``util.Build*`` helpers make them."""
    items: list[dict[str, Any]] = []
    for node in case["nodes"]:
        items.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": node["name"], "labels": node.get("labels", {})},
                "status": {"allocatable": node["allocatable"], "capacity": node["allocatable"]},
            }
        )
    for queue in case["queues"]:
        spec = {key: queue[key] for key in ("weight", "capability", "priority") if key in queue}
        items.append(
            {
                "apiVersion": "scheduling.volcano.sh/v1beta1",
                "kind": "Queue",
                "metadata": {"name": queue["name"]},
                "spec": spec,
                "status": {"state": queue["state"]},
            }
        )
    for group in case["podGroups"]:
        keys = ("queue", "minMember", "minTaskMember", "minResources")
        items.append(
            {
                "apiVersion": "scheduling.volcano.sh/v1beta1",
                "kind": "PodGroup",
                "metadata": {"name": group["name"], "namespace": group["namespace"]},
                "spec": {key: group[key] for key in keys if key in group},
                "status": {"phase": group["phase"]},
            }
        )
    items += [_pod(pod) for pod in case["pods"]]
    return {"apiVersion": "v1", "kind": "List", "items": items}


def _flags() -> tuple[str, ...]:
    """Every plugin flag a conf has (``enableJobOrder``, ``enabledOverused``, ...)."""
    plan = scheduler("actions: allocate\ntiers: [{plugins: [{name: gang}]}]", RELEASES[0]).session
    assert plan is not None
    return tuple(plan.tiers[0][0].flags)


def _conf(case: dict[str, Any]) -> str:
    """The test's actions and tiers as a conf (JSON is YAML), every flag the test leaves
    unset written off: the tests hand their tiers to the session as they are."""
    tiers = [
        {"plugins": [{**dict.fromkeys(_flags(), False), **p} for p in tier["plugins"]]}
        for tier in case["tiers"]
    ]
    actions = ", ".join(case["actions"])
    return f"actions: {json.dumps(actions)}\ntiers: {json.dumps(tiers)}\n"


CASES = [
    pytest.param(case, release, id=f"{case['test']}/{case['name']}-{release}")
    for case in UPSTREAM["cases"]
    for release in case["releases"]
]
CAPACITY = "pkg/scheduler/plugins/capacity/capacity_test.go"
"""capacity's cases, which the session oracle's proof did not replay."""


@pytest.mark.parametrize(("case", "release"), CASES)
def test_upstream_session_cases_bind_as_upstream_expects(
    case: dict[str, Any], release: str
) -> None:
    result, _ = replay_list(_objects(case), _conf(case), 1, release, case["name"])
    binds = {bind.pod: bind.node for bind in result.binds}
    assert binds == case["expectBindMap"]
    assert len(result.binds) == case["expectBindsNum"]


@pytest.mark.parametrize("release", RELEASES)
def test_the_replayed_cases_are_the_oracles_proof_cases(release: str) -> None:
    """The transcription holds the 15 cases the oracle's proof replayed (by test and
    name), each with the expectations the proof read from the test itself."""
    proof = json.loads((DATA / "oracle" / "volcano-session" / f"proof-{release}.json").read_text())
    replayed = {
        case["test"]: case["expectBindMap"] for case in proof["cases"] if not case.get("skipped")
    }
    ours = {
        f"{case['test']}/{case['name'].replace(' ', '_')}": case["expectBindMap"]
        for case in UPSTREAM["cases"]
        if case["file"] != CAPACITY
    }
    assert ours == replayed
    assert proof["summary"]["match"] == len(ours) == 15
