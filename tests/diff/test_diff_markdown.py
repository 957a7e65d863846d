"""The Markdown comment as text: structure, escaping, size limit; built from synthetic runs."""

from __future__ import annotations

import html
import re

from policytest.diff.model import DiffReport, FixtureDiff, NotRun, compare_fixture
from policytest.harness.runner import CaseResult, rank
from policytest.reporters import DIFF_FORMATS, render_diff
from policytest.reporters.diff.markdown import COMMENT_LIMIT, MARKER, render
from policytest.reporters.diff.words import node_rows
from policytest.scoring.protocol import NodeScore


def result(case: str, scores: dict[str, float], file: str = "f.policytest.yaml") -> CaseResult:
    nodes = tuple(
        NodeScore(name, True, None, total, {"binpack": total}) for name, total in scores.items()
    )
    return CaseResult(file, case, "passed", nodes=nodes, ranking=rank(nodes))


def fixture(path: str, case: str, before: dict[str, float], after: dict[str, float]) -> FixtureDiff:
    return compare_fixture(
        path,
        "its config changed: c.yaml",
        [result(case, before, path)],
        [result(case, after, path)],
    )


def cells(row: str) -> list[str]:
    """A table row's cells, split on the pipes Markdown sees (not on escaped ones)."""
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row.strip())[1:-1]]


def test_nothing_changed_is_four_lines() -> None:
    skipped = (NotRun("nothing they use changed", ("a.policytest.yaml",)),)
    report = DiffReport("main (abc1234)", "working tree", skipped=skipped)
    md = render(report)
    assert html.unescape(md).splitlines() == [
        MARKER,
        "### policytest diff",
        "",
        "<code>main (abc1234)</code> → <code>working tree</code>: no change in scheduling: "
        "1 fixture not run (nothing they use changed).",
    ]


def test_names_cannot_break_the_table_or_inject_html() -> None:
    name = "pipes | and <script>alert(1)</script> and `ticks` *stars*"
    report = DiffReport(
        "a",
        "b",
        fixtures=(
            fixture("dir/x|y.policytest.yaml", name, {"n|1": 2, "n2": 1}, {"n|1": 1, "n2": 2}),
        ),
    )
    md = render(report)
    assert "<script>" not in md
    row = next(line for line in md.splitlines() if "alert" in line and line.startswith("|"))
    assert len(cells(row)) == 3
    assert html.unescape(cells(row)[0]) == "<code>dir/x|y.policytest.yaml</code>"
    assert "<code>ticks</code>" in cells(row)[1]  # `quoted` spans become code
    node_row = next(line for line in md.splitlines() if line.startswith("| n&#124;1 "))
    assert cells(node_row) == ["n&#124;1", "1 → 2", "2 → 1", "-1"]


def test_truncated_to_the_comment_limit_with_a_note() -> None:
    nodes = {f"node-{i:03}": float(i) for i in range(40)}
    flipped = {name: 100.0 - score for name, score in nodes.items()}
    fixtures = tuple(
        fixture(f"fixtures/f{i:03}.policytest.yaml", f"case {i}", nodes, flipped)
        for i in range(300)
    )
    report = DiffReport("main", "HEAD", fixtures=fixtures)
    md = render(report)
    assert len(md.encode("utf-8")) <= COMMENT_LIMIT
    assert "**Truncated:**" in md and "more sections left out" in md
    assert md.count("<details>") == md.count("</details>")  # only whole blocks are kept
    summary_rows = [line for line in md.splitlines() if line.startswith("| <code>fixtures/")]
    assert len(summary_rows) == 50
    assert "| … | 250 more | see the details |" in md
    small = render(report, limit=5_000)
    assert len(small.encode("utf-8")) <= 5_000
    assert small.startswith(MARKER) and "**Truncated:**" in small


def test_node_rows_are_capped() -> None:
    nodes = {f"node-{i:03}": float(i) for i in range(60)}
    report = DiffReport(
        "a",
        "b",
        fixtures=(fixture("f.policytest.yaml", "c", nodes, {n: -s for n, s in nodes.items()}),),
    )
    md = render(report)
    assert "| … | 35 more nodes | | |" in md


def test_node_rows_show_a_small_change_with_the_decimals_it_needs() -> None:
    """Two decimals, as ``run``'s tables, but a change that is not 0 never prints as 0."""
    diff = fixture("f.policytest.yaml", "c", {"a": 10.5, "b": 1 / 3}, {"a": 10.501, "b": 2 / 3})
    rows = node_rows(diff.cases[0])
    assert rows == [
        ("a", "1 -> 1", "10.500 -> 10.501", "+0.001"),
        ("b", "2 -> 2", "0.333 -> 0.667", "+0.333"),
    ]


def test_registry_and_command_agree() -> None:
    from policytest.commands.diff import FAIL_ON as CLI_FAIL_ON
    from policytest.diff.model import FAIL_ON

    assert CLI_FAIL_ON == FAIL_ON
    report = DiffReport("a", "b")
    assert {name: render_diff(name, report, color=False) for name in DIFF_FORMATS}
