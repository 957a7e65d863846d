"""resource-strategy-fit, exact to upstream: every expected value of upstream's own tests
(``resource_strategy_fit_test.go``, ``sra_test.go``, transcribed in
``tests/data/volcano/rsf_upstream_tests.json``), every case of the oracle corpus
(``tests/data/oracle/volcano_rsf_cases.jsonl.gz``, scored by Volcano's own code in four
releases), and the invariants of the score."""

from __future__ import annotations

import json
import math
import textwrap
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policytest.core.options import CheckOptions
from policytest.scoring.accounting import VolcanoNodeInfo, volcano_node_info, volcano_pod_request
from policytest.scoring.cluster import Node, Pod
from policytest.scoring.rsf import (
    _resource_score,
    find_strategy,
    pod_strategy,
    proportional_filter,
    rsf_scorer,
)
from policytest.scoring.specs import pod_from_dict, resource_list_from_dict
from policytest.scoring.volcano import predicates_filter
from policytest.scoring.weights import LEAST, MOST, ResourceStrategyFitArgs, Strategy
from policytest.volcano.check import load
from policytest.volcano.rsf_args import rsf_args
from tests.corpus import Corpus
from tests.volcano.helpers import documents

DATA = Path(__file__).parent.parent / "data"
UPSTREAM = json.loads((DATA / "volcano" / "rsf_upstream_tests.json").read_text())
EPS = UPSTREAM["eps"]
ORACLE = Corpus.read(DATA / "oracle" / "volcano_rsf_cases.jsonl.gz")
ORACLE_INDICES, ORACLE_IDS = ORACLE.select()
RELEASES = {"v1.13.3": "1.13", "v1.14.4": "1.14", "v1.15.1": "1.15", "v1.16.0-alpha.1": "1.16"}


def strategies(spec: Mapping[str, list[Any]]) -> Mapping[str, Strategy]:
    return MappingProxyType({name: Strategy(kind, weight) for name, (kind, weight) in spec.items()})


def info(allocatable: Mapping[str, float], used: Mapping[str, float]) -> VolcanoNodeInfo:
    return VolcanoNodeInfo(
        "n", MappingProxyType(dict(allocatable)), MappingProxyType(dict(used)), 0, 110
    )


# --- upstream's own tests ------------------------------------------------------------------------


@pytest.mark.parametrize("case", UPSTREAM["Test_calculateWeight"], ids=lambda c: c["name"])
def test_calculate_weight(case: dict[str, Any]) -> None:
    args = rsf_args(case["arguments"])
    assert args.fatal is None
    assert args.weight == case["want"]["weight"]
    assert dict(args.resources) == dict(strategies(case["want"]["resources"]))


@pytest.mark.parametrize("case", UPSTREAM["TestScore"], ids=lambda c: c["name"])
def test_score(case: dict[str, Any]) -> None:
    cpu, memory, annotations = case["task"]
    used_cpu, used_memory, cpu_capacity, memory_capacity = case["node"]
    weight, resources = case["weight"]
    args = ResourceStrategyFitArgs(weight=weight, resources=strategies(resources))
    request = {"cpu": float(cpu), "memory": float(memory)}
    node = info(
        {"cpu": cpu_capacity, "memory": memory_capacity}, {"cpu": used_cpu, "memory": used_memory}
    )
    assert abs(rsf_scorer(args, request, annotations)(node).total - case["want"]) <= EPS


@pytest.mark.parametrize("case", UPSTREAM["requestedScore"], ids=lambda c: c["name"])
def test_requested_score(case: dict[str, Any]) -> None:
    requested, used, capacity, weight = case["args"]
    score, overflow = _resource_score(case["type"], requested, used, capacity, weight)
    assert (score, overflow) == (case["want"], case["error"])


@pytest.mark.parametrize(
    "case", UPSTREAM["Test_findResourceConfigWithPrefix"], ids=lambda c: c["name"]
)
def test_find_resource_config_with_prefix(case: dict[str, Any]) -> None:
    found = find_strategy(case["resource"], strategies(case["resources"]))
    want = case["want"]
    assert (found[1] if found else None) == (Strategy(*want) if want else None)


def _session_nodes(case: dict[str, Any]) -> dict[str, VolcanoNodeInfo]:
    nodes = UPSTREAM["sraNodes"] if case["nodes"] == "sra" else case["nodes"]
    return {
        name: volcano_node_info(Node(name, resource_list_from_dict(allocatable)))
        for name, allocatable in nodes.items()
    }


