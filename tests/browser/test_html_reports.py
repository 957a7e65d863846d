"""Every report kind opened in headless Chromium: it loads offline without a console
error (a Content-Security-Policy violation is one) or any request but its own file,
shows what it is for, and shows hostile names as text without running anything."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.browser.conftest import Opened, open_page, screenshot
from tests.conftest import DATA, RunLine, readme_opening_files, user_repository

pytestmark = pytest.mark.usefixtures("browser")

HOSTILE = DATA / "html"
SCRIPT_NODE = "<script>window.pwned=1</script>"
STYLE_NODE = "</style><img src=x onerror=window.pwned=2>"
LINK_NODE = "javascript:window.pwned=3"
BIDI_NODE = "{{ 7*7 }} \\u202eevil"
"""The fourth node's name as the page shows it: the right-to-left override escaped."""


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The hostile fixture and its two configs in a directory of their own."""
    for name in ("hostile.policytest.yaml", "old.yaml", "new.yaml"):
        shutil.copy(HOSTILE / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def report(run_line: RunLine, argv: list[str], path: Path) -> Path:
    result = run_line(argv)
    assert result.exit_code in (0, 1), result
    assert result.stdout.startswith("<!DOCTYPE html>"), result
    path.write_text(result.stdout, encoding="utf-8")
    return path


def assert_safe(opened: Opened, path: Path) -> None:
    """Nothing logged, nothing fetched, nothing run; every hostile name shown as text."""
    page = opened.page
    assert opened.problems == []
    assert opened.requests == [path.as_uri()]
    assert page.evaluate("window.pwned") is None
    assert page.locator("img, main b, a").count() == 0
    body = page.locator("body").inner_text()
    for name in (SCRIPT_NODE, STYLE_NODE, LINK_NODE):
        assert name in body
    assert "\u202e" not in page.content()


def test_run_report(browser, run_line: RunLine, workspace: Path) -> None:
    path = report(run_line, ["run", "--format", "html", "."], workspace / "run.html")
    opened = open_page(browser, path)
    assert_safe(opened, path)
    page = opened.page
    assert page.locator("section.case").count() == 2
    assert page.locator("h2").first.inner_text().startswith("failed")
    assert page.get_by_text("one pod <b>bold</b> {{ 7*7 }}").is_visible()
    first = page.locator("section.case").first
    rows = first.locator(".nodes tbody tr")
    assert rows.count() == 4  # three scored, one filtered
    assert rows.nth(0).locator("rect").count() >= 2  # a stacked bar: two plugins
    assert first.get_by_text("3/4 nodes are available: 1 node(s) were unschedulable.").is_visible()
    assert BIDI_NODE in first.locator("table").last.inner_text()
    screenshot(opened, "run", workspace)
    first.locator("input[type='search']").fill("javascript")
    assert rows.count() == 1 and LINK_NODE in rows.first.inner_text()
    sequence = page.locator("section.case").nth(1)
    assert sequence.locator("figure > svg").count() == 2  # cpu and memory histograms
    assert sequence.locator("td.placed").filter(has_text="2").count() == 2


def test_explain_report(browser, run_line: RunLine, workspace: Path) -> None:
    argv = ["explain", "--format", "html", "hostile.policytest.yaml"]
    path = report(run_line, argv, workspace / "explain.html")
    opened = open_page(browser, path)
    assert_safe(opened, path)
    assert opened.page.locator("h1").inner_text() == "policytest explain"
    assert opened.page.locator(".legend").first.inner_text().split()[:2] == [
        "binpack",
        "nodeorder",
    ]
    screenshot(opened, "explain", workspace)


def test_simulate_report(browser, run_line: RunLine, workspace: Path) -> None:
    argv = ["simulate", "--format", "html", "hostile.policytest.yaml", "--case"]
    argv += ["four pods ]]> \u202e", "--config", "old.yaml", "--config", "new.yaml"]
    path = report(run_line, argv, workspace / "simulate.html")
    opened = open_page(browser, path)
    assert_safe(opened, path)
    page = opened.page
    assert page.locator("table.metrics th").all_inner_texts() == ["config", "old.yaml", "new.yaml"]
    assert page.locator("figure").count() == 2
    assert page.locator(".nodes").count() == 2  # one node table per config
    screenshot(opened, "simulate", workspace)


def test_diff_report(browser, run_line: RunLine, workspace: Path) -> None:
    argv = ["diff", "old.yaml", "new.yaml", "--fixtures", ".", "--format", "html"]
    path = report(run_line, argv, workspace / "diff.html")
    opened = open_page(browser, path)
    assert_safe(opened, path)
    page = opened.page
    setting = page.locator("table").first.locator("tbody tr").first
    assert setting.locator("td").all_inner_texts() == ["binpack.weight", "1", "10"]
    cases = page.locator("section.case")
    assert cases.count() == 2
    sides = cases.first.locator(".side-by-side > div")
    assert [sides.nth(i).locator("h4").inner_text() for i in range(2)] == [
        "before failed",
        "after passed",
    ]
    after = sides.nth(1)
    assert after.locator("tbody tr").first.locator("td.name").inner_text() == SCRIPT_NODE
    assert after.locator("thead th").all_inner_texts()[-3:] == ["cpu", "memory", "pods placed"]
    assert after.locator("td.placed").all_inner_texts() == ["1", "", "", ""]  # the one pod
    screenshot(opened, "diff", workspace)


def test_volcano_jobs_in_every_report(
    browser, run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The GPU gang story: explain shows each job (the one that did not start marked) and
    the stranded GPUs; simulate the job that did not start per config; diff what moved
    per job."""
    root = Path(__file__).parents[2]
    shutil.copytree(root / "fixtures", tmp_path / "fixtures")
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    story = "fixtures/volcano-gpu-gang-default.policytest.yaml"
    packed = "fixtures/configs/volcano-binpack-gpu-gangs.yaml"
    path = report(run_line, ["explain", "--format", "html", story], tmp_path / "jobs.html")
    opened = open_page(browser, path)
    assert opened.problems == [] and opened.requests == [path.as_uri()]
    rows = opened.page.locator("table.jobs tbody tr")
    assert rows.count() == 2
    waiting = opened.page.locator("table.jobs tr.waiting")
    assert waiting.count() == 1 and "default/llm" in waiting.inner_text()
    assert "pod group is not ready" in waiting.inner_text()
    assert (
        waiting.locator("td").first.evaluate("cell => getComputedStyle(cell).backgroundColor")
        == "rgb(255, 248, 197)"
    )
    assert opened.page.get_by_text("20 nvidia.com/gpu free, no node with 8 free").is_visible()
    screenshot(opened, "jobs", tmp_path)
    argv = ["simulate", "--format", "html", story, "--config", "fixture", "--config", packed]
    path = report(run_line, argv, tmp_path / "simulate-jobs.html")
    opened = open_page(browser, path)
    assert opened.problems == []
    outcomes = opened.page.locator("ul.outcomes")
    assert "default/llm (Inqueue, 0 bound)" in outcomes.inner_text()
    argv = ["diff", "fixtures/configs/volcano-default.yaml", packed, "--fixtures", "fixtures"]
    path = report(run_line, [*argv, "--format", "html"], tmp_path / "diff-jobs.html")
    opened = open_page(browser, path)
    assert opened.problems == []
    changed = opened.page.locator("table.jobs").first.inner_text()
    assert "0 of 3 bound, Inqueue" in changed and "2 of 3 bound, Running" in changed


