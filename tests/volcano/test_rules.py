"""Every Volcano rule: fires on its failing example at the offending key or value (line and
column), stays silent on its passing example, and points right inside a ConfigMap too."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import pytest

from policytest.core.findings import Severity
from policytest.core.rules import get_rule
from policytest.read.source import read_bytes
from policytest.volcano import rules as volcano_rules
from policytest.volcano.check import check
from tests.conftest import of_rule
from tests.volcano.helpers import OPTIONS, Check, documents

HEAD = 'actions: "enqueue, allocate, backfill"\ntiers:\n- plugins:\n  - name: predicates\n'
NODEORDER = "  - name: nodeorder\n"


def binpack(*lines: str, flags: str = "") -> str:
    """HEAD + nodeorder + a binpack entry whose arguments are ``lines`` (line 7 onwards)."""
    body = "".join(f"      {line}\n" for line in lines)
    return HEAD + NODEORDER + "  - name: binpack\n" + flags + "    arguments:\n" + body


def nodeorder(*lines: str, flags: str = "") -> str:
    """HEAD + a nodeorder entry with ``lines`` as arguments (line 7 onwards) + binpack 10."""
    body = "".join(f"      {line}\n" for line in lines)
    packed = "  - name: binpack\n    arguments:\n      binpack.weight: 10\n"
    return HEAD + "  - name: nodeorder\n" + flags + "    arguments:\n" + body + packed


@dataclass(frozen=True)
class Case:
    rule: str
    failing: str
    passing: str
    line: int
    column: int
    contains: str = ""
    severity: Severity | None = None


CASES = [
    Case(
        "VC001",
        binpack("binpack.weight: 10", flags='    enableNodeOrder: "true"\n'),
        binpack("binpack.weight: 10", flags="    enableNodeOrder: true\n"),
        7,
        22,
        "enableNodeOrder: true` (no quotes)",
    ),
    Case(
        "VC001",
        HEAD + "  - binpack\n",
        HEAD + "  - name: binpack\n    arguments: {binpack.weight: 10}\n",
        5,
        5,
        "write `- name: binpack`",
    ),
    Case(
        "VC001",
        binpack("binpack.weight: 10").replace("    arguments:\n      binpack.weight: 10\n", "")
        + "    arguments: [binpack.weight: 10]\n",
        binpack("binpack.weight: 10"),
        7,
        16,
        "mapping of argument names",
    ),
    Case(
        "VC002",
        HEAD.replace("backfill", "backfill,"),
        HEAD + "  - name: binpack\n    arguments: {binpack.weight: 10}\n",
        1,
        39,
        "empty action name",
    ),
    Case(
        "VC002",
        HEAD.replace("backfill", "gangPreempt"),
        HEAD.replace("backfill", "gangpreempt"),
        1,
        30,
        "write `gangpreempt`",
    ),
    Case(
        "VC002",
        HEAD.replace("enqueue, ", "enqueue, elect, "),
        HEAD,
        1,
        20,
        "removed in Volcano 1.6",
    ),
    Case(
        "VC003",
        HEAD + "  - name: drf\n    enableHierarchy: true\n  - name: proportion\n",
        HEAD + "  - name: drf\n    enableHierarchy: true\n- plugins:\n  - name: proportion\n",
        6,
        22,
        "proportion and drf with hierarchy enabled conflicts",
    ),
    Case(
        "VC004",
        HEAD + "  - name: numaaware\n",
        HEAD + "  - name: numa-aware\n",
        5,
        11,
        "did you mean `numa-aware`?",
    ),
    Case(
        "VC005",
        binpack("binpack.weight: 10") + "  - name: binpack\n",
        binpack("binpack.weight: 10"),
        9,
        11,
        "2 times per node, each time with the weights of the entry at line 9",
        severity=Severity.ERROR,  # the first entry's arguments are silently dropped
    ),
    Case(
        "VC006",
        binpack("binpack.weight: 10", flags="    enabledNodeOrder: false\n"),
        binpack("binpack.weight: 10", flags="    enableNodeOrder: false\n"),
        7,
        5,
        "did you mean `enableNodeOrder`?",
    ),
    Case(
        "VC006",
        HEAD + "  - name: drf\n    disableTaskOrder: true\n",
        HEAD + "  - name: drf\n    enableTaskOrder: false\n",
        6,
        5,
        "write `enableTaskOrder: false`",
    ),
    Case(
        "VC007",
        binpack("binpack.weight: 10", "binpack.weight: 3"),
        binpack("binpack.weight: 10"),
        9,
        7,
        "first at line 8",
    ),
    Case("VC008", HEAD.replace("allocate, ", ""), HEAD, 1, 10, "no `allocate` action"),
    Case(
        "VC008",
        HEAD.replace("backfill", "allocate"),
        HEAD,
        1,
        30,
        "listed twice",
    ),
    Case(
        "VC010",
        binpack("binpack.weight: 10", flags="    enableNodeOrder: Null\n"),
        binpack("binpack.weight: 10", flags="    enableNodeOrder: null\n"),
        7,
        22,
        "sets this flag to false",
    ),
    Case(
        "VC011",
        HEAD + "configurations:\n- name: preempt\n  arguments: {}\n",
        HEAD.replace("backfill", "backfill, preempt")
        + "configurations:\n- name: preempt\n  arguments: {}\n",
        6,
        9,
        "not in `actions`",
    ),
    Case(
        "VC012",
        HEAD + "  - name: overcommit\n    arguments:\n      cpu-overcommit-ratio: 2.0\n",
        HEAD + "  - name: overcommit\n    arguments:\n      overcommit-factor: 2.0\n",
        7,
        7,
        "overcommit reads only `overcommit-factor`",
    ),
    Case(
        "VC013",
        HEAD.replace("predicates", 'predicates\n    arguments:\n      predicate.CacheEnable: "on"'),
        HEAD.replace("predicates", "predicates\n    arguments:\n      predicate.CacheEnable: on"),
        6,
        30,
        "not a boolean to strconv.ParseBool",
    ),
    Case(
        "VC013",
        HEAD + '  - name: overcommit\n    arguments:\n      overcommit-factor: "1.5"\n',
        HEAD + "  - name: overcommit\n    arguments:\n      overcommit-factor: 1.5\n",
        7,
        26,
        "reads it as float",
    ),
    Case(
        "VB001",
        binpack('binpack.weight: "10"'),
        binpack("binpack.weight: 10"),
        8,
        23,
        "keeps 1",
    ),
    Case(
        "VB001",
        binpack("binpack.weight: 010"),
        binpack("binpack.weight: 8"),
        8,
        23,
        "octal",
        Severity.WARNING,
    ),
    Case(
        "VB002",
        binpack("binpack.weight: 10", "binpack.memory: -1"),
        binpack("binpack.weight: 10", "binpack.memory: 0"),
        9,
        23,
        "uses weight 1 instead",
    ),
    Case(
        "VB003",
        binpack("binpack.weight: 0", "binpack.cpu: 5"),
        binpack("binpack.weight: 10", "binpack.cpu: 5"),
        8,
        23,
        "does not register",
    ),
    Case(
        "VB004",
        binpack("binpack.weight: -10"),
        binpack("binpack.weight: 10"),
        8,
        23,
        "spread",
    ),
    Case(
        "VB005",
        binpack("binpack.weight: 10", "binpack.resources.nvidia.com/gpu: 5"),
        binpack(
            "binpack.weight: 10",
            "binpack.resources: nvidia.com/gpu",
            "binpack.resources.nvidia.com/gpu: 5",
        ),
        9,
        7,
        'declare it: write `binpack.resources: "nvidia.com/gpu"`',
    ),
    Case(
        "VB006",
        binpack("binpack.weight: 10", "binpack.resources: nvidia.com/gpu"),
        binpack(
            "binpack.weight: 10",
            "binpack.resources: nvidia.com/gpu",
            "binpack.resources.nvidia.com/gpu: 1",
        ),
        9,
        26,
        "its weight is 1",
    ),
    Case(
        "VB007",
        binpack(
            "binpack.weight: 10",
            "binpack.resources: [nvidia.com/gpu]",
            "binpack.resources.nvidia.com/gpu: 5",
        ),
        binpack(
            "binpack.weight: 10",
            "binpack.resources: nvidia.com/gpu",
            "binpack.resources.nvidia.com/gpu: 5",
        ),
        9,
        26,
        'binpack.resources: "nvidia.com/gpu"',
    ),
    Case(
        "VB008",
        binpack("binpack.weight: 10", "binpack.resources: cpu", "binpack.resources.cpu: 5"),
        binpack("binpack.weight: 10", "binpack.cpu: 5"),
        10,
        7,
        "write `binpack.cpu: 5` instead",
        Severity.ERROR,
    ),
    Case(
        "VB009",
        binpack("binpack.weight: 10", "binpack.gpu: 5"),
        binpack(
            "binpack.weight: 10",
            "binpack.resources: nvidia.com/gpu",
            "binpack.resources.nvidia.com/gpu: 5",
        ),
        9,
        7,
        "GPUs are declared in `binpack.resources`",
    ),
    Case(
        "VB009",
        binpack("weight: 10"),
        binpack("binpack.weight: 10"),
        8,
        7,
        "did you mean `binpack.weight`?",
    ),
    Case(
        "VB010",
        binpack("binpack.weight: 10", "binpack.cpu: 0", "binpack.memory: 0"),
        binpack("binpack.weight: 10", "binpack.cpu: 1", "binpack.memory: 0"),
        8,
        7,
        "scores 0 on every node",
    ),
    Case(
        "VB011",
        binpack("binpack.weight: 10", flags="    enableNodeOrder: false\n"),
        binpack("binpack.weight: 10"),
        7,
        22,
        "do nothing",
    ),
    Case(
        "VB012",
        binpack("binpack.cpu: 1"),
        binpack("binpack.weight: 10", "binpack.cpu: 1"),
        6,
        11,
        "`binpack.weight: 10`",
    ),
    Case(
        "VB013",
        binpack(
            "binpack.weight: 10",
            "binpack.resources: nvidia.com/GPU",
            "binpack.resources.nvidia.com/GPU: 2",
        ),
        binpack(
            "binpack.weight: 10",
            "binpack.resources: nvidia.com/gpu",
            "binpack.resources.nvidia.com/gpu: 2",
        ),
        9,
        26,
        "only by case",
    ),
    Case(
        "VB014",
        binpack("binpack.weight: 9223372036854775807"),
        binpack("binpack.weight: 10"),
        8,
        23,
        "overflows",
    ),
    Case(
        "VB015",
        binpack("binpack.weight: 10"),
        nodeorder("podtopologyspread.weight: 0"),
        8,
        23,
        "`binpack.weight: 21`",
    ),
    Case(
        "VN001",
        nodeorder('leastrequested.weight: "0"'),
        nodeorder("leastrequested.weight: 0"),
        7,
        30,
        "keeps the default 1",
    ),
    Case(
        "VN002",
        nodeorder("leastrequested.weight: -1"),
        nodeorder("leastrequested.weight: 0"),
        7,
        30,
        "inverted",
    ),
    Case(
        "VN003",
        nodeorder("leastrequested: 0"),
        nodeorder("leastrequested.weight: 0"),
        7,
        7,
        "did you mean `leastrequested.weight`?",
    ),
    Case(
        "VN004",
        nodeorder("mostrequested.weight: 1"),
        nodeorder("leastrequested.weight: 0", "mostrequested.weight: 1"),
        7,
        29,
        "both positive",
    ),
    Case(
        "VN005",
        nodeorder("leastrequested.weight: 0", flags="    enableNodeOrder: false\n"),
        nodeorder("leastrequested.weight: 0"),
        6,
        22,
        "do nothing",
    ),
]
IDS = [f"{case.rule}-{index}" for index, case in enumerate(CASES)]


def configmap(conf: str) -> str:
    """The conf as the chart ships it: a literal block in a ConfigMap (conf line 1 = line 8)."""
    return (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: volcano-scheduler-configmap\n"
        "  namespace: volcano-system\ndata:\n  volcano-scheduler.conf: |\n"
        + textwrap.indent(conf, "    ")
    )


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_rule_fires_at_the_offending_key_or_value(case: Case, check_text: Check) -> None:
    found = of_rule(check_text(case.failing), case.rule)
    assert found, check_text(case.failing)
    where = [(f.line, f.column) for f in found]
    assert (case.line, case.column) in where, found
    finding = next(f for f in found if (f.line, f.column) == (case.line, case.column))
    assert case.contains in finding.message
    assert finding.severity is (case.severity or get_rule(case.rule).severity)  # type: ignore[union-attr]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_rule_is_silent_on_the_passing_example(case: Case, check_text: Check) -> None:
    assert of_rule(check_text(case.passing), case.rule) == []


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_rule_points_into_a_configmap(case: Case, check_text: Check) -> None:
    found = of_rule(check_text(configmap(case.failing)), case.rule)
    assert (case.line + 7, case.column + 4) in [(f.line, f.column) for f in found], found
    assert all(f.path == "volcano-scheduler.conf" for f in found)


def test_every_volcano_rule_has_a_case() -> None:
    declared = {
        value.id
        for value in vars(volcano_rules).values()
        if hasattr(value, "id") and hasattr(value, "doc")
    }
    tested = {case.rule for case in CASES} | {"VC009"}
    assert declared == tested


def test_a_second_raw_document_is_never_read() -> None:
    text = HEAD + "---\n" + HEAD.replace("allocate", "allocat")
    source = read_bytes("volcano-scheduler.conf", text.encode(), OPTIONS.limits)
    first, second = (check(document, OPTIONS) for document in source.documents)
    assert of_rule(first, "VC009") == []
    assert of_rule(second, "VC002") == []  # `allocat` is never read, so never rejected
    (ignored,) = of_rule(second, "VC009")
    assert (ignored.line, ignored.column, ignored.document) == (6, 1, 1)
    assert "reads only the first document" in ignored.message


def test_passing_examples_are_clean_apart_from_advice(check_text: Check) -> None:
    base = nodeorder("podtopologyspread.weight: 0")  # binpack.weight 10 (else VB015)
    assert [f for f in check_text(base) if f.severity is not Severity.INFO] == []
    assert documents(base)[0].embedding is None


@pytest.mark.parametrize(
    ("arguments", "rules"),
    [
        (("binpack.weight: 20",), {"VB015"}),  # net 19 < 10 x 2
        (("binpack.weight: 21",), set()),  # net 20: packing weighs enough
        (("binpack.weight: 1",), {"VB012"}),  # leastrequested cancels it: VB012 says so
        (("binpack.weight: 10", "binpack.cpu: 0", "binpack.memory: 0"), {"VB010"}),
    ],
)
def test_vb015_fires_below_ten_times_the_spreading_weight(
    arguments: tuple[str, ...], rules: set[str], check_text: Check
) -> None:
    found = {f.rule for f in check_text(binpack(*arguments))} & {"VB010", "VB012", "VB015"}
    assert found == rules


def test_vb015_counts_nodeorder_weights(check_text: Check) -> None:
    """mostrequested adds to binpack's pull, leastrequested takes from it, and a larger
    podtopologyspread.weight raises the bar."""
    assert of_rule(check_text(nodeorder("mostrequested.weight: 12")), "VB015") == []
    (finding,) = of_rule(check_text(nodeorder("podtopologyspread.weight: 5")), "VB015")
    assert "loses up to 500 points" in finding.message
    assert "`binpack.weight: 51`" in finding.message
