"""Session cases through the real entry point: ``jobs:`` fixtures (the oracle README's
``edges-gpu8-min2`` story), a snapshot of Volcano jobs, ``run --format json``'s ``binds``
and ``podGroups``, expectations naming jobs and pods, and bad input said plainly."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RunLine

DATA = Path(__file__).parent.parent / "data"
STORY = DATA / "sessions" / "edges-gpu8-min2.policytest.yaml"
CONF = """\
  volcano:
    actions: "enqueue, allocate, backfill"
    tiers:
    - plugins: [{name: priority}, {name: gang}, {name: conformance}]
    - plugins: [{name: overcommit}, {name: drf}, {name: predicates}, {name: proportion},
                {name: nodeorder}, {name: binpack}]
"""


def fixture(tmp_path: Path, cluster: str, case: str) -> Path:
    path = tmp_path / "jobs.policytest.yaml"
    path.write_text(
        "apiVersion: policytest/v1\nkind: PolicyTest\nscheduler:\n"
        + CONF
        + "cluster:\n  nodes:\n"
        + "  - {name: n1, allocatable: {cpu: '8', memory: 32Gi, pods: '110'}}\n"
        + "  - {name: n2, allocatable: {cpu: '8', memory: 32Gi, pods: '110'}}\n"
        + cluster
        + "cases:\n"
        + case
    )
    return path


def results(run_line: RunLine, path: Path) -> dict[str, Any]:
    done = run_line(["run", "--format", "json", str(path)])
    assert done.exit_code in (0, 1), done
    result: dict[str, Any] = json.loads(done.stdout)["results"][0]
    return result


def test_the_8_gpu_story_through_run(run_line: RunLine, tmp_path: Path) -> None:
    path = tmp_path / STORY.name
    shutil.copy(STORY, path)
    result = results(run_line, path)
    assert result["status"] == "passed", result["message"]
    assert [(b["pod"], b["node"]) for b in result["binds"]] == [
        ("default/small-worker-0", "gpu-03"),
        ("default/small-worker-1", "gpu-01"),
        ("default/llm-worker-0", "gpu-02"),
        ("default/llm-worker-1", "gpu-00"),
    ]
    assert result["podGroups"]["default/llm"] == {
        "phase": "Running", "bound": 2, "reason": "", "minMember": 2, "queue": "default"
    }  # fmt: skip
    # under the Helm chart's default binpack the small gang takes the free nodes
    text = path.read_text().replace("binpack.weight: 10", "binpack.weight: 1")
    text = text.replace(
        "binpack.resources.nvidia.com/gpu: 8", "binpack.resources.nvidia.com/gpu: 1"
    )
    path.write_text(text.replace("leastrequested.weight: 0, balancedresource.weight: 0", ""))
    result = results(run_line, path)
    assert result["status"] == "failed"
    assert result["podGroups"]["default/llm"]["bound"] == 0
    assert result["podGroups"]["default/llm"]["reason"].startswith(
        "2/3 tasks in gang unschedulable: pod group is not ready"
    )


def test_a_snapshot_of_volcano_jobs(run_line: RunLine, tmp_path: Path) -> None:
    with gzip.open(DATA / "oracle/volcano-session/volcano-session-1.15.1.jsonl.gz", "rt") as f:
        record = next(r for r in map(json.loads, f) if r["id"] == "edges-gpu8-min2-gpu_binpack")
    (tmp_path / "cluster.json").write_text(json.dumps(record["input"]["objects"]))
    (tmp_path / "volcano-scheduler.conf").write_text(record["input"]["conf"])
    path = tmp_path / "snap.policytest.yaml"
    path.write_text(
        "apiVersion: policytest/v1\nkind: PolicyTest\nscheduler:\n"
        "  config: volcano-scheduler.conf\ncluster:\n  snapshot: cluster.json\n"
        "cases:\n- name: pending\n  pods: {fromSnapshot: pending}\n  sessions: 2\n"
        "  expect: {jobs: {small: {bound: 2}, llm: {bound: 2, phase: Running}}}\n"
    )
    (tmp_path / ".git").mkdir()
    result = results(run_line, path)
    assert result["status"] == "passed", result["message"]
    final = {b["pod"]: b["node"] for b in result["binds"]}
    assert final == {pod: node for pod, node in record["result"]["final"].items() if node}
    phases = {key: group["phase"] for key, group in result["podGroups"].items()}
    assert phases == record["result"]["finalPodGroups"]


@pytest.mark.parametrize(
    ("expect", "message"),
    [
        pytest.param(
            "{jobs: {trian: {bound: 2}}}", "jobs: no job `trian`; did you mean `train`?", id="job"
        ),
        pytest.param(
            "{binds: {train-worker-9: n1}}",
            "binds: pod `train-worker-9` was not bound; did you mean",
            id="pod",
        ),
        pytest.param(
            "{jobs: {train: {bound: 1}}}",
            "jobs: train expected 1 bound, got 2",
            id="count",
        ),
    ],
)
def test_expectations_name_jobs_and_pods(
    run_line: RunLine, tmp_path: Path, expect: str, message: str
) -> None:
    case = (
        "- name: two\n  jobs:\n  - name: train\n    tasks: [{name: worker, replicas: 2, "
        f"requests: {{cpu: '4'}}}}]\n  expect: {expect}\n"
    )
    result = results(run_line, fixture(tmp_path, "", case))
    assert result["status"] == "failed"
    assert message in result["message"]


@pytest.mark.parametrize(
    ("cluster", "case", "wanted"),
    [
        pytest.param(
            "",
            "- name: orphan\n  pods:\n  - metadata: {name: lost-0, annotations: "
            "{scheduling.k8s.io/group-name: lost}}\n    spec: {schedulerName: volcano, "
            "containers: [{name: c, resources: {requests: {cpu: '1'}}}]}\n"
            "  expect: {pending: 1}\n",
            "PodGroup default/lost does not exist: Volcano never schedules its 1 pod",
            id="missing-podgroup",
        ),
        pytest.param(
            "  queues: [{name: default}]\n",
            "- name: nowhere\n  jobs:\n  - {name: train, queue: research, tasks: "
            "[{name: w, replicas: 1, requests: {cpu: '1'}}]}\n  expect: {pending: 1}\n",
            "queue 'research', which does not exist",
            id="missing-queue",
        ),
        pytest.param(
            "  priorityClasses: [{name: high, value: 1000}]\n",
            "- name: typo\n  jobs:\n  - {name: train, priority: hihg, tasks: "
            "[{name: w, replicas: 1, requests: {cpu: '1'}}]}\n  expect: {pending: 0}\n",
            "PriorityClass 'hihg' does not exist",
            id="missing-priority-class",
        ),
    ],
)
def test_bad_input_is_said_plainly(
    run_line: RunLine, tmp_path: Path, cluster: str, case: str, wanted: str
) -> None:
    result = results(run_line, fixture(tmp_path, cluster, case))
    assert result["status"] == "passed", result["message"]
    assert any(wanted in note for note in result["notes"]), result["notes"]


@pytest.mark.parametrize(
    ("cluster", "job", "phase", "reason", "note"),
    [
        pytest.param(
            "  queues: [{name: default, state: Closed}]\n",
            "{name: train, tasks: [{name: w, replicas: 1, requests: {cpu: '1'}}]}",
            "Pending",
            "1/1 tasks in gang unschedulable",
            "queue 'default' is Closed, not Open: proportion admits none of its PodGroups "
            "and allocates none of their pods (default/train)",
            id="closed-queue",
        ),
        pytest.param(
            "",
            "{name: train, minAvailable: 3, tasks: [{name: w, replicas: 2, requests: {cpu: '1'}}]}",
            "Inqueue",  # enqueue admits it; allocate never tries an invalid gang
            "3/2 tasks in gang unschedulable: pod group is not ready, 2 Pending, 3 minAvailable",
            "PodGroup default/train has minMember 3 but 2 pods: Volcano never starts a gang "
            "with fewer pods than its minMember",
            id="min-member-above-tasks",
        ),
        pytest.param(
            "",
            "{name: train, tasks: [{name: w, replicas: 3, requests: {cpu: '8', memory: 40Gi}}]}",
            "Pending",
            "3/3 tasks in gang unschedulable: pod group is not ready, 3 Pending, 3 minAvailable",
            "PodGroup default/train's minResources ask for more than the whole cluster's "
            "allocatable (cpu 24, the cluster has 16; memory 120Gi, the cluster has 64Gi): "
            "it can never start",
            id="min-resources-above-the-cluster",
        ),
    ],
)
def test_jobs_that_never_start_say_why(
    run_line: RunLine, tmp_path: Path, cluster: str, job: str, phase: str, reason: str, note: str
) -> None:
    """The gang's own words, and the fact of the input that keeps the job out for good,
    in JSON and under the passing case in text."""
    case = f"- name: never\n  jobs:\n  - {job}\n  expect: {{jobs: {{train: {{bound: 0}}}}}}\n"
    path = fixture(tmp_path, cluster, case)
    result = results(run_line, path)
    assert result["status"] == "passed", result["message"]
    assert result["podGroups"]["default/train"]["phase"] == phase
    assert reason in result["podGroups"]["default/train"]["reason"]
    assert result["notes"] == [note]
    assert f"      note: {note}\n" in run_line(["run", str(path)]).stdout


def test_a_job_that_can_start_gets_no_note(run_line: RunLine, tmp_path: Path) -> None:
    """A gang kept out by today's load (the same minResources fit an empty cluster) is
    not one that can never start; a Closed queue no job waits in says nothing."""
    cluster = "  queues: [{name: default}, {name: shut, state: Closed}]\n"
    case = (
        "- name: busy\n  jobs:\n"
        "  - {name: first, tasks: [{name: w, replicas: 2, requests: {cpu: '6'}}]}\n"
        "  - {name: second, tasks: [{name: w, replicas: 2, requests: {cpu: '6'}}]}\n"
        "  expect: {jobs: {first: {bound: 2}, second: {bound: 0}}}\n"
    )
    result = results(run_line, fixture(tmp_path, cluster, case))
    assert result["status"] == "passed", result["message"]
    assert result["notes"] == []


def test_a_running_gang_counts_its_bound_pods(run_line: RunLine, tmp_path: Path) -> None:
    """A snapshot's running job with 3 of its 4 tasks bound: the scheduler counts the 3
    towards the gang, so the pending one completes it (alone it could never be ready)."""
    group = "{scheduling.k8s.io/group-name: train}"
    cluster = (  # a third node, with the job's running pods
        "  - name: n3\n    allocatable: {cpu: '8', memory: 32Gi, pods: '110'}\n"
        f"    pods: [{{requests: {{cpu: '2'}}, annotations: {group}, count: 3}}]\n"
        "  podGroups: [{name: train, minMember: 4, phase: Running}]\n"
    )
    case = (
        "- name: one more\n  sessions: 2\n  pods:\n  - metadata: {name: train-w-3, "
        f"annotations: {group}}}\n    spec: {{schedulerName: volcano, containers: "
        "[{name: c, resources: {requests: {cpu: '2'}}}]}\n"
        "  expect: {jobs: {train: {bound: 4, phase: Running}}}\n"
    )
    path = fixture(tmp_path, cluster, case)
    result = results(run_line, path)
    assert result["status"] == "passed", result["message"]
    assert [b["pod"] for b in result["binds"]] == ["default/train-w-3"]


@pytest.mark.parametrize(
    ("release", "phase"),
    [
        pytest.param("1.12", "Running", id="1.12-allocated-counts"),
        pytest.param("1.13", "Inqueue", id="1.13-bound-counts"),
        pytest.param("1.15", "Inqueue", id="1.15"),
    ],
)
def test_a_gang_bound_this_session_is_running_from_the_next_since_1_13(
    run_line: RunLine, tmp_path: Path, release: str, phase: str
) -> None:
    """``getPodGroupPhase`` (v1.13 on) counts bound tasks, which the session's own binds
    are not yet; ``jobStatus`` before counted allocated ones."""
    case = (
        "- name: one\n  jobs:\n  - {name: train, tasks: [{name: w, replicas: 2, "
        "requests: {cpu: '1'}}]}\n  expect: {jobs: {train: {bound: 2}}}\n"
    )
    path = fixture(tmp_path, "", case)
    done = run_line(["run", "--format", "json", "--volcano-version", release, str(path)])
    result = json.loads(done.stdout)["results"][0]
    assert result["status"] == "passed", result["message"]
    assert result["podGroups"]["default/train"]["phase"] == phase


def test_podgroup_phases_the_job_updater_writes(run_line: RunLine, tmp_path: Path) -> None:
    """A gang with running pods that cannot complete this session is Unknown; a PodGroup
    of minMember 0 with nothing bound yet is Completed (no task is scheduled, and all
    of none are finished); a PodGroup without pods is admitted by enqueue, and what its
    minResources claim keeps a later job out."""
    group = "{scheduling.k8s.io/group-name: stuck}"
    cluster = (
        "  - name: n3\n    allocatable: {cpu: '8', memory: 32Gi, pods: '110'}\n"
        f"    pods: [{{requests: {{cpu: '1'}}, annotations: {group}, count: 2}}]\n"
        "  podGroups:\n"
        "  - {name: stuck, minMember: 4, phase: Running}\n"
        "  - {name: any, minMember: 0, phase: Inqueue}\n"
        "  - {name: a-ghost, minMember: 1, minResources: {cpu: '16'}}\n"
        "  - {name: late, minMember: 1, minResources: {cpu: '9'}}\n"
    )
    pending = "  - metadata: {{name: {name}, annotations: "
    pending += "{{scheduling.k8s.io/group-name: {group}}}}}\n"
    pending += "    spec: {{schedulerName: volcano, containers: [{{name: c, resources: "
    pending += "{{requests: {{cpu: '{cpu}'}}}}}}]}}\n"
    case = (
        "- name: phases\n  pods:\n"
        + pending.format(name="stuck-w-2", group="stuck", cpu="9")
        + pending.format(name="stuck-w-3", group="stuck", cpu="9")
        + pending.format(name="any-w-0", group="any", cpu="1")
        + pending.format(name="late-w-0", group="late", cpu="9")
        + "  ties: allow\n  expect: {jobs: {stuck: {bound: 2}}}\n"
    )
    result = results(run_line, fixture(tmp_path, cluster, case))
    assert result["status"] == "passed", result["message"]
    phases = {key: group["phase"] for key, group in result["podGroups"].items()}
    assert phases == {
        "default/stuck": "Unknown",
        "default/any": "Completed",
        "default/a-ghost": "Inqueue",
        "default/late": "Pending",
    }


def test_plugins_whose_part_is_not_simulated_are_named(run_line: RunLine, tmp_path: Path) -> None:
    """A plugin of Volcano's whose session functions are not simulated (capacity's
    hierarchical queues), one of
    the scheduler's own build (``--plugins-dir``, listed in the settings) and drf's
    hierarchical queue order are each named, never left out in silence."""
    (tmp_path / "settings.yaml").write_text("volcano:\n  plugins: [magic]\n")
    case = "- name: one\n  jobs:\n  - {name: a, tasks: [{name: w}]}\n  expect: {pending: 0}\n"
    path = fixture(tmp_path, "", case)
    text = path.read_text()
    second = text[text.index("    - plugins: [{name: overcommit}") : text.index("cluster:")]
    hierarchy = (
        "    - plugins: [{name: drf, enableHierarchy: true},\n"
        "                {name: capacity, enableHierarchy: true}, {name: magic},\n"
    )
    path.write_text(text.replace(second, hierarchy + "                {name: predicates}]\n"))
    done = run_line(
        ["run", "--format", "json", "--settings", str(tmp_path / "settings.yaml"), str(path)]
    )
    named = json.loads(done.stdout)["results"][0]["unsimulatedPlugins"]
    assert [entry.split(":")[0] for entry in named] == ["capacity", "magic", "drf"]
    assert "enableHierarchy" in named[2]


UPDATED_CLUSTER = """\
apiVersion: policytest/v1
kind: PolicyTest
scheduler:
  volcano:
    actions: "enqueue, allocate, backfill"
    tiers:
    - plugins: [{name: priority}, {name: gang}]
    - plugins: [{name: drf}, {name: predicates}, {name: proportion}, {name: binpack}]
