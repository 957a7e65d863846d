"""``policytest diff`` reads each revision's own settings file (real git repositories).

``main`` says ``kubernetesVersion: "1.35"``; the next commit says ``"1.36"`` and
nothing else. Fixtures that use a kube-scheduler config and state no release of their
own run on both sides, and the review names the settings change and the release fact
behind each changed case; a fixture pinned to its release and a Volcano fixture do not
run. What judges findings (``select``, ``ignore``, declared plugins) stays the base's
unless ``--head-settings`` asks for the head's.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import pytest

from tests.check.test_releases import RATIO_BESIDE as RATIO_BESIDE_MOST
from tests.conftest import RunLine, committed_repo, git, write_files
from tests.harness.test_fixture_releases import CONFIG as KUBE

HEAD_KUBE = KUBE.replace("/v1\n", "/v1beta3\n")
"""The config in an API version kube-scheduler 1.35 no longer reads (a KS001 in the head)."""

FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {{name: balance}}
scheduler:
  config: {config}
{pin}cluster:
  nodes:
  - {{name: node-a, allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}}}
  - {{name: node-b, allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}, used: {{cpu: "2"}}}}
cases:
- name: one pod
  pod: {{requests: {{cpu: "1", memory: 1Gi}}}}
  expect: {{ranking: [node-a, node-b]}}
"""
VOLCANO = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {name: volcano}
scheduler:
  volcano:
    actions: "enqueue, allocate, backfill"
    tiers:
    - plugins:
      - name: binpack
