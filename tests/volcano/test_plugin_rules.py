"""Every VR, VD and VT rule: its documented failing example fires at the offending key or
value (also inside a ConfigMap), its passing example is clean; the variants that matter
(each way a value stops the scheduler, each silent correction) and every release where
upstream differs."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import pytest

from policytest.core.findings import Severity
from policytest.core.rules import Rule, get_rule
from policytest.volcano import plugin_rules
from tests.conftest import of_rule
from tests.rule_examples import example
from tests.volcano.helpers import Check

HEAD = 'actions: "enqueue, allocate, backfill"\ntiers:\n- plugins:\n  - name: predicates\n'
RULES = [value for value in vars(plugin_rules).values() if isinstance(value, Rule)]


def conf(entry: str) -> str:
    """HEAD + one plugin entry (its ``- name:`` on line 5)."""
    return HEAD + textwrap.indent(textwrap.dedent(entry).strip() + "\n", "  ")


def rsf(*lines: str, flags: str = "") -> str:
    """A resource-strategy-fit entry whose arguments are ``lines`` (line 7 onwards)."""
    body = "".join(f"    {line}\n" for line in lines)
    return conf("- name: resource-strategy-fit\n" + flags + "  arguments:\n" + body)


def plugin(name: str, *lines: str) -> str:
    body = "".join(f"    {line}\n" for line in lines)
    return conf(f"- name: {name}\n  arguments:\n" + body)


def configmap(text: str) -> str:
    """The conf in a ConfigMap (conf line 1 = line 8, columns + 4)."""
    return (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: volcano-scheduler-configmap\n"
        "data:\n  volcano-scheduler.conf: |\n" + textwrap.indent(text, "    ")
    )


DOC_POSITIONS = {
    "VR001": (7, 34),
    "VR002": (10, 19),
    "VR003": (7, 34),
    "VR004": (7, 7),
    "VR005": (10, 19),
    "VR006": (9, 17),
    "VR007": (8, 9),
    "VR008": (7, 7),
    "VR009": (7, 18),
    "VR010": (11, 9),
    "VR011": (7, 7),
    "VR012": (11, 31),
    "VR013": (6, 22),
    "VR014": (8, 9),
    "VR015": (8, 34),
    "VD001": (8, 36),
    "VD002": (7, 31),
    "VD003": (8, 35),
    "VD004": (7, 7),
    "VT001": (7, 30),
    "VT002": (7, 7),
    "VT003": (7, 7),
}


def test_every_rule_has_a_position() -> None:
    assert sorted(DOC_POSITIONS) == sorted(r.id for r in RULES)


@pytest.mark.parametrize("declared", RULES, ids=lambda r: r.id)
def test_failing_example_fires_at_the_offending_value(declared: Rule, check_text: Check) -> None:
    text = conf(example(declared.doc, "Failing"))
    found = of_rule(check_text(text), declared.id)
    assert DOC_POSITIONS[declared.id] in [(f.line, f.column) for f in found], found
    assert all(f.severity is declared.severity for f in found)
    inside = of_rule(check_text(configmap(text)), declared.id)
    line, column = DOC_POSITIONS[declared.id]
    assert (line + 6, column + 4) in [(f.line, f.column) for f in inside], inside


@pytest.mark.parametrize("declared", RULES, ids=lambda r: r.id)
def test_passing_example_is_clean(declared: Rule, check_text: Check) -> None:
    found = check_text(conf(example(declared.doc, "Passing")))
    assert of_rule(found, declared.id) == []
    assert [f for f in found if f.severity is not Severity.INFO] == []


@dataclass(frozen=True)
class Case:
    rule: str
    text: str
    line: int
    column: int
    contains: str
    version: str | None = None
    severity: Severity | None = None


CASES = [
    # framework.Get refusals: the scheduler exits
    Case("VR001", rsf('resourceStrategyFitWeight: "10"'), 7, 34, 'the string "10"'),
    Case("VR001", rsf("resourceStrategyFitWeight: yes"), 7, 34, "the boolean `true`"),
    Case("VR001", rsf("resourceStrategyFitWeight: [10]"), 7, 34, "a list"),
    Case("VR001", rsf("resources: cpu"), 7, 18, "must be a mapping"),
    Case("VR001", rsf("resources: [cpu, memory]"), 7, 18, "must be a mapping, but it is a list"),
    Case("VR001", rsf("resources:", "  cpu: MostAllocated"), 8, 14, "`resources.cpu` must be"),
    Case("VR001", rsf("resources:", "  cpu: {type: 5, weight: 1}"), 8, 21, "resources.cpu.type"),
    Case("VR001", rsf("resources:", "  cpu: {type: MostAllocated, weight: high}"), 8, 44, "weight"),
    Case("VR001", rsf("resources:", "  5: {type: MostAllocated}"), 8, 9, "`resources.5`"),
    Case("VR001", rsf("sra: true"), 7, 12, "`sra` must be a mapping"),
    Case("VR001", rsf("sra:", '  enable: "true"'), 8, 17, "`sra.enable` must be a boolean"),
    Case("VR001", rsf("sra:", "  enable: 1"), 8, 17, "the integer 1"),
    Case("VR001", rsf("sra:", "  enable: false", '  weight: "3"'), 9, 17, "sra.weight"),
    Case("VR001", rsf("sra:", "  resources: [a, b]"), 8, 20, "`sra.resources` must be a string"),
    Case("VR001", rsf("sra:", "  resourceWeight: {nvidia.com/gpu: '1'}"), 8, 42, "resourceWeight"),
    Case(
        "VR001",
        rsf("proportional:", "  resourceProportion: {nvidia.com/gpu.cpu: '4'}"),
        8,
        50,
        "must be a number",
    ),
    # silent corrections
    Case("VR002", rsf("resourceStrategyFitWeight: 7.9"), 7, 34, "Volcano reads 7"),
    Case("VR002", rsf("resourceStrategyFitWeight: 9223372036854775808"), 7, 34, "wraps"),
    Case("VR002", rsf("sra:", "  enable: true", "  weight: 2.5"), 9, 17, "Volcano reads 2"),
    Case("VR003", rsf("resourceStrategyFitWeight: -1"), 7, 34, "uses 10 instead"),
    Case("VR003", rsf("resourceStrategyFitWeight: 9223372036854775808"), 7, 34, "uses 10"),
    Case("VR004", rsf("resourceStrategyFitWeight: 0"), 7, 34, "not registered"),
    Case("VR004", rsf("resourceStrategyFitWeight: ~"), 7, 7, "null decodes to 0"),
    Case("VR005", rsf("resources:", "  cpu: {type: MostAllocated, weight: -2}"), 8, 44, "uses 1"),
    Case("VR005", rsf("resources:", "  cpu: {type: MostAllocated, weight: 0.5}"), 8, 44, "uses 1"),
    Case(
        "VR005",
        rsf("resources:", "  cpu: {type: MostAllocated}"),
        8,
        9,
        "no `weight`",
        severity=Severity.INFO,
    ),
    Case("VR006", rsf("resources:", "  cpu: {type: Most, weight: 1}"), 8, 21, "LeastAllocated"),
    Case("VR006", rsf("resources:", "  cpu: {weight: 1}"), 8, 9, "no `type`"),
    Case("VR006", rsf("resources:", "  cpu:"), 8, 9, "no settings (null)"),
    Case("VR007", rsf("resources:", "  nvidia.*/gpu: {type: MostAllocated}"), 8, 9, "at the end"),
    Case("VR007", rsf("resources:", "  '*gpu*': {type: MostAllocated}"), 8, 9, "only one `*`"),
    Case("VR008", rsf("ResourceStrategyFitWeight: 10"), 7, 7, "case-sensitive"),
    Case("VR008", rsf("resources:", "  cpu: {typ: MostAllocated}"), 8, 15, "did you mean `type`"),
    Case("VR008", rsf("sra:", "  weight: 1", "  Weight: 2"), 8, 9, "sets the same field"),
    Case("VR008", rsf("sra:", "  WEIGHT: 1", "  weight: 2"), 9, 9, "changes at random"),
    Case("VR009", rsf("resources:", "  '*': {type: MostAllocated}"), 7, 7, "every node"),
    Case(
        "VR009",
        rsf("resourceStrategyFitWeight: 5"),
        5,
        11,
        "by up to 500 points",
        severity=Severity.INFO,
    ),
    Case(
        "VR009",
        conf("- name: resource-strategy-fit"),
        5,
        11,
        "LeastAllocated",
        severity=Severity.INFO,
    ),
    Case("VR010", rsf("resources:", "  p*: {type: MostAllocated, weight: 1}"), 8, 9, "`pods`"),
    Case("VR011", rsf("sra:", "  enable: true", "  weight: 1"), 7, 7, "without `resources`"),
    Case(
        "VR011",
        rsf("sra:", "  enable: true", "  weight: 1", "  resources: a.com/x, a.com/x"),
        10,
        20,
        "listed 2 times",
    ),
    Case(
        "VR011",
        rsf(
            "sra:",
            "  enable: true",
            "  weight: 1",
            "  resources: a.com/x",
            "  resourceWeight:",
            "    a.com/y: 2",
        ),
        12,
        11,
        "not listed",
    ),
    Case("VR012", rsf("proportional:", "  resources: nvidia.com/gpu"), 7, 7, "is off"),
    Case(
        "VR013",
        rsf(
            "proportional: {enable: true, resources: nvidia.com/gpu}",
            flags="  enablePredicate: false\n",
        ),
        6,
        22,
        "filter never runs",
    ),
    Case(
        "VR015",
        conf(
            "- name: nodeorder\n  arguments: {leastrequested.weight: 20}\n"
            "- name: resource-strategy-fit\n  arguments:\n"
            "    resources: {cpu: {type: MostAllocated, weight: 1}}"
        ),
        7,
        11,
        "is 10 and nodeorder's leastrequested.weight is 20",
    ),
    Case("VR014", rsf("sra: {enable: true, weight: 1, resources: nvidia/gpu}"), 7, 49, "GPU"),
    # deviceshare
    Case(
        "VD001",
        plugin("deviceshare", "deviceshare.GPUNumberEnable: true", "deviceshare.VGPUEnable: true"),
        8,
        31,
        "gpu-share and vgpu",
    ),
    Case(
        "VD001",
        plugin(
            "deviceshare",
            "deviceshare.GPUSharingEnable: true",
            'deviceshare.GPUNumberEnable: "true"',
        ),
        8,
        36,
        "klog.Fatal",
        version="1.15",
    ),
    Case(
        "VD002",
        plugin("deviceshare", 'deviceshare.GPUNumberEnable: "true"'),
        7,
        36,
        "Volcano 1.14 ignores it",
        version="1.14",
    ),
    Case("VD002", plugin("deviceshare", 'deviceshare.VGPUEnable: "on"'), 7, 31, "ParseBool"),
    Case("VD003", plugin("deviceshare", "deviceshare.ScheduleWeight: 0"), 7, 35, "not positive"),
    Case("VD003", plugin("deviceshare", 'deviceshare.ScheduleWeight: "10"'), 7, 35, "keeps 0"),
    Case("VD003", plugin("deviceshare", "deviceshare.SchedulePolicy: Spread"), 7, 35, "`spread`"),
    Case("VD003", plugin("deviceshare", "deviceshare.ScheduleWeight: 10"), 7, 35, "without"),
    Case(
        "VD004",
        plugin("deviceshare", "deviceshare.AscendHAMiVNPUEnable: true"),
        7,
        7,
        "reads it in Volcano 1.14 and later",
        version="1.13",
    ),
    Case(
        "VC004",
        rsf("resourceStrategyFitWeight: 10"),
        5,
        11,
        "added in Volcano 1.13",
        version="1.12",
    ),
    # network-topology-aware
    Case("VT001", plugin("network-topology-aware", "weight: -2"), 7, 15, "uses 1"),
    Case(
        "VT001",
        plugin("network-topology-aware", "hypernode.binpack.normal-pod.fading: -1"),
        7,
        44,
        "0.8",
    ),
    Case(
        "VT001",
        plugin("network-topology-aware", 'hypernode.binpack.normal-pod.enable: "false"'),
        7,
        44,
        "Volcano 1.14 ignores it",
        version="1.14",
    ),
    Case(
        "VT002",
        plugin("network-topology-aware", "hypernode.binpack.resources: [nvidia.com/gpu]"),
        7,
        36,
        "comma-separated string",
    ),
    Case(
        "VT003",
        plugin("network-topology-aware", "hypernode.binpack.cpu: 2"),
        7,
        7,
        "from Volcano 1.14",
        version="1.13",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c.rule}-{i}" for i, c in enumerate(CASES)])
def test_case_fires_at_the_offending_value(case: Case, check_text: Check) -> None:
    found = check_text(case.text, case.version)
    mine = [
        f for f in found if f.rule == case.rule and (f.line, f.column) == (case.line, case.column)
    ]
    assert mine, found
    assert case.contains in mine[0].message, mine[0].message
    expected = case.severity or get_rule(case.rule).severity  # type: ignore[union-attr]
    assert mine[0].severity is expected


# --- per release -------------------------------------------------------------------------------


RELEASES = ("1.12", "1.13", "1.14", "1.15", "1.16")
PER_RELEASE = [
    pytest.param(
        plugin(
            "deviceshare",
            "deviceshare.GPUSharingEnable: true",
            'deviceshare.GPUNumberEnable: "true"',
        ),
        "1.15",
        ["VD002"],
        ["VD001"],
        id="a-quoted-flag-makes-deviceshare-fatal-from-1.15",
    ),
    pytest.param(
        rsf('resourceStrategyFitWeight: "10"'),
        "1.13",
        ["VC004"],
        ["VR001"],
        id="resource-strategy-fit-exists-from-1.13",
    ),
    pytest.param(
        plugin("network-topology-aware", "hypernode.binpack.cpu: -1"),
        "1.14",
        ["VT003"],
        ["VT001"],
        id="hypernode-binpack-arguments-are-read-from-1.14",
    ),
    pytest.param(
        plugin("deviceshare", "deviceshare.AscendMindClusterVNPUEnable: true"),
        "1.14",
        ["VD004"],
        [],
        id="ascend-flags-are-known-from-1.14",
    ),
]


@pytest.mark.parametrize(("text", "since", "before", "after"), PER_RELEASE)
def test_the_rules_change_with_the_release(
    text: str, since: str, before: list[str], after: list[str], check_text: Check
) -> None:
    for version in RELEASES:
        expected = after if RELEASES.index(version) >= RELEASES.index(since) else before
        assert [f.rule for f in check_text(text, version)] == expected, version
