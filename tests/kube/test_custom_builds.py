"""Configs for scheduler builds with out-of-tree plugins (scheduler-plugins, in-house).

Without the project settings, such plugins are unknown to kube-scheduler (KS020) and
say so, suggesting the settings file rather than a wrong in-tree name. With
``kubeScheduler.distribution: scheduler-plugins`` the plugins of scheduler-plugins
v0.34.7 are known at their extension points (Coscheduling is a queue sort), their args
are accepted, and in-tree names that v1 removed are still errors. Without them, a config
whose every unknown plugin is scheduler-plugins' has its extension points checked as that
build's, so ``TopologicalSort`` (a queue sort) under ``preFilter`` is reported, as every
scheduler-plugins build refuses it; before, only the settings file made that visible.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from policytest.kube.builds import DISTRIBUTIONS, SCHEDULER_PLUGINS, distribution_plugins
from policytest.kube.registry import EXTENSION_POINTS, PLUGINS, plugin_hint
from tests.conftest import DATA, RunLine

BUILDS = DATA / "realrepos" / "custom-builds"
SCHEDULER_PLUGINS_SETTINGS = "kubeScheduler:\n  distribution: scheduler-plugins\n"
IN_HOUSE_SETTINGS = """\
kubeScheduler:
  plugins:
  - name: DataLocalityScore
    extensionPoints: [preScore, score]
