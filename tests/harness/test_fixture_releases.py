"""Fixtures state their release: ``scheduler.kubernetesVersion`` / ``volcanoVersion``.

One config, one cluster, one pod: NodeResourcesBalancedAllocation gives node-a 93 under
1.35 and 71 under 1.36 (the formula of kubernetes PR #135573). A fixture pinned to each
release passes in the same run, whatever the settings file or the default says; a flag
that names another release than the fixture's is refused, never chosen.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import RunLine

CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
"""
FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {{name: balance}}
scheduler:
  config: configs/kube.yaml
{pin}cluster:
  nodes:
  - {{name: node-a, allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}}}
  - {{name: node-b, allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}, used: {{cpu: "2"}}}}
cases:
- name: one pod
  pod: {{requests: {{cpu: "1", memory: 1Gi}}}}
  expect:
    plugins: {{node-a: {{NodeResourcesBalancedAllocation: {score}}}}}
"""
BALANCE = {"1.35": 93, "1.36": 71}


def fixture(release: str | None, score: int) -> str:
    pin = f'  kubernetesVersion: "{release}"\n' if release else ""
    return FIXTURE.format(pin=pin, score=score)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two fixtures of one config, pinned to 1.35 and 1.36, as the working directory."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "kube.yaml").write_text(CONFIG)
    for release, score in BALANCE.items():
        (tmp_path / f"v{release}.policytest.yaml").write_text(fixture(release, score))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _results(stdout: str) -> dict[str, dict[str, object]]:
    return {r["file"].removeprefix("./"): r for r in json.loads(stdout)["results"]}


def test_fixtures_of_two_releases_pass_in_one_run(run_line: RunLine, repo: Path) -> None:
    result = run_line(["run", "."])
    assert result.exit_code == 0, result
    assert "v1.35.policytest.yaml (kube-scheduler 1.35)" in result.stdout
    assert "v1.36.policytest.yaml (kube-scheduler 1.36)" in result.stdout
    assert "judged as kube-scheduler 1.35, kube-scheduler 1.36" in result.stdout
    shown = _results(run_line(["run", ".", "--format", "json"]).stdout)
    assert {file: r["release"] for file, r in shown.items()} == {
        "v1.35.policytest.yaml": "kube-scheduler 1.35",
        "v1.36.policytest.yaml": "kube-scheduler 1.36",
    }


@pytest.mark.parametrize("settings", ["1.35", "1.36", "1.33"])
def test_the_fixture_wins_over_the_settings_file(
    run_line: RunLine, repo: Path, settings: str
) -> None:
    (repo / ".policytest.yaml").write_text(f'kubernetesVersion: "{settings}"\n')
    (repo / "unpinned.policytest.yaml").write_text(fixture(None, BALANCE.get(settings, 93)))
    result = run_line(["run", ".", "--format", "json"])
    assert result.exit_code == 0, result
    assert _results(result.stdout)["unpinned.policytest.yaml"]["release"] == (
        f"kube-scheduler {settings}"
    )


def test_a_flag_that_contradicts_a_fixture_is_refused(run_line: RunLine, repo: Path) -> None:
    result = run_line(["run", ".", "--kubernetes-version", "1.36", "--format", "json"])
    assert result.exit_code == 1
    shown = _results(result.stdout)
    assert shown["v1.36.policytest.yaml"]["status"] == "passed"
    refused = shown["v1.35.policytest.yaml"]
    assert refused["status"] == "error"
    message = str(refused["message"])
    assert (
        "PT003" in message
        and 'describes kube-scheduler 1.35 (`scheduler.kubernetesVersion: "1.35"`)' in message
    )
    assert "but --kubernetes-version 1.36 asks for 1.36" in message
    assert ":6:" in message  # the line of `kubernetesVersion`


def test_the_same_release_spelt_otherwise_is_no_contradiction(
    run_line: RunLine, repo: Path
) -> None:
    (repo / "v1.36.policytest.yaml").unlink()
    result = run_line(["run", ".", "--kubernetes-version", "v1.35.4"])
    assert result.exit_code == 0, result


def test_validate_reports_the_contradiction(run_line: RunLine, repo: Path) -> None:
    result = run_line(["validate", "v1.35.policytest.yaml", "--kubernetes-version", "1.34"])
    assert result.exit_code == 1
    assert "v1.35.policytest.yaml:6:" in result.stdout and "PT003" in result.stdout


@pytest.mark.parametrize(
    ("pin", "words"),
    [
        ('  kubernetesVersion: "1.22"\n', "PT003 `scheduler.kubernetesVersion`: kube-scheduler"),
        ('  volcanoVersion: "1.8"\n', "judges 1.9 to 1.16"),
        ("  kubernetesVersion: 1.35\n", "PT002 `kubernetesVersion` must be a string"),
    ],
)
def test_a_release_policytest_does_not_judge_is_refused(
    run_line: RunLine, repo: Path, pin: str, words: str
) -> None:
    (repo / "v1.36.policytest.yaml").write_text(FIXTURE.format(pin=pin, score=71))
    result = run_line(["run", "v1.36.policytest.yaml"])
    assert result.exit_code == 1
    assert words in result.stdout


def test_explain_says_which_release(run_line: RunLine, repo: Path) -> None:
    result = run_line(["explain", "v1.35.policytest.yaml"])
    assert "[passed]  (judged as kube-scheduler 1.35)" in result.stdout
    assert "93" in result.stdout


@pytest.mark.parametrize("fmt", ["junit", "github"])
def test_other_reports_name_the_release(run_line: RunLine, repo: Path, fmt: str) -> None:
    (repo / "v1.36.policytest.yaml").write_text(fixture("1.36", 93))  # now fails
    result = run_line(["run", ".", "--format", fmt])
    assert "kube-scheduler 1.36" in result.stdout


def test_pytest_runs_both_releases_in_one_session(pytester: pytest.Pytester) -> None:
    (pytester.path / ".git").mkdir()
    (pytester.path / "configs").mkdir()
    (pytester.path / "configs" / "kube.yaml").write_text(CONFIG)
    for release, score in BALANCE.items():
        (pytester.path / f"v{release}.policytest.yaml").write_text(fixture(release, score))
    (pytester.path / "wrong.policytest.yaml").write_text(fixture("1.36", 93))
    result = pytester.runpytest("-p", "no:cacheprovider", f"--junitxml={pytester.path / 'j.xml'}")
    result.assert_outcomes(passed=5, failed=1)  # three cases and their configs; one fails
    result.stdout.fnmatch_lines(["*one pod (failed, judged as kube-scheduler 1.36)*"])
    junit = (pytester.path / "j.xml").read_text()
    assert 'name="policytest_release" value="kube-scheduler 1.35"' in junit


def test_diff_of_two_files_judges_each_fixture_as_its_release(
    run_line: RunLine, repo: Path
) -> None:
    (repo / "configs" / "new.yaml").write_text(CONFIG)
    result = run_line(
        ["diff", "configs/kube.yaml", "configs/new.yaml", "--fixtures", ".", "--format", "json"]
    )
    assert result.exit_code == 0, result
    releases = {
        fixture["path"].removeprefix("./"): case["before"]["release"]
        for fixture in json.loads(result.stdout)["fixtures"]
        for case in fixture["cases"]
    }
    assert releases == {
        "v1.35.policytest.yaml": "kube-scheduler 1.35",
        "v1.36.policytest.yaml": "kube-scheduler 1.36",
    }


def test_simulate_says_which_release(run_line: RunLine, repo: Path) -> None:
    result = run_line(["simulate", "v1.35.policytest.yaml", "--config", "fixture"])
    assert result.exit_code == 0, result
    assert "judged as" in result.stdout and "kube-scheduler 1.35" in result.stdout
    shown = run_line(["simulate", "v1.35.policytest.yaml", "--format", "json"]).stdout
    assert json.loads(shown)["reports"][0]["release"] == "kube-scheduler 1.35"
