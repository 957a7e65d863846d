"""``policytest simulate`` through the real entry point: metrics, comparison, errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from policytest.cli import main

MOST = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: pack
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
"""
LEAST = MOST.replace("MostAllocated", "LeastAllocated")

FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {name: gpu-workload}
scheduler:
  config: most.yaml
cluster:
  nodes:
  - name: gpu-node
    allocatable: {cpu: "4", memory: 16Gi, pods: "110", nvidia.com/gpu: "4"}
  - name: cpu-node-a
    allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
  - name: cpu-node-b
    allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
cases:
- name: cpu pods then a gpu pod
  ties: allow
  pods:
  - {requests: {cpu: "1", memory: 1Gi}, count: 4}
  - {requests: {cpu: "1", memory: 1Gi, nvidia.com/gpu: "1"}}
  - {requests: {cpu: "8"}}
  expect: {}
"""


@pytest.fixture
def workload(tmp_path: Path) -> Path:
    (tmp_path / "most.yaml").write_text(MOST)
    (tmp_path / "least.yaml").write_text(LEAST)
    fixture = tmp_path / "gpu.policytest.yaml"
    fixture.write_text(FIXTURE)
    return fixture


def simulate_json(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    assert main(["simulate", *args, "--format", "json"]) == 0
    reports: list[dict[str, Any]] = json.loads(capsys.readouterr().out)["reports"]
    return reports


def test_packing_metrics(workload: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (report,) = simulate_json(capsys, str(workload))
    assert report["label"] == "fixture"
    # MostAllocated stacks the four cpu pods on the first node (all tie while empty): the
    # GPU node. Its CPU is then full, so the GPU pod cannot run anywhere, and 8 cores fit
    # on no node: two pending, and four GPUs stranded.
    assert (report["pods"], report["pending"]) == (6, 2)
    resources = {r["name"]: r for r in report["resources"]}
    assert report["nodes_used"] == 1
    assert report["full_nodes"] == 1
    assert resources["cpu"]["max_utilisation"] == 1.0
    assert resources["nvidia.com/gpu"]["stranded"] == 4.0  # GPUs left on a CPU-full node


def test_two_configs_compared_on_one_workload(
    workload: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    most, least = simulate_json(
        capsys,
        str(workload),
        "--config",
        "fixture",
        "--config",
        str(workload.parent / "least.yaml"),
    )
    assert (most["label"], least["label"]) == ("fixture", str(workload.parent / "least.yaml"))
    assert most["nodes_used"] < least["nodes_used"]
    assert least["full_nodes"] == 0 and least["pending"] == 1


def test_text_table_has_a_column_per_config(
    workload: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    least = str(workload.parent / "least.yaml")
    assert main(["simulate", str(workload), "--config", "fixture", "--config", least]) == 0
    captured = capsys.readouterr()
    assert "case `cpu pods then a gpu pod` (6 pods, 3 nodes)" in captured.out
    assert "nvidia.com/gpu stranded on full nodes" in captured.out
    header = next(line for line in captured.out.splitlines() if line.strip().startswith("config"))
    assert "fixture" in header and least in header
    assert captured.err == ""  # no progress bar when stderr is not a terminal


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        pytest.param(["missing.yaml"], 2, "not a file", id="missing-fixture"),
        pytest.param(["{fixture}", "--config", "nope.yaml"], 2, "not a file", id="missing-config"),
        pytest.param(["{fixture}", "--case", "nope"], 1, "no case named", id="unknown-case"),
        pytest.param(["{fixture}", "--config", "{fixture}"], 1, "no Volcano", id="not-a-config"),
    ],
)
def test_errors(
    workload: Path, capsys: pytest.CaptureFixture[str], args: list[str], code: int, message: str
) -> None:
    assert main(["simulate", *(a.format(fixture=workload) for a in args)]) == code
    assert message in capsys.readouterr().err


def test_a_feature_the_scorers_do_not_simulate_is_refused(
    workload: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As in run and validate (PT003): the packing would not be the scheduler's."""
    workload.write_text(
        FIXTURE.replace(
            'nvidia.com/gpu: "1"}}', 'nvidia.com/gpu: "1"}, topologySpreadConstraints: [{a: b}]}'
        )
    )
    assert main(["simulate", str(workload)]) == 1
    assert "PT003 pod `topologySpreadConstraints`" in capsys.readouterr().err
