"""kube-scheduler's queue through the real entry point: a sequence's pods are placed by
priority, then arrival (PrioritySort), in ``run``, ``explain``, ``simulate`` and the
pytest plugin's ``place``; Volcano's pod-by-pod placement keeps the listed order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import VOLCANO_CONF, RunLine

KUBE_CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: MostAllocated}}
"""

# One node: the three batch pods fill it when they go first, the critical pod and one
# batch pod when the critical pod does.
FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {name: queue}
scheduler: {config: CONFIG}
cluster:
  nodes:
  - {name: only, allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
cases:
- name: the batch pod was listed first
  pods:
  - {requests: {cpu: "1"}, count: 3}
  - containers: [{name: web, resources: {requests: {cpu: "3"}}}]
    priorityClassName: system-cluster-critical
  expect: {placements: {only: 2}, pending: 2}
"""


def _fixture(tmp_path: Path, config: str, name: str) -> Path:
    (tmp_path / name).write_text(config)
    fixture = tmp_path / "queue.policytest.yaml"
    fixture.write_text(FIXTURE.replace("CONFIG", name))
    return fixture


def test_kube_scheduler_takes_the_critical_pod_first(run_line: RunLine, tmp_path: Path) -> None:
    fixture = _fixture(tmp_path, KUBE_CONFIG, "kube.yaml")
    result = run_line(["run", "--format", "json", fixture])
    (case,) = json.loads(result.stdout)["results"]
    assert case["status"] == "passed", result
    assert case["queue"] == {"order": [4, 1, 2, 3], "priorities": [0, 0, 0, 2000000000]}
    explained = run_line(["explain", fixture]).stdout
    assert (
        "    placements: {only: 2}\n"
        "    pending: pods 2-3\n"
        "    Queue (PrioritySort: priority, then arrival as listed):\n"
        "      priority 2,000,000,000: 1 pod (pod 4)\n"
        "      priority 0: 3 pods (pods 1-3)\n"
    ) in explained


def test_simulate_takes_the_pods_as_each_scheduler_does(run_line: RunLine, tmp_path: Path) -> None:
    """The same workload under kube-scheduler (by priority) and Volcano (as listed)."""
    fixture = _fixture(tmp_path, KUBE_CONFIG, "kube.yaml")
    (tmp_path / "volcano.conf").write_text(VOLCANO_CONF)
    configs = ["--config", "fixture", "--config", tmp_path / "volcano.conf"]
    result = run_line(["simulate", fixture, "--format", "json", *configs])
    kube, volcano = json.loads(result.stdout)["reports"]
    assert (kube["pending"], kube["placements"]) == (2, {"only": 2})
    assert (volcano["pending"], volcano["placements"]) == (1, {"only": 3})


def test_volcano_places_pods_one_by_one_as_listed(run_line: RunLine, tmp_path: Path) -> None:
    fixture = _fixture(tmp_path, VOLCANO_CONF, "volcano.conf")
    fixture.write_text(
        fixture.read_text().replace("{only: 2}, pending: 2", "{only: 3}, pending: 1")
    )
    result = run_line(["run", "--format", "json", fixture])
    (case,) = json.loads(result.stdout)["results"]
    assert case["status"] == "passed", result
    assert case["queue"] == {"order": [1, 2, 3, 4], "priorities": [0, 0, 0, 2000000000]}


def test_a_pod_the_api_server_refuses_is_an_error(run_line: RunLine, tmp_path: Path) -> None:
    fixture = _fixture(tmp_path, KUBE_CONFIG, "kube.yaml")
    fixture.write_text(fixture.read_text().replace("system-cluster-critical", "urgent"))
    result = run_line(["run", fixture])
    assert result.exit_code == 1
    assert (
        "case `the batch pod was listed first`.pods[1].priorityClassName: no PriorityClass "
        "with name urgent was found, so the API server refuses the pod"
    ) in result.stdout


def test_a_custom_queue_sort_takes_pods_as_they_arrive(run_line: RunLine, tmp_path: Path) -> None:
    """Without PrioritySort the queue's order is not known: pods are taken as listed,
    and the queue sort is named as not simulated."""
    settings = tmp_path / ".policytest.yaml"
    settings.write_text("kubeScheduler: {distribution: scheduler-plugins}\n")
    config = KUBE_CONFIG + (
        "  plugins:\n"
        "    queueSort:\n"
        "      enabled: [{name: QOSSort}]\n"
        "      disabled: [{name: '*'}]\n"
    )
    fixture = _fixture(tmp_path, config, "kube.yaml")
    fixture.write_text(
        fixture.read_text().replace("{only: 2}, pending: 2", "{only: 3}, pending: 1")
    )
    result = run_line(["run", "--format", "json", "--settings", settings, fixture])
    (case,) = json.loads(result.stdout)["results"]
    assert case["status"] == "passed", result
    assert [item["name"] for item in case["notSimulated"]] == ["QOSSort"]
    assert case["queue"]["order"] == [1, 2, 3, 4]


def test_the_pytest_plugin_places_in_queue_order(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_place=f"""
def test_place(policytest, tmp_path):
    path = tmp_path / "kube.yaml"
    path.write_text({KUBE_CONFIG!r})
    scheduler = policytest.scheduler(str(path))
    placed = policytest.place(
        scheduler,
        [{{"name": "only", "allocatable": {{"cpu": "4", "pods": "110"}}}}],
        [{{"requests": {{"cpu": "1"}}, "count": 3}},
         {{"requests": {{"cpu": "3"}}, "priorityClassName": "system-node-critical"}}],
    )
    assert placed.pending == 2
    assert [step.index for step in placed.steps] == [3, 0, 1, 2]
"""
    )
    assert pytester.runpytest_inprocess("-p", "no:cacheprovider").ret == 0


def test_the_clusters_priority_classes_and_global_default(
    run_line: RunLine, tmp_path: Path
) -> None:
    fixture = _fixture(tmp_path, KUBE_CONFIG, "kube.yaml")
    text = fixture.read_text().replace("system-cluster-critical", "urgent")
    text = text.replace(
        "cluster:\n",
        "cluster:\n"
        "  priorityClasses:\n"
        "  - {name: urgent, value: 100}\n"
        "  - {name: batch, value: 10, globalDefault: true}\n"
        "  - {name: background, value: 1, globalDefault: true}\n",
    )
    fixture.write_text(text)
    (case,) = json.loads(run_line(["run", "--format", "json", fixture]).stdout)["results"]
    assert case["status"] == "passed", case
    assert case["queue"] == {"order": [4, 1, 2, 3], "priorities": [1, 1, 1, 100]}


def test_a_snapshots_pending_pods_arrive_by_creation_time(
    run_line: RunLine, tmp_path: Path
) -> None:
    """Stored priorities are read as they are; equal priorities go by creationTimestamp."""

    def pending(name: str, cpu: str, created: str, priority: int) -> dict[str, object]:
        return {
            "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "creationTimestamp": created},
            "spec": {
                "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}],
                "priorityClassName": "gone",
                "priority": priority,
            },
            "status": {"phase": "Pending"},
        }

    node = {
        "kind": "Node",
        "metadata": {"name": "only"},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    }
    items = [
        node,
        pending("late", "3", "2026-01-01T00:00:09Z", 5),
        pending("early", "2", "2026-01-01T00:00:01Z", 5),
        pending("urgent", "1", "2026-01-01T00:00:05Z", 50),
    ]
    (tmp_path / "cluster.json").write_text(json.dumps({"kind": "List", "items": items}))
    (tmp_path / "kube.yaml").write_text(KUBE_CONFIG)
    (tmp_path / "s.policytest.yaml").write_text(
        "apiVersion: policytest/v1\nkind: PolicyTest\nmetadata: {name: s}\n"
        "scheduler: {config: kube.yaml}\ncluster: {snapshot: cluster.json}\n"
        "cases:\n- name: pending\n  pods: {fromSnapshot: pending}\n"
        "  expect: {placements: {only: 2}, pending: 1}\n"
    )
    result = run_line(["run", "--format", "json", tmp_path / "s.policytest.yaml"])
    (case,) = json.loads(result.stdout)["results"]
    assert case["status"] == "passed", result
    assert case["queue"] == {"order": [3, 2, 1], "priorities": [5, 5, 50]}
