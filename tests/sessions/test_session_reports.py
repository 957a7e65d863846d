"""Every report says per job what a Volcano session case did and why: ``run`` (a summary
under each case, the jobs of a failing one), ``explain``, ``simulate`` (text, JSON),
``diff`` (text, Markdown, JSON) and HTML; the bundled GPU fixtures tell the story of the
bin-packing documents, and the text stays short at cluster scale."""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RunLine

ROOT = Path(__file__).parents[2]
DEFAULT = "fixtures/volcano-gpu-gang-default.policytest.yaml"
PACKED = "fixtures/volcano-gpu-gang-binpack-gpu.policytest.yaml"
PACKED_CONF = "fixtures/configs/volcano-binpack-gpu-gangs.yaml"
STRANDED = (
    "20 nvidia.com/gpu free, no node with 8 free: job `default/llm` cannot start (it needs "
    "2 more pods of 8; the free pieces hold 0)"
)
LLM_REASON = (
    "2/3 tasks in gang unschedulable: pod group is not ready, 2 minAvailable, 3 Pending; "
    "Pending: 3 Unschedulable. Origin reason is llm-worker-0: 0/4 nodes are unavailable: "
    "4 Insufficient nvidia.com/gpu."
)


@pytest.fixture
def bundled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(ROOT / "fixtures", tmp_path / "fixtures")
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_bundled_story_passes_and_says_so(run_line: RunLine, bundled: Path) -> None:
    result = run_line(["run", DEFAULT, PACKED])
    assert result.exit_code == 0, result
    assert (
        "  PASS the small job takes the free nodes, the 8-GPU job stays pending\n"
        "      2 jobs (1 Running, 1 Inqueue); 2 of 5 pods bound in 2 sessions\n"
    ) in result.stdout
    assert (
        "  PASS the small job packs onto the used nodes, the 8-GPU job starts\n"
        "      2 jobs (2 Running); 4 of 5 pods bound in 2 sessions\n"
    ) in result.stdout


def test_explain_says_per_job_what_happened_and_why(run_line: RunLine, bundled: Path) -> None:
    explained = run_line(["explain", DEFAULT]).stdout
    assert (
        "  Volcano sessions: 2 jobs (1 Running, 1 Inqueue); 2 of 5 pods bound in 2 sessions\n"
        "  Jobs (after each session; the jobs that did not start first):\n"
        "    job            queue    phase               bound\n"
        f"    default/llm    default  Inqueue             0 of 3 (minMember 2): {LLM_REASON}\n"
        "    default/small  default  Inqueue -> Running  2 of 2 (minMember 2)\n"
        "  Session 1: 2 binds (default/small 2)\n"
        "  Session 2: 0 binds\n"
        "  Free but stranded (in pieces smaller than the pending pods need):\n"
        f"    {STRANDED}\n"
        "\n"
        "  placements: {gpu-00: 1, gpu-02: 1}\n"
    ) in explained
    assert "Scores for the" not in explained  # a session case has no single pod's ranking


def test_a_failing_case_lists_its_jobs_under_run(run_line: RunLine, bundled: Path) -> None:
    path = bundled / DEFAULT
    path.write_text(path.read_text().replace("llm: {bound: 0", "llm: {bound: 2"))
    result = run_line(["run", DEFAULT])
    assert result.exit_code == 1
    assert f"jobs: llm expected 2 bound, got 0 ({LLM_REASON})" in result.stdout
    assert "        default/llm    default  Inqueue             0 of 3" in result.stdout
    assert f"        {STRANDED}\n" in result.stdout


def test_allocations_a_gang_gave_back_are_named(run_line: RunLine, tmp_path: Path) -> None:
    """Two of the three 8-GPU pods fit, the gang needs all three: both are allocated in
    the session's statement, then discarded with it."""
    shutil.copytree(ROOT / "fixtures" / "configs", tmp_path / "configs")
    path = tmp_path / "gang.policytest.yaml"
    text = (ROOT / PACKED).read_text()
    text = text.replace("minAvailable: 2", "minAvailable: 3").replace("sessions: 2", "sessions: 1")
    text = text.replace("llm: {bound: 2, phase: Running}", "llm: {bound: 0}")
    text = text.replace("small: {bound: 2, phase: Running}", "small: {bound: 2}")
    path.write_text(text.split("    binds:")[0])
    (tmp_path / ".git").mkdir()
    result = run_line(["explain", path])
    assert result.exit_code == 0, result
    assert (
        "  Session 1: 2 binds (default/small 2)\n"
        "    allocated, then discarded with the gang (not ready):\n"
        "      default/llm: default/llm-worker-0 -> gpu-02, default/llm-worker-1 -> gpu-00\n"
    ) in result.stdout