cluster:
  nodes:
  - {name: big, allocatable: {cpu: '16', memory: 64Gi, pods: '110'}}
  - {name: small, allocatable: {cpu: '4', memory: 16Gi, pods: '110'}, used: {cpu: '1'}}
cases:
- name: two jobs  # the gang and a job too big for it
  jobs:
  - {name: train, tasks: [{name: w, replicas: 2, requests: {cpu: '6'}}]}
  - {name: huge, tasks: [{name: w, replicas: 1, requests: {cpu: '32'}}]}
"""


@pytest.mark.parametrize(
    ("expect", "written"),
    [
        pytest.param(
            "  expect: {}  # to fill\n",
            "  expect: {jobs: {train: {bound: 2, phase: Inqueue}, "
            "huge: {bound: 0, phase: Pending}}, binds: {train-w-0: big, train-w-1: big}}"
            "  # to fill\n",
            id="empty",
        ),
        pytest.param(
            "  expect:  # checked\n    jobs:\n      train: {bound: 1}\n      gone: {bound: 3}\n"
            "    binds: {train-w-1: small, huge-w-0: big}\n",
            "  expect:  # checked\n    jobs:\n      train: {bound: 2}\n"
            "    binds: {train-w-1: big}\n",
            id="asserted-only",
        ),
        pytest.param(
            "  expect:\n    jobs: {train: {bound: 1, phase: Running}}  # wrong\n",
            "  expect:\n    jobs: {train: {bound: 2, phase: Inqueue}}  # wrong\n",
            id="comment-kept",
        ),
    ],
)
def test_update_fills_jobs_and_binds(
    run_line: RunLine, tmp_path: Path, expect: str, written: str
) -> None:
    """``run --update`` writes each PodGroup's pods bound and phase and each pod's node
    (an empty expect), or corrects what an expect asserts, dropping a job that does not
    exist and a pod left pending, keeping comments; the case passes afterwards."""
    path = tmp_path / "jobs.policytest.yaml"
    path.write_text(UPDATED_CLUSTER + expect)
    (tmp_path / ".git").mkdir()
    done = run_line(["run", "--update", str(path)])
    assert done.exit_code == 0, done
    assert path.read_text() == UPDATED_CLUSTER + written
    assert results(run_line, path)["status"] == "passed"


def test_update_leaves_binds_out_when_a_tie_decided_them(run_line: RunLine, tmp_path: Path) -> None:
    """Where the scheduler picked among equal nodes at random, the pods' nodes are not
    guaranteed: an empty expect gets the jobs' counts and phases only."""
    case = (
        "- name: tied\n  jobs:\n  - {name: train, tasks: [{name: w, replicas: 1}]}\n  expect: {}\n"
    )
    path = fixture(tmp_path, "", case)
    (tmp_path / ".git").mkdir()
    assert run_line(["run", "--update", str(path)]).exit_code == 0
    assert "  expect: {jobs: {train: {bound: 1, phase: Inqueue}}}\n" in path.read_text()


