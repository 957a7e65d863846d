"""The comment's Mermaid chart rendered by a real Mermaid (the npm package ``mermaid``,
as GitHub draws it) in headless Chromium, with hostile case names: it parses, draws
every label as text, and runs nothing."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.browser.conftest import MERMAID, missing
from tests.conftest import DATA, RunLine
from tests.diff.test_diff_chart import HOSTILE, chart_lines, mermaid_blocks, ranked, report

RENDER = """async (source) => {
  mermaid.initialize({startOnLoad: false, securityLevel: "strict"});
  await mermaid.parse(source);
  const {svg} = await mermaid.render("chart", source);
  document.body.innerHTML = svg;
  const elements = [...document.body.querySelectorAll("*")];
  return {
    active: elements.filter((e) => /^(script|img|a|foreignObject|iframe)$/i.test(e.localName) ||
      [...e.attributes].some((a) => /^on/i.test(a.name) || /javascript:/i.test(a.value)))
      .map((e) => e.outerHTML),
    labels: [...document.querySelectorAll("svg text")].map((t) => t.textContent),
  };
}"""


@pytest.fixture
def mermaid_page(browser):
    if not MERMAID.exists():
        missing(f"no Mermaid at {MERMAID}: install the npm package `mermaid` (see .ci/run)")
    page = browser.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.add_script_tag(path=str(MERMAID))
    yield page
    assert problems == []
    page.close()


def rendered(page, markdown: str) -> tuple[str, list[str]]:
    return drawn(page, "\n".join(chart_lines(markdown)[1:-1]))


def drawn(page, source: str) -> tuple[str, list[str]]:
    result = page.evaluate(RENDER, source)
    assert page.evaluate("window.pwned") is None
    assert result["active"] == []
    return source, result["labels"]


def axis_labels(source: str) -> list[str]:
    """The x-axis labels of a chart's source, without their quotes."""
    axis = re.search(r"x-axis \[(.*)\]", source)
    assert axis is not None
    return re.findall(r'"([^"]*)"', axis.group(1))


def test_hostile_labels_render_as_text(mermaid_page) -> None:
    from policytest.reporters.diff.markdown import render

    source, labels = rendered(mermaid_page, render(report(HOSTILE)))
    expected = axis_labels(source)
    assert len(expected) == len(HOSTILE)
    assert [label for label in labels if label in expected] == expected


def test_hostile_node_names_in_a_scores_chart(mermaid_page) -> None:
    from policytest.diff.model import DiffReport, compare_fixture
    from policytest.reporters.diff.markdown import render

    before = {name: float(i) for i, name in enumerate(HOSTILE)}
    after = {name: 10.0 - score for name, score in before.items()}
    fixture = compare_fixture("f", "why", [ranked(HOSTILE[0], before)], [ranked(HOSTILE[0], after)])
    [chart] = mermaid_blocks(render(DiffReport("a", "b", fixtures=(fixture,))))
    source, labels = drawn(mermaid_page, "\n".join(chart))
    expected = axis_labels(source)
    assert len(expected) == len(HOSTILE)
    assert [label for label in labels if label in expected] == expected
    assert any(label.startswith("Scores of") for label in labels)  # the quoted title


def test_the_real_diff_comment_renders(
    mermaid_page, run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("hostile.policytest.yaml", "old.yaml", "new.yaml"):
        shutil.copy(DATA / "html" / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    result = run_line(["diff", "old.yaml", "new.yaml", "--fixtures", ".", "--format", "markdown"])
    charts = mermaid_blocks(result.stdout)
    # the scores of the single pod; the sequence places differently on as many nodes
    # (2 -> 2), which a chart of nodes used would not show
    assert len(charts) == 1
    assert "nodes used 2 → 2" in result.stdout.lower()
    labels = [label for chart in charts for label in drawn(mermaid_page, "\n".join(chart))[1]]
    assert "javascript:window.pwned=3" in labels
