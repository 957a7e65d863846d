"""kube-scheduler's behaviour beyond the oracle: plugin sets and multiPoint, weights,
the other plugins' args, process settings and strict decoding details."""

from __future__ import annotations

import pytest

from policytest.core.findings import Severity
from policytest.core.options import DEFAULT_OPTIONS
from policytest.kube.check import load
from policytest.kube.model import KubeSchedulerConfig
from tests.kube.helpers import documents, findings_for

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def loaded(body: str) -> KubeSchedulerConfig:
    config, found = load(documents(HEADER + body)[0][0], DEFAULT_OPTIONS)
    assert config is not None, found
    return config


def verdict(body: str) -> tuple[set[str], set[str]]:
    """(error rule ids, warning rule ids) for a config with ``body`` after the header."""
    found = findings_for(HEADER + body)
    return (
        {f.rule for f in found if f.severity is Severity.ERROR},
        {f.rule for f in found if f.severity is Severity.WARNING},
    )


PACK_ONLY = """\
profiles:
- schedulerName: packer
  plugins:
    multiPoint:
      disabled: [{name: "*"}]
      enabled: [{name: PrioritySort}, {name: DefaultBinder}, {name: NodeResourcesFit, weight: 4}]
"""


def test_multipoint_star_keeps_only_what_is_enabled_again() -> None:
    profile = loaded(PACK_ONLY).profile("packer")
    assert profile is not None
    assert profile.score_plugins == (("NodeResourcesFit", 4),)
    assert profile.filter_plugins == ("NodeResourcesFit",)
    assert profile.scores("NodeResourcesFit") and profile.filters("NodeResourcesFit")
    assert not profile.scores("NodeResourcesBalancedAllocation")


def test_explicit_score_weight_wins_over_multipoint() -> None:
    body = """\
profiles:
- plugins:
    multiPoint:
      enabled: [{name: NodeResourcesFit, weight: 7}]
    score:
      enabled: [{name: NodeResourcesFit, weight: 9}]
"""
    profile = loaded(body).profiles[0]
    assert profile.scheduler_name == "default-scheduler"
    assert profile.score_plugins[0] == ("NodeResourcesFit", 9)
    assert profile.weight("TaintToleration") == 3
    assert profile.weight("NodeName") is None


def test_score_star_then_one_plugin() -> None:
    body = """\
profiles:
- plugins:
    score:
      disabled: [{name: "*"}]
      enabled: [{name: NodeResourcesBalancedAllocation, weight: 2}]
"""
    assert loaded(body).profiles[0].score_plugins == (("NodeResourcesBalancedAllocation", 2),)


@pytest.mark.parametrize(
    ("body", "errors", "warnings"),
    [
        pytest.param(
            "profiles:\n- plugins:\n    multiPoint:\n      disabled: [{name: '*'}]\n",
            {"KS024"},
            set(),
            id="no queue sort, no binder",
        ),
        pytest.param(
            "profiles:\n- plugins:\n    bind:\n      disabled: [{name: '*'}]\n",
            {"KS024"},
            set(),
            id="bind disabled",
        ),
        pytest.param(
            PACK_ONLY.replace("weight: 4", "weight: -3"),
            set(),
            {"KS023"},
            id="negative weight checked last is accepted",
        ),
        pytest.param(
            "profiles:\n- plugins:\n    multiPoint:\n      enabled: [{name: Foo}, {name: Foo}]\n",
            {"KS020"},
            set(),
            id="unknown multiPoint plugin reported once",
        ),
        pytest.param(
            "profiles:\n- plugins:\n    multiPoint:\n      enabled:"
            " [{name: ImageLocality, weight: 2}, {name: ImageLocality}]\n",
            {"KS022"},
            set(),
            id="multiPoint twice",
        ),
        pytest.param(
            "profiles:\n- plugins:\n    multiPoint:\n      enabled: [{name: EBSLimits}]\n",
            {"KS020"},
            set(),
            id="removed plugin under multiPoint",
        ),
        pytest.param(
            "profiles:\n- plugins:\n    preScore:\n      enabled: [{name: VolumeBinding}]\n",
            set(),
            set(),
            id="plugin at a point it implements",
        ),
        pytest.param(
            "profiles:\n- plugins:\n    filter:\n      enabled: [{name: NodeName, weight: 0}]\n",
            set(),
            set(),
            id="weight of a non-score plugin is unused",
        ),
        pytest.param(
            "profiles:\n- plugins:\n    score:\n      disabled: [{name: NodeResourcesFit}]\n"
            "  pluginConfig:\n  - name: NodeResourcesFit\n"
            "    args: {scoringStrategy: {type: Most}}\n",
            {"KS010"},
            {"KS042"},
            id="Fit still filters: its args are validated",
        ),
        pytest.param(
            "profiles:\n- plugins:\n    multiPoint:\n      disabled: [{name: NodeResourcesFit}]\n"
            "  pluginConfig:\n  - name: NodeResourcesFit\n"
            "    args: {scoringStrategy: {type: Most}}\n",
            set(),
            {"KS042"},
            id="Fit disabled everywhere: its args are never validated",
        ),
        pytest.param(
            "profiles:\n- schedulerName: a\n  plugins:\n    queueSort:\n      enabled: "
            "[{name: PrioritySort}]\n- schedulerName: b\n  plugins:\n    queueSort:\n"
            "      enabled: [{name: PrioritySort}]\n",
            set(),
            set(),
            id="same queue sort in all profiles",
        ),
        pytest.param(
            "profiles:\n- schedulerName: a\n- {}\n",
            {"KS026"},
            set(),
            id="second profile without a name",
        ),
    ],
)
def test_framework_verdicts(body: str, errors: set[str], warnings: set[str]) -> None:
    assert verdict(body) == (errors, warnings)


