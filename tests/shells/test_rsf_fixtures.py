"""resource-strategy-fit through the real entry point: the bundled GPU fixtures (run,
explain, simulate comparing it with the equivalent binpack config, diff), pod annotations
in the short and full pod forms, and a config that stops the scheduler."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.conftest import RunLine

ROOT = Path(__file__).parent.parent.parent
RSF_FIXTURE = ROOT / "fixtures" / "volcano-gpu-rsf-most-allocated.policytest.yaml"
BINPACK_FIXTURE = ROOT / "fixtures" / "volcano-gpu-binpack-gpu-only.policytest.yaml"
BINPACK_CONFIG = ROOT / "fixtures" / "configs" / "volcano-binpack-gpu-only.yaml"
RSF_CONFIG = ROOT / "fixtures" / "configs" / "volcano-rsf-gpu-most-allocated.yaml"
ANNOTATED = "a pod annotated LeastAllocated spreads instead"


def test_bundled_fixtures_pass(run_line: RunLine) -> None:
    result = run_line(["run", RSF_FIXTURE, BINPACK_FIXTURE, "--format", "json"])
    assert result.exit_code == 0, result.stdout
    report = json.loads(result.stdout)
    assert report["summary"] == {"passed": 5, "failed": 0, "errors": 0, "updated": 0}
    first = {
        r["file"].rsplit("/", 1)[-1]: r for r in report["results"] if "one-GPU job" in r["case"]
    }
    rsf_nodes = {n["name"]: n for n in first[RSF_FIXTURE.name]["nodes"]}
    binpack_nodes = {n["name"]: n for n in first[BINPACK_FIXTURE.name]["nodes"]}
    for name, node in rsf_nodes.items():  # the two configs are equivalent, score for score
        assert node["plugins"]["resource-strategy-fit"] == binpack_nodes[name]["plugins"]["binpack"]
        assert node["total"] == binpack_nodes[name]["total"]


def test_explain_shows_each_resource_and_the_strategy(run_line: RunLine) -> None:
    result = run_line(
        ["explain", RSF_FIXTURE, "--case", "a one-GPU job goes to the busiest GPU node"]
    )
    assert result.exit_code == 0, result.stdout
    assert "gpu-1 / resource-strategy-fit:" in result.stdout
    assert "7 / 8   87.5%  weight 1   -> 0.875  (MostAllocated, from `nvidia.com/gpu`)" in (
        result.stdout
    )
    assert "gpu-1 / resource-strategy-fit: strategy 875" in result.stdout


def test_explain_names_the_annotation(run_line: RunLine) -> None:
    result = run_line(["explain", RSF_FIXTURE, "--case", ANNOTATED])
    assert "(LeastAllocated, pod annotation)" in result.stdout


def test_simulate_compares_it_with_the_equivalent_binpack_config(run_line: RunLine) -> None:
    result = run_line(
        [
            "simulate",
            RSF_FIXTURE,
            "--config",
            "fixture",
            "--config",
            BINPACK_CONFIG,
            "--format",
            "json",
        ]
    )
    assert result.exit_code == 0, result.stderr
    reports = json.loads(result.stdout)["reports"]
    by_case: dict[str, list[dict[str, object]]] = {}
    for report in reports:
        by_case.setdefault(str(report["case"]), []).append(report)
    assert len(by_case) == 3
    for case, (rsf, binpack) in by_case.items():
        assert rsf["label"] == "fixture"
        same = {k: v for k, v in rsf.items() if k != "label"} == {
            k: v for k, v in binpack.items() if k != "label"
        }
        # binpack has no per-pod override: only the annotated pod differs (it spreads)
        assert same is (case != ANNOTATED), case
    annotated_rsf, annotated_binpack = by_case[ANNOTATED]
    assert (annotated_rsf["nodesInUse"], annotated_binpack["nodesInUse"]) == (4, 3)


def test_diff_shows_the_settings_volcano_holds(run_line: RunLine) -> None:
    result = run_line(["diff", BINPACK_CONFIG, RSF_CONFIG, "--fixtures", ROOT / "fixtures"])
    assert "resources.nvidia.com/gpu          (absent) -> MostAllocated, weight 1" in result.stdout
    assert "new winner gpu-3 (was gpu-1)" in result.stdout


CONF = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: predicates
  - name: resource-strategy-fit
    arguments:
      resources:
        nvidia.com/gpu: {type: MostAllocated, weight: 1}
"""

FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {name: annotations}
scheduler: {config: volcano-scheduler.conf}
cluster:
  nodes:
  - name: busy
    allocatable: {cpu: "8", memory: 32Gi, nvidia.com/gpu: "4", pods: "110"}
    used: {nvidia.com/gpu: "3"}
  - name: empty
    allocatable: {cpu: "8", memory: 32Gi, nvidia.com/gpu: "4", pods: "110"}
cases:
- name: case
  pod: POD
  expect: {unschedulable: []}
