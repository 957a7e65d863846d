"""A node whose bound pods request more than its allocatable (issue 37: a node above 100%
cpu passed without a word) is a PT011 warning, in a fixture written by hand and in a
snapshot (which a real cluster can hold); the cases still run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from policytest.harness.model import PT011_OVERCOMMITTED_NODE
from tests.conftest import VOLCANO_CONF, RunLine, user_repository
from tests.rule_examples import example

HEADER = "apiVersion: policytest/v1\nkind: PolicyTest\nscheduler: {config: volcano.yaml}\n"
CASES = '\ncases:\n- name: one\n  pod: {requests: {cpu: "1"}}\n  expect: {pending: 0}\n'


@pytest.mark.parametrize(("label", "found"), [("Failing", ["PT011"]), ("Passing", [])])
def test_the_rules_examples(
    run_line: RunLine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    label: str,
    found: list[str],
) -> None:
    body = example(PT011_OVERCOMMITTED_NODE.doc, label).rstrip("\n") + CASES
    files = {"volcano.yaml": VOLCANO_CONF, "f.policytest.yaml": HEADER + body}
    user_repository(tmp_path, monkeypatch, files)
    validated = run_line(["validate", "f.policytest.yaml", "--format", "json"])
    findings = json.loads(validated.stdout)["findings"]
    assert [f["rule"] for f in findings] == found, validated
    if found:
        (finding,) = findings
        assert (finding["line"], finding["column"]) == (7, 24)  # at the cpu it exceeds
        assert finding["severity"] == "warning"
        assert "request 10 cpu, more than its allocatable 8 (125%)" in finding["message"]
        assert "lower the pods' requests or raise `allocatable`" in finding["message"]
        ran = json.loads(run_line(["run", "f.policytest.yaml", "--format", "json"]).stdout)
        assert ran["results"][0]["status"] == "passed"  # the pod goes elsewhere: none is free


CPU_3 = {"resources": {"requests": {"cpu": "3"}}}

SNAPSHOT = """\
apiVersion: policytest/v1
kind: ClusterSnapshot
nodes:
- name: shrunk
  allocatable: {cpu: "8", memory: 16Gi, pods: "110"}
  pods:
  - {requests: {cpu: "6"}, count: 2}
- name: free
  allocatable: {cpu: "8", memory: 16Gi, pods: "110"}
"""


def test_a_snapshot_node_past_its_allocatable_is_a_warning_and_the_case_runs(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fixture = HEADER + "cluster:\n  snapshot: cluster.yaml" + CASES
    files = {"volcano.yaml": VOLCANO_CONF, "cluster.yaml": SNAPSHOT, "f.policytest.yaml": fixture}
    user_repository(tmp_path, monkeypatch, files)
    validated = run_line(["validate", "f.policytest.yaml", "--format", "json"])
    assert validated.exit_code == 0, validated
    (finding,) = json.loads(validated.stdout)["findings"]
    assert (finding["rule"], finding["severity"]) == ("PT011", "warning")
    # at the node's cpu in the snapshot file, not at the fixture's `snapshot:` key
    assert (finding["path"], finding["line"], finding["column"]) == ("cluster.yaml", 5, 22)
    assert (
        "request 12 cpu, more than its allocatable 8 (150%): the scheduler sees it full"
        in (finding["message"])
    )
    assert run_line(["run", "f.policytest.yaml"]).exit_code == 0


DUMP = {
    "apiVersion": "v1",
    "kind": "List",
    "items": [
        *(
            {
                "kind": "Node",
                "metadata": {"name": name},
                "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
            }
            for name in ("free", "shrunk")
        ),
        *(
            {
                "kind": "Pod",
                "metadata": {"name": f"bound-{i}", "namespace": "default"},
                "spec": {"nodeName": "shrunk", "containers": [{"name": "c", **CPU_3}]},
                "status": {"phase": "Running"},
            }
            for i in range(2)
        ),
        {
            "kind": "Pod",
            "metadata": {"name": "pending", "namespace": "default"},
            "spec": {"containers": [{"name": "c", **CPU_3}]},
            "status": {"phase": "Pending"},
        },
    ],
}


def test_a_kubectl_dump_node_is_found_in_the_dump_and_simulate_says_so(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """simulate of a snapshot whose node holds more than its allocatable said nothing
    (issue 37): it prints the warning, at the node's allocatable in the kubectl dump."""
    dump = json.dumps(DUMP, indent=4)
    files = {"volcano.yaml": VOLCANO_CONF, "cluster.json": dump}
    user_repository(tmp_path, monkeypatch, files)
    line = dump.splitlines().index('                    "cpu": "4",', 12) + 1  # the second
    simulated = run_line(["simulate", "--snapshot", "cluster.json", "--config", "volcano.yaml"])
    assert simulated.exit_code == 0, simulated
    assert (
        f"cluster: cluster.json:{line}:28: PT011 warning: node `shrunk`'s bound pods request "
        "6 cpu, more than its allocatable 4 (150%)" in simulated.stderr
    ), simulated


def test_simulate_of_a_fixture_says_so_at_the_node(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """issue 37: a node above 100% cpu passed `simulate` without a word."""
    body = example(PT011_OVERCOMMITTED_NODE.doc, "Failing").rstrip("\n") + CASES
    files = {"volcano.yaml": VOLCANO_CONF, "f.policytest.yaml": HEADER + body}
    user_repository(tmp_path, monkeypatch, files)
    simulated = run_line(["simulate", "f.policytest.yaml", "--format", "json"])
    assert simulated.exit_code == 0, simulated
    assert "cluster: f.policytest.yaml:7:24: PT011 warning: node `node-a`" in simulated.stderr
    json.loads(simulated.stdout)  # the report itself is untouched
