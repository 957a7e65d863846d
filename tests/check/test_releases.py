"""The release table: one test per row, selection, refusal, and what differs per release.

Each row of ``policytest.core.releases`` states what that release does differently; the row
tests check the facts the checks and scorers read from it, through the real entry
points where the fact is visible there.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from policytest.core.options import CheckOptions, kube_release, volcano_release
from policytest.core.releases import (
    DEFAULT_KUBERNETES,
    DEFAULT_VOLCANO,
    KUBE_RELEASES,
    VOLCANO_RELEASES,
    KubeRelease,
    UnsupportedRelease,
    VolcanoRelease,
    parse_release,
)
from policytest.scoring.accounting import (
    kube_node_info,
    kube_pod_requests,
    volcano_pod_request,
)
from policytest.scoring.cluster import Node
from policytest.scoring.specs import pod_from_dict
from policytest.volcano.versions import release as volcano_tables
from tests.conftest import RunLine
from tests.kube.helpers import errors, findings_for

# --- kube-scheduler rows -------------------------------------------------------------------

EXPECTED_KUBE = {
    # release: (formula, PodLevelResources, placement sets, podGroupPostFilter,
    #           DynamicResourcesArgs fields, bindingTimeout gate, strict ratio block,
    #           NodeDeclaredFeatures registered, ... by default, DynamicResources by default)
    "1.33": ("with-pod", False, False, False, None, False, False, False, False, False),
    "1.34": ("with-pod", True, False, False, ("filterTimeout",), False, False, False, False, True),
    "1.35": ("with-pod", True, False, False, ("filterTimeout", "bindingTimeout"), False, False,
             True, False, True),
    "1.36": ("balance-change", True, True, False, ("filterTimeout", "bindingTimeout"), True, True,
             True, True, True),
    "1.37": ("balance-change", True, True, True, ("filterTimeout", "bindingTimeout"), True, True,
             True, True, True),
}  # fmt: skip

PLACEMENT = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    placementScore:
      enabled: [{name: PodGroupPodsCount, weight: 1}]
"""
POST_FILTER = PLACEMENT.replace(
    "placementScore:\n      enabled: [{name: PodGroupPodsCount, weight: 1}]",
    "podGroupPostFilter:\n      enabled: [{name: DefaultPreemption}]",
)
BINDING = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: DynamicResources
    args: {bindingTimeout: 5m}
"""
RATIO_BESIDE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        requestedToCapacityRatio:
          shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]
"""
DECLARED = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    filter:
      enabled: [{name: NodeDeclaredFeatures}]
