"""Resource names no cluster holds are PT008 errors with a did-you-mean (issue 37, item 5):
in ``init``, in fixtures (nodes, bound and incoming pods) and in snapshots.

A node written with ``memroy`` has no memory, so every pod stays pending and ``run
--update`` would record that as the golden truth; a pod asking for a bare ``gpu`` is
refused by the API server, and policytest placed it on a node without GPUs."""

from __future__ import annotations

import json
from pathlib import Path

import hypothesis
import pytest
from hypothesis import given
from hypothesis import strategies as st

from policytest.harness.checks import resource_name_problem
from policytest.harness.model import PT008_RESOURCE_NAME
from policytest.scoring.names import (
    WELL_KNOWN_RESOURCES,
    node_can_have,
    pod_can_request,
)
from tests.conftest import DATA, VOLCANO_CONF, RunLine, user_repository
from tests.rule_examples import example

UPSTREAM = json.loads((DATA / "kube" / "resource_names.json").read_text(encoding="utf-8"))


def container_name(name: str, valid_resource_name: bool) -> bool:
    """``validateContainerResourceName`` from ``validateResourceName``'s verdict: an
    unqualified name must also be a container resource (cpu, memory, ephemeral-storage,
    huge pages)."""
    if "/" in name:
        return valid_resource_name
    return valid_resource_name and (
        name in UPSTREAM["standardContainerResources"]
        or name.startswith(UPSTREAM["hugePagesPrefix"])
    )


@pytest.mark.parametrize(
    ("name", "valid"), UPSTREAM["validateResourceName"], ids=lambda value: str(value)[:20]
)
def test_pod_resource_names_follow_the_api_server(name: str, valid: bool) -> None:
    assert pod_can_request(name) is container_name(name, valid)


@pytest.mark.parametrize(
    ("name", "pod", "node"),
    [
        ("hugepages-2Mi", True, True),
        ("nvidia.com/gpu", True, True),
        ("example.kubernetes.io/widget", True, True),
        ("requests.nvidia.com/gpu", False, False),  # `requests.` is quota's
        ("pods", False, True),  # a node has pods; a pod cannot request them
        ("attachable-volumes-aws-ebs", False, True),  # in-tree volume limits (before 1.27)
        ("gpu", False, False),
        ("Nvidia.com/gpu", False, False),  # the domain is lowercase
    ],
)
def test_pod_and_node_names(name: str, pod: bool, node: bool) -> None:
    assert pod_can_request(name) is pod
    assert node_can_have(name) is node


def test_every_well_known_name_is_clean_on_a_node() -> None:
    for name in WELL_KNOWN_RESOURCES:
        assert resource_name_problem(name, on_node=True) is None, name


NODE_NAMES = ("cpu", "memory", "ephemeral-storage", "pods")


@st.composite
def slips(draw: st.DrawFn) -> tuple[str, str]:
    """A standard node resource and one slip of the keyboard in it (a character left
    out, doubled, replaced or swapped with its neighbour)."""
    name = draw(st.sampled_from(NODE_NAMES))
    at = draw(st.integers(0, len(name) - 1))
    letter = draw(st.sampled_from("abcdefghijklmnopqrstuvwxyz-"))
    kind = draw(st.sampled_from(["drop", "double", "replace", "swap"]))
    if kind == "drop":
        slip = name[:at] + name[at + 1 :]
    elif kind == "double":
        slip = name[:at] + name[at] + name[at:]
    elif kind == "replace":
        slip = name[:at] + letter + name[at + 1 :]
    else:
        at = min(at, len(name) - 2)
        slip = name[:at] + name[at + 1] + name[at] + name[at + 2 :]
    return name, slip


@given(slips())
@hypothesis.example(("cpu", "gpu"))
def test_a_slip_in_a_node_resource_is_refused_and_the_name_suggested(
    slipped: tuple[str, str],
) -> None:
    name, slip = slipped
    problem = resource_name_problem(slip, on_node=True)
    if slip == name:
        assert problem is None
        return
    meant = "nvidia.com/gpu" if slip == "gpu" else name  # `gpu` is a word of its own, a GPU
    assert problem is not None and f"did you mean `{meant}`?" in problem, (slip, problem)


FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
scheduler: {config: volcano.yaml}
cluster:
  nodes:
  - name: busy
    allocatable: {cpu: "8", memory: 32Gi, pods: "110", nvidia.com/gpu: "4"}
  - name: empty
    allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
cases:
- name: one pod
  pod: {requests: {cpu: "1", nvidia.com/gpu: "1"}}
  expect: {top: busy}
