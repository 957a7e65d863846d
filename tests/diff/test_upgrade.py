"""``policytest upgrade``: the bundled fixtures under 1.35 and 1.36, reviewed as ``diff``.

Under kube-scheduler 1.35 three bundled cases fail that pass under 1.36 (the snapshot
fixture's expectations were written for 1.36's BalancedAllocation); the preview shows
them as new winners and names the formula change as the reason for every changed case.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RunLine
from tests.diff.test_diff_settings import FIXTURE, RATIO_BESIDE_MOST

FORMULA = "NodeResourcesBalancedAllocation's formula: 1.35 scores"


def _preview(run_line: RunLine, *args: str) -> dict[str, Any]:
    result = run_line(["upgrade", *args, "--format", "json"])
    assert result.exit_code in (0, 1), result
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _changed(data: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (fixture["path"], case)
        for fixture in data["fixtures"]
        for case in fixture["cases"]
        if case["change"] != "unchanged"
    ]


def test_the_bundled_fixtures_from_1_35_to_1_36(run_line: RunLine, bundled_repo: Path) -> None:
    data = _preview(run_line, "--kubernetes-version", "1.35", "--to-kubernetes", "1.36")
    assert (data["base"], data["head"]) == ("kube-scheduler 1.35", "kube-scheduler 1.36")
    assert data["settings"] == [
        {"key": "kubernetesVersion", "before": "1.35", "after": "1.36", "applied": True}
    ]
    changed = _changed(data)
    assert len(changed) == 14  # BalancedAllocation's 1.36 formula moves the two repacks too
    repacked = {case["case"] for path, case in changed if "snapshot-kube-repack" in path}
    assert repacked == {"the cluster's pods repacked", "the ingest Deployment stays where it is"}
    assert all(case["why"] and case["why"][0].startswith(FORMULA) for _, case in changed)
    fixed = sorted(case["case"] for _, case in changed if case["statusChanged"])
    assert fixed == [
        "a web pod stays off control-plane, cordoned and GPU nodes",
        "required node affinity keeps a pod in its zone",
        "the snapshot's pending pods, one by one",
    ]
    assert all(case["before"]["status"] == "failed" for _, case in changed if case["statusChanged"])
    assert data["summary"]["newWinners"] == 3
    assert all("kube" not in path for path in data["notRun"]) and len(data["notRun"]) == 12


def test_text_markdown_and_help(run_line: RunLine, bundled_repo: Path) -> None:
    args = ["upgrade", "--kubernetes-version", "1.35", "--to-kubernetes", "1.36"]
    text = run_line(args).stdout
    assert text.startswith("policytest upgrade: kube-scheduler 1.35 -> kube-scheduler 1.36\n")
    assert "Settings changed: kubernetesVersion 1.35 -> 1.36; 3 new winners" in text
    assert f"  {FORMULA}" in text and "(14 cases)" in text
    # the Volcano fixtures are left out, named, as diff of two files names those of
    # another scheduler than its configs
    assert "12 fixtures not run (their scheduler's release does not change): " in text
    assert "fixtures/volcano-gpu-sequence-binpack-weight-1.policytest.yaml" in text
    md = html.unescape(run_line([*args, "--format", "markdown"]).stdout)
    assert md.startswith("<!-- policytest-upgrade -->\n### policytest upgrade\n")
    assert "- Why: NodeResourcesBalancedAllocation's formula" in md
    help_text = run_line(["upgrade", "--help"]).stdout
    assert "--to-kubernetes X.Y" in help_text and "release fact" in help_text


def test_volcano_1_16_builds_on_kubernetes_1_36(run_line: RunLine, bundled_repo: Path) -> None:
    data = _preview(run_line, "--to-volcano", "1.16")
    changed = _changed(data)
    assert changed
    assert all(case["why"][0].startswith("nodeorder's balancedresource") for _, case in changed)
    assert all("kube" in path for path in data["notRun"])


def test_a_fixture_that_states_its_release_is_previewed_too(
    run_line: RunLine, bundled_repo: Path
) -> None:
    config = bundled_repo / "fixtures" / "configs" / "ratio.yaml"
    config.write_text(RATIO_BESIDE_MOST)
    pinned = FIXTURE.format(config="configs/ratio.yaml", pin='  kubernetesVersion: "1.35"\n')
    (bundled_repo / "fixtures" / "ratio.policytest.yaml").write_text(pinned)
    result = run_line(["upgrade", "fixtures/ratio.policytest.yaml", "--to-kubernetes", "1.36"])
    assert result.exit_code == 1  # the target refuses the config: an error finding
    data = _preview(run_line, "fixtures/ratio.policytest.yaml", "--to-kubernetes", "1.36")
    ((_, case),) = _changed(data)
    assert case["before"]["release"] == "kube-scheduler 1.35"  # its own release
    assert case["after"]["status"] == "error"
    (why,) = case["why"]
    assert "KS017" in why and "kube-scheduler 1.36 refuses to start" in why
    assert [f["rule"] for f in data["findings"]["introduced"]] == ["KS017"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ([], "name the release to upgrade to"),
        (["--to-kubernetes", "1.22"], "judges 1.33 to 1.37"),
        (["nowhere", "--to-kubernetes", "1.36"], "path does not exist: nowhere"),
    ],
)
def test_usage_errors(run_line: RunLine, bundled_repo: Path, args: list[str], words: str) -> None:
    result = run_line(["upgrade", *args])
    assert result.exit_code == 2 and words in result.stderr
