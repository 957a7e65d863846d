"""Runner logic with a fake scheduler: rankings, ties, tolerances, sequences."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pytest

from policytest.cluster import Node, Pod
from policytest.engine import NodeScore
from policytest.fixture import Fixture
from policytest.options import DEFAULT_OPTIONS
from policytest.runner import CaseResult, rank, run_case
from policytest.source import read_bytes
from policytest.suite import load_fixture


@dataclass
class PackByCpu:
    """Scores a node by its CPU in use after placement (millicores); filters on capacity."""

    nodes: dict[str, list[int]] = field(default_factory=dict)  # name -> [used, allocatable]

    def score(self, pod: Pod, only: Sequence[str] | None = None) -> list[NodeScore]:
        want = sum(c.requests["cpu"].milli_value() for c in pod.containers if "cpu" in c.requests)
        out = []
        for name in self.nodes if only is None else only:
            used, allocatable = self.nodes[name]
            if used + want > allocatable:
                out.append(NodeScore(name, False, "Insufficient cpu"))
            else:
                out.append(NodeScore(name, True, None, used + want, {"fake": used + want}))
        return out

    def bind(self, node_name: str, pod: Pod) -> None:
        self.nodes[node_name][0] += sum(c.requests["cpu"].milli_value() for c in pod.containers)

    def utilisation(self) -> Mapping[str, Mapping[str, tuple[int, int]]]:
        return {name: {"cpu": (u, a)} for name, (u, a) in self.nodes.items()}


@dataclass
class FakeScheduler:
    name: str = "fake"
    integer_scores: bool = True
    not_modelled: tuple[str, ...] = ("TaintToleration",)
    corrections: tuple[str, ...] = ()

    def cluster(self, nodes: Sequence[Node]) -> PackByCpu:
        return PackByCpu(
            {
                node.name: [
                    sum(
                        c.requests["cpu"].milli_value()
                        for p in node.pods
                        for c in p.containers
                        if "cpu" in c.requests
                    ),
                    node.allocatable["cpu"].milli_value(),
                ]
                for node in nodes
            }
        )


HEADER = """\
apiVersion: policytest/v1
kind: PolicyTest
scheduler: {config: unused.yaml}
cluster:
  nodes:
  - {name: a, allocatable: {cpu: "4"}, used: {cpu: "2"}}
  - {name: b, allocatable: {cpu: "4"}, used: {cpu: "1"}}
  - {name: c, allocatable: {cpu: "4"}, used: {cpu: "1"}}
  - {name: d, allocatable: {cpu: "1"}}