@pytest.mark.parametrize(("limit", "runs"), [(12, True), (11, False)])
def test_each_session_is_charged_to_the_node_score_budget(
    run_line: RunLine, tmp_path: Path, limit: int, runs: bool
) -> None:
    """Two pending pods on two nodes for three sessions: 12 node scores, as each
    session scores its pending pods again."""
    case = (
        "- name: three\n  sessions: 3\n  jobs:\n  - {name: a, tasks: [{name: w, replicas: 2, "
        "requests: {cpu: '1'}}]}\n  ties: allow\n  expect: {jobs: {a: {bound: 2}}}\n"
    )
    path = fixture(tmp_path, "", case)
    done = run_line(["run", "--format", "json", "--limit", f"node-scores={limit}", str(path)])
    result = json.loads(done.stdout)["results"][0]
    assert (result["status"] == "passed") == runs, result["message"]
    assert ("--limit node-scores=N" in result["message"]) != runs


@pytest.mark.parametrize(("release", "bound"), [("1.15", 0), ("1.16", 1)])
def test_a_job_another_plugin_refuses_claims_its_queue_until_1_16(
    run_line: RunLine, tmp_path: Path, release: str, bound: int
) -> None:
    """proportion admits job `a` (3 cpu of its queue's 4) and overcommit refuses it (2.8
    cpu idle): up to v1.15 proportion has already counted `a` against the queue, so it
    refuses `b` too; from v1.16 a job counts once every plugin admitted it."""
    path = tmp_path / "claims.policytest.yaml"
    path.write_text(
        "apiVersion: policytest/v1\nkind: PolicyTest\nscheduler:\n  volcano:\n"
        '    actions: "enqueue, allocate"\n'
        "    tiers: [{plugins: [{name: proportion}, {name: overcommit}, {name: predicates}]}]\n"
        "cluster:\n  nodes:\n"
        "  - {name: n1, allocatable: {cpu: '4', memory: 16Gi, pods: '110'}, used: {cpu: '2'}}\n"
        "  queues: [{name: q, capability: {cpu: '8'}}]\n"
        "cases:\n- name: two\n  jobs:\n"
        "  - {name: a, queue: q, tasks: [{name: w, requests: {cpu: '3'}}]}\n"
        "  - {name: b, queue: q, tasks: [{name: w, requests: {cpu: '2'}}]}\n"
        f"  expect: {{jobs: {{a: {{bound: 0, phase: Pending}}, b: {{bound: {bound}}}}}}}\n"
    )
    done = run_line(["run", "--format", "json", "--volcano-version", release, str(path)])
    result = json.loads(done.stdout)["results"][0]
    assert result["status"] == "passed", result["message"]


