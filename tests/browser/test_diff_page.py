"""The review pages (``diff`` and ``upgrade --format html``) in headless Chromium: they say
everything the text report says, and lay out before and after so that no table is cut,
at narrow and wide windows.

The repository is the one of ``tests/diff/test_diff_attribution.py``: one commit changes
the config and the release, so the page has settings, release facts, causes, score
deltas, placements and findings to show.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import open_page, screenshot
from tests.conftest import RunLine, git, write_files
from tests.diff.test_diff_attribution import DIFF, history, in_history

pytestmark = pytest.mark.usefixtures("browser", "in_history")
__all__ = ["history", "in_history"]  # the repository's fixtures, shared


def _page(run_line: RunLine, argv: list[str], path: Path) -> Path:
    result = run_line([*argv, "--format", "html"])
    assert result.exit_code in (0, 1), result
    path.write_text(result.stdout, encoding="utf-8")
    return path


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("→", "->")).strip().lower()


def _phrases(report: str) -> list[str]:
    """The text report cut where the page may lay it out otherwise (a line, a table
    cell, a clause after `: ` or `; `, a parenthesis)."""
    pieces = re.split(r"\n| {2,}|: |; | \(|\)|:$", report)
    return [_normal(piece) for piece in pieces if len(piece.strip()) > 2]


def _shown(phrase: str, body: str) -> bool:
    """On the page as the text says it, or as a table's before and after columns."""
    return phrase in body or (
        " -> " in phrase and all(half in body for half in phrase.split(" -> "))
    )


def test_the_diff_page_says_what_the_text_says(
    browser: Any, run_line: RunLine, tmp_path: Path
) -> None:
    text = run_line(DIFF).stdout
    opened = open_page(browser, _page(run_line, DIFF, tmp_path / "diff.html"))
    assert opened.problems == []
    body = _normal(opened.page.locator("body").inner_text())
    missing = [phrase for phrase in _phrases(text) if not _shown(phrase, body)]
    assert missing == []
    for said in (
        "judged as kube-scheduler 1.34 -> 1.36",
        "cause: the change to configs/kube.yaml alone moves the winner",
        "why: noderesourcesbalancedallocation's formula",
        "settings .policytest.yaml kubernetesversion 1.34 -> 1.36",
        "busy 1 -> 2 437 -> 418 -19",  # the score deltas, node by node
    ):
        assert said in body
    assert "unchanged" not in body  # both fixtures' cases changed: nothing to sum up
    screenshot(opened, "diff-causes", tmp_path)


def test_a_new_fixture_shows_each_case_it_brings(
    browser: Any, run_line: RunLine, history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "--quiet", str(history), str(clone))
    pack = (clone / "fixtures/pack.policytest.yaml").read_text()
    write_files(clone, {"fixtures/new.policytest.yaml": pack.replace("name: pack", "name: new")})
    monkeypatch.chdir(clone)
    argv = ["diff", "--base", "HEAD"]
    text = run_line(argv).stdout
    assert (
        "Fixture fixtures/new.policytest.yaml (the fixture is new): new fixture with 2 cases"
        in text
    )
    opened = open_page(browser, _page(run_line, argv, tmp_path / "new.html"))
    body = _normal(opened.page.locator("body").inner_text())
    assert [phrase for phrase in _phrases(text) if not _shown(phrase, body)] == []
    assert opened.page.locator("section.case").count() == 2  # each with its one side
    assert opened.page.locator("section.case .side").count() == 2


def test_score_only_changes_show_their_deltas(
    browser: Any, run_line: RunLine, tmp_path: Path
) -> None:
    """``upgrade`` on the base moves the scores and keeps the ranking: the page is
    titled for the command and shows each node's change."""
    argv = ["upgrade", "--kubernetes-version", "1.34", "--to-kubernetes", "1.36"]
    opened = open_page(browser, _page(run_line, argv, tmp_path / "upgrade.html"))
    page = opened.page
    assert page.title() == "policytest upgrade"
    assert page.locator("h1").inner_text() == "policytest upgrade"
    first = page.locator("section.case").first
    assert "scores changed, same ranking" in first.locator("p.summary").inner_text()
    rows = first.locator("table.changes tbody tr")
    assert rows.count() == 2
    assert [rows.nth(i).locator("td").all_inner_texts() for i in range(2)] == [
        ["empty", "1 -> 1", "480 -> 457", "-23"],
        ["busy", "2 -> 2", "424 -> 418", "-6"],
    ]


def _boxes(page: Any) -> list[dict[str, float]]:
    """Each side of each case: where it is, how wide it is, how wide its table is."""
    boxes: list[dict[str, float]] = page.evaluate(
        """() => [...document.querySelectorAll('.side-by-side > .side')].map(side => {
            const box = side.getBoundingClientRect();
            const table = side.querySelector('.nodes table');
            return {top: box.top, left: box.left, width: side.clientWidth,
                    scroll: side.scrollWidth, table: table.getBoundingClientRect().width};
        })"""
    )
    return boxes


@pytest.mark.parametrize(
    ("width", "beside"),
    [(640, False), (1100, False), (1400, False), (1920, True)],
)
def test_before_and_after_are_never_cut(
    browser: Any, run_line: RunLine, tmp_path: Path, width: int, beside: bool
) -> None:
    """Side by side where both tables fit whole (a 1920 px window), else one above the
    other; the page never scrolls sideways, and only a table wider than the window
    scrolls, inside its side."""
    path = _page(run_line, DIFF, tmp_path / "diff.html")
    opened = open_page(browser, path)
    page = opened.page
    page.set_viewport_size({"width": width, "height": 900})
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    boxes = _boxes(page)
    assert len(boxes) == 4  # two cases, before and after
    for before, after in (boxes[0:2], boxes[2:4]):
        assert (before["top"] == after["top"]) is beside
        assert (after["left"] > before["left"]) is beside
        for side in (before, after):
            fits = side["table"] <= side["width"]
            assert fits or width < side["table"] + 100  # only a narrow window scrolls
            assert side["scroll"] <= side["width"] or not fits
