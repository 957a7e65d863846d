"""A chart's values that carry a scheduler config are checked as the config they become.

Shaped like what charts hold (each chart's own values read from its repository):
Volcano's chart writes ``custom.scheduler_config_override`` into its scheduler ConfigMap as
``volcano-scheduler.conf`` (before: not checked at all), an umbrella chart nests the same
under ``volcano:``, and scheduler-plugins' chart builds a KubeSchedulerConfiguration from
``plugins.enabled`` / ``disabled`` (title-cased) and ``pluginConfig``. Every finding points
into the values file, and the release the values or ``Chart.yaml`` state is the one
judged.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from policytest.core.limits import DEFAULT_LIMITS
from policytest.read.chart_values import scheduler_plugins_config
from policytest.read.nodes import MappingNode
from policytest.read.source import child, read_bytes, scalar, sequence_items
from tests.check.helpers import validate_json
from tests.conftest import DATA, RunLine

CHARTS = DATA / "realrepos" / "charts"


def _rows(run_line: RunLine, path: Path) -> list[tuple[str, str, int, int]]:
    found = validate_json(run_line, path)[1]
    return [(f["rule"], f["severity"], f["line"], f["column"]) for f in found]


def test_volcano_values_are_the_conf_the_chart_writes(run_line: RunLine) -> None:
    assert _rows(run_line, CHARTS / "volcano" / "values.yaml") == [
        ("VC004", "error", 20, 15),  # `binpak`, inside the block string
    ]


def test_the_values_image_tag_is_the_release_judged(run_line: RunLine) -> None:
    result = run_line(["validate", "--verbose", CHARTS / "volcano" / "values.yaml"])
    assert (
        "judged as Volcano 1.11 (`basic.image_tag_version: v1.11.0` of the chart's values, "
        "line 3): "
    ) in result.stderr  # before Chart.yaml's version 1.12.1: the image is what runs


def test_a_conf_of_the_charts_config_directory_is_the_charts_release(run_line: RunLine) -> None:
    """Volcano's chart keeps the conf ``basic.scheduler_config_file`` names in ``config/``:
    its Chart.yaml (1.12.1) says which release reads it, and 1.12 reads predicates'
    ``predicate.DynamicResourceAllocationEnable`` (1.15, the default, would not)."""
    conf = CHARTS / "volcano" / "config" / "volcano-scheduler.conf"
    assert [f["rule"] for f in validate_json(run_line, conf)[1]] == ["VB015"]
    flagged = validate_json(run_line, "--volcano-version", "1.15", conf)[1]
    assert [f["rule"] for f in flagged] == ["VC012", "VB015"]


def test_an_umbrella_charts_dependency_is_the_release(run_line: RunLine) -> None:
    [action, _rsf] = validate_json(run_line, CHARTS / "platform" / "values.yaml")[1]
    assert (action["rule"], action["severity"], action["line"]) == ("VC002", "warning", 5)
    assert "does not exist in Volcano 1.13 (added in Volcano 1.15)" in str(action["message"])


@pytest.mark.parametrize("override", ["~", "null", "", '""', "false"])
def test_no_override_is_nothing_to_check(run_line: RunLine, tmp_path: Path, override: str) -> None:
    """The chart's `{{- if }}` skips these and writes its default conf instead."""
    values = tmp_path / "values.yaml"
    values.write_text(f"custom:\n  scheduler_config_override: {override}\n", encoding="utf-8")
    result = run_line(["validate", values])
    assert result.exit_code == 0, result
    assert "0 files checked" in result.stdout


def test_scheduler_plugins_values_are_the_profile_the_chart_builds(run_line: RunLine) -> None:
    found = validate_json(run_line, CHARTS / "scheduler-plugins" / "values.yaml")[1]
    assert [(f["rule"], f["line"], f["column"]) for f in found] == [
        ("KS020", 13, 79),  # "TopologicalSrot", in the flow list
        ("KS003", 20, 5),  # podGroupBackoffSecond
    ]
    assert str(found[0]["message"]).endswith("did you mean `TopologicalSort`?")
    assert "in CoschedulingArgs (scheduler-plugins v0.34.7)" in str(found[1]["message"])


def test_the_built_config_is_the_charts_template_rendered() -> None:
    path = CHARTS / "scheduler-plugins" / "values.yaml"
    [document] = read_bytes(str(path), path.read_bytes(), DEFAULT_LIMITS).documents
    assert isinstance(document.root, MappingNode)
    built = scheduler_plugins_config(document.root)
    assert built is not None
    [profile] = sequence_items(child(built, "profiles"))
    multi_point = child(child(profile, "plugins"), "multiPoint")
    names = {
        key: [scalar(child(entry, "name")) for entry in sequence_items(child(multi_point, key))]
        for key in ("enabled", "disabled")
    }
    assert names == {
        "enabled": [
            "Coscheduling",  # title-cased, as `{{ title . }}` does
            "CapacityScheduling",
            "NodeResourcesAllocatable",
            "TopologicalSrot",
        ],
        "disabled": ["PrioritySort"],
    }
    assert scalar(child(profile, "schedulerName")) == "scheduler-plugins-scheduler"
    assert child(profile, "pluginConfig") is child(document.root, "pluginConfig")


def test_values_of_another_chart_are_not_a_config(run_line: RunLine, tmp_path: Path) -> None:
    values = tmp_path / "values.yaml"
    values.write_text(
        "scheduler:\n  image: registry.example.com/other/scheduler:1\nplugins:\n  enabled: [Foo]\n",
        encoding="utf-8",
    )
    assert "0 files checked" in run_line(["validate", values]).stdout