def args(plugin: str, text: str) -> str:
    return f"profiles:\n- pluginConfig:\n  - name: {plugin}\n    args: {text}\n"


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        (args("DefaultPreemption", "{minCandidateNodesPercentage: 101}"), {"KS030"}),
        (args("DefaultPreemption", "{minCandidateNodesAbsolute: -1}"), {"KS030"}),
        (
            args(
                "DefaultPreemption",
                "{minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0}",
            ),
            {"KS030"},
        ),
        (args("DefaultPreemption", "{minCandidateNodesPercentage: 0}"), set()),
        (args("InterPodAffinity", "{hardPodAffinityWeight: -1}"), {"KS030"}),
        (args("InterPodAffinity", "{hardPodAffinityWeight: 0}"), set()),
        (args("VolumeBinding", "{bindTimeoutSeconds: -1}"), {"KS030"}),
        (args("VolumeBinding", "{shape: []}"), {"KS030"}),
        (args("VolumeBinding", "{bindTimeoutSeconds: 0, shape: null}"), set()),
        (args("DynamicResources", "{filterTimeout: -1s}"), {"KS030"}),
        (args("DynamicResources", "{filterTimeout: 0s}"), set()),
        (args("PodTopologySpread", "{defaultingType: Custom}"), {"KS030"}),
        (
            args(
                "PodTopologySpread",
                "{defaultConstraints: [{maxSkew: 1, topologyKey: zone, "
                "whenUnsatisfiable: DoNotSchedule}]}",
            ),
            {"KS030"},
        ),
        (
            args(
                "PodTopologySpread",
                "{defaultingType: List, defaultConstraints: [{maxSkew: 0, "
                "topologyKey: '', whenUnsatisfiable: Maybe, labelSelector: {}}]}",
            ),
            {"KS030"},
        ),
        (
            args(
                "PodTopologySpread",
                "{defaultingType: List, defaultConstraints: [{maxSkew: 1, "
                "topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}]}",
            ),
            set(),
        ),
        (
            args(
                "NodeAffinity",
                "{addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                "{nodeSelectorTerms: [{matchExpressions: [{key: pool, operator: In}]}]}}}",
            ),
            {"KS030"},
        ),
        (
            args(
                "NodeAffinity",
                "{addedAffinity: {preferredDuringSchedulingIgnoredDuringExecution:"
                " [{weight: 1, preference: {matchFields: [{key: name, operator: Gt}]}}]}}",
            ),
            {"KS030"},
        ),
        (
            args(
                "NodeAffinity",
                "{addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                "{nodeSelectorTerms: [{matchExpressions: [{key: gpus, operator: Gt, values: ['4']},"
                " {key: pool, operator: In, values: [batch]}, {key: spot, operator: Exists}],"
                " matchFields: [{key: metadata.name, operator: In, values: [node-a]}]}]}}}",
            ),
            set(),
        ),
        (args("NodeAffinity", "{addedAffinity: {typo: 1}}"), {"KS003"}),
        (
            args(
                "NodeResourcesFit",
                "{kind: NodeResourcesFitArgs, apiVersion: kubescheduler.config.k8s.io/v1}",
            ),
            set(),
        ),
        (args("NodeResourcesFit", "{kind: NodeResourcesBalancedAllocationArgs}"), {"KS005"}),
        (args("NodeResourcesFit", "{apiVersion: kubescheduler.config.k8s.io/v1beta3}"), {"KS005"}),
        (args("SomeOutOfTreePlugin", "[any, thing]"), set()),
    ],
)
def test_plugin_args_verdicts(body: str, errors: set[str]) -> None:
    assert verdict(body)[0] == errors


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ("leaderElection: {leaseDuration: 5s}\n", {"KS028"}),
        ("leaderElection: {leaseDuration: 5s, leaderElect: false}\n", set()),
        ("leaderElection: {retryPeriod: -2s}\n", {"KS028"}),
        ("leaderElection: {leaseDuration: 1m30s, renewDeadline: 1.5m}\n", {"KS028"}),
        ("leaderElection: {leaseDuration: 1m31s, renewDeadline: 1.5m}\n", set()),
        ("leaderElection: {leaseDuration: 15}\n", {"KS005"}),
        ("leaderElection: {leaseDuration: ~}\n", {"KS005"}),
        ("leaderElection: {leaseDuration: 10 s}\n", {"KS005"}),
        ("podInitialBackoffSeconds: 20\n", {"KS028"}),
        ("podInitialBackoffSeconds: 20\npodMaxBackoffSeconds: 20\n", set()),
        ("clientConnection: {burst: 0, qps: 0.5}\n", set()),
        ("percentageOfNodesToScore: -1\n", {"KS027"}),
        ("extenders: [{urlPrefix: x, bindVerb: b}]\n", set()),
        (
            "extenders: [{urlPrefix: x, managedResources: [{name: example.com/a}, "
            "{name: example.com/a}]}]\n",
            {"KS029"},
        ),
        ("extenders: [{urlPrefix: x, managedResources: [{name: 'a/b/c'}]}]\n", {"KS029"}),
        ("extenders: [{urlPrefix: x, httpTimeout: 30s, tlsConfig: {caData: aGVsbG8=}}]\n", set()),
        ("extenders: [{urlPrefix: x, tlsConfig: {caData: 'not base64!'}}]\n", {"KS005"}),
        ("parallelism: 2.0\n", set()),
        ("parallelism: 1e3\n", set()),
        ("parallelism: 2147483648\n", {"KS005"}),
        ("parallelism: .inf\n", {"KS005"}),
        ("parallelism: !!float 2\n", set()),
        ("parallelism: !!int x\n", {"KS005"}),
        ("enableProfiling: yes\n", set()),
        ("enableProfiling: 'yes'\n", {"KS005"}),
        ("base: &b {parallelism: 4}\n", {"KS003"}),
        ("<<: {parallelism: 4}\nparallelism: 8\n", {"KS004"}),
        ("<<: {parallelism: 4}\n", set()),
        ("? [a]\n: 1\n", {"KS005"}),
        ("1: one\n", {"KS003"}),
        ("~: none\n", {"KS005"}),
        ("18446744073709551615: big\n", {"KS005"}),
    ],
)
def test_settings_and_decoding_verdicts(body: str, errors: set[str]) -> None:
    assert verdict(body)[0] == errors