cases:
"""


def run(case_yaml: str, header: str = HEADER) -> CaseResult:
    (document,) = read_bytes(
        "f.policytest.yaml", (header + case_yaml).encode(), DEFAULT_OPTIONS.limits
    ).documents
    fixture, problems = load_fixture(document, DEFAULT_OPTIONS)
    assert isinstance(fixture, Fixture), problems
    return run_case(fixture, fixture.cases[0], FakeScheduler())


POD = '- name: c1\n  pod: {requests: {cpu: "2"}}\n'


def test_rank_groups_ties_in_fixture_order() -> None:
    scores = [
        NodeScore("x", True, total=1),
        NodeScore("y", True, total=5),
        NodeScore("z", True, total=1),
        NodeScore("w", False, "full"),
    ]
    assert rank(scores) == (("y",), ("x", "z"))


@pytest.mark.parametrize(
    ("expect", "status"),
    [
        ("ranking: [a, [b, c]]", "passed"),
        ("ranking: [a, [c, b]]", "passed"),
        ("ranking: [a]", "passed"),
        ("ranking: [a, b, c]", "failed"),
        ("ranking: [b]", "failed"),
        ("top: a", "passed"),
        ("top: b", "failed"),
        ("scores: {a: 4000, b: 3000}", "passed"),
        ("scores: {a: 4000.5}", "failed"),
        ("{scores: {a: 4000.5}, tolerance: 0.5}", "passed"),
        ("unschedulable: [d]", "passed"),
        ("unschedulable: []", "failed"),
        ("plugins: {a: {fake: 4000}}", "passed"),
        ("plugins: {a: {other: 1}}", "failed"),
        ("scores: {d: 1}", "failed"),
    ],
)
def test_single_pod_expectations(expect: str, status: str) -> None:
    expect_yaml = expect if expect.startswith("{") else "{" + expect + "}"
    result = run(POD + f"  expect: {expect_yaml}\n")
    assert result.status == status, result.message


def test_failure_messages_say_expected_and_actual() -> None:
    result = run(POD + "  expect: {ranking: [b, a], scores: {d: 1}}\n")
    assert "ranking: expected [b, a], got [a, [b, c]]" in result.message
    assert "scores: d is filtered out (Insufficient cpu), expected score 1" in result.message


def test_top_that_ties_fails_unless_ties_allowed() -> None:
    pod = '- name: c1\n  pod: {requests: {cpu: "3"}}\n'  # a is full: b and c tie
    tied = run(pod + "  expect: {top: b}\n")
    assert tied.status == "failed" and "ties with c" in tied.message
    assert run(pod + "  ties: allow\n  expect: {top: b}\n").status == "passed"


def test_sequence_placements_and_pending() -> None:
    case = '- name: s\n  pods: [{requests: {cpu: "1"}, count: 6}]\n'
    result = run(case + "  expect: {placements: {a: 2, b: 3, c: 1}, nodesUsed: 3, pending: 0}\n")
    assert result.placements == {"a": 2, "b": 3, "c": 1, "d": 0}
    assert result.status == "failed"  # the b/c tie decided which of them got 3 pods
    assert "placements were decided by a tie that this expectation depends on" in result.message
    allowed = run(
        case + "  ties: allow\n  expect: {placements: {a: 2, b: 3, c: 1}, "
        "nodesUsed: 3, pending: 0}\n"
    )
    assert allowed.status == "passed", allowed.message


def test_a_tie_between_identical_nodes_leaves_counts_certain() -> None:
    """b and c are identical when they tie: the other choice swaps their names only."""
    case = '- name: s\n  pods: [{requests: {cpu: "1"}, count: 6}]\n'
    counts = run(case + "  expect: {nodesUsed: 3, pending: 0}\n")
    assert counts.status == "passed", counts.message
    assert [step.identical for step in counts.steps if step.tied_with] == [True]
    # one pod each on b and c: the swap changes nothing, not even per-node placements
    even = '- name: s\n  pods: [{requests: {cpu: "3"}, count: 2}]\n'
    assert run(even + "  expect: {placements: {b: 1, c: 1}}\n").status == "passed"


def test_a_tie_between_different_nodes_makes_counts_uncertain() -> None:
    """small and big tie for the first pod but differ in size: had big won, all three would
    have fit on big (one node used, not two)."""
    header = HEADER.split("  - {name: a")[0] + (
        '  - {name: small, allocatable: {cpu: "4"}, used: {cpu: "2"}}\n'
        '  - {name: big, allocatable: {cpu: "8"}, used: {cpu: "2"}}\n'
        "cases:\n"
    )
    case = '- name: s\n  pods: [{requests: {cpu: "2"}, count: 3}]\n'
    result = run(case + "  expect: {nodesUsed: 2, pending: 0}\n", header)
    assert result.placements == {"small": 1, "big": 2}
    (tie,) = [step for step in result.steps if step.tied_with]
    assert (tie.node, tie.tied_with, tie.identical) == ("small", ("big",), False)
    assert result.status == "failed" and "decided by a tie" in result.message, result.message
    assert run(case + "  expect: {nodesUsed: 2}\n  ties: allow\n", header).status == "passed"


def test_sequence_pending_pods() -> None:
    case = '- name: s\n  ties: allow\n  pods: [{requests: {cpu: "3"}, count: 4}]\n'
    result = run(case + "  expect: {pending: 2}\n")
    assert result.status == "passed", result.message
    assert [step.node for step in result.steps] == ["b", "c", None, None]


def test_bad_quantity_is_a_case_error() -> None:
    result = run('- name: c1\n  pod: {requests: {cpu: "2 cores"}}\n  expect: {top: a}\n')
    assert result.status == "error"
    assert "2 cores" in result.message


def test_expectation_naming_an_unknown_node_is_a_fixture_error() -> None:
    (document,) = read_bytes(
        "f.yaml", (HEADER + POD + "  expect: {top: zz}\n").encode(), DEFAULT_OPTIONS.limits
    ).documents
    fixture, problems = load_fixture(document, DEFAULT_OPTIONS)
    assert fixture is None
    assert "expects node `zz`, which is not in the cluster" in problems[0].message
    assert problems[0].line == 11
