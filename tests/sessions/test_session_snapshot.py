"""A snapshot of a cluster running Volcano jobs, carried through every command as a user
would take it: ``kubectl get ... -o json`` output (the real scheduler's input for the
oracle's edges-gpu8-min2 scenario: Nodes, PriorityClasses, a Queue, PodGroups, pods)
made into an anonymized compact file by ``snapshot --anonymize``, then ``run``,
``explain``, ``diff`` and ``simulate --snapshot`` on it. The PodGroups, the Queue and the
PriorityClasses survive the renaming: the outcome is the real scheduler's."""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RunLine

ROOT = Path(__file__).parents[2]
ORACLE = ROOT / "tests/data/oracle/volcano-session/volcano-session-1.15.1.jsonl.gz"
DEFAULT_CONF = ROOT / "fixtures/configs/volcano-default.yaml"


@pytest.fixture
def anonymized(tmp_path: Path, run_line: RunLine) -> tuple[Path, dict[str, Any]]:
    """The compact, anonymized snapshot of the scenario's cluster, and the record."""
    with gzip.open(ORACLE, "rt") as lines:
        record = next(r for r in map(json.loads, lines) if r["id"] == "edges-gpu8-min2-gpu_binpack")
    (tmp_path / "cluster.json").write_text(json.dumps(record["input"]["objects"]))
    (tmp_path / "gpu-binpack.conf").write_text(record["input"]["conf"])
    shutil.copy(DEFAULT_CONF, tmp_path / "default.yaml")
    (tmp_path / ".git").mkdir()
    done = run_line(
        ["snapshot", tmp_path / "cluster.json", "-o", tmp_path / "snap.json", "--anonymize"]
    )
    assert done.exit_code == 0, done
    assert "5 pending pods" in done.stderr
    return tmp_path / "snap.json", record


def _fixture(directory: Path, config: str) -> Path:
    path = directory / f"{config.split('.')[0]}.policytest.yaml"
    path.write_text(
        "apiVersion: policytest/v1\nkind: PolicyTest\n"
        f"scheduler: {{config: {config}}}\ncluster: {{snapshot: snap.json}}\n"
        "cases:\n- name: pending\n  pods: {fromSnapshot: pending}\n  sessions: 2\n"
        "  expect: {pending: 1}\n"
    )
    return path


def test_the_compact_file_keeps_the_objects_and_hides_the_names(
    anonymized: tuple[Path, dict[str, Any]],
) -> None:
    snapshot, _ = anonymized
    compact = json.loads(snapshot.read_text())
    assert len(compact["priorityClasses"]) == 2
    assert len(compact["queues"]) == 1
    assert len(compact["podGroups"]) == 2
    for name in ("llm", "small", "high", "gpu-0"):
        assert re.search(rf'"{name}\b', snapshot.read_text()) is None, name


def test_run_matches_the_real_scheduler_after_renaming(
    anonymized: tuple[Path, dict[str, Any]], run_line: RunLine
) -> None:
    snapshot, record = anonymized
    done = run_line(["run", "--format", "json", _fixture(snapshot.parent, "gpu-binpack.conf")])
    result = json.loads(done.stdout)["results"][0]
    assert result["status"] == "passed", result["message"]
    groups = sorted((g["bound"], g["phase"]) for g in result["podGroups"].values())
    assert (
        groups
        == [(2, "Running"), (2, "Running")]
        == sorted(
            (
                sum(1 for pod, node in record["result"]["final"].items() if node and job in pod),
                phase,
            )
            for job, phase in record["result"]["finalPodGroups"].items()
        )
    )
    assert len(result["binds"]) == 4


def test_explain_diff_and_simulate_say_which_job_waits(
    anonymized: tuple[Path, dict[str, Any]], run_line: RunLine
) -> None:
    """Under the Helm chart's default conf the 8-GPU job (minMember 2 of 3) stays out;
    the GPU-weighted binpack starts it: explain, diff and simulate say so, by job."""
    snapshot, _ = anonymized
    directory = snapshot.parent
    default = _fixture(directory, "default.yaml")
    explained = run_line(["explain", default]).stdout
    assert re.search(r"\n    \S+/\S+ +\S+ +Inqueue +0 of 3 \(minMember 2\): 2/3 tasks", explained)
    assert "job `" in explained and "cannot start" in explained  # stranded GPUs
    diffed = run_line(
        ["diff", directory / "default.yaml", directory / "gpu-binpack.conf", "--fixtures", default]
    ).stdout
    assert re.search(r"jobs \S+/\S+ 0 -> 2 bound \(Inqueue -> Running\)", diffed), diffed
    simulated = run_line(
        [
            "simulate",
            "--snapshot",
            snapshot,
            "--config",
            directory / "default.yaml",
            "--config",
            directory / "gpu-binpack.conf",
        ]
    ).stdout
    assert re.search(r"\n  jobs started +1 of 2 +2 of 2\n", simulated), simulated