cluster:
  nodes:
  - {name: node-a, allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
cases:
- name: one pod
  pod: {requests: {cpu: "1"}}
  expect: {ranking: [node-a]}
"""


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = committed_repo(
        tmp_path_factory.mktemp("upgrade"),
        {
            ".policytest.yaml": 'kubernetesVersion: "1.35"\n',
            "configs/kube.yaml": KUBE,
            "configs/ratio.yaml": RATIO_BESIDE_MOST,
            "fixtures/balance.policytest.yaml": FIXTURE.format(
                config="../configs/kube.yaml", pin=""
            ),
            "fixtures/ratio.policytest.yaml": FIXTURE.format(
                config="../configs/ratio.yaml", pin=""
            ),
            "fixtures/pinned.policytest.yaml": FIXTURE.format(
                config="../configs/kube.yaml", pin='  kubernetesVersion: "1.35"\n'
            ),
            "fixtures/volcano.policytest.yaml": VOLCANO,
        },
    )
    write_files(repo, {".policytest.yaml": 'kubernetesVersion: "1.36"\n'})
    git(repo, "commit", "--quiet", "-am", "upgrade to 1.36")
    return repo


@pytest.fixture
def in_history(history: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(history)
    return history


def _diff(run_line: RunLine, *extra: str, head: str | None = "HEAD") -> dict[str, Any]:
    """``diff --format json`` of HEAD~1 against ``head`` (``None``: the working tree)."""
    to = ["--head", head] if head is not None else []
    result = run_line(["diff", "--base", "HEAD~1", *to, "--format", "json", *extra])
    assert result.exit_code in (0, 1), result
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _fixture(data: dict[str, Any], path: str) -> dict[str, Any]:
    return next(f for f in data["fixtures"] if f["path"] == path)


def test_a_release_change_is_a_change(run_line: RunLine, in_history: Path) -> None:
    data = _diff(run_line)
    assert data["settingsPath"] == ".policytest.yaml"
    assert data["settings"] == [
        {"key": "kubernetesVersion", "before": "1.35", "after": "1.36", "applied": True}
    ]
    assert data["summary"]["changed"] and data["summary"]["settingsChanged"] == 1
    ran = {f["path"]: f["reason"] for f in data["fixtures"]}
    assert ran == {
        "fixtures/balance.policytest.yaml": "the settings changed: kubernetesVersion 1.35 -> 1.36",
        "fixtures/ratio.policytest.yaml": "the settings changed: kubernetesVersion 1.35 -> 1.36",
    }
    assert sorted(data["notRun"]) == [
        "fixtures/pinned.policytest.yaml",
        "fixtures/volcano.policytest.yaml",
    ]


def test_each_changed_case_says_why(run_line: RunLine, in_history: Path) -> None:
    data = _diff(run_line)
    (case,) = _fixture(data, "fixtures/balance.policytest.yaml")["cases"]
    assert case["before"]["release"] == "kube-scheduler 1.35"
    assert case["after"]["release"] == "kube-scheduler 1.36"
    assert case["change"] == "changed" and not case["rankingChanged"]  # scores moved
    (why,) = case["why"]
    assert why.startswith("NodeResourcesBalancedAllocation's formula: 1.35 scores")
    (refused,) = _fixture(data, "fixtures/ratio.policytest.yaml")["cases"]
    assert refused["after"]["status"] == "error"
    (why,) = refused["why"]
    assert "KS017" in why and "kube-scheduler 1.36 refuses to start" in why
    assert [f["rule"] for f in data["findings"]["introduced"]] == ["KS017"]
    assert [f["rule"] for f in data["findings"]["resolved"]] == ["KS045"]


def test_text_and_markdown_name_the_settings_change(run_line: RunLine, in_history: Path) -> None:
    text = run_line(["diff", "--base", "HEAD~1", "--head", "HEAD"]).stdout
    assert text.splitlines()[1] == (
        "Settings changed: kubernetesVersion 1.35 -> 1.36; 1 error finding introduced, "
        "1 case failing on both sides, 1 case status change, 1 other case change, "
        "1 finding resolved."
    )
    assert "Settings .policytest.yaml\n  kubernetesVersion 1.35 -> 1.36" in text
    assert "    judged as kube-scheduler 1.35 -> 1.36" in text
    assert "    why: NodeResourcesBalancedAllocation's formula" in text
    md = run_line(["diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "markdown"]).stdout
    md = html.unescape(md)
    assert "Settings <code>.policytest.yaml</code>: kubernetesVersion 1.35 → 1.36." in md
    assert "Why (the release facts behind these changes):" in md


def test_a_flag_overrides_both_sides(run_line: RunLine, in_history: Path) -> None:
    data = _diff(run_line, "--kubernetes-version", "1.36")
    assert data["fixtures"] == [] or all(f["change"] == "unchanged" for f in data["fixtures"])
    assert data["settings"][0]["key"] == "kubernetesVersion"  # still shown


@pytest.fixture
def clone(history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = tmp_path / "clone"
    git(tmp_path, "clone", "--quiet", str(history), str(repo))
    monkeypatch.chdir(repo)
    return repo


def test_the_head_cannot_silence_its_own_findings(run_line: RunLine, clone: Path) -> None:
    """The head ignores KS and breaks its config: the base's rules still judge it."""
    write_files(
        clone,
        {
            ".policytest.yaml": 'kubernetesVersion: "1.35"\nignore: [KS]\n',
            "configs/kube.yaml": HEAD_KUBE,
        },
    )
    data = _diff(run_line, head=None)
    assert data["settings"] == [
        {"key": "ignore", "before": None, "after": "[KS]", "applied": False}
    ]
    assert "KS001" in {f["rule"] for f in data["findings"]["introduced"]}
    text = run_line(["diff", "--base", "HEAD~1"]).stdout
    assert "ignore (unset) -> [KS] (not applied: the base's applies;" in text
    applied = _diff(run_line, "--head-settings", head=None)
    assert applied["settings"][0]["applied"] is True
    assert "KS001" not in {f["rule"] for f in applied["findings"]["introduced"]}


def test_the_head_cannot_lower_the_severity_of_its_own_findings(
    run_line: RunLine, clone: Path
) -> None:
    """``severity`` judges findings too: the head's ``{KS: info}`` is shown, not applied."""
    write_files(
        clone,
        {
            ".policytest.yaml": 'kubernetesVersion: "1.35"\nseverity: {KS: info}\n',
            "configs/kube.yaml": HEAD_KUBE,
        },
    )
    data = _diff(run_line, head=None)
    assert data["settings"] == [
        {"key": "severity", "before": None, "after": "{KS: info}", "applied": False}
    ]
    introduced = {f["rule"]: f["severity"] for f in data["findings"]["introduced"]}
    assert introduced["KS001"] == "error"
    applied = _diff(run_line, "--head-settings", head=None)
    assert {f["rule"]: f["severity"] for f in applied["findings"]["introduced"]}["KS001"] == "info"


def test_the_working_tree_reads_its_own_settings(run_line: RunLine, clone: Path) -> None:
    write_files(clone, {".policytest.yaml": 'volcanoVersion: "1.16"\nkubernetesVersion: "1.36"\n'})
    data = json.loads(run_line(["diff", "--base", "HEAD", "--format", "json"]).stdout)
    assert data["settings"] == [
        {"key": "volcanoVersion", "before": None, "after": "1.16", "applied": True}
    ]
    assert [f["path"] for f in data["fixtures"]] == ["fixtures/volcano.policytest.yaml"]
    (case,) = data["fixtures"][0]["cases"]
    assert case["change"] == "unchanged"  # binpack alone: no Kubernetes formula in play


def test_a_broken_settings_file_on_one_side_is_a_usage_error(
    run_line: RunLine, clone: Path
) -> None:
    write_files(clone, {".policytest.yaml": 'kubernetesVersion: "1.22"\n'})
    result = run_line(["diff", "--base", "HEAD"])
    assert result.exit_code == 2
    assert ".policytest.yaml" in result.stderr and "judges 1.33 to 1.37" in result.stderr


def test_settings_named_inside_the_repository_are_read_at_each_revision(
    run_line: RunLine, in_history: Path
) -> None:
    data = _diff(run_line, "--settings", ".policytest.yaml")
    assert [change["key"] for change in data["settings"]] == ["kubernetesVersion"]


def test_settings_outside_the_repository_are_the_same_on_both_sides(
    run_line: RunLine, in_history: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "ci-settings.yaml"
    outside.write_text('kubernetesVersion: "1.35"\n')
    data = _diff(run_line, "--settings", str(outside))
    assert data["settings"] == [] and data["fixtures"] == []