def test_a_running_jobs_elastic_pods_do_not_hold_its_queue(
    run_line: RunLine, tmp_path: Path
) -> None:
    """Job `r` runs 3 one-cpu pods for a minimum of 1 cpu: 2 cpu of them are elastic,
    which enqueue does not count against the queue's 4 cpu, so `next` (2 cpu) is admitted."""
    group = "{scheduling.k8s.io/group-name: r}"
    cluster = (
        "  - name: n3\n    allocatable: {cpu: '8', memory: 32Gi, pods: '110'}\n"
        f"    pods: [{{requests: {{cpu: '1'}}, annotations: {group}, count: 3}}]\n"
        "  queues: [{name: q, capability: {cpu: '4'}}]\n"
        "  podGroups: [{name: r, queue: q, minMember: 1, minResources: {cpu: '1'}, "
        "phase: Running}]\n"
    )
    case = (
        "- name: admitted\n  jobs:\n  - {name: next, queue: q, tasks: [{name: w, "
        "requests: {cpu: '2'}}]}\n  expect: {jobs: {next: {phase: Inqueue}}}\n"
    )
    result = results(run_line, fixture(tmp_path, cluster, case))
    assert result["status"] == "passed", result["message"]


def test_update_allows_a_tie_between_different_nodes(run_line: RunLine, tmp_path: Path) -> None:
    """Two nodes in different zones score alike: the scheduler picks one at random, and
    what it picks may change which job fits; the update records the jobs and writes
    `ties: allow` with the comment that says why, so the case passes."""
    path = tmp_path / "zones.policytest.yaml"
    path.write_text(
        UPDATED_CLUSTER.replace(
            UPDATED_CLUSTER[
                UPDATED_CLUSTER.index("  - {name: big") : UPDATED_CLUSTER.index("cases:")
            ],
            "  - {name: a, allocatable: {cpu: '8', memory: 32Gi, pods: '110'}, "
            "labels: {topology.kubernetes.io/zone: a}}\n"
            "  - {name: b, allocatable: {cpu: '8', memory: 32Gi, pods: '110'}, "
            "labels: {topology.kubernetes.io/zone: b}}\n",
        )
        + "  expect: {}\n"
    )
    (tmp_path / ".git").mkdir()
    assert run_line(["run", "--update", str(path)]).exit_code == 0
    text = path.read_text()
    assert "  ties: allow  # run --update: a tie decided this outcome" in text
    assert "binds" not in text
    assert results(run_line, path)["status"] == "passed"
