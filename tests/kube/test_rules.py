"""Every KS rule: its documented failing example triggers it, its passing example does not;
and each warning of issue 4 (point 3) with a failing and a passing example of its own."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import pytest

from policytest.core.findings import Finding, Severity
from policytest.core.options import DEFAULT_OPTIONS, CheckOptions
from policytest.core.rules import Rule
from policytest.kube import rules
from tests.kube.helpers import errors, findings_for, rule_ids
from tests.rule_examples import example

KS_RULES = [
    value for value in vars(rules).values() if isinstance(value, Rule) and value.id.startswith("KS")
]
HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def test_the_catalogue_is_complete() -> None:
    ids = [r.id for r in KS_RULES]
    assert len(ids) == len(set(ids)) == 33
    assert all(r.doc and r.summary[0].islower() for r in KS_RULES)


RELEASE_OF = {"KS045": CheckOptions(kubernetes_version="1.35")}
"""Rules whose examples are about an older release (the default judges the newest)."""


@pytest.mark.parametrize("declared", KS_RULES, ids=lambda r: r.id)
def test_failing_example_triggers_the_rule(declared: Rule) -> None:
    found = findings_for(
        example(declared.doc, "Failing"), RELEASE_OF.get(declared.id, DEFAULT_OPTIONS)
    )
    mine = [f for f in found if f.rule == declared.id]
    assert mine, found
    if declared.severity is Severity.ERROR:  # kube-scheduler refuses to start
        assert any(f.severity is Severity.ERROR for f in mine), found
    else:  # legal: kube-scheduler starts
        assert not errors(found), found


@pytest.mark.parametrize("declared", KS_RULES, ids=lambda r: r.id)
def test_passing_example_is_clean(declared: Rule) -> None:
    found = findings_for(
        example(declared.doc, "Passing"), RELEASE_OF.get(declared.id, DEFAULT_OPTIONS)
    )
    assert not _besides_spreading_advice(found, declared.id), found


def _besides_spreading_advice(found: Sequence[Finding], rule_id: str) -> list[Finding]:
    """The findings, but KS047 (which every MostAllocated example under default spreading
    draws, by design) where the example is about another rule."""
    spreading = rules.KS047_SPREADING_BEATS_PACKING.id
    return [f for f in found if f.rule != spreading or rule_id == spreading]


def profile(body: str) -> str:
    """A v1 config whose single profile is ``body`` (YAML under ``- ``)."""
    return (
        HEADER
        + "profiles:\n- schedulerName: default-scheduler\n"
        + textwrap.indent(textwrap.dedent(body), "  ")
    )


def fit(strategy: str) -> str:
    """A profile with NodeResourcesFit args ``scoringStrategy: <strategy>``."""
    args = textwrap.indent(textwrap.dedent(strategy), "      ")
    return profile(
        "pluginConfig:\n- name: NodeResourcesFit\n  args:\n    scoringStrategy:\n" + args
    )


MOST_ALLOCATED = (
    "pluginConfig:\n- name: NodeResourcesFit\n  args: {scoringStrategy: {type: MostAllocated}}\n"
)
WARNINGS = {
    "score weight 0": (
        rules.KS040_ZERO_WEIGHT,
        profile("plugins:\n  score:\n    enabled:\n    - {name: NodeResourcesFit, weight: 0}\n"),
        profile("plugins:\n  score:\n    enabled:\n    - {name: NodeResourcesFit, weight: 5}\n"),
    ),
    "Fit resource weight 0": (
        rules.KS040_ZERO_WEIGHT,
        fit("type: MostAllocated\nresources:\n- {name: cpu, weight: 0}\n"),
        fit("type: MostAllocated\nresources:\n- {name: cpu}\n"),
    ),
    "BalancedAllocation weight 0": (
        rules.KS040_ZERO_WEIGHT,
        profile(
            "pluginConfig:\n- name: NodeResourcesBalancedAllocation\n"
            "  args: {resources: [{name: cpu, weight: 0}]}\n"
        ),
        profile(
            "pluginConfig:\n- name: NodeResourcesBalancedAllocation\n"
            "  args: {resources: [{name: cpu, weight: 1}]}\n"
        ),
    ),
    "pluginConfig for an unknown plugin": (
        rules.KS041_UNKNOWN_PLUGIN_CONFIG,
        profile("pluginConfig:\n- name: NodeResourcesMostAllocated\n  args: {}\n"),
        profile("pluginConfig:\n- name: NodeResourcesFit\n  args: {}\n"),
    ),
    "disabling an unknown plugin": (
        rules.KS041_UNKNOWN_PLUGIN_CONFIG,
        profile("plugins:\n  score:\n    disabled:\n    - name: NodeResourceFit\n"),
        profile("plugins:\n  score:\n    disabled:\n    - name: NodeResourcesFit\n"),
    ),
    "Fit args while Fit does not score": (
        rules.KS042_FIT_NOT_SCORING,
        profile(
            "plugins:\n  score:\n    disabled:\n    - name: NodeResourcesFit\n" + MOST_ALLOCATED
        ),
        profile(
            "plugins:\n  score:\n    disabled:\n    - name: NodeResourcesBalancedAllocation\n"
            + MOST_ALLOCATED
        ),
    ),
    "Fit args while Fit is disabled everywhere": (
        rules.KS042_FIT_NOT_SCORING,
        profile(
            "plugins:\n  multiPoint:\n    disabled:\n    - name: NodeResourcesFit\n"
            + MOST_ALLOCATED
        ),
        profile(
            "plugins:\n  multiPoint:\n    enabled:\n    - {name: NodeResourcesFit, weight: 3}\n"
            + MOST_ALLOCATED
        ),
    ),
    "duplicate Fit resource": (
        rules.KS043_FIT_DUPLICATE,
        fit(
            "type: MostAllocated\nresources:\n- {name: cpu, weight: 1}\n- {name: cpu, weight: 2}\n"
        ),
        fit("type: MostAllocated\nresources:\n- {name: cpu, weight: 3}\n"),
    ),
    "resource without a domain": (
        rules.KS044_NEVER_SCORED,
        fit("type: MostAllocated\nresources:\n- {name: gpu, weight: 5}\n- {name: cpu}\n"),
        fit(
            "type: MostAllocated\nresources:\n- {name: nvidia.com/gpu, weight: 5}\n- {name: cpu}\n"
        ),
    ),
    "resource name in the wrong case": (
        rules.KS044_NEVER_SCORED,
        fit("type: MostAllocated\nresources:\n- {name: CPU}\n"),
        fit("type: MostAllocated\nresources:\n- {name: cpu}\n"),
    ),
    "shape with MostAllocated": (
        rules.KS045_SHAPE_IGNORED,
        fit(
            "type: MostAllocated\nrequestedToCapacityRatio:\n"
            "  shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]\n"
        ),
        fit("type: MostAllocated\n"),
    ),
    "shape with LeastAllocated": (
        rules.KS045_SHAPE_IGNORED,
        fit(
            "type: LeastAllocated\nrequestedToCapacityRatio:\n"
            "  shape: [{utilization: 0, score: 10}, {utilization: 100, score: 0}]\n"
        ),
        fit("type: LeastAllocated\n"),
    ),
    "falling shape": (
        rules.KS046_SHAPE_SPREADS,
        fit(
            "type: RequestedToCapacityRatio\nrequestedToCapacityRatio:\n"
            "  shape: [{utilization: 0, score: 10}, {utilization: 100, score: 0}]\n"
        ),
        fit(
            "type: RequestedToCapacityRatio\nrequestedToCapacityRatio:\n"
            "  shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]\n"
        ),
    ),
    "shape falling in one range": (
        rules.KS046_SHAPE_SPREADS,
        fit(
            "type: RequestedToCapacityRatio\nrequestedToCapacityRatio:\n  shape:\n"
            "  - {utilization: 0, score: 0}\n  - {utilization: 50, score: 10}\n"
            "  - {utilization: 100, score: 5}\n"
        ),
        fit(
            "type: RequestedToCapacityRatio\nrequestedToCapacityRatio:\n  shape:\n"
            "  - {utilization: 0, score: 0}\n  - {utilization: 50, score: 5}\n"
            "  - {utilization: 100, score: 10}\n"
        ),
    ),
    "flat shape": (
        rules.KS046_SHAPE_SPREADS,
        fit(
            "type: RequestedToCapacityRatio\nrequestedToCapacityRatio:\n"
            "  shape: [{utilization: 50, score: 5}]\n"
        ),
        fit(
            "type: RequestedToCapacityRatio\nrequestedToCapacityRatio:\n"
            "  shape: [{utilization: 50, score: 5}, {utilization: 100, score: 10}]\n"
        ),
    ),
}


@pytest.mark.parametrize("name", WARNINGS)
def test_warning_fires_on_the_failing_example(name: str) -> None:
    declared, failing, _ = WARNINGS[name]
    found = findings_for(failing, RELEASE_OF.get(declared.id, DEFAULT_OPTIONS))
    assert declared.id in rule_ids(found), found
    assert not errors(found), found


@pytest.mark.parametrize("name", WARNINGS)
def test_warning_is_silent_on_the_passing_example(name: str) -> None:
    declared, _, passing = WARNINGS[name]
    found = findings_for(passing)
    assert not _besides_spreading_advice(found, declared.id), found


_MOST = (
    "pluginConfig:\n- name: NodeResourcesFit\n  args: {scoringStrategy: {type: MostAllocated}}\n"
)
_RISING = (
    "type: RequestedToCapacityRatio, requestedToCapacityRatio: {shape: "
    "[{utilization: 0, score: 0}, {utilization: 100, score: 10}]}"
)
_FALLING = _RISING.replace("score: 0}", "score: 9}").replace("score: 10}", "score: 1}")
_LIST_DEFAULTS = "- name: PodTopologySpread\n  args: {defaultingType: List}\n"
_ANYWAY = (
    "- name: PodTopologySpread\n  args:\n    defaultingType: List\n"
    "    defaultConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, "
    "whenUnsatisfiable: ScheduleAnyway}]\n"
)
_FIT_WEIGHT = "plugins:\n  score:\n    enabled: [{{name: NodeResourcesFit, weight: {}}}]\n"
_NO_SPREAD_SCORE = "plugins:\n  score:\n    disabled: [{name: PodTopologySpread}]\n"


@pytest.mark.parametrize(
    ("body", "fires"),
    [
        pytest.param("", False, id="least-allocated-spreads-anyway"),
        pytest.param(_MOST, True, id="most-allocated"),
        pytest.param(_MOST.replace("type: MostAllocated", _RISING), True, id="rising-shape"),
        pytest.param(_MOST.replace("type: MostAllocated", _FALLING), False, id="falling-shape"),
        pytest.param(_MOST + _LIST_DEFAULTS, False, id="defaults-off"),
        pytest.param(_MOST + _ANYWAY, True, id="list-defaults-that-spread"),
        pytest.param(_MOST + _FIT_WEIGHT.format(20), False, id="fit-ten-times-heavier"),
        pytest.param(_MOST + _FIT_WEIGHT.format(19), True, id="fit-nine-and-a-half-times"),
        pytest.param(_MOST + _NO_SPREAD_SCORE, False, id="spreading-not-scored"),
    ],
)
def test_spreading_beats_packing_fires_on_packing_profiles_under_default_spreading(
    body: str, fires: bool
) -> None:
    found = findings_for(profile("schedulerName: default-scheduler\n" + body))
    assert (rules.KS047_SPREADING_BEATS_PACKING.id in rule_ids(found)) is fires, found