def _session_pods(case: dict[str, Any]) -> dict[str, Pod]:
    pods = UPSTREAM["sraPods"] if case["pods"] == "sra" else case["pods"]
    return {
        name: pod_from_dict({"requests": requests}, default_requests_from_limits=False)
        for name, requests in pods.items()
    }


@pytest.mark.parametrize("case", UPSTREAM["sessions"], ids=lambda c: c["name"])
def test_session_node_order(case: dict[str, Any]) -> None:
    args = rsf_args(case["arguments"])
    nodes = _session_nodes(case)
    for task, pod in _session_pods(case).items():
        scorer = rsf_scorer(args, volcano_pod_request(pod), {})
        for name, node in nodes.items():
            got = scorer(node).total
            assert abs(got - case["expected"][task][name]) <= EPS, (task, name, got)


@pytest.mark.parametrize("case", UPSTREAM["TestAllocate"], ids=lambda c: c["name"])
def test_allocate_binds_the_best_scored_node(case: dict[str, Any]) -> None:
    args = rsf_args(case["arguments"])
    pod = pod_from_dict({"requests": case["pod"]}, default_requests_from_limits=False)
    scorer = rsf_scorer(args, volcano_pod_request(pod), {})
    scores = {}
    for name, allocatable in case["nodes"].items():
        bound = tuple(
            pod_from_dict({"requests": r}, default_requests_from_limits=False)
            for r in case["bound"].get(name, [])
        )
        scores[name] = scorer(
            volcano_node_info(Node(name, resource_list_from_dict(allocatable), bound))
        ).total
    assert max(scores, key=lambda name: scores[name]) == case["bind"], scores


def test_arguments_sra_and_proportional() -> None:
    case = UPSTREAM["TestArguments"]
    args = rsf_args(case["arguments"])
    want = case["want"]
    assert args.sra.weight == want["sra"]["weight"]
    assert args.sra.weight_sum == want["sra"]["weightSum"]
    assert dict(args.sra.resources) == want["sra"]["resources"]
    assert args.proportional is not None
    assert {k: [v.cpu, v.memory] for k, v in args.proportional.items()} == want["proportional"]


# --- the oracle corpus -----------------------------------------------------------------------


def conf_text(arguments_yaml: str) -> str:
    head = 'actions: "allocate"\ntiers:\n- plugins:\n  - name: resource-strategy-fit\n'
    if not arguments_yaml.strip():
        return head
    return head + "    arguments:\n" + textwrap.indent(arguments_yaml, " " * 6)


def release_of(case: dict[str, Any]) -> str:
    return RELEASES[case["id"].split("@")[1] if "@" in case["id"] else case["release"]]


def loaded(case: dict[str, Any]) -> tuple[ResourceStrategyFitArgs | None, list[Any], bool]:
    (document,) = documents(conf_text(case["input"]["arguments_yaml"]))
    conf, findings = load(document, CheckOptions(volcano_version=release_of(case)))
    if conf is None:
        return None, findings, False
    (entry,) = conf.entries("resource-strategy-fit")
    assert isinstance(entry.weights, ResourceStrategyFitArgs)
    return entry.weights, findings, True


@pytest.mark.parametrize("index", ORACLE_INDICES, ids=ORACLE_IDS)
def test_oracle_case(index: int) -> None:
    case = ORACLE.case(index)
    result = case["result"]
    args, findings, runs = loaded(case)
    rules = [f.rule for f in findings]
    if result["fatal_kind"] == "conf":
        assert args is None and "VC001" in rules
        return
    if result["fatal"] is not None:
        assert not runs and "VR001" in rules, findings
        return
    assert runs and args is not None and "VR001" not in rules, findings
    effective = result["effective"]
    assert args.weight == effective["weight"]
    resources = {k: [v["type"], v["weight"]] for k, v in (effective["resources"] or {}).items()}
    assert dict(args.resources) == dict(strategies(resources))
    sra = effective["sra"]
    assert (args.sra.weight, args.sra.weight_sum) == (sra["weight"], sra["resourcesWeightSum"])
    assert dict(args.sra.resources) == (sra["resources"] or {})
    if effective["proportional"] is None:
        assert args.proportional is None
    else:
        assert args.proportional is not None
        got = {k: {"cpu": v.cpu, "memory": v.memory} for k, v in args.proportional.items()}
        assert got == effective["proportional"]
    assert args.registers_node_order == result["registered_node_order"]
    assert rules.count("VR007") == len(result["warnings"])
    _check_nodes(case, args)


