"""VB012 says when nodeorder's leastrequested cancels binpack, and only then.

For a pod that requests both cpu and memory (and nothing else binpack weights), the
two scores are linear in the node's utilisation, so a node fuller in both gains
``binpack.weight + mostrequested.weight - leastrequested.weight`` per unit: packing is
gone when that is not positive. The rule fires in those confs and not in the others
(mostrequested counts for packing), the shipped default (binpack without arguments) is
a note rather than a warning, and the scorer shows both ways: with the shipped default
cpu-and-memory pods tie on every node, while cpu-only pods, which binpack scores on cpu
alone while leastrequested still averages cpu and memory, pack.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from policytest.core.findings import Finding
from tests.conftest import RunLine
from tests.volcano.conftest import Check

BARE = "  - name: nodeorder\n  - name: binpack\n"


def conf(nodeorder: dict[str, int] | None, binpack: dict[str, int] | None) -> str:
    def entry(name: str, arguments: dict[str, int] | None) -> str:
        if arguments is None:
            return f"  - name: {name}\n"
        body = "".join(f"      {key}: {value}\n" for key, value in arguments.items())
        return f"  - name: {name}\n    arguments:\n{body}"

    return (
        'actions: "enqueue, allocate, backfill"\ntiers:\n- plugins:\n  - name: predicates\n'
        + entry("nodeorder", nodeorder)
        + entry("binpack", binpack)
    )


def vb012(findings: list[Finding]) -> list[Finding]:
    return [finding for finding in findings if finding.rule == "VB012"]


@pytest.mark.parametrize(
    ("nodeorder", "binpack", "severity", "effect"),
    [
        pytest.param(None, None, "info", "cancels binpack exactly", id="shipped"),
        pytest.param(None, {"binpack.weight": 1}, "warning", "exactly", id="weight-1"),
        pytest.param(
            None, {"binpack.cpu": 2, "binpack.memory": 2}, "warning", "exactly", id="default"
        ),
        pytest.param(
            {"leastrequested.weight": 2},
            {"binpack.weight": 1},
            "warning",
            "outweighs",
            id="outweighed",
        ),
        pytest.param(
            {"leastrequested.weight": 3, "mostrequested.weight": 1},
            {"binpack.weight": 2},
            "warning",
            "exactly",
            id="mostrequested-counted",
        ),
        pytest.param(
            None,
            {"binpack.weight": 1, "binpack.cpu": 5},
            "warning",
            "on nodes as full in cpu as in memory",
            id="uneven-weights",
        ),
    ],
)
def test_fires_when_packing_is_gone_for_cpu_and_memory_pods(
    check_text: Check,
    nodeorder: dict[str, int] | None,
    binpack: dict[str, int] | None,
    severity: str,
    effect: str,
) -> None:
    (finding,) = vb012(check_text(conf(nodeorder, binpack)))
    assert finding.severity.value == severity
    assert effect in finding.message
    assert "for pods that request only cpu and memory" in finding.message
    assert len(finding.message) <= 360  # the detail is in the rule's docs (issue 28)


@pytest.mark.parametrize(
    ("nodeorder", "binpack"),
    [
        pytest.param(None, {"binpack.weight": 10}, id="upstream-weight"),
        pytest.param({"leastrequested.weight": 0}, None, id="no-leastrequested"),
        pytest.param(None, {"binpack.weight": 0}, id="binpack-off"),
        pytest.param({"mostrequested.weight": 1}, {"binpack.weight": 1}, id="mostrequested"),
        pytest.param({"leastrequested.weight": 2}, {"binpack.weight": 3}, id="stronger"),
    ],
)
def test_silent_when_binpack_still_packs(
    check_text: Check, nodeorder: dict[str, int] | None, binpack: dict[str, int] | None
) -> None:
    assert vb012(check_text(conf(nodeorder, binpack))) == []


def vb012_rules(text: str) -> list[str]:
    from policytest.volcano.check import check
    from tests.volcano.helpers import OPTIONS, documents

    (document,) = documents(text)
    return [f.rule for f in check(document, OPTIONS) if f.rule == "VB012"]


def test_no_nodeorder_no_warning(check_text: Check) -> None:
    text = conf(None, None).replace("  - name: nodeorder\n", "")
    assert vb012(check_text(text)) == []


# --- what the scorer says, both ways ----------------------------------------------------

CLUSTER = """\
cluster:
  nodes:
  - name: half
    allocatable: {cpu: "16", memory: 64Gi, pods: "110"}
    used: {cpu: "8", memory: 16Gi}
  - name: quarter
    allocatable: {cpu: "16", memory: 64Gi, pods: "110"}
    used: {cpu: "4", memory: 16Gi}
  - name: empty
    allocatable: {cpu: "16", memory: 64Gi, pods: "110"}
    used: {memory: 16Gi}