def test_score_bars_grey_what_every_node_scores_alike(
    browser, run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """issue 37: nodeorder's constant terms filled most of each bar and the packing signal
    was a sliver. The part every node scores alike is drawn once, grey, at the start of
    each bar; what differs fills the rest: the busy node's binpack fills its bar."""
    user_repository(tmp_path, monkeypatch, readme_opening_files())
    path = report(run_line, ["run", "--format", "html", "fixtures/"], tmp_path / "run.html")
    page = open_page(browser, path).page
    first = page.locator("section.case").first
    assert "common to every node (504.75)" in first.locator(".legend").first.inner_text()
    rows = first.locator(".nodes tbody tr")
    busy = rows.nth(0).locator("svg").first.locator("rect")
    empty = rows.nth(1).locator("svg").first.locator("rect")
    assert busy.nth(0).get_attribute("fill") == empty.nth(0).get_attribute("fill") == "#d0d7de"
    assert busy.nth(0).get_attribute("width") == empty.nth(0).get_attribute("width")
    coloured = [float(busy.nth(i).get_attribute("width") or 0) for i in range(1, busy.count())]
    grey = float(busy.nth(0).get_attribute("width") or 0)
    assert abs(grey + 2 + sum(coloured) - 220) < 0.01  # the node that differs most fills it
    # a bar is as wide with its grey part as without: tables stay as narrow as before
    assert busy.nth(0).locator("xpath=..").get_attribute("width") == "220"
    title = rows.nth(0).locator("svg").first.locator("title").text_content() or ""
    assert title.startswith("common to every node 504.75, binpack ")
    # the sequence's first pod: totals of 1114.125, shown as the text report shows them
    second = page.locator("section.case").nth(1)
    assert "common to every node (489.13)" in second.locator(".legend").first.inner_text()
    busy_total = second.locator(".nodes tbody tr").nth(0).locator("td.num").nth(1).inner_text()
    case = "twelve pods fill the busy node first"
    explained = run_line(["explain", "fixtures/binpack.policytest.yaml", "--case", case])
    assert busy_total == "1114.13" and "  1     busy   1114.13" in explained.stdout, explained