def test_simulate_compares_the_confs_job_by_job(run_line: RunLine, bundled: Path) -> None:
    argv = ["simulate", DEFAULT, "--config", "fixture", "--config", PACKED_CONF]
    text = run_line(argv).stdout
    assert re.search(r"\n  jobs started +1 of 2 +2 of 2\n", text), text
    assert "  With fixture:\n    1 job did not start:\n" in text
    assert f"      {STRANDED}\n" in text
    assert "With fixtures/configs" not in text  # every job started, nothing stranded
    fixture, packed = json.loads(run_line([*argv, "--format", "json"]).stdout)["reports"]
    assert fixture["jobs"]["default/llm"] == {
        "phase": "Inqueue", "bound": 0, "minMember": 2, "reason": LLM_REASON
    }  # fmt: skip
    assert fixture["stranded"] == [
        {
            "name": "default/llm",
            "kind": "job",
            "resource": "nvidia.com/gpu",
            "perPod": 8,
            "needed": 2,
            "free": 20,
            "largest": 6,
            "roomy": 0,
            "fits": 0,
        }
    ]
    assert packed["jobs"]["default/llm"]["bound"] == 2 and packed["stranded"] == []


def test_simulate_refuses_a_kube_config_for_jobs(run_line: RunLine, bundled: Path) -> None:
    argv = ["simulate", DEFAULT, "--config", "fixtures/configs/kube-least-allocated.yaml"]
    result = run_line(argv)
    assert result.exit_code == 1
    assert "schedules Volcano jobs, and config `fixtures/configs/kube-least-allocated.yaml`" in (
        result.stderr
    )


def test_diff_says_what_moved_per_job(run_line: RunLine, bundled: Path) -> None:
    argv = ["diff", "fixtures/configs/volcano-default.yaml", PACKED_CONF, "--fixtures", "fixtures"]
    text = run_line(argv).stdout
    assert "jobs default/llm 0 -> 2 bound (Inqueue -> Running)" in text
    assert (
        "    job          before                 after                  why\n"
        "    default/llm  0 of 3 bound, Inqueue  2 of 3 bound, Running  before: 2/3 tasks"
    ) in text
    markdown = run_line([*argv, "--format", "markdown"]).stdout
    assert "| <code>default/llm</code> | 0 of 3 bound, Inqueue | 2 of 3 bound, Running |" in (
        markdown
    )
    fixtures = json.loads(run_line([*argv, "--format", "json"]).stdout)["fixtures"]
    (case,) = next(f for f in fixtures if f["path"] == DEFAULT)["cases"]
    assert case["jobs"] == [
        {
            "job": "default/llm",
            "bound": {"before": 0, "after": 2},
            "phase": {"before": "Inqueue", "after": "Running"},
            "reason": {"before": LLM_REASON, "after": ""},
        }
    ]


def test_html_shows_the_jobs(run_line: RunLine, bundled: Path) -> None:
    page = run_line(["explain", DEFAULT, "--format", "html"]).stdout
    assert '<tr class="waiting"><td><code>default/llm</code></td>' in page
    assert "<li>20 nvidia.com/gpu free, no node with 8 free: job `default/llm`" in page
    simulated = run_line(["simulate", DEFAULT, "--format", "html"]).stdout
    assert "<h3>Jobs that did not start, and capacity stranded</h3>" in simulated


def _many_jobs(count: int) -> dict[str, Any]:
    rng = random.Random(7)
    jobs = [
        {
            "name": f"job-{index:03d}",
            "minAvailable": rng.choice((1, 2, 4)),
            "tasks": [
                {
                    "name": "worker",
                    "replicas": 4,
                    "requests": {"cpu": "1", "nvidia.com/gpu": str(rng.choice((2, 4, 8)))},
                }
            ],
        }
        for index in range(count)
    ]
    nodes = [
        {
            "name": f"gpu-{index:03d}",
            "allocatable": {"cpu": "64", "memory": "256Gi", "nvidia.com/gpu": "8", "pods": "110"},
            "used": {"nvidia.com/gpu": str(index % 7)},
        }
        for index in range(60)
    ]
    return {
        "apiVersion": "policytest/v1",
        "kind": "PolicyTest",
        "scheduler": {
            "volcano": {
                "actions": "enqueue, allocate, backfill",
                "tiers": [
                    {"plugins": [{"name": "priority"}, {"name": "gang"}]},
                    {"plugins": [{"name": "predicates"}, {"name": "binpack"}]},
                ],
            }
        },
        "cluster": {"nodes": nodes},
        "cases": [{"name": "many", "jobs": jobs, "ties": "allow", "expect": {"pending": 0}}],
    }


def test_the_text_stays_short_at_cluster_scale(run_line: RunLine, tmp_path: Path) -> None:
    """300 jobs on 60 nodes: ten jobs listed, the rest counted; reasons and stranded
    capacity by kind; every line bounded."""
    (tmp_path / ".git").mkdir()
    path = tmp_path / "many.policytest.yaml"
    path.write_text(json.dumps(_many_jobs(300)))
    explained = run_line(["explain", path, "--limit", "node-scores=10000000"]).stdout
    lines = explained.splitlines()
    assert len(lines) < 60, explained
    assert any(line.startswith("    ... 290 more jobs: ") for line in lines), explained
    assert any(line.startswith("  Why the ") for line in lines), explained
    assert max(len(line) for line in lines) < 2_000
