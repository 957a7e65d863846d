"""``diff`` judges a changed config with what runs it, as ``validate`` does.

Only the changed files are copied out of each revision; before, the Deployment beside a
config (its custom scheduler image, the release its tag states) was left behind, so a
plugin of the custom build added by a pull request was an error in ``diff`` and a warning
in ``validate``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import DATA, RunLine, committed_repo, git

BUNDLE = DATA / "realrepos" / "custom-build-bundles" / "kube-arch-scheduler"


def pull_request(root: Path, files: dict[str, str], path: str, head: str) -> Path:
    """A repository of ``files`` on its first commit, whose second commit writes ``head``
    into ``path`` (a file of ``files`` edited, or a new one)."""
    repo = committed_repo(root, files)
    (repo / path).write_text(head, encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "--quiet", "-m", f"edit {path}")
    return repo


def without(text: str, part: str) -> str:
    """``text`` without ``part``, which it holds (the base of a pull request adding it)."""
    assert part in text
    return text.replace(part, "")


@pytest.fixture
def arch_score(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The custom scheduler's Deployment and its config on main; the pull request adds
    a score plugin of the build to the config."""
    config = (BUNDLE / "scheduler-config.yaml").read_text(encoding="utf-8")
    score = (
        "        score:\n          enabled:\n          - name: ArchScore\n            weight: 5\n"
    )
    files = {
        "deploy/deployment.yaml": (BUNDLE / "deployment.yaml").read_text(encoding="utf-8"),
        "deploy/scheduler-config.yaml": without(config, score),
    }
    repo = pull_request(tmp_path / "repo", files, "deploy/scheduler-config.yaml", config)
    monkeypatch.chdir(repo)
    return repo


def test_a_plugin_of_the_build_that_runs_the_config_is_a_warning(
    run_line: RunLine, arch_score: Path
) -> None:
    result = run_line(["diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "json"])
    assert result.exit_code == 0, result
    introduced = json.loads(result.stdout)["findings"]["introduced"]
    assert [(f["rule"], f["severity"]) for f in introduced] == [("KS020", "warning")]
    assert (
        "Deployment `kube-arch-scheduler` (deploy/deployment.yaml:18) mounts this config"
        in introduced[0]["message"]
    )
    validated = json.loads(run_line(["validate", "--format", "json", "deploy"]).stdout)
    assert [f["message"] for f in validated["findings"] if f["line"] == 20] == [
        introduced[0]["message"]
    ]


def test_a_conf_of_a_charts_config_directory_is_judged_as_the_chart(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Volcano's chart keeps its conf in ``config/``, its release in the ``Chart.yaml``
    above: ``validate`` judges the conf as 1.12.1, which reads predicates'
    ``predicate.DynamicResourceAllocationEnable``; before, ``diff`` left the Chart.yaml
    behind and said VC012 "predicates does not read it in Volcano 1.15"."""
    chart = DATA / "realrepos" / "charts" / "volcano"
    conf = (chart / "config" / "volcano-scheduler.conf").read_text(encoding="utf-8")
    dra = "    arguments:\n      predicate.DynamicResourceAllocationEnable: true\n"
    files = {
        "chart/Chart.yaml": (chart / "Chart.yaml").read_text(encoding="utf-8"),
        "chart/config/volcano-scheduler.conf": without(conf, dra),
    }
    repo = pull_request(tmp_path / "repo", files, "chart/config/volcano-scheduler.conf", conf)
    monkeypatch.chdir(repo)
    result = run_line(["diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "json"])
    assert result.exit_code == 0, result
    introduced = json.loads(result.stdout)["findings"]["introduced"]
    validated = json.loads(run_line(["validate", "--format", "json", "chart"]).stdout)
    assert [f["rule"] for f in validated["findings"]] == ["VB015"]  # on both sides
    assert introduced == []


def _statuses(run_line: RunLine) -> dict[str, str]:
    """Each changed config's status on the head, by path (``diff --format json``)."""
    result = run_line(["diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "json"])
    assert result.exit_code == 0, result
    return {
        config["path"]: setting["after"]["value"]
        for config in json.loads(result.stdout)["configs"]
        for setting in config["settings"]
        if setting["key"] == "status"
    }


def test_a_kai_conf_is_not_checked_in_diff_as_in_validate(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """KAI fills a missing ``actions`` from its defaults: beside a KAI SchedulingShard,
    ``validate`` says PT010 (not checked). Before, ``diff`` showed the conf it adds as
    "rejected: Volcano cannot load this file" beside that very PT010."""
    shard = "apiVersion: kai.scheduler/v1\nkind: SchedulingShard\nmetadata: {name: default}\n"
    conf = "tiers:\n- plugins:\n  - name: predicates\n  - name: proportion\n"
    repo = pull_request(tmp_path / "repo", {"kai/shard.yaml": shard}, "kai/config.yaml", conf)
    monkeypatch.chdir(repo)
    status = _statuses(run_line)["kai/config.yaml"]
    assert status.startswith("not checked: KAI Scheduler's config, not Volcano's (a KAI")
    [finding] = json.loads(run_line(["validate", "--format", "json", "kai"]).stdout)["findings"]
    assert finding["rule"] == "PT010"


def test_a_config_of_a_release_outside_the_table_is_not_checked_in_diff(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kops cluster on 1.24 embeds a v1beta2 config: ``validate`` says PT009 (not
    checked); before, ``diff`` judged it as 1.36 ("refuses to start")."""
    cluster = (DATA / "realrepos" / "releases" / "kops-cluster-1.24.yaml").read_text("utf-8")
    repo = pull_request(tmp_path / "repo", {"README.md": "kops\n"}, "cluster.yaml", cluster)
    monkeypatch.chdir(repo)
    status = _statuses(run_line)["cluster.yaml"]
    assert status.startswith("not checked: this config targets kube-scheduler 1.24")


def test_an_edit_to_a_config_not_checked_is_no_text_only_change(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MostAllocated -> LeastAllocated in a kops 1.24 cluster's config: before, "Changed
    in text only (the scheduler reads them the same)", both sides judged as 1.36."""
    cluster = (DATA / "realrepos" / "releases" / "kops-cluster-1.24.yaml").read_text("utf-8")
    edited = cluster.replace("type: MostAllocated", "type: LeastAllocated")
    assert edited != cluster
    repo = pull_request(tmp_path / "repo", {"cluster.yaml": cluster}, "cluster.yaml", edited)
    monkeypatch.chdir(repo)
    out = run_line(["diff", "--base", "HEAD~1", "--head", "HEAD"]).stdout
    assert "text only" not in out
    assert "Config cluster.yaml (kube-scheduler, document 2) (edited, not checked)" in out
