"""Property: ``run --update`` leaves every case it rewrote passing (issue 37, item 6).

An update that wrote an expectation which then failed on ties (and pytest then suggested
the very flag just used) left the user in a loop. Now an outcome a tie decided gets
``ties: allow`` with a comment saying why, and a case that says ``ties: fail`` is left
failing with a message that says what to change. Through the real entry point, on
clusters drawn to tie: nodes alike, nodes alike but for what is already used on them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from policytest.harness.golden import TIES_COMMENT
from tests.conftest import VOLCANO_CONF, RunLine

KUBE_CONF = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
"""

EXPECTATIONS = [
    "{}",
    "{top: n0}",
    "{ranking: [n1]}",
    "{unschedulable: []}",
    "{placements: {n0: 1}}",
    "{nodesUsed: 1}",
    "{pending: 0}",
    "{nodesUsed: 1, pending: 1}",
]


@st.composite
def fixtures(draw: st.DrawFn) -> str:
    """A fixture of two to four nodes, often alike, and a pod or a sequence."""
    config = draw(st.sampled_from(["volcano.yaml", "kube.yaml"]))
    cpus = draw(st.lists(st.sampled_from([2, 4]), min_size=2, max_size=4))
    lines = [
        "apiVersion: policytest/v1",
        "kind: PolicyTest",
        f"scheduler: {{config: {config}}}",
        "cluster:",
        "  nodes:",
    ]
    for index, cpu in enumerate(cpus):
        used = draw(st.sampled_from(["", ', used: {cpu: "1"}', ", used: {memory: 1Gi}"]))
        lines.append(
            f'  - {{name: n{index}, allocatable: {{cpu: "{cpu}", memory: 8Gi, pods: "110"}}{used}}}'
        )
    lines.append("cases:")
    request = draw(st.sampled_from(['{cpu: "1"}', '{cpu: "1", memory: 1Gi}', "{memory: 2Gi}"]))
    if draw(st.booleans()):
        count = draw(st.integers(1, 6))
        lines.append(f"- name: sequence\n  pods: [{{requests: {request}, count: {count}}}]")
    else:
        lines.append(f"- name: one pod\n  pod: {{requests: {request}}}")
    if draw(st.booleans()):
        lines.append("  # what the scheduler must do")
    lines.append(f"  expect: {draw(st.sampled_from(EXPECTATIONS))}")
    return "\n".join(lines) + "\n"


@settings(
    max_examples=25,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(fixtures())
@example(  # the first pod ties between nodes that differ: even the node count depends on it
    "apiVersion: policytest/v1\nkind: PolicyTest\nscheduler: {config: volcano.yaml}\n"
    "cluster:\n  nodes:\n"
    '  - {name: n0, allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}\n'
    '  - {name: n1, allocatable: {cpu: "4", memory: 8Gi, pods: "110", ephemeral-storage: 1Gi}}\n'
    'cases:\n- name: sequence\n  pods: [{requests: {cpu: "1"}, count: 2}]\n  expect: {}\n'
)
def test_after_an_update_the_run_passes(
    run_line: RunLine, tmp_path_factory: pytest.TempPathFactory, fixture: str
) -> None:
    directory = tmp_path_factory.mktemp("update")
    (directory / ".git").mkdir()
    (directory / "volcano.yaml").write_text(VOLCANO_CONF)
    (directory / "kube.yaml").write_text(KUBE_CONF)
    path = directory / "f.policytest.yaml"
    path.write_text(fixture)
    updated = run_line(["run", "--update", path])
    assert updated.exit_code == 0, f"{fixture}\n{updated}\n{path.read_text()}"
    again = run_line(["run", path, "--format", "json"])
    assert again.exit_code == 0, f"{fixture}\n{again}\n{path.read_text()}"
    written = path.read_text()
    if "ties: allow" in written:  # written only with the comment that says why
        assert TIES_COMMENT in written


FLOW_CASE = """\
apiVersion: policytest/v1
kind: PolicyTest
scheduler: {config: volcano.yaml}
cluster:
  nodes:
  - {name: a, allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
  - {name: b, allocatable: {cpu: "8", memory: 8Gi, pods: "110"}, used: {memory: 1Gi}}
cases:
- {name: sequence, pods: [{requests: {cpu: "1"}, count: 3}], expect: {}}
"""


def test_a_tie_in_a_flow_case_gets_ties_allow_without_a_comment(
    run_line: RunLine, tmp_path: Path
) -> None:
    """Two nodes alike but for memory used: a tie between different nodes decides the
    first pod, so even the node count depends on it."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "volcano.yaml").write_text(VOLCANO_CONF)
    path = tmp_path / "f.policytest.yaml"
    path.write_text(FLOW_CASE)
    assert run_line(["run", "--update", path]).exit_code == 0
    assert "expect: {nodesUsed: 1, pending: 0}, ties: allow}" in path.read_text()
    assert run_line(["run", path]).exit_code == 0


def test_a_case_that_refuses_ties_is_left_failing_and_says_why(
    run_line: RunLine, tmp_path: Path
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "volcano.yaml").write_text(VOLCANO_CONF)
    path = tmp_path / "f.policytest.yaml"
    path.write_text(FLOW_CASE.replace("expect: {}}", "ties: fail, expect: {}}"))
    updated = run_line(["run", "--update", path, "--format", "json"])
    assert updated.exit_code == 1
    (result,) = json.loads(updated.stdout)["results"]
    assert "the case says `ties: fail`: remove it to accept ties" in result["message"]
    assert "ties: allow" not in path.read_text()


def test_pytest_does_not_suggest_the_update_it_just_ran(pytester: pytest.Pytester) -> None:
    (pytester.path / ".git").mkdir()
    (pytester.path / "volcano.yaml").write_text(VOLCANO_CONF)
    fixture = pytester.path / "f.policytest.yaml"
    fixture.write_text(FLOW_CASE.replace("expect: {}}", "ties: fail, expect: {}}"))
    updated = pytester.runpytest("--policytest-update")
    updated.assert_outcomes(failed=1, passed=1)
    updated.stdout.fnmatch_lines(["*--policytest-update could not make this case pass*"])
    assert "run with --policytest-update" not in updated.stdout.str()
    fixture.write_text(FLOW_CASE)
    pytester.runpytest("--policytest-update").assert_outcomes(passed=2)
    assert "ties: allow" in fixture.read_text()
