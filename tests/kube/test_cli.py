"""The kube-scheduler checks through the real CLI (``policytest validate``)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import RunLine
from tests.kube.test_seeds import LEGACY_POLICY, MOST_ALLOCATED

DATA = Path(__file__).parent.parent / "data" / "kube"


def test_validate_reports_configmap_findings_as_json(run_line: RunLine) -> None:
    result = run_line(["validate", "--format", "json", DATA / "configmap.yaml"])
    assert result.exit_code == 1, result
    found = {(f["rule"], f["line"], f["column"]) for f in json.loads(result.stdout)["findings"]}
    assert found - {("KS047", 17, 13)} == {("KS011", 20, 23), ("KS003", 22, 15)}  # KS047: advice


def test_a_kubernetes_version_outside_the_table_is_a_usage_error(
    run_line: RunLine, tmp_path: Path
) -> None:
    path = tmp_path / "scheduler.yaml"
    path.write_text(MOST_ALLOCATED)
    assert run_line(["validate", path]).exit_code == 1
    older = run_line(["validate", "--kubernetes-version", "1.22", "--format", "json", path])
    assert older.exit_code == 2, older
    assert "judges 1.33 to 1.37 (default 1.36)" in older.stderr
    assert older.stdout == ""


def test_legacy_policy_json_file(run_line: RunLine, tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    path.write_text(LEGACY_POLICY)
    result = run_line(["validate", path])
    assert result.exit_code == 1, result
    assert "KS002" in result.stdout and "NodeResourcesFit" in result.stdout