"""

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def _settings(tmp_path: Path, text: str) -> Path:
    path = tmp_path / ".policytest.yaml"
    path.write_text(text)
    return path


def _rules(stdout: str) -> list[str]:
    return [line.split(": ")[1].split()[0] for line in stdout.splitlines() if ": K" in line]


@pytest.mark.parametrize(
    ("name", "rules"),
    [
        ("coscheduling-configmap.yaml", ["KS020", "KS020", "KS020", "KS041", "KS041"]),
        ("trimaran-target-load-packing.yaml", ["KS020", "KS041"]),
        ("in-house-plugin.yaml", ["KS020", "KS041"]),
    ],
)
def test_without_settings_out_of_tree_plugins_are_unknown(
    run_line: RunLine, tmp_path: Path, name: str, rules: list[str]
) -> None:
    empty = _settings(tmp_path, "# no builds declared\n")
    result = run_line(["validate", "--settings", empty, BUILDS / name])
    assert result.exit_code == 1, result
    assert _rules(result.stdout) == rules, result
    assert "KS024" not in result.stdout  # no follow-on queue-sort count
    assert "did you mean" not in result.stdout, result
    if name == "in-house-plugin.yaml":
        assert "declare them in the project settings file .policytest.yaml" in result.stdout
    else:  # every unknown name is scheduler-plugins': the message says whose
        assert (
            "it is a plugin of scheduler-plugins v0.34.7, as is every plugin this config names "
            "that upstream lacks, so its extension points are checked as that build's: if your "
            "scheduler is a custom build with them, declare `kubeScheduler.distribution: "
            "scheduler-plugins`" in result.stdout
        )


@pytest.mark.parametrize(
    "name", ["coscheduling-configmap.yaml", "trimaran-target-load-packing.yaml"]
)
def test_scheduler_plugins_distribution_knows_its_plugins(
    run_line: RunLine, tmp_path: Path, name: str
) -> None:
    settings = _settings(tmp_path, SCHEDULER_PLUGINS_SETTINGS)
    result = run_line(["validate", "--settings", settings, BUILDS / name])
    assert result.exit_code == 0, result
    assert "All clean: 1 file checked." in result.stdout


def test_removed_in_tree_names_are_still_caught_with_the_distribution(
    run_line: RunLine, tmp_path: Path
) -> None:
    settings = _settings(tmp_path, SCHEDULER_PLUGINS_SETTINGS)
    result = run_line(["validate", "--settings", settings, BUILDS / "removed-in-tree-names.yaml"])
    assert result.exit_code == 1, result
    assert _rules(result.stdout) == ["KS020", "KS020"]
    assert 'ScorePlugin "NodeResourcesMostAllocated" does not exist' in result.stdout
    assert "use NodeResourcesFit with scoringStrategy.type LeastAllocated" in result.stdout
    assert "Coscheduling" not in result.stdout  # the queue sort of this build


def test_coscheduling_satisfies_the_single_queue_sort(run_line: RunLine, tmp_path: Path) -> None:
    settings = _settings(tmp_path, SCHEDULER_PLUGINS_SETTINGS)
    config = tmp_path / "two-sorts.yaml"
    config.write_text(
        HEADER + "profiles:\n- plugins:\n    queueSort:\n"
        "      enabled:\n      - name: Coscheduling\n"
    )
    result = run_line(["validate", "--settings", settings, config])
    # PrioritySort stays enabled by default: two queue sorts, a real start-up failure
    assert "KS024" in result.stdout, result
    config.write_text(config.read_text() + "      disabled:\n      - name: '*'\n")
    assert run_line(["validate", "--settings", settings, config]).exit_code == 0


@pytest.mark.parametrize(
    ("profiles", "exit_code", "expected"),
    [
        pytest.param(
            "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: Coscheduling\n",
            1,
            'plugin "Coscheduling" does not extend ScorePlugin',
            id="at-a-point-it-does-not-implement",
        ),
        pytest.param(
            "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n"
            "      - name: CapacityScheduling\n"
            "  pluginConfig:\n  - name: CapacityScheduling\n    args: {quota: 10}\n",
            0,
            "KS041 warning: CapacityScheduling (scheduler-plugins v0.34.7) takes no args",
            id="without-args-kind-ignores-args",
        ),
    ],
)
def test_a_distribution_plugin_is_judged_by_its_declaration(
    run_line: RunLine, tmp_path: Path, profiles: str, exit_code: int, expected: str
) -> None:
    settings = _settings(tmp_path, SCHEDULER_PLUGINS_SETTINGS)
    config = tmp_path / "config.yaml"
    config.write_text(HEADER + profiles)
    result = run_line(["validate", "--settings", settings, config])
    assert result.exit_code == exit_code, result
    assert expected in result.stdout


def test_declared_in_house_plugin_is_known_at_its_points(run_line: RunLine, tmp_path: Path) -> None:
    settings = _settings(tmp_path, IN_HOUSE_SETTINGS)
    config = BUILDS / "in-house-plugin.yaml"
    assert run_line(["validate", "--settings", settings, config]).exit_code == 0
    misplaced = tmp_path / "filter.yaml"
    misplaced.write_text(
        config.read_text().replace("    preScore:\n", "    filter:\n", 1),
    )
    result = run_line(["validate", "--settings", settings, misplaced])
    assert 'plugin "DataLocalityScore" does not extend FilterPlugin' in result.stdout


def test_declared_plugin_without_points_is_accepted_everywhere(
    run_line: RunLine, tmp_path: Path
) -> None:
    settings = _settings(tmp_path, "kubeScheduler:\n  plugins:\n  - name: DataLocalityScore\n")
    config = tmp_path / "multi.yaml"
    config.write_text(
        HEADER + "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n"
        "      - name: DataLocalityScore\n        weight: 4\n"
        "    filter:\n      enabled:\n      - name: DataLocalityScore\n"
        "  pluginConfig:\n  - name: DataLocalityScore\n    args: {anything: [1, 2]}\n"
    )
    result = run_line(["validate", "--settings", settings, config])
    assert result.exit_code == 0, result
    assert "All clean" in result.stdout


def test_scheduler_plugins_table_is_what_v0_34_7_registers() -> None:
    """Names, points and args kinds read from scheduler-plugins v0.34.7."""
    origin, table = DISTRIBUTIONS[SCHEDULER_PLUGINS]
    assert origin == "scheduler-plugins v0.34.7"
    assert sorted(table) == sorted(
        [
            "CapacityScheduling",
            "Coscheduling",
            "LoadVariationRiskBalancing",
            "NetworkOverhead",
            "TopologicalSort",
            "NodeResourcesAllocatable",
            "NodeResourceTopologyMatch",
            "PreemptionToleration",
            "TargetLoadPacking",
            "LowRiskOverCommitment",
            "SySched",
            "Peaks",
            "PodState",
            "QOSSort",
        ]
    )
    queue_sorts = {name for name, (points, _) in table.items() if "queueSort" in points}
    assert queue_sorts == {"Coscheduling", "TopologicalSort", "QOSSort"}
    for plugin in distribution_plugins(SCHEDULER_PLUGINS):
        assert plugin.extension_points and plugin.extension_points <= set(EXTENSION_POINTS)
        assert plugin.name not in PLUGINS
        assert plugin.args_kind in (None, f"{plugin.name}Args")
    no_args = {p.name for p in distribution_plugins(SCHEDULER_PLUGINS) if p.args_kind is None}
    assert no_args == {"CapacityScheduling", "PodState", "QOSSort"}


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("Coscheduling", ""),
        ("NodeResourcesAllocatable", ""),
        ("TargetLoadPacking", ""),
        ("NodeResourceFit", "; did you mean `NodeResourcesFit`?"),
        ("PrioritySrot", "; did you mean `PrioritySort`?"),
        ("nodeaffinity", "; did you mean `NodeAffinity`?"),
        ("GangSchedulling", "; did you mean `GangScheduling`?"),
        (
            "BalancedAllocation",
            "; did you mean `NodeResourcesBalancedAllocation`? (`BalancedAllocation` is only "
            "part of the name)",
        ),
        (
            "Affinity",
            "; did you mean `InterPodAffinity` or `NodeAffinity`? (`Affinity` is only part of "
            "the name)",
        ),
        (
            "MostAllocated",
            "; `NodeResourcesMostAllocated` no longer exists in v1: use NodeResourcesFit with "
            "scoringStrategy.type MostAllocated",
        ),
        ("NodeResourcesFitWithGPUTopology", ""),  # it contains an in-tree name: a plugin of its own
        ("Fit", ""),  # too short to be taken for a part of a name
    ],
)
def test_suggestions_only_when_plausible(name: str, hint: str) -> None:
    assert plugin_hint(name) == hint


def test_args_of_a_distribution_plugin_are_decoded_strictly(
    run_line: RunLine, tmp_path: Path
) -> None:
    """scheduler-plugins registers CoschedulingArgs: a misspelt field stops the build."""
    settings = _settings(tmp_path, SCHEDULER_PLUGINS_SETTINGS)
    config = tmp_path / "typo.yaml"
    text = (BUILDS / "coscheduling-configmap.yaml").read_text()
    config.write_text(text.replace("permitWaitingTimeSeconds: 10", "permitWaitingTimeSecond: 10"))
    result = run_line(["validate", "--settings", settings, config])
    assert result.exit_code == 1, result
    assert (
        'KS003 error: unknown field "permitWaitingTimeSecond" in CoschedulingArgs '
        "(scheduler-plugins v0.34.7)" in result.stdout
    )
    assert "did you mean `permitWaitingTimeSeconds`?" in result.stdout


def test_args_of_a_declared_plugin_are_unchecked(run_line: RunLine, tmp_path: Path) -> None:
    settings = _settings(tmp_path, IN_HOUSE_SETTINGS)
    config = tmp_path / "in-house.yaml"
    text = (BUILDS / "in-house-plugin.yaml").read_text()
    config.write_text(text.replace("localityWeight: 10", "anyFieldAtAll: {nested: true}"))
    assert run_line(["validate", "--settings", settings, config]).exit_code == 0


TOPOLOGICAL = BUILDS / "topological-sort-prefilter.yaml"


@pytest.mark.parametrize("settings", ["# no builds declared\n", SCHEDULER_PLUGINS_SETTINGS])
def test_a_scheduler_plugins_queue_sort_at_pre_filter_with_or_without_settings(
    run_line: RunLine, tmp_path: Path, settings: str
) -> None:
    result = run_line(["validate", "--settings", _settings(tmp_path, settings), TOPOLOGICAL])
    assert result.exit_code == 1, result
    misplaced = (
        f'{TOPOLOGICAL}:15:15: KS021 error: plugin "TopologicalSort" does not extend '
        "PreFilterPlugin: kube-scheduler refuses to start; it implements queueSort, so move it "
        "there or enable it under multiPoint"
    )
    assert misplaced in result.stdout
    inferred = "checked as scheduler-plugins v0.34.7, the build of every plugin this config names"
    assert (inferred in result.stdout) is settings.startswith("#")  # said when inferred
    assert _rules(result.stdout) == (
        ["KS021", "KS020", "KS041"] if settings.startswith("#") else ["KS021"]
    )


def test_no_build_is_inferred_when_an_unknown_plugin_is_no_scheduler_plugins_one(
    run_line: RunLine, tmp_path: Path
) -> None:
    config = tmp_path / "mixed.yaml"
    text = TOPOLOGICAL.read_text(encoding="utf-8").replace(
        "weight: 5", "weight: 5\n      - name: Own"
    )
    config.write_text(text, encoding="utf-8")
    result = run_line(["validate", "--settings", _settings(tmp_path, "# none\n"), config])
    assert "KS021" not in result.stdout and "scheduler-plugins v0.34.7" not in result.stdout
    assert 'PreFilterPlugin "TopologicalSort" does not exist' in result.stdout


def test_a_retired_in_tree_name_does_not_stop_the_build_being_inferred(
    run_line: RunLine, tmp_path: Path
) -> None:
    """scheduler-plugins' Trimaran example disables ``NodeResourcesLeastAllocated``, which
    v1 no longer has: an in-tree name, not an out-of-tree plugin of another build."""
    config = tmp_path / "trimaran.yaml"
    config.write_text(
        HEADER + "profiles:\n- plugins:\n    score:\n      disabled:\n"
        "      - name: NodeResourcesLeastAllocated\n      enabled:\n"
        "      - name: TargetLoadPacking\n",
        encoding="utf-8",
    )
    result = run_line(["validate", "--settings", _settings(tmp_path, "# none\n"), config])
    assert _rules(result.stdout) == ["KS041", "KS020"], result
    assert "NodeResourcesLeastAllocated no longer exists in v1" in result.stdout
    assert (
        'ScorePlugin "TargetLoadPacking" does not exist: kube-scheduler refuses to start; it '
        "is a plugin of scheduler-plugins v0.34.7" in result.stdout
    )
