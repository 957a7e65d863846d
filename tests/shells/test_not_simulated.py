"""What a config makes the scheduler do that policytest does not simulate is named in
every report, never left out in silence: Volcano's actions that evict (preempt, reclaim,
gangpreempt, gangreclaim, shuffle) and kube-scheduler's gang and workload plugins."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from tests.conftest import RunLine

EVICTING_CONF = """\
actions: "enqueue, allocate, preempt, reclaim, backfill, shuffle"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: binpack
"""

GANG_CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      enabled: [{name: GangScheduling}]
"""

FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {name: evicting}
scheduler: {config: CONFIG, RELEASE}
cluster:
  nodes:
  - {name: a, allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
cases:
- name: two pods
  pods: [{requests: {cpu: "3"}, count: 2}]
  expect: {pending: 1}
"""

EVICTING = ["preempt", "reclaim", "shuffle"]
HEADING = "Not simulated (the scheduler does this on a real cluster; the result shows it without):"


def _fixture(tmp_path: Path, name: str, config: str, release: str) -> Path:
    (tmp_path / name).write_text(config)
    fixture = tmp_path / "a.policytest.yaml"
    fixture.write_text(FIXTURE.replace("CONFIG", name).replace("RELEASE", release))
    return fixture


@pytest.fixture
def volcano(tmp_path: Path) -> Path:
    return _fixture(tmp_path, "volcano.conf", EVICTING_CONF, 'volcanoVersion: "1.15"')


@pytest.fixture
def gang(tmp_path: Path) -> Path:
    return _fixture(tmp_path, "kube.yaml", GANG_CONFIG, 'kubernetesVersion: "1.35"')


def test_run_names_the_evicting_actions(run_line: RunLine, volcano: Path) -> None:
    result = run_line(["run", volcano])
    assert result.exit_code == 0, result
    lines = result.stdout.splitlines()
    start = lines.index(f"  {HEADING}")
    assert [line.split(" (")[0].strip() for line in lines[start + 1 : start + 4]] == EVICTING
    assert lines[start + 1] == (
        "    preempt (action): evicts running tasks of lower-priority jobs (or of the same "
        "job) in the job's queue to make room for a pending job"
    )
    assert lines[-1].endswith("; not simulated: preempt, reclaim, shuffle")


def test_run_names_them_once_however_many_files(
    run_line: RunLine, volcano: Path, tmp_path: Path
) -> None:
    (tmp_path / "b.policytest.yaml").write_text(volcano.read_text())
    output = run_line(["run", tmp_path]).stdout
    assert output.count(HEADING) == 1
    assert "  not simulated: preempt, reclaim, shuffle (described above)\n" in output


def test_machine_formats_name_them(run_line: RunLine, volcano: Path) -> None:
    (case,) = json.loads(run_line(["run", "--format", "json", volcano]).stdout)["results"]
    assert [item["name"] for item in case["notSimulated"]] == EVICTING
    assert {item["kind"] for item in case["notSimulated"]} == {"action"}
    junit = ElementTree.fromstring(run_line(["run", "--format", "junit", volcano]).stdout)
    (prop,) = [p for p in junit.iter("property") if p.get("name") == "notSimulated"]
    assert prop.get("value") == "preempt, reclaim, shuffle"
    github = run_line(["run", "--format", "github", volcano]).stdout
    assert "::notice title=not simulated%3A reclaim::reclaim (action): evicts" in github


def test_explain_and_simulate_name_them(run_line: RunLine, volcano: Path) -> None:
    explained = run_line(["explain", volcano]).stdout
    assert f"  {HEADING}\n    preempt (action): " in explained
    simulated = run_line(["simulate", volcano]).stdout
    assert re.search(r"\n  not simulated +preempt, reclaim, shuffle\n", simulated), simulated
    assert f"  {HEADING}\n    preempt (action): " in simulated
    (report,) = json.loads(run_line(["simulate", volcano, "--format", "json"]).stdout)["reports"]
    assert [item["name"] for item in report["notSimulated"]] == EVICTING


def test_kube_schedulers_gang_scheduling_is_named(run_line: RunLine, gang: Path) -> None:
    result = run_line(["run", gang])
    assert result.exit_code == 0, result
    assert (
        "    GangScheduling (plugin at preEnqueue and permit; alpha, feature gate "
        "GangScheduling): kube-scheduler's gang scheduling: a pod of a PodGroup waits until "
        "the group's minCount pods exist, and the group is placed all or nothing\n"
    ) in result.stdout
    (case,) = json.loads(run_line(["run", "--format", "json", gang]).stdout)["results"]
    assert [item["name"] for item in case["notSimulated"]] == ["GangScheduling"]


def test_kube_1_36_workload_plugins_are_named(run_line: RunLine, tmp_path: Path) -> None:
    config = GANG_CONFIG.replace(
        "[{name: GangScheduling}]",
        "[{name: GangScheduling}, {name: TopologyPlacementGenerator}, {name: PodGroupPodsCount}]",
    )
    fixture = _fixture(tmp_path, "kube.yaml", config, 'kubernetesVersion: "1.36"')
    (case,) = json.loads(run_line(["run", "--format", "json", fixture]).stdout)["results"]
    assert case["status"] == "passed", case
    assert [item["name"] for item in case["notSimulated"]] == [
        "GangScheduling",
        "TopologyPlacementGenerator",
        "PodGroupPodsCount",
    ]


def test_the_default_profile_and_conf_have_nothing_to_name(
    run_line: RunLine, tmp_path: Path
) -> None:
    config = GANG_CONFIG.split("  plugins:")[0]
    fixture = _fixture(tmp_path, "kube.yaml", config, 'kubernetesVersion: "1.36"')
    result = run_line(["run", fixture])
    assert "ot simulated" not in result.stdout
    (case,) = json.loads(run_line(["run", "--format", "json", fixture]).stdout)["results"]
    assert case["notSimulated"] == []


def test_diff_says_a_change_brings_an_evicting_action(run_line: RunLine, tmp_path: Path) -> None:
    before = EVICTING_CONF.replace(", preempt, reclaim", "").replace(", shuffle", "")
    (tmp_path / "old.conf").write_text(before)
    (tmp_path / "new.conf").write_text(EVICTING_CONF.replace(", shuffle", ""))
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "fixtures" / "a.policytest.yaml").write_text(
        FIXTURE.replace("CONFIG", "../new.conf").replace("RELEASE", 'volcanoVersion: "1.15"')
    )
    argv = [
        "diff",
        tmp_path / "old.conf",
        tmp_path / "new.conf",
        "--fixtures",
        tmp_path / "fixtures",
    ]
    text = run_line(argv).stdout
    assert (
        "Not simulated (the scheduler does this on a real cluster; the results show it without):\n"
        "  preempt (action): evicts running tasks of lower-priority jobs (or of the same job) in "
        "the job's queue to make room for a pending job (added by this change)\n"
    ) in text
    data = json.loads(run_line([*argv, "--format", "json"]).stdout)
    assert [(item["name"], item["side"]) for item in data["notSimulated"]] == [
        ("preempt", "after"),
        ("reclaim", "after"),
    ]
    markdown = run_line([*argv, "--format", "markdown"]).stdout
    assert "\n- **preempt** (action): evicts running tasks" in markdown


def test_html_reports_name_them(run_line: RunLine, volcano: Path) -> None:
    for command in (["run"], ["explain"], ["simulate"]):
        page = run_line([*command, volcano, "--format", "html"]).stdout
        assert "<h3>Not simulated</h3>" in page, command
        assert "<strong>preempt</strong>" in page, command
