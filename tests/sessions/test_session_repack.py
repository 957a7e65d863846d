"""A repack under a Volcano conf places the pods it moves through Volcano's sessions, job by
job: a gang whole or not at all, a pod naming no PodGroup in one of its own (as Volcano's
PodGroup controller makes it), in Volcano's job and task order.

The cluster: two 4-cpu nodes; today n1 runs a 1-cpu pod and one pod of the gang `train`
(minMember 2, 3 cpu a pod), n2 the other 1-cpu pod and the gang's other pod. Placed again
in creation order, the two small pods (created first) pack onto one node, leaving room for
one gang pod: pod by pod, the gang is left half placed; through the sessions, the gang
waits whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from policytest.scoring.snapshot import anonymize, compact_json, read_snapshot
from policytest.scoring.specs import pods_from_dict
from policytest.sessions.build import build_jobs
from policytest.sessions.objects import Queue, SchedulingObjects
from tests.conftest import RunLine

ROOT = Path(__file__).parents[2]
CONF = ROOT / "fixtures/configs/volcano-binpack-deployment-no-spreading.yaml"
KUBE = ROOT / "fixtures/configs/kube-most-allocated.yaml"


def _pod(name: str, cpu: str, node: str, second: int, group: str | None) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": "default",
        "uid": f"uid-{name}",
        "creationTimestamp": f"2026-01-01T00:00:0{second}Z",
    }
    if group:
        metadata["annotations"] = {
            "scheduling.k8s.io/group-name": group,
            "volcano.sh/task-spec": "worker",
        }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": {
            "nodeName": node,
            "schedulerName": "volcano",
            "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}],
        },
        "status": {"phase": "Running"},
    }


def _dump() -> dict[str, Any]:
    nodes = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name},
            "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}},
        }
        for name in ("n1", "n2")
    ]
    group = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {
            "name": "train",
            "namespace": "default",
            "uid": "uid-train",
            "creationTimestamp": "2026-01-01T00:00:03Z",
        },
        "spec": {"minMember": 2},
        "status": {"phase": "Running"},
    }
    pods = [
        _pod("small-a", "1", "n1", 1, None),
        _pod("small-b", "1", "n2", 2, None),
        _pod("train-worker-0", "3", "n1", 4, "train"),
        _pod("train-worker-1", "3", "n2", 5, "train"),
    ]
    return {"apiVersion": "v1", "kind": "List", "items": [*nodes, group, *pods]}


@pytest.fixture
def snapshot(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps(_dump()))
    return path


def _simulate(run_line: RunLine, snapshot: Path, *configs: str) -> dict[str, Any]:
    args = ["simulate", "--snapshot", snapshot, "--repack", "--format", "json"]
    for config in configs:
        args += ["--config", config]
    ran = run_line(args)
    assert ran.exit_code == 0, ran
    reports: dict[str, Any] = {r["label"]: r for r in json.loads(ran.stdout)["reports"]}
    return reports


def test_the_snapshot_keeps_what_volcano_orders_its_bound_pods_by(snapshot: Path) -> None:
    """A bound pod Volcano schedules keeps its name, creation time and UID (job and task
    order read them): each is its own entry, with its place in creation order."""
    read = read_snapshot(str(snapshot))
    (entry,) = read.nodes[0]["pods"][1:]
    assert entry["metadata"]["name"] == "train-worker-0"
    assert entry["metadata"]["creationTimestamp"] == "2026-01-01T00:00:04Z"
    assert entry["metadata"]["uid"] == "uid-train-worker-0" and entry["order"] == [2]
    hidden = anonymize(read).nodes[0]["pods"][1]["metadata"]["name"]
    assert hidden.endswith("-0") and "train" not in hidden  # the task index is kept


def test_a_gang_is_placed_whole_or_not_at_all_through_the_sessions(
    run_line: RunLine, snapshot: Path
) -> None:
    """Pod by pod (a kube-scheduler config) one pod of the gang is placed and the other
    left pending; under the Volcano conf the gang waits whole, and the small pods, each
    in a PodGroup of its own, pack onto one node: one node in use, one freed."""
    reports = _simulate(run_line, snapshot, f"volcano={CONF}", f"kube={KUBE}")
    kube, volcano = reports["kube"], reports["volcano"]
    assert (kube["pending"], kube["nodesInUse"], kube["nodesFreed"]) == (1, 2, 0)
    assert (volcano["pending"], volcano["nodesInUse"], volcano["nodesFreed"]) == (2, 1, 1)
    assert volcano["nodesInUseBefore"] == 2 and volcano["pods"] == 4
    assert volcano["jobs"]["default/train"]["bound"] == 0
    assert volcano["jobs"]["default/podgroup-uid-small-a"]["bound"] == 1
    assert list(volcano["placements"].values()) == [2]
    assert volcano["repack"]["unplaced"] == [["default (no owner)", 2]]


def test_a_pod_naming_no_podgroup_gets_the_one_the_podgroup_controller_makes() -> None:
    """``buildPodGroupFromPod``: minMember 1, the queue the pod's annotation names (else
    ``default``), made as the pod is seen (so created with it); a repack adopts a pod of
    another scheduler, and says so."""
    volcano = {
        "metadata": {
            "name": "solo",
            "creationTimestamp": "2026-01-01T00:00:07Z",
            "annotations": {"scheduling.volcano.sh/queue-name": "batch"},
        },
        "spec": {"schedulerName": "volcano", "containers": []},
    }
    other = {"metadata": {"name": "web"}, "spec": {"containers": []}}
    pods = [
        (entry, pod)
        for entry in (volcano, other)
        for pod in pods_from_dict(entry, default_requests_from_limits=True)
    ]
    queues = SchedulingObjects(queues=(Queue("batch"), Queue("default")))
    left = build_jobs(queues, pods, overhead_first=False)
    (job,) = left.jobs
    assert (job.key, job.min_available) == ("default/podgroup-solo", 1)
    assert (job.group.queue, job.group.created) == ("batch", "2026-01-01T00:00:07Z")
    adopted = build_jobs(queues, pods, overhead_first=False, adopt=True)
    assert [job.key for job in adopted.jobs] == ["default/podgroup-solo", "default/podgroup-web"]
    assert any(note.startswith("1 pod moved names another scheduler") for note in adopted.notes)


def test_the_summary_says_a_volcano_conf_places_job_by_job(
    run_line: RunLine, snapshot: Path
) -> None:
    """Pod by pod in creation order is what a kube-scheduler config does; a Volcano conf
    takes the moved pods job by job, in its sessions' order."""
    args = ["simulate", "--snapshot", snapshot, "--repack", "--config"]
    volcano = run_line([*args, f"volcano={CONF}", "--config", f"kube={KUBE}"])
    assert "placed again in creation order (under a Volcano conf, job by job" in volcano.stdout
    kube = run_line([*args, f"kube={KUBE}"])
    assert "placed again in creation order; stayed" in kube.stdout


