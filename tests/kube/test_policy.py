"""The legacy Policy API translated to its v1 equivalent."""

from __future__ import annotations

import json

from policytest.kube.policy import emit_yaml, translate
from tests.kube.helpers import findings_for


def equivalent(policy: object) -> str:
    return translate(policy).yaml


def test_most_requested_becomes_most_allocated_with_its_weight() -> None:
    policy = {"kind": "Policy", "priorities": [{"name": "MostRequestedPriority", "weight": 3}]}
    text = equivalent(policy)
    assert "type: MostAllocated" in text
    assert "- name: NodeResourcesFit\n        weight: 3" in text
    assert findings_for(text) == ()


def test_other_priorities_keep_their_weights_and_unknown_ones_are_noted() -> None:
    policy = {
        "priorities": [
            {"name": "LeastRequestedPriority", "weight": 1},
            {"name": "BalancedResourceAllocation", "weight": 2},
            {"name": "TaintTolerationPriority", "weight": 3},
            {"name": "MostRequestedPriority", "weight": 4},
            {"name": "NodePreferAvoidPodsPriority", "weight": 10000},
        ],
        "predicates": [{"name": "PodFitsResources"}],
    }
    result = translate(policy)
    assert "type: LeastAllocated" in result.yaml
    assert "name: NodeResourcesBalancedAllocation\n        weight: 2" in result.yaml
    assert "name: TaintToleration\n        weight: 3" in result.yaml
    assert any("MostRequestedPriority" in note for note in result.notes)
    assert any("NodePreferAvoidPodsPriority" in note for note in result.notes)
    assert any("predicates" in note for note in result.notes)
    assert findings_for(result.yaml) == ()


def test_capitalised_resources_and_old_scale_scores_are_noted() -> None:
    argument = {
        "requestedToCapacityRatioArguments": {
            "shape": [{"utilization": 0, "score": 100}, {"utilization": 100, "score": 0}],
            "resources": [{"name": "CPU", "weight": 3}, {"name": "Memory"}],
        }
    }
    policy = {"priorities": [{"name": "RequestedToCapacityRatioPriority", "argument": argument}]}
    result = translate(policy)
    assert "- name: cpu\n          weight: 3" in result.yaml
    assert "- name: memory\n          weight: 1" in result.yaml
    assert any("0..10" in note for note in result.notes)
    assert sum("case-sensitive" in note for note in result.notes) == 2


def test_a_policy_of_any_shape_gives_one_finding_and_no_traceback() -> None:
    shapes: list[object] = [[], {"priorities": "x"}, {"priorities": [1, None, {"name": 5}]}, "x"]
    for policy in shapes:
        text = json.dumps({"kind": "Policy", "apiVersion": "v1", "extra": policy})
        assert [f.rule for f in findings_for(text)] == ["KS002"]
    found = findings_for('{"kind": "Policy", "priorities": [{"weight": !!int x}]}')
    assert [f.rule for f in found] == ["KS002"]


def test_emit_yaml_quotes_what_yaml_would_misread() -> None:
    assert emit_yaml({"a": [{"name": "*"}], "b": "", "c": True, "d": {}, "e": 1.5}) == (
        'a:\n- name: "*"\nb: ""\nc: true\nd: {}\ne: 1.5\n'
    )