def _check_nodes(case: dict[str, Any], args: ResourceStrategyFitArgs) -> None:
    result = case["result"]
    first = release_of(case) in ("1.13", "1.14")
    task = pod_from_dict(case["input"]["task"], default_requests_from_limits=False)
    request = volcano_pod_request(task, first)
    assert {k: v for k, v in request.items() if v or k in result["task_resreq"]} == {
        k: float(v) for k, v in result["task_resreq"].items()
    }
    scorer = rsf_scorer(args, request, dict(task.annotations))
    for spec, expected in zip(case["input"]["nodes"], result["nodes"], strict=True):
        pods = tuple(pod_from_dict(p, default_requests_from_limits=False) for p in spec["pods"])
        node = volcano_node_info(
            Node(spec["name"], resource_list_from_dict(spec["allocatable"]), pods), first
        )
        assert {k: v for k, v in node.used.items() if v or k in expected["used"]} == {
            k: float(v) for k, v in expected["used"].items()
        }
        assert (predicates_filter(task, node, first) is None) == expected["fits"]
        assert (proportional_filter(args, request, node) is None) == (expected["predicate"] is None)
        if expected["score"] is None:
            continue
        scored = scorer(node)
        assert scored.total == float(expected["score"]) or scored.total in [
            float(s) for s in expected["possible_scores"]
        ]
        for got, want in ((scored.strategy, "strategy_score"), (scored.sra, "sra_score")):
            assert (got is None) == (expected[want] is None)


def test_the_corpus_covers_every_group_and_release() -> None:
    groups = {case["group"] for case in ORACLE.cases()}
    assert {"upstream_test", "fatal", "wildcard", "annotations", "sra", "proportional"} <= groups
    assert {release_of(case) for case in ORACLE.cases()} == {"1.13", "1.15"}
    assert len(ORACLE) == 805


# --- per release ------------------------------------------------------------------------------


def test_overhead_counts_before_the_init_container_max_before_1_15() -> None:
    pod = pod_from_dict(
        {
            "containers": [{"resources": {"requests": {"cpu": "500m"}}}],
            "initContainers": [{"resources": {"requests": {"cpu": "3"}}}],
            "overhead": {"cpu": "250m"},
        },
        default_requests_from_limits=False,
    )
    assert volcano_pod_request(pod, True)["cpu"] == 3000.0  # 1.13, 1.14
    assert volcano_pod_request(pod, False)["cpu"] == 3250.0  # 1.15, 1.16


# --- annotations --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("weights", "strategy_off"),
    [
        (None, True),  # the weight annotation missing
        ("", True),
        ("not json", True),
        ('{"cpu": 1.5}', True),
        ('{"cpu": "1"}', True),
        ('{"cpu": 1e2}', True),
        ("[1]", True),
        ("null", False),  # a nil map: no resource scores, no error
        ('{"cpu": -1}', False),
    ],
)
def test_weight_annotation(weights: str | None, strategy_off: bool) -> None:
    annotations = {"volcano.sh/resource-strategy-scoring-type": MOST}
    if weights is not None:
        annotations["volcano.sh/resource-strategy-weight"] = weights
    override = pod_strategy(annotations)
    assert override.type == MOST
    assert (override.weights is None) is strategy_off


def test_missing_weight_annotation_scores_zero_while_sra_still_adds() -> None:
    args = rsf_args({"sra": {"enable": True, "resources": "nvidia.com/gpu", "weight": 2}})
    annotations = {"volcano.sh/resource-strategy-scoring-type": MOST}
    node = info({"cpu": 8000, "memory": 8e9, "pods": 110}, {})
    scored = rsf_scorer(args, {"cpu": 1000.0, "memory": 1e9, "pods": 1.0}, annotations)(node)
    assert scored.strategy == 0.0
    assert scored.sra == 200.0  # the node has no GPU: 1 - 0/1, x 100 x 2


# --- properties -----------------------------------------------------------------------------------

amounts = st.integers(min_value=0, max_value=10**7).map(float)