"""
SPREAD = {
    "volcano.sh/resource-strategy-scoring-type": "LeastAllocated",
    "volcano.sh/resource-strategy-weight": '{"nvidia.com/gpu": 1}',
}
SHORT = {"requests": {"nvidia.com/gpu": "1"}}
FULL = {"containers": [{"name": "main", "resources": {"requests": {"nvidia.com/gpu": "1"}}}]}


def scores(run_line: RunLine, tmp_path: Path, pod: object, conf: str = CONF) -> dict[str, float]:
    (tmp_path / "volcano-scheduler.conf").write_text(conf)
    fixture = tmp_path / "a.policytest.yaml"
    fixture.write_text(FIXTURE.replace("POD", json.dumps(pod)))
    result = run_line(["run", fixture, "--format", "json"])
    (case,) = json.loads(result.stdout)["results"]
    assert case["status"] == "passed", case
    return {n["name"]: n["plugins"]["resource-strategy-fit"] for n in case["nodes"]}


@pytest.mark.parametrize(
    "pod",
    [
        {**SHORT, "annotations": SPREAD},
        {"metadata": {"annotations": SPREAD}, "spec": FULL},
        {**FULL, "annotations": SPREAD},
    ],
    ids=["short", "v1.Pod", "podspec"],
)
def test_annotations_override_the_strategy_in_every_pod_form(
    run_line: RunLine, tmp_path: Path, pod: object
) -> None:
    assert scores(run_line, tmp_path, SHORT) == {"busy": 1000.0, "empty": 250.0}
    assert scores(run_line, tmp_path, pod) == {"busy": 0.0, "empty": 750.0}


def test_a_scoring_type_without_weights_scores_zero(run_line: RunLine, tmp_path: Path) -> None:
    pod = {**SHORT, "annotations": {"volcano.sh/resource-strategy-scoring-type": "MostAllocated"}}
    assert scores(run_line, tmp_path, pod) == {"busy": 0.0, "empty": 0.0}


def test_an_annotation_must_be_a_string(run_line: RunLine, tmp_path: Path) -> None:
    (tmp_path / "volcano-scheduler.conf").write_text(CONF)
    fixture = tmp_path / "a.policytest.yaml"
    pod = {**SHORT, "annotations": {"volcano.sh/resource-strategy-weight": {"nvidia.com/gpu": 1}}}
    fixture.write_text(FIXTURE.replace("POD", json.dumps(pod)))
    result = run_line(["validate", fixture])
    assert result.exit_code == 1
    assert "annotations" in result.stdout


def test_a_config_that_stops_the_scheduler_errors_every_case(
    run_line: RunLine, tmp_path: Path
) -> None:
    conf = CONF + '      resourceStrategyFitWeight: "10"\n'
    (tmp_path / "volcano-scheduler.conf").write_text(conf)
    fixture = tmp_path / "a.policytest.yaml"
    fixture.write_text(FIXTURE.replace("POD", json.dumps(SHORT)))
    result = run_line(["run", fixture, "--format", "json"])
    assert result.exit_code == 1
    (case,) = json.loads(result.stdout)["results"]
    assert case["status"] == "error"
    validate = run_line(["validate", tmp_path / "volcano-scheduler.conf"])
    assert "VR001 error" in validate.stdout and "crash-loops" in validate.stdout


def test_volcano_before_1_15_counts_overhead_before_the_init_container_max(
    run_line: RunLine, tmp_path: Path
) -> None:
    conf = CONF.replace(
        "nvidia.com/gpu: {type: MostAllocated, weight: 1}", "cpu: {type: MostAllocated, weight: 1}"
    )
    pod = {
        "containers": [{"name": "a", "resources": {"requests": {"cpu": "500m"}}}],
        "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "3"}}}],
        "overhead": {"cpu": "250m"},
    }
    (tmp_path / "volcano-scheduler.conf").write_text(conf)
    fixture = tmp_path / "a.policytest.yaml"
    fixture.write_text(FIXTURE.replace("POD", json.dumps(pod)))
    totals = {}
    for version in ("1.14", "1.15"):
        result = run_line(["run", fixture, "--format", "json", "--volcano-version", version])
        (case,) = json.loads(result.stdout)["results"]
        totals[version] = {n["name"]: n["plugins"]["resource-strategy-fit"] for n in case["nodes"]}
    assert totals["1.14"]["empty"] == 3000 / 8000 * 1000
    assert totals["1.15"]["empty"] == 3250 / 8000 * 1000


def test_the_docs_show_the_comparison() -> None:
    readme = (ROOT / "docs" / "fixtures.md").read_text()
    command = textwrap.dedent(
        f"policytest simulate fixtures/{RSF_FIXTURE.name} --config fixture --config "
        f"fixtures/configs/{BINPACK_CONFIG.name}"
    )
    assert command in readme


def test_device_scoring_is_listed_as_not_modelled(run_line: RunLine, tmp_path: Path) -> None:
    conf = CONF.replace(
        "  - name: resource-strategy-fit\n",
        "  - name: deviceshare\n    arguments:\n      deviceshare.VGPUEnable: true\n"
        "      deviceshare.SchedulePolicy: binpack\n      deviceshare.ScheduleWeight: 10\n"
        "  - name: resource-strategy-fit\n",
    )
    (tmp_path / "volcano-scheduler.conf").write_text(conf)
    fixture = tmp_path / "a.policytest.yaml"
    fixture.write_text(FIXTURE.replace("POD", json.dumps(SHORT)))
    result = run_line(["explain", fixture])
    assert result.stdout.rstrip().endswith(
        "Not scored (score plugins of this config that policytest does not compute; each "
        "gives every node the same score unless the cluster has what it reads):\n"
        "    deviceshare: shared GPU devices (vGPU) on the nodes"
    )


def test_diff_says_a_fatal_config_crash_loops(run_line: RunLine, tmp_path: Path) -> None:
    (tmp_path / "old.conf").write_text(CONF)
    (tmp_path / "new.conf").write_text(CONF + '      resourceStrategyFitWeight: "10"\n')
    (tmp_path / "fixtures").mkdir()
    result = run_line(
        ["diff", tmp_path / "old.conf", tmp_path / "new.conf", "--fixtures", tmp_path / "fixtures"]
    )
    assert result.exit_code == 1  # an error finding introduced
    assert "make the scheduler exit at its first scheduling cycle (crash-loop; line 9)" in (
        result.stdout
    )
