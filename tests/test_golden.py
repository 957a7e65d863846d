"""Golden updates keep comments and formatting, and are atomic."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

from policytest.engine import NodeScore
from policytest.golden import rewrite_file
from policytest.runner import CaseResult

FIXTURE = """\
# What this fixture shows (this comment must survive).
apiVersion: policytest/v1
kind: PolicyTest
scheduler:
  config: c.yaml   # the config
cluster:
  nodes:
  - {name: a, allocatable: {cpu: "4"}}
  - {name: b, allocatable: {cpu: "4"}}
cases:
- name: one
  pod: {requests: {cpu: "1"}}
  expect:
    ranking: [b, a]          # best first
    scores: {a: 1, b: 2}
- name: untouched
  pod: {requests: {cpu: "1"}}
  expect:
    ranking:
    - a
    - b
"""

RESULT = CaseResult(
    "f.yaml",
    "one",
    "failed",
    nodes=(NodeScore("a", True, total=75.5), NodeScore("b", True, total=40)),
    ranking=(("a",), ("b",)),
)


def test_only_the_failing_expectations_change(tmp_path: Path) -> None:
    path = tmp_path / "f.policytest.yaml"
    path.write_text(FIXTURE)
    assert rewrite_file(str(path), {"one": RESULT})
    after = path.read_text()
    expected = FIXTURE.replace(
        "ranking: [b, a]          # best first", "ranking: [a, b]          # best first"
    )
    expected = expected.replace("scores: {a: 1, b: 2}", "scores: {a: 75.5, b: 40}")
    assert after == expected


def test_crlf_and_permissions_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "f.policytest.yaml"
    path.write_bytes(FIXTURE.replace("\n", "\r\n").encode())
    path.chmod(0o640)
    rewrite_file(str(path), {"one": RESULT})
    data = path.read_bytes()
    assert b"ranking: [a, b]" in data
    assert data.count(b"\r\n") == FIXTURE.count("\n") and b"\n" not in data.replace(b"\r\n", b"")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_nothing_to_change_leaves_the_file_alone(tmp_path: Path) -> None:
    path = tmp_path / "f.policytest.yaml"
    path.write_text(FIXTURE)
    before = path.stat().st_mtime_ns
    passing = CaseResult("f.yaml", "one", "failed", nodes=RESULT.nodes, ranking=(("b",), ("a",)))
    unchanged = FIXTURE.replace("scores: {a: 1, b: 2}", "scores: {a: 75.5, b: 40}")
    path.write_text(unchanged)
    before = path.stat().st_mtime_ns
    assert not rewrite_file(str(path), {"one": passing})
    assert path.stat().st_mtime_ns == before


def test_scores_are_rewritten_by_the_runners_tolerance(tmp_path: Path) -> None:
    """``tolerance: 0`` means exact, as in the runner (it was read as the 1e-9 default,
    so a case off by less than that stayed failing after the update)."""
    path = tmp_path / "f.policytest.yaml"
    nearly = CaseResult(
        "f.yaml", "one", "failed", nodes=(NodeScore("a", True, total=75.5 + 1e-12),)
    )
    path.write_text(FIXTURE.replace("scores: {a: 1, b: 2}", "scores: {a: 75.5}\n    tolerance: 0"))
    assert rewrite_file(str(path), {"one": nearly})
    assert f"scores: {{a: {75.5 + 1e-12!r}}}" in path.read_text()
    path.write_text(FIXTURE.replace("scores: {a: 1, b: 2}", "scores: {a: 75.5}"))
    rewrite_file(str(path), {"one": nearly})
    assert "scores: {a: 75.5}" in path.read_text()  # within the default 1e-9: kept


def test_killed_mid_update_leaves_the_old_or_the_new_text(tmp_path: Path) -> None:
    path = tmp_path / "f.policytest.yaml"
    path.write_text(FIXTURE)
    script = textwrap.dedent(f"""
        import os
        from policytest import golden
        from policytest.engine import NodeScore
        from policytest.runner import CaseResult
        golden.BEFORE_RENAME.append(lambda temporary: os._exit(9))
        result = CaseResult("f", "one", "failed",
                            nodes=(NodeScore("a", True, total=3), NodeScore("b", True, total=1)),
                            ranking=(("a",), ("b",)))
        golden.rewrite_file({str(path)!r}, {{"one": result}})
    """)
    done = subprocess.run([sys.executable, "-c", script], check=False)
    assert done.returncode == 9
    assert path.read_text() == FIXTURE  # killed before the rename: the old text, whole
    leftovers = [name for name in os.listdir(tmp_path) if name != path.name]
    assert all(name.startswith(".policytest-") for name in leftovers)


def _repo_with_failing_fixture(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose ``fixtures/f.policytest.yaml`` is a symlink to ``real/``; the
    fixture's expected ranking is wrong."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "configs").mkdir()
    (repo / "configs" / "c.yaml").write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    )
    (repo / "real").mkdir()
    (repo / "fixtures").mkdir()
    target = repo / "real" / "f.policytest.yaml"
    target.write_text(
        FIXTURE.replace("config: c.yaml", "config: ../configs/c.yaml")
        .replace('{cpu: "4"}', '{cpu: "4", pods: "10"}')
        .replace("scores: {a: 1, b: 2}", "unschedulable: []")
    )
    link = repo / "fixtures" / "f.policytest.yaml"
    link.symlink_to(os.path.join("..", "real", "f.policytest.yaml"))
    return link, target


def _run_update(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "policytest", "run", "--update", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_an_update_through_a_symlink_rewrites_its_target(tmp_path: Path) -> None:
    link, target = _repo_with_failing_fixture(tmp_path)
    target.chmod(0o640)
    before = target.read_text()
    done = _run_update(str(link))
    assert done.returncode == 0, done.stdout + done.stderr
    assert link.is_symlink()
    after = target.read_text()
    assert after != before and "# best first" in after
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert not [name for name in os.listdir(link.parent) if name.startswith(".policytest-")]


def test_an_update_through_a_symlink_leaving_the_repository_is_refused(tmp_path: Path) -> None:
    link, target = _repo_with_failing_fixture(tmp_path)
    outside = tmp_path / "outside.policytest.yaml"
    target.rename(outside)
    link.unlink()
    link.symlink_to(outside)
    before = outside.read_text()
    done = _run_update(str(link))
    assert done.returncode == 1
    assert outside.read_text() == before and link.is_symlink()
    # the fixture is not even read (the one path rule): its case is an error, nothing to update
    assert "resolves outside the repository root" in done.stdout, done.stdout
    assert "updated" not in done.stderr
    assert "Traceback" not in done.stderr