def test_orders_do_not_apply_to_a_session_repack(run_line: RunLine, snapshot: Path) -> None:
    ran = run_line(
        ["simulate", "--snapshot", snapshot, "--repack", "--config", str(CONF), "--orders", "3"]
    )
    assert ran.exit_code == 2
    assert ran.stderr.count("\n") == 1 and "runs Volcano's sessions" in ran.stderr


def _fixture(directory: Path, name: str, cluster: dict[str, Any], case: dict[str, Any]) -> Path:
    path = directory / f"{name}.policytest.yaml"
    (directory / "conf.yaml").write_text(CONF.read_text())
    fixture = {
        "apiVersion": "policytest/v1",
        "kind": "PolicyTest",
        "scheduler": {"config": "conf.yaml"},
        "cluster": cluster,
        "cases": [{"name": name, "ties": "allow", **case}],
    }
    path.write_text(json.dumps(fixture))
    return path


def _run(run_line: RunLine, path: Path) -> dict[str, Any]:
    ran = run_line(["run", path, "--format", "json"])
    (result,) = json.loads(ran.stdout)["results"]
    assert result["status"] != "error", result["message"]
    outcome: dict[str, Any] = result
    return outcome


def test_a_session_repack_agrees_with_the_jobs_case_on_the_emptied_nodes(
    run_line: RunLine, snapshot: Path
) -> None:
    """The repack runs as the hand-written case of the same jobs, created in the same
    order, on the two emptied nodes; its nodesInUse and nodesFreed expectations hold."""
    compact = snapshot.parent / "compact.json"
    compact.write_text(compact_json(read_snapshot(str(snapshot))))
    repack = _fixture(
        snapshot.parent,
        "repack",
        {"snapshot": "compact.json"},
        {
            "pods": {"fromSnapshot": "bound"},
            "expect": {"nodesInUse": {"max": 1}, "nodesFreed": {"min": 1}},
        },
    )
    nodes = [
        {"name": n, "allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}
        for n in ("n1", "n2")
    ]
    small = {"tasks": [{"name": "worker", "replicas": 1, "requests": {"cpu": "1"}}]}
    jobs = _fixture(
        snapshot.parent,
        "jobs",
        {"nodes": nodes},
        {
            "jobs": [
                {"name": "small-a", **small},
                {"name": "small-b", **small},
                {
                    "name": "train",
                    "minAvailable": 2,
                    "tasks": [{"name": "worker", "replicas": 2, "requests": {"cpu": "3"}}],
                },
            ],
            "expect": {},
        },
    )
    repacked, written = _run(run_line, repack), _run(run_line, jobs)
    assert repacked["status"] == "passed", repacked["message"]
    assert (repacked["nodesInUse"], repacked["nodesFreed"]) == (1, 1)
    assert repacked["placements"] == written["placements"] == {"n1": 2, "n2": 0}
    assert repacked["pending"] == written["pending"] == 2
    failing = repack.read_text().replace('"max": 1', '"max": 0')
    repack.write_text(failing)
    ran = run_line(["run", repack])
    assert ran.exit_code == 1 and "nodesInUse: expected" in ran.stdout