@settings(max_examples=200)
@given(
    kind=st.sampled_from([MOST, LEAST]),
    weight=st.integers(min_value=1, max_value=100),
    plugin_weight=st.integers(min_value=0, max_value=100),
    capacity=st.integers(min_value=1, max_value=10**7).map(float),
    used=amounts,
    requested=st.integers(min_value=1, max_value=10**7).map(float),
)
def test_score_bounds(
    kind: str, weight: int, plugin_weight: int, capacity: float, used: float, requested: float
) -> None:
    args = ResourceStrategyFitArgs(
        weight=plugin_weight, resources=MappingProxyType({"cpu": Strategy(kind, weight)})
    )
    scored = rsf_scorer(args, {"cpu": requested}, {})(info({"cpu": capacity}, {"cpu": used}))
    assert 0.0 <= scored.total <= 100.0 * plugin_weight + 1e-9
    if used + requested > capacity:
        assert scored.total == 0.0


@settings(max_examples=200)
@given(
    weight=st.integers(min_value=1, max_value=100),
    capacity=st.integers(min_value=2, max_value=10**7).map(float),
    data=st.data(),
)
def test_most_allocated_grows_and_least_allocated_falls_with_use(
    weight: int, capacity: float, data: st.DataObject
) -> None:
    requested = data.draw(st.integers(min_value=1, max_value=int(capacity) - 1).map(float))
    low, high = sorted(
        data.draw(st.integers(min_value=0, max_value=int(capacity - requested)).map(float))
        for _ in range(2)
    )

    def score(kind: str, used: float) -> float:
        args = ResourceStrategyFitArgs(resources=MappingProxyType({"cpu": Strategy(kind, weight)}))
        return rsf_scorer(args, {"cpu": requested}, {})(
            info({"cpu": capacity}, {"cpu": used})
        ).total

    assert score(MOST, low) <= score(MOST, high)
    assert score(LEAST, low) >= score(LEAST, high)
    assert math.isclose(score(MOST, low) + score(LEAST, low), 1000.0, rel_tol=1e-12)


# --- robustness --------------------------------------------------------------------------------

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["MostAllocated", "LeastAllocated", "nvidia.com/*", "*", "", "10", "cpu"]),
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "cpu",
                    "nvidia.com/gpu",
                    "type",
                    "weight",
                    "Weight",
                    "enable",
                    "resources",
                    "resourceWeight",
                    "resourceProportion",
                    "nvidia.com/gpu.cpu",
                    "x*y",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)
_arguments = st.dictionaries(
    st.sampled_from(
        [
            "resourceStrategyFitWeight",
            "resources",
            "sra",
            "proportional",
            "weight",
            "deviceshare.VGPUEnable",
            "deviceshare.ScheduleWeight",
            "deviceshare.SchedulePolicy",
            "hypernode.binpack.cpu",
            "hypernode.binpack.resources",
            "hypernode.binpack.normal-pod.fading",
        ]
    ),
    _values,
    max_size=4,
)


@settings(max_examples=150)
@given(
    arguments=_arguments,
    plugin=st.sampled_from(["resource-strategy-fit", "deviceshare", "network-topology-aware"]),
)
def test_any_arguments_give_findings_never_an_exception(
    arguments: dict[str, Any], plugin: str
) -> None:
    body = textwrap.indent(json.dumps(arguments), " " * 6)
    text = f'actions: "allocate"\ntiers:\n- plugins:\n  - name: {plugin}\n    arguments:\n{body}\n'
    (document,) = documents(text)
    conf, findings = load(document, CheckOptions())
    if plugin == "resource-strategy-fit" and conf is not None:
        (entry,) = conf.entries(plugin)
        assert isinstance(entry.weights, ResourceStrategyFitArgs)
        assert (entry.weights.fatal is not None) == any(f.rule == "VR001" for f in findings)
    for finding in findings:
        assert finding.line >= 4 and finding.message


@settings(max_examples=200)
@given(
    weight=st.integers(min_value=1, max_value=100),
    names=st.lists(st.sampled_from(["a.com/x", "b.com/y", "c.com/z"]), min_size=1, max_size=4),
    has=st.sets(st.sampled_from(["a.com/x", "b.com/y", "c.com/z"])),
)
def test_sra_score_is_between_0_and_100_times_its_weight(
    weight: int, names: list[str], has: set[str]
) -> None:
    args = rsf_args(
        {
            "resourceStrategyFitWeight": 0,
            "sra": {"enable": True, "weight": weight, "resources": ",".join(names)},
        }
    )
    node = info({"cpu": 8000, **{name: 1000.0 for name in has}}, {})
    score = rsf_scorer(args, {"cpu": 1000.0}, {})(node).total
    assert -1e-9 <= score <= 100.0 * weight + 1e-9
    assert (score == 100.0 * weight) is (not has & set(names))
