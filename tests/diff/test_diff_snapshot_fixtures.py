"""`policytest diff` in a git repository runs the fixtures whose cluster is a snapshot: a
changed config they use, or a changed snapshot, re-runs them (the snapshot was not copied
out of the revision, so such a fixture named no config and was never run)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import RunLine

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
SNAPSHOT_FIXTURE = "fixtures/snapshot-volcano-binpack.policytest.yaml"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Path]:
    shutil.copytree(FIXTURES, tmp_path / "fixtures")
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-q", "-m", "fixtures")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(cwd)


def _runs(run_line: RunLine) -> dict[str, str]:
    result = run_line(["diff", "--format", "json", "--fail-on", "never"])
    assert result.exit_code == 0, result
    return {f["path"]: f["reason"] for f in json.loads(result.stdout)["fixtures"]}


def test_a_changed_config_reruns_the_snapshot_fixture_that_uses_it(
    run_line: RunLine, repo: Path
) -> None:
    config = repo / "fixtures/configs/volcano-nodeorder-binpack-weight-10.yaml"
    config.write_text(config.read_text().replace("binpack.weight: 10", "binpack.weight: 2"))
    runs = _runs(run_line)
    assert runs[SNAPSHOT_FIXTURE].startswith("its config changed")
    assert "fixtures/volcano-gpu-sequence-binpack-weight-10.policytest.yaml" in runs


def test_a_changed_snapshot_reruns_its_fixtures(run_line: RunLine, repo: Path) -> None:
    snapshot = repo / "fixtures/snapshots/cluster.json"
    snapshot.write_text(snapshot.read_text().replace('"3900m"', '"1900m"'))
    runs = _runs(run_line)
    assert runs[SNAPSHOT_FIXTURE] == "its snapshot changed: fixtures/snapshots/cluster.json"
    assert "fixtures/snapshot-kube-most-allocated.policytest.yaml" in runs