"""

MISTAKES = [
    pytest.param(
        'memory: 32Gi, pods: "110", nvidia',
        'memroy: 32Gi, pods: "110", nvidia',
        (7, 29),
        "`memroy` is not a resource any node has (did you mean `memory`?)",
        id="node-memroy",
    ),
    pytest.param(
        'requests: {cpu: "1", nvidia.com/gpu: "1"}',
        'requests: {cpus: "1", nvidia.com/gpu: "1"}',
        (12, 20),
        "`cpus` is not a resource a pod can request (did you mean `cpu`?): the API server "
        "would reject this pod",
        id="pod-cpus",
    ),
    pytest.param(
        'requests: {cpu: "1", nvidia.com/gpu: "1"}',
        'requests: {cpu: "1", gpu: "1"}',
        (12, 30),
        "`gpu` is not a resource a pod can request (did you mean `nvidia.com/gpu`?)",
        id="pod-bare-gpu",
    ),
    pytest.param(
        'pods: "110", nvidia.com/gpu: "4"}',
        'pods: "110", nvida.com/gpu: "4"}',
        (7, 56),
        "`nvida.com/gpu` is no device plugin's resource (did you mean `nvidia.com/gpu`?)",
        id="node-vendor-slip",
    ),
]


@pytest.mark.parametrize(("old", "new", "where", "message"), MISTAKES)
def test_a_name_no_cluster_holds_is_pt008_at_the_name(
    run_line: RunLine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    old: str,
    new: str,
    where: tuple[int, int],
    message: str,
) -> None:
    assert old in FIXTURE
    user_repository(
        tmp_path,
        monkeypatch,
        {"volcano.yaml": VOLCANO_CONF, "f.policytest.yaml": FIXTURE.replace(old, new)},
    )
    validated = run_line(["validate", "f.policytest.yaml", "--format", "json"])
    assert validated.exit_code == 1, validated
    (finding,) = json.loads(validated.stdout)["findings"]
    assert (finding["rule"], finding["line"], finding["column"]) == ("PT008", *where)
    assert message in finding["message"]
    ran = run_line(["run", "f.policytest.yaml", "--format", "json"])
    (result,) = json.loads(ran.stdout)["results"]
    assert ran.exit_code == 1 and result["status"] == "error", ran
    assert message in result["message"]


def test_the_base_fixture_is_clean(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_repository(
        tmp_path, monkeypatch, {"volcano.yaml": VOLCANO_CONF, "f.policytest.yaml": FIXTURE}
    )
    assert run_line(["validate", "f.policytest.yaml"]).exit_code == 0
    assert run_line(["run", "f.policytest.yaml"]).exit_code == 0


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (
            ["--node", "busy:cpu=8,memroy=32Gi"],
            "node 'busy': `memroy` is not a resource any node has (did you mean `memory`?)",
        ),
        (
            ["--node", "busy:cpu=8,memory=32Gi", "--pod", "gpu=1"],
            "--pod: `gpu` is not a resource a pod can request (did you mean `nvidia.com/gpu`?)",
        ),
    ],
    ids=["node", "pod"],
)
def test_init_refuses_a_name_no_cluster_holds(
    run_line: RunLine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    flags: list[str],
    said: str,
) -> None:
    user_repository(tmp_path, monkeypatch, {"volcano.yaml": VOLCANO_CONF})
    result = run_line(["init", "volcano.yaml", *flags])
    assert result.exit_code == 2, result
    assert said in result.stderr
    assert not (tmp_path / "fixtures").exists()


SNAPSHOT = """\
apiVersion: policytest/v1
kind: ClusterSnapshot
nodes:
- name: real
  allocatable: {cpu: "8", memory: 32Gi, pods: "110", huawei.com/Ascend910B3: "8"}
- name: edited
  allocatable: {cpu: "8", memroy: 32Gi, pods: "110"}
"""


def test_a_snapshot_node_with_a_name_no_node_has_is_pt008(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A vendor's own names (``huawei.com/Ascend910B3``) are what real nodes report; a
    hand-edited ``memroy`` is not."""
    fixture = (
        FIXTURE.replace(
            FIXTURE[FIXTURE.index("  nodes:") : FIXTURE.index("cases:")],
            "  snapshot: cluster.yaml\n",
        )
        .replace("{top: busy}", "{pending: 1}")
        .replace(', nvidia.com/gpu: "1"', "")
    )
    user_repository(
        tmp_path,
        monkeypatch,
        {"volcano.yaml": VOLCANO_CONF, "cluster.yaml": SNAPSHOT, "f.policytest.yaml": fixture},
    )
    validated = run_line(["validate", "f.policytest.yaml", "--format", "json"])
    (finding,) = json.loads(validated.stdout)["findings"]
    assert finding["rule"] == "PT008" and "`memroy`" in finding["message"], validated
    clean = SNAPSHOT.replace("memroy", "memory")
    (tmp_path / "cluster.yaml").write_text(clean)
    assert run_line(["validate", "f.policytest.yaml"]).exit_code == 0


@pytest.mark.parametrize(("label", "found"), [("Failing", 2), ("Passing", 0)])
def test_the_rules_examples(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, label: str, found: int
) -> None:
    body = example(PT008_RESOURCE_NAME.doc, label)
    header = "apiVersion: policytest/v1\nkind: PolicyTest\nscheduler: {config: volcano.yaml}\n"
    user_repository(
        tmp_path, monkeypatch, {"volcano.yaml": VOLCANO_CONF, "f.policytest.yaml": header + body}
    )
    validated = run_line(["validate", "f.policytest.yaml", "--format", "json"])
    rules = [finding["rule"] for finding in json.loads(validated.stdout)["findings"]]
    assert rules == ["PT008"] * found, validated
