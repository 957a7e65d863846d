"""Reports keep the reason (issue 28): a refused side says why, the settings table shows
what changed and only that, and ``explain`` says when binpack is off."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import RunLine, user_repository

KUBE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
"""
VOLCANO = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: predicates
  - name: nodeorder
  - name: binpack
    arguments:
      binpack.weight: 0
      binpack.cpu: 2
"""
FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {name: two-nodes}
scheduler: {config: ../old.yaml}
cluster:
  nodes:
  - {name: a, allocatable: {cpu: "8", memory: 8Gi, pods: "110"}, used: {cpu: "4"}}
  - {name: b, allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
cases:
- name: one pod
  pod: {requests: {cpu: "1"}}
  expect: {top: a}
"""


@pytest.fixture
def two_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return user_repository(tmp_path, monkeypatch, {"fixtures/f.policytest.yaml": FIXTURE})


def test_a_refused_side_says_why_and_lists_no_absent_settings(
    run_line: RunLine, two_files: Path
) -> None:
    (two_files / "old.yaml").write_text(KUBE)
    (two_files / "new.yaml").write_text(KUBE.replace("type: MostAllocated", "typo: MostAllocated"))
    result = run_line(["diff", "old.yaml", "new.yaml", "--fixtures", "fixtures/"])
    assert (
        "    after: error: kube-scheduler refuses this config and does not start: "
        "new.yaml:8:7: KS010 scoringStrategy.type is missing" in result.stdout
    ), result.stdout
    assert "(and 1 more)" in result.stdout
    assert "(absent)" not in result.stdout
    assert "  status  starts -> refuses to start" in result.stdout


def test_binpack_switched_on_shows_the_weight_it_had(run_line: RunLine, two_files: Path) -> None:
    (two_files / "old.yaml").write_text(VOLCANO)
    (two_files / "new.yaml").write_text(VOLCANO.replace("binpack.weight: 0", "binpack.weight: 10"))
    result = run_line(["diff", "old.yaml", "new.yaml", "--fixtures", "fixtures/"])
    assert "  binpack.weight  0 -> 10\n" in result.stdout, result.stdout
    assert "(absent)" not in result.stdout  # binpack.cpu 2 did not change: not listed
    assert "binpack.cpu" not in result.stdout


def test_explain_says_binpack_is_off(run_line: RunLine, two_files: Path) -> None:
    (two_files / "old.yaml").write_text(VOLCANO)
    result = run_line(["explain", "fixtures/f.policytest.yaml"])
    assert (
        "binpack.weight: written 0, so Volcano does not register binpack's score: "
        "binpack is off and scores nothing" in result.stdout
    ), result.stdout


def test_the_summary_says_what_is_still_wrong_in_the_head(
    run_line: RunLine, two_files: Path
) -> None:
    """A change that fixes nothing: the head's error finding and the case that fails on
    both sides are in the one-sentence summary (text and Markdown)."""
    broken = KUBE.replace("type: MostAllocated", "type: MostAllocatd")
    (two_files / "old.yaml").write_text(broken)
    (two_files / "new.yaml").write_text(broken.replace("weight: 1}]", "weight: 2}]"))
    for form in ("text", "markdown"):
        result = run_line(
            ["diff", "old.yaml", "new.yaml", "--fixtures", "fixtures/", "--format", form]
        )
        assert "1 error finding still in the head" in result.stdout, result.stdout
        assert "1 case failing on both sides" in result.stdout, result.stdout