"""
POD_LEVEL = {"containers": [{}], "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}


def rule_ids(text: str, release: str) -> set[str]:
    return {f.rule for f in errors(findings_for(text, CheckOptions(kubernetes_version=release)))}


def test_the_kube_table_is_the_supported_range() -> None:
    assert [row.name for row in KUBE_RELEASES] == list(EXPECTED_KUBE)
    assert kube_release(CheckOptions()).name == DEFAULT_KUBERNETES == "1.36"
    assert not kube_release(CheckOptions()).modelled_from  # the default is judged exactly


@pytest.mark.parametrize("row", KUBE_RELEASES, ids=lambda row: row.name)
def test_kube_row(row: KubeRelease) -> None:
    (formula, pod_level, placement, post_filter, dra, binding, strict, declared,
     declared_default, dra_default) = EXPECTED_KUBE[row.name]  # fmt: skip
    assert row.balanced_allocation == formula
    assert row.pod_level_resources is pod_level
    assert row.placement is placement
    assert ("podGroupPostFilter" in row.plugin_sets) is post_filter
    assert row.dra_args == dra and row.dra_binding_timeout_gate is binding
    assert row.strict_ratio_block is strict
    assert ("NodeDeclaredFeatures" in row.new_plugins) is declared
    assert ("NodeDeclaredFeatures" in row.default_plugins) is declared_default
    assert ("DynamicResources" in row.default_plugins) is dra_default
    assert bool(row.modelled_from) is (row.name == "1.37")
    assert row.dra_scores is (row.version >= (1, 35))
    # ... and what the checks make of it:
    assert ("KS003" in rule_ids(PLACEMENT, row.name)) is not placement
    assert ("KS003" in rule_ids(POST_FILTER, row.name)) is not post_filter
    binding_ids = rule_ids(BINDING, row.name)
    assert binding_ids == (
        set() if dra is None or binding else {"KS003"} if "bindingTimeout" not in dra else {"KS030"}
    )
    assert rule_ids(RATIO_BESIDE, row.name) == ({"KS017"} if strict else set())
    assert ("KS020" in rule_ids(DECLARED, row.name)) is not declared
    # PodLevelResources: the pod-level requests count (filter, BalancedAllocation, nodes).
    spec = pod_from_dict(POD_LEVEL, default_requests_from_limits=True)
    assert kube_pod_requests(spec, row.pod_level_resources).get("cpu", 0) == (
        2000 if pod_level else 0
    )
    info = kube_node_info(Node("n", pods=(spec,)), row.pod_level_resources)
    assert info.requested["cpu"] == (2000 if pod_level else 0)


@pytest.mark.parametrize("text", ["1.32", "1.38", "1.22", "v2.0", "latest", ""])
def test_a_kube_release_outside_the_table_is_refused(text: str) -> None:
    with pytest.raises(UnsupportedRelease, match=r"judges 1\.33 to 1\.37 \(default 1\.36\)"):
        kube_release(CheckOptions(kubernetes_version=text))


def test_release_spellings() -> None:
    assert parse_release("v1.36.3") == (1, 36) == parse_release("1.36")
    assert parse_release("v1.16.0-alpha.1") == (1, 16)
    assert parse_release("1") is None
    assert kube_release(CheckOptions(kubernetes_version="v1.35.4")).name == "1.35"


# --- Volcano rows --------------------------------------------------------------------------

EXPECTED_VOLCANO = {
    # release: (Kubernetes library, unknown action rejects, overhead before init max,
    #           resource-strategy-fit, gangpreempt, balancedresource formula,
    #           GetBool parses strings, hypernode.binpack.*)
    "1.9": ("1.29", True, True, False, False, "with-pod", False, False),
    "1.10": ("1.30", True, True, False, False, "with-pod", False, False),
    "1.11": ("1.31", True, True, False, False, "with-pod", False, False),
    "1.12": ("1.32", False, True, False, False, "with-pod", False, False),
    "1.13": ("1.33", False, True, True, False, "with-pod", False, False),
    "1.14": ("1.34", True, True, True, False, "with-pod", False, True),
    "1.15": ("1.35", True, False, True, True, "with-pod", True, True),
    "1.16": ("1.36", True, False, True, True, "balance-change", True, True),
}
VOLCANO_CONF = """\
actions: "enqueue, allocate, shuffle-typo, backfill"
tiers:
- plugins:
  - name: predicates
  - name: resource-strategy-fit
