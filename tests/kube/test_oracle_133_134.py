"""kube-scheduler 1.33 and 1.34 from their own code: the real verdicts, and a test per
difference from 1.35.

``data/kube/validate_cases_133_134.jsonl.gz``: the verdicts of the real v1.33.13 and
v1.34.9 code (OpenShift's copies, no scheduler patch) on the documents of the 1.35 and
1.36 verdict files, with the profiles each accepted config built (score and filter
plugins). Every verdict must match with ``--kubernetes-version 1.33`` / ``1.34``.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from policytest.core.limits import DEFAULT_LIMITS
from policytest.core.options import CheckOptions
from policytest.core.releases import kube_release
from policytest.kube.check import load
from tests.check.test_releases import BINDING
from tests.conftest import RunLine
from tests.kube.helpers import documents, errors, findings_for

DATA = Path(__file__).parent.parent / "data" / "kube" / "validate_cases_133_134.jsonl.gz"
with gzip.open(DATA, "rt", encoding="utf-8") as _lines:
    CASES: list[dict[str, Any]] = [json.loads(line) for line in _lines]
RELEASES = ("1.33", "1.34")


def _options(release: str) -> CheckOptions:
    return CheckOptions(kubernetes_version=release, limits=DEFAULT_LIMITS)


def test_the_whole_set_is_here() -> None:
    assert len(CASES) == 232
    assert [sum(case[r]["accepted"] for case in CASES) for r in RELEASES] == [94, 91]


@pytest.mark.parametrize("release", RELEASES)
def test_verdicts_match_the_release(release: str) -> None:
    wrong = []
    for case in CASES:
        found = errors(findings_for(case["yaml"], _options(release)))
        if bool(found) == case[release]["accepted"]:
            shown = [f"{f.rule} {f.message}" for f in found]
            wrong.append(f"{case['id']}: accepted={case[release]['accepted']} {shown}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("release", RELEASES)
def test_accepted_configs_build_the_profiles_the_release_built(release: str) -> None:
    different = []
    for case in CASES:
        if not case[release]["accepted"]:
            continue
        config, _ = load(documents(case["yaml"])[0][0], _options(release))
        assert config is not None, case["id"]
        ours = [
            {
                "schedulerName": profile.scheduler_name,
                "scorePlugins": [{"name": n, "weight": w} for n, w in profile.score_plugins],
                "filterPlugins": list(profile.filter_plugins),
            }
            for profile in config.profiles
        ]
        if ours != case[release]["profiles"]:
            different.append(f"{case['id']}:\n  ours {ours}\n  real {case[release]['profiles']}")
    assert not different, "\n".join(different)


# --- one test per difference from 1.35 ------------------------------------------------------

DRA_ARGS = BINDING.replace("{bindingTimeout: 5m}", "{args}")


@pytest.mark.parametrize(
    "args", ["{filterTimeout: soon}", "{filterTimeout: -1s}", "{filterTimeOut: 5s}", "{x: 1}"]
)
def test_1_33_has_no_dynamic_resources_args(args: str) -> None:
    """No args kind is registered: whatever is under DynamicResources starts fine in
    1.33, and 1.34 decodes (and refuses) the same args."""
    text = DRA_ARGS.format(args=args)
    assert errors(findings_for(text, _options("1.33"))) == []
    assert errors(findings_for(text, _options("1.34")))


def test_1_34_knows_filter_timeout_only() -> None:
    text = DRA_ARGS.format(args="{bindingTimeout: 5s}")
    (found,) = errors(findings_for(text, _options("1.34")))
    assert found.rule == "KS003" and "new in Kubernetes 1.35" in found.message
    (found,) = errors(findings_for(text, _options("1.35")))
    assert found.rule == "KS030" and "forbids it" in found.message


DEFAULT = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


@pytest.mark.parametrize(
    ("release", "filters", "weight"),
    [("1.33", False, None), ("1.34", True, None), ("1.35", True, 2), ("1.36", True, 2)],
)
def test_dynamic_resources_scores_only_from_1_35(
    release: str, filters: bool, weight: int | None
) -> None:
    """Off in 1.33 (DynamicResourceAllocation off); a filter in 1.34's defaults; a score
    plugin of weight 2 (always 0 without claims) from 1.35."""
    config, _ = load(documents(DEFAULT)[0][0], _options(release))
    assert config is not None
    (profile,) = config.profiles
    assert ("DynamicResources" in profile.filter_plugins) is filters
    assert dict(profile.score_plugins).get("DynamicResources") == weight


SCORE_DRA = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      enabled: [{name: DynamicResources, weight: 2}]
"""


def test_1_34s_dynamic_resources_is_not_a_score_plugin() -> None:
    refused = errors(findings_for(SCORE_DRA, _options("1.34")))
    assert refused and "ScorePlugin" in " ".join(f.message for f in refused)
    assert errors(findings_for(SCORE_DRA, _options("1.35"))) == []


GANG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      enabled: [{name: GangScheduling}]
"""


@pytest.mark.parametrize("release", RELEASES)
def test_gang_scheduling_exists_from_1_35(release: str) -> None:
    assert errors(findings_for(GANG, _options(release)))
    assert errors(findings_for(GANG, _options("1.35"))) == []


def test_pod_level_resources_are_on_from_1_34() -> None:
    assert not kube_release("1.33").pod_level_resources
    assert kube_release("1.34").pod_level_resources


TAINTED = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {name: taints}
scheduler: {config: kube.yaml}
cluster:
  nodes:
  - name: open
    allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
  - name: dedicated
    allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
    taints: [{key: dedicated, value: infra, effect: NoSchedule}]
cases:
- name: a pod without tolerations
  pod: {requests: {cpu: "1"}}
  expect: {top: open}
"""


@pytest.mark.parametrize(
    ("release", "reason"),
    [
        ("1.33", "node(s) had untolerated taint {dedicated: infra}"),
        ("1.34", "node(s) had untolerated taint(s)"),
        ("1.36", "node(s) had untolerated taint(s)"),
    ],
)
def test_1_33_names_the_untolerated_taint(
    run_line: RunLine, tmp_path: Path, release: str, reason: str
) -> None:
    """1.33's TaintToleration says which taint filtered the node; 1.34 stopped naming it."""
    (tmp_path / "kube.yaml").write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    )
    (tmp_path / "t.policytest.yaml").write_text(TAINTED)
    result = run_line(
        ["run", tmp_path / "t.policytest.yaml", "--format", "json", "--kubernetes-version", release]
    )
    (case,) = json.loads(result.stdout)["results"]
    reasons = {node["name"]: node.get("reason") for node in case["nodes"]}
    assert reasons["dedicated"] == reason
    assert kube_release(release).modelled_from is None


VOLUME_SHAPE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: VolumeBinding
    args: {shape: [{utilization: 0, score: 0}]}
"""


@pytest.mark.parametrize("release", ["1.33", "1.34", "1.35", "1.36"])
def test_ks030_names_the_release_judged(release: str) -> None:
    (found,) = errors(findings_for(VOLUME_SHAPE, _options(release)))
    assert found.rule == "KS030"
    assert f"off in kube-scheduler {release};" in found.message


@pytest.mark.parametrize("release", ["1.36", "1.37"])
def test_ks017_names_the_release_judged(release: str) -> None:
    from tests.check.test_releases import RATIO_BESIDE

    (found,) = errors(findings_for(RATIO_BESIDE, _options(release)))
    assert found.rule == "KS017" and f"kube-scheduler {release} refuses" in found.message