def test_profile_and_settings_reach_the_model() -> None:
    config = loaded(
        "parallelism: 8\npercentageOfNodesToScore: 40\npodInitialBackoffSeconds: 2\n"
        "profiles:\n- schedulerName: a\n  percentageOfNodesToScore: 10\n- schedulerName: b\n"
        "  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
        "      ignoredResources: [example.com/x]\n      ignoredResourceGroups: [example.org]\n"
    )
    assert (config.parallelism, config.percentage_of_nodes_to_score) == (8, 40)
    assert (config.pod_initial_backoff_seconds, config.pod_max_backoff_seconds) == (2, 10)
    assert config.scheduler_names == ("a", "b")
    a, b = config.profile("a"), config.profile("b")
    assert a is not None and b is not None and config.profile("c") is None
    assert config.profile() is a
    assert a.percentage_of_nodes_to_score == 10 and b.percentage_of_nodes_to_score is None
    assert b.fit_ignored_resources == ("example.com/x",)
    assert b.fit_ignored_resource_groups == ("example.org",)
    assert config.api_version == "kubescheduler.config.k8s.io/v1"


def test_unknown_key_suggests_and_says_strict() -> None:
    found = findings_for(HEADER + "profiles:\n- schedulerNme: x\n")
    [finding] = found
    assert (finding.rule, finding.line, finding.column) == ("KS003", 4, 3)
    assert "did you mean `schedulerName`?" in finding.message
    assert "refuses to start" in finding.message and "ignored" not in finding.message