"""
OVERHEAD_POD = {
    "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
    "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "3"}}}],
    "overhead": {"cpu": "500m"},
}


def test_the_volcano_table_is_the_supported_range() -> None:
    assert [row.name for row in VOLCANO_RELEASES] == list(EXPECTED_VOLCANO)
    assert volcano_release(CheckOptions()).name == DEFAULT_VOLCANO == "1.15"
    assert VOLCANO_RELEASES[-1].prerelease and not volcano_release(CheckOptions()).prerelease


@pytest.mark.parametrize("row", VOLCANO_RELEASES, ids=lambda row: row.name)
def test_volcano_row(row: VolcanoRelease) -> None:
    kubernetes, rejects, before, rsf, gang, formula, getbool, hypernode = EXPECTED_VOLCANO[row.name]
    assert row.getbool_parses_strings is getbool and row.hypernode_binpack is hypernode
    assert row.kubernetes == kubernetes
    assert row.unknown_action_rejects is rejects
    assert row.overhead_first is before
    assert row.balanced_allocation == formula
    tables = volcano_tables(row.name)
    assert ("resource-strategy-fit" in tables.plugins) is rsf
    assert ("gangpreempt" in tables.actions) is gang
    # ... and what the checks and the accounting make of it:
    from policytest.volcano.check import load
    from tests.volcano.helpers import documents

    conf, found = load(documents(VOLCANO_CONF)[0], CheckOptions(volcano_version=row.name))
    unknown = [f for f in found if f.rule == "VC002"]
    assert [f.severity.value for f in unknown] == ["error" if rejects else "warning"]
    assert (conf is None) is rejects
    if conf is not None:
        assert conf.actions == ("enqueue", "allocate", "backfill")
    assert ("VC004" in {f.rule for f in found}) is not rsf
    spec = pod_from_dict(OVERHEAD_POD, default_requests_from_limits=True)
    # max(1 + 0.5, 3) = 3 before; max(1, 3) + 0.5 = 3.5 after.
    assert volcano_pod_request(spec, row.overhead_first)["cpu"] == (3000.0 if before else 3500.0)


@pytest.mark.parametrize("text", ["1.8", "1.17", "1.5", "2.0", "nonsense"])
def test_a_volcano_release_outside_the_table_is_refused(text: str) -> None:
    with pytest.raises(UnsupportedRelease, match=r"judges 1\.9 to 1\.16 \(default 1\.15\)"):
        volcano_release(CheckOptions(volcano_version=text))


# --- the CLI -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flag", "value", "words"),
    [
        ("--kubernetes-version", "1.22", "judges 1.33 to 1.37 (default 1.36)"),
        ("--kubernetes-version", "1.38", "judges 1.33 to 1.37 (default 1.36)"),
        ("--volcano-version", "1.8", "judges 1.9 to 1.16 (default 1.15)"),
    ],
)
@pytest.mark.parametrize("command", ["validate", "run", "explain", "simulate"])
def test_outside_the_table_is_a_usage_error_for_every_command(
    run_line: RunLine, command: str, flag: str, value: str, words: str
) -> None:
    result = run_line([command, flag, value, "x.yaml"])
    assert result.exit_code == 2, result
    assert words in result.stderr


def test_version_names_the_releases_and_defaults(run_line: RunLine) -> None:
    result = run_line(["--version"])
    assert result.exit_code == 0
    assert "kube-scheduler 1.33, 1.34, 1.35, 1.36, 1.37* (default 1.36" in result.stdout
    assert "Volcano 1.9, 1.10, 1.11, 1.12, 1.13, 1.14, 1.15, 1.16 (pre-release)" in result.stdout
    assert "(default 1.15)" in result.stdout


def test_validate_verbose_says_what_is_judged(run_line: RunLine, tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("a: 1\n")
    result = run_line(["validate", "--verbose", "--kubernetes-version", "1.37", path])
    assert "judging kube-scheduler 1.37" in result.stderr
    assert "1.37 is partly modelled from 1.36" in result.stderr
    assert "judging Volcano 1.15" in result.stderr
    default = run_line(["validate", "--verbose", path])
    assert "judging kube-scheduler 1.36 (ground truth: real v1.36.3" in default.stderr
    assert "partly modelled" not in default.stderr


# --- Volcano nodeorder balancedresource per release ------------------------------------------

NODEORDER_FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {name: balancedresource}
scheduler:
  volcano:
    actions: "enqueue, allocate, backfill"
    tiers:
    - plugins:
      - name: predicates
      - name: nodeorder
        arguments:
          leastrequested.weight: 0
          mostrequested.weight: 0
          balancedresource.weight: 1
          tainttoleration.weight: 0
          nodeaffinity.weight: 0
          podaffinity.weight: 0
          podtopologyspread.weight: 0
          imagelocality.weight: 0
cluster:
  nodes:
  # Upstream's TestNodeResourcesBalancedAllocation, "resources requested, pods scheduled
  # with resources": node1 holds cpuOnly (3000m), node2 cpuAndMemory (3000m, 5000).
  - name: node1
    allocatable: {cpu: 10000m, memory: "20000", pods: "110"}
    pods:
    - containers:
      - {name: a, resources: {requests: {cpu: 1000m, memory: "0"}}}
      - {name: b, resources: {requests: {cpu: 2000m, memory: "0"}}}
  - name: node2
    allocatable: {cpu: 10000m, memory: "20000", pods: "110"}
    pods:
    - containers:
      - {name: a, resources: {requests: {cpu: 1000m, memory: "2000"}}}
      - {name: b, resources: {requests: {cpu: 2000m, memory: "3000"}}}
  # Hand examples: an empty node (a balanced pod keeps it balanced), and a node the pod
  # takes from imbalanced (cpu 50%, memory 0%) to balanced (50% / 50%).
  - name: empty
    allocatable: {cpu: "6", memory: "10000", pods: "110"}
  - name: evens-out
    allocatable: {cpu: "6", memory: "10000", pods: "110"}
    pods: [{requests: {cpu: "3"}}]
cases:
- name: cpuAndMemory
  pod:
    containers:
    - {name: a, resources: {requests: {cpu: 1000m, memory: "2000"}}}
    - {name: b, resources: {requests: {cpu: 2000m, memory: "3000"}}}
  expect: {unschedulable: []}
"""
# v1.15 (Kubernetes 1.35's BalancedAllocation): upstream's own expectations 82 and 95;
# the empty node 100 - |3000/6000 - 5000/10000| / 2 * 100 = 100; evens-out: cpu 1.0,
# memory 0.5 -> 75.
# v1.16 (1.36's): 50 + (50 + S(with) - S(without)) / 2: node1 S(without) cpu .3 / mem 0
# -> 85, so 50 + (50 + 82 - 85) / 2 = 73; node2 S(without) .3 / .25 -> 97, so 74; empty
# 100 and 100 -> 75; evens-out: S(without) cpu .5 / mem 0 -> 75, S(with) 75 -> 75.
EXPECTED_NODEORDER = {
    "1.15": {"node1": 82, "node2": 95, "empty": 100, "evens-out": 75},
    "1.16": {"node1": 73, "node2": 74, "empty": 75, "evens-out": 75},
}


