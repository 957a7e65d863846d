"""The KubeSchedulerConfiguration examples of the seed documents.

``004`` (the Chinese "resource bin packing" page) shows two v1beta3 configurations
(MostAllocated and RequestedToCapacityRatio for intel.com/foo and intel.com/bar);
``001`` (the Kubernetes 1.16 page) shows a legacy Policy JSON with
RequestedToCapacityRatioPriority. Copied here verbatim (the Policy with its ``...``
elisions and trailing comma removed, so that it parses).
"""

from __future__ import annotations

import pytest

from policytest.core.options import DEFAULT_OPTIONS
from policytest.kube.check import load
from tests.kube.helpers import documents, errors, findings_for

MOST_ALLOCATED = """\
apiVersion: kubescheduler.config.k8s.io/v1beta3
kind: KubeSchedulerConfiguration
profiles:
- pluginConfig:
  - args:
      scoringStrategy:
        resources:
        - name: cpu
          weight: 1
        - name: memory
          weight: 1
        - name: intel.com/foo
          weight: 3
        - name: intel.com/bar
          weight: 3
        type: MostAllocated
    name: NodeResourcesFit
"""

REQUESTED_TO_CAPACITY_RATIO = """\
apiVersion: kubescheduler.config.k8s.io/v1beta3
kind: KubeSchedulerConfiguration
profiles:
- pluginConfig:
  - args:
      scoringStrategy:
        resources:
        - name: intel.com/foo
          weight: 3
        - name: intel.com/bar
          weight: 3
        requestedToCapacityRatio:
          shape:
          - utilization: 0
            score: 0
          - utilization: 100
            score: 10
        type: RequestedToCapacityRatio
    name: NodeResourcesFit
"""

LEGACY_POLICY = """\
{
"kind" : "Policy",
"apiVersion" : "v1",
"priorities" : [
{
"name": "RequestedToCapacityRatioPriority",
"weight": 2,
"argument": {
"requestedToCapacityRatioArguments": {
"shape": [
{"utilization": 0, "score": 0},
{"utilization": 100, "score": 10}
],
"resources": [
{"name": "intel.com/foo", "weight": 3},
{"name": "intel.com/bar", "weight": 5}
]
}
}
}
]
}
"""

SEEDS = {
    "most-allocated": MOST_ALLOCATED,
    "requested-to-capacity-ratio": REQUESTED_TO_CAPACITY_RATIO,
}


@pytest.mark.parametrize("name", SEEDS)
def test_v1beta3_seed_is_reported_as_removed_with_the_fix(name: str) -> None:
    found = errors(findings_for(SEEDS[name]))
    assert [(f.rule, f.line, f.column) for f in found] == [("KS001", 1, 13)]
    message = found[0].message
    assert "removed in Kubernetes 1.29" in message
    assert "apiVersion: kubescheduler.config.k8s.io/v1`" in message


@pytest.mark.parametrize("name", SEEDS)
def test_the_same_seed_in_v1_passes(name: str) -> None:
    text = SEEDS[name].replace("/v1beta3", "/v1")
    advice = "KS047"  # a packing profile under default spreading (tests/kube/test_rules.py)
    assert [f for f in findings_for(text) if f.rule != advice] == []
    config, found = load(documents(text)[0][0], DEFAULT_OPTIONS)
    assert config is not None and [f for f in found if f.rule != advice] == []
    profile = config.profile("default-scheduler")
    assert profile is not None and profile.fit_args is not None
    assert ("intel.com/foo", 3) in profile.fit_args.resources
    assert profile.weight("NodeResourcesFit") == 1


def test_the_rtcr_seed_model_keeps_the_shape() -> None:
    text = REQUESTED_TO_CAPACITY_RATIO.replace("/v1beta3", "/v1")
    config, _ = load(documents(text)[0][0], DEFAULT_OPTIONS)
    assert config is not None
    fit = config.profiles[0].fit_args
    assert fit is not None
    assert fit.strategy == "RequestedToCapacityRatio"
    assert fit.shape == ((0, 0), (100, 10))
    assert fit.resources == (("intel.com/foo", 3), ("intel.com/bar", 3))


def test_legacy_policy_is_reported_with_its_v1_equivalent() -> None:
    found = findings_for(LEGACY_POLICY)
    assert [(f.rule, f.severity.value, f.line) for f in found] == [("KS002", "error", 2)]
    message = found[0].message
    assert "removed in Kubernetes 1.23" in message
    assert "\n" not in message  # one finding, one line
    equivalent = message.split("(pass it with --config) is ", 1)[1]
    equivalent = equivalent[: equivalent.rindex("}") + 1]  # JSON, which YAML reads
    assert '"kind": "KubeSchedulerConfiguration"' in equivalent
    assert findings_for(equivalent) == ()
    config, _ = load(documents(equivalent)[0][0], DEFAULT_OPTIONS)
    assert config is not None
    profile = config.profiles[0]
    assert profile.score_plugins == (("NodeResourcesFit", 2),)
    assert profile.fit_args is not None
    assert profile.fit_args.strategy == "RequestedToCapacityRatio"
    assert profile.fit_args.resources == (("intel.com/foo", 3), ("intel.com/bar", 5))
    assert profile.fit_args.shape == ((0, 0), (100, 10))