def test_unknown_plugin_suggests_the_v1_replacement() -> None:
    body = "profiles:\n- plugins:\n    score:\n      enabled: [{name: NodeResourceFit}]\n"
    [finding] = findings_for(HEADER + body)
    assert finding.rule == "KS020" and "did you mean `NodeResourcesFit`?" in finding.message
    body = body.replace("NodeResourceFit", "RequestedToCapacityRatio")
    [finding] = findings_for(HEADER + body)
    assert (
        "use NodeResourcesFit with scoringStrategy.type RequestedToCapacityRatio" in finding.message
    )


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ("<<: {parallelism: 4}\nparallelism: 8\n", {"KS004"}),
        ("parallelism: 8\n<<: {parallelism: 4}\n", {"KS004"}),
        ("<<: [{parallelism: 4}, {parallelism: 5}]\n", {"KS004"}),
        ("<<: [{parallelism: 4}, {podMaxBackoffSeconds: 20}]\n", set()),
        ("x: &base {leaderElect: false}\n", {"KS003"}),
        ("leaderElection:\n  <<: {leaderElect: false}\n  resourceLock: leases\n", set()),
    ],
)
def test_merge_keys_in_strict_yaml(body: str, errors: set[str]) -> None:
    assert verdict(body)[0] == errors


def test_pem_data_may_span_lines() -> None:
    body = "extenders:\n- urlPrefix: x\n  tlsConfig:\n    caData: |\n      aGVs\n      bG8=\n"
    assert verdict(body) == (set(), set())


@pytest.mark.parametrize(
    ("plugins", "held", "raised"),
    [
        pytest.param(
            "    score:\n      enabled:\n      - {name: TaintToleration, weight: 0}\n",
            ("TaintToleration", 1),
            ("TaintToleration",),
            id="a score entry of 0 is raised",
        ),
        pytest.param(
            "    filter:\n      enabled:\n      - {name: TaintToleration, weight: 0}\n",
            ("TaintToleration", 3),
            (),
            id="a weight on a filter entry is not a score weight",
        ),
        pytest.param(
            "    score:\n      enabled:\n      - {name: TaintToleration, weight: 5}\n"
            "    multiPoint:\n      enabled:\n      - {name: TaintToleration, weight: 0}\n",
            ("TaintToleration", 5),
            (),
            id="the explicit score entry wins over multiPoint",
        ),
        pytest.param(
            "    score:\n      disabled:\n      - name: ImageLocality\n"
            "    multiPoint:\n      enabled:\n      - {name: ImageLocality, weight: 0}\n",
            None,
            (),
            id="a disabled plugin does not score at all",
        ),
    ],
)
def test_ks040_and_the_model_agree_on_raised_weights(
    plugins: str, held: tuple[str, int] | None, raised: tuple[str, ...]
) -> None:
    """KS040 fires exactly for the weights kube-scheduler holds as 1 after a written 0."""
    text = (
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "profiles:\n- schedulerName: s\n  plugins:\n" + plugins
    )
    (document,), _ = documents(text)
    config, findings = load(document, DEFAULT_OPTIONS)
    assert config is not None
    (profile,) = config.profiles
    if held is not None:
        assert held in profile.score_plugins
    else:
        assert "ImageLocality" not in dict(profile.score_plugins)
    assert profile.raised_weights == raised
    assert [f.rule for f in findings if f.rule == "KS040"] == ["KS040"] * len(raised)