cases:
- name: cpu and memory
  pod: {requests: {cpu: "2", memory: 8Gi}}
  ties: allow
  expect: {ranking: [half]}
- name: cpu only
  pod: {requests: {cpu: "2"}}
  ties: allow
  expect: {ranking: [half]}
"""


ISOLATED = {"balancedresource.weight": 0}
"""nodeorder with only leastrequested (and mostrequested) scoring: balancedresource, which
prefers nodes as full in cpu as in memory, is left out so the two scores stand alone."""


def scores(run_line: RunLine, tmp_path: Path, text: str) -> dict[str, dict[str, float]]:
    """Each case's node totals (binpack + nodeorder) from ``policytest run``."""
    inline = "".join(f"    {line}\n" for line in text.splitlines())
    fixture = tmp_path / "vb012.policytest.yaml"
    fixture.write_text(
        "apiVersion: policytest/v1\nkind: PolicyTest\nmetadata: {name: vb012}\n"
        f"scheduler:\n  volcano:\n{inline}{CLUSTER}"
    )
    result = run_line(["run", "--format", "json", fixture])
    data: dict[str, Any] = json.loads(result.stdout)
    return {
        r["case"]: {node["name"]: node["total"] for node in r["nodes"]} for r in data["results"]
    }


def packs(totals: dict[str, float]) -> bool:
    """The fuller the node, the higher it scores, by clear margins."""
    return totals["half"] - totals["quarter"] >= 5 and totals["quarter"] - totals["empty"] >= 5


def spreads(totals: dict[str, float]) -> bool:
    return totals["empty"] - totals["quarter"] >= 5 and totals["quarter"] - totals["half"] >= 5


def test_shipped_default_ties_cpu_and_memory_pods_but_packs_cpu_only_pods(
    run_line: RunLine, tmp_path: Path
) -> None:
    assert vb012_rules(conf(ISOLATED, None)) == ["VB012"]
    totals = scores(run_line, tmp_path, conf(ISOLATED, None))
    both = totals["cpu and memory"]
    assert max(both.values()) - min(both.values()) < 1  # cancelled, up to rounding
    assert packs(totals["cpu only"])  # binpack scores cpu alone: still packed


def test_outweighed_binpack_spreads_cpu_and_memory_pods(run_line: RunLine, tmp_path: Path) -> None:
    text = conf({**ISOLATED, "leastrequested.weight": 2}, None)
    assert vb012_rules(text) == ["VB012"]
    assert spreads(scores(run_line, tmp_path, text)["cpu and memory"])


@pytest.mark.parametrize(
    ("nodeorder", "binpack"),
    [
        ({"leastrequested.weight": 1}, {"binpack.weight": 10}),
        ({"mostrequested.weight": 1}, {"binpack.weight": 1}),
    ],
    ids=["upstream-weight", "mostrequested"],
)
def test_where_the_rule_is_silent_pods_pack(
    run_line: RunLine, tmp_path: Path, nodeorder: dict[str, int], binpack: dict[str, int]
) -> None:
    text = conf({**ISOLATED, **nodeorder}, binpack)
    assert vb012_rules(text) == []
    assert packs(scores(run_line, tmp_path, text)["cpu and memory"])