@pytest.mark.parametrize("release", ["1.15", "1.16"])
def test_volcano_balancedresource_follows_its_kubernetes_library(
    run_line: RunLine, tmp_path: Path, release: str
) -> None:
    path = tmp_path / "balanced.policytest.yaml"
    path.write_text(NODEORDER_FIXTURE)
    result = run_line(
        ["run", path, "--root", tmp_path, "--format", "json", "--volcano-version", release]
    )
    assert result.exit_code == 0, result
    [case] = json.loads(result.stdout)["results"]
    scores = {node["name"]: node["plugins"]["nodeorder"] for node in case["nodes"]}
    assert scores == EXPECTED_NODEORDER[release]


def test_volcano_explain_shows_the_balance_terms_under_1_16(
    run_line: RunLine, tmp_path: Path
) -> None:
    path = tmp_path / "balanced.policytest.yaml"
    path.write_text(NODEORDER_FIXTURE)
    result = run_line(["explain", path, "--root", tmp_path, "--volcano-version", "1.16"])
    assert "node1 / nodeorder.balancedresource: S(with pod) 82, S(without pod) 85 -> 73" in (
        result.stdout
    )
    assert "50 + (50 + S(with pod) - S(without pod)) / 2" in result.stdout


def test_a_balance_that_improves_scores_100_under_1_36() -> None:
    """Perfectly imbalanced to perfectly balanced gives 100; the reverse 50 (the
    README of the 1.36 ground truth)."""
    from policytest.scoring.kube import BalancedArgs, balanced_allocation_score
    from policytest.scoring.specs import node_from_dict

    imbalanced = kube_node_info(
        node_from_dict(
            {"name": "n", "allocatable": {"cpu": "4", "memory": "4Gi"}, "used": {"cpu": "4"}},
            default_requests_from_limits=True,
        )
    )
    evens = pod_from_dict({"requests": {"memory": "4Gi"}}, default_requests_from_limits=True)
    args = BalancedArgs()
    assert balanced_allocation_score(args, evens, imbalanced, "with-pod") == 100
    assert balanced_allocation_score(args, evens, imbalanced, "balance-change") == 100
    empty = kube_node_info(
        node_from_dict(
            {"name": "e", "allocatable": {"cpu": "4", "memory": "4Gi"}},
            default_requests_from_limits=True,
        )
    )
    lopsided = pod_from_dict({"requests": {"cpu": "4"}}, default_requests_from_limits=True)
    assert balanced_allocation_score(args, lopsided, empty, "with-pod") == 50
    assert balanced_allocation_score(args, lopsided, empty, "balance-change") == 50
