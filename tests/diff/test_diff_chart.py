"""The Mermaid chart of the pull-request comment: its shape whatever the case names.

Mermaid reads syntax almost everywhere (``%%{init}%%`` directives, ``click`` callbacks,
quotes and brackets that end a label, entities, HTML); a label from an input must stay
one quoted label of plain characters. A real Mermaid renders these charts in
``tests/browser/test_mermaid_chart.py``.
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from policytest.diff.model import DiffReport, compare_fixture
from policytest.harness.runner import CaseResult, rank
from policytest.reporters.diff.chart import MAX_CASES, MAX_NODES, nodes_used_chart
from policytest.reporters.diff.markdown import COMMENT_LIMIT, render
from policytest.reporters.quoting import MERMAID_LABEL_LIMIT, mermaid
from policytest.scoring.protocol import NodeScore

HOSTILE = [
    '%%{init: {"securityLevel": "loose"}}%%',
    'a"]\nclick A callback "x"',
    'x-axis ["a", "b"] ; bar [1]',
    "<img src=x onerror=alert(1)>",
    "``` \n# heading",
    "#quot; #35; &quot;",
    "\u202eevil\u200b",
    "{{ 7*7 }} javascript:alert(1)",
]
LABEL = re.compile(r'"[\w \-./:+=,()]*…?"')
names = st.one_of(st.sampled_from(HOSTILE), st.text(min_size=1, max_size=80))


@settings(max_examples=200)
@given(value=names)
@example(value="a" * (MERMAID_LABEL_LIMIT + 1))
def test_a_label_is_one_quoted_run_of_plain_characters(value: str) -> None:
    label = mermaid(value)
    assert LABEL.fullmatch(label), label
    assert len(label) <= MERMAID_LABEL_LIMIT + 3
    assert label.endswith('…"') == (len(value) > MERMAID_LABEL_LIMIT)


def sequence(case: str, placed: dict[str, int]) -> CaseResult:
    nodes = tuple(NodeScore(name, True, None, 1.0, {"binpack": 1.0}) for name in placed)
    return CaseResult(
        "f.policytest.yaml",
        case,
        "passed",
        nodes=nodes,
        ranking=rank(nodes),
        placements=placed,
        pending=0,
    )


def report(names: list[str]) -> DiffReport:
    before = [sequence(name, {"a": 2, "b": 2}) for name in names]
    after = [sequence(name, {"a": 4, "b": 0}) for name in names]
    return DiffReport("main", "HEAD", fixtures=(compare_fixture("f", "why", before, after),))


def chart_lines(markdown: str) -> list[str]:
    start = markdown.index("```mermaid\n")
    return markdown[start : markdown.index("\n```\n", start) + 4].splitlines()


@settings(max_examples=60)
@given(case_names=st.lists(names, min_size=1, max_size=MAX_CASES + 3, unique=True))
def test_the_chart_keeps_its_shape_whatever_the_names(case_names: list[str]) -> None:
    markdown = render(report(case_names))
    lines = chart_lines(markdown)
    drawn = min(len(case_names), MAX_CASES)
    assert lines[:3] == [
        "```mermaid",
        "xychart-beta",
        '    title "Nodes used: before (bars), after (line)"',
    ]
    labels = re.fullmatch(r"    x-axis \[(.*)\]", lines[3])
    assert labels is not None
    assert len(LABEL.findall(labels.group(1))) == drawn
    assert LABEL.sub("", labels.group(1)) == ", " * (drawn - 1)
    assert lines[4:] == [
        '    y-axis "nodes used" 0 --> 3',
        f"    bar [{', '.join(['2'] * drawn)}]",
        f"    line [{', '.join(['1'] * drawn)}]",
        "```",
    ]
    assert len(markdown.encode("utf-8")) <= COMMENT_LIMIT


def test_no_chart_without_a_placement_change() -> None:
    same = [sequence("s", {"a": 1})]
    unchanged = DiffReport("a", "b", fixtures=(compare_fixture("f", "why", same, same),))
    assert nodes_used_chart(unchanged) is None
    assert "mermaid" not in render(unchanged)


def test_no_chart_of_cases_that_use_as_many_nodes() -> None:
    """``2 -> 2``: the placements changed, the chart would say nothing; a case that
    uses another number of nodes beside it is drawn alone."""
    moved = [sequence("moved", {"a": 2, "b": 1, "c": 0}), sequence("packed", {"a": 2, "b": 2})]
    after = [sequence("moved", {"a": 1, "b": 2, "c": 0}), sequence("packed", {"a": 4, "b": 0})]
    two_to_two = DiffReport("a", "b", fixtures=(compare_fixture("f", "why", moved[:1], after[:1]),))
    assert two_to_two.count("placements") == 1
    assert nodes_used_chart(two_to_two) is None
    assert "mermaid" not in render(two_to_two)
    both = DiffReport("a", "b", fixtures=(compare_fixture("f", "why", moved, after),))
    chart = nodes_used_chart(both)
    assert chart is not None and 'x-axis ["1. packed"]' in chart


def ranked(case: str, scores: dict[str, float]) -> CaseResult:
    nodes = tuple(
        NodeScore(name, True, None, total, {"binpack": total}) for name, total in scores.items()
    )
    return CaseResult("f.policytest.yaml", case, "passed", nodes=nodes, ranking=rank(nodes))


def mermaid_blocks(markdown: str) -> list[list[str]]:
    blocks = re.findall(r"```mermaid\n(.*?)\n```\n", markdown, re.DOTALL)
    return [block.splitlines() for block in blocks]


@settings(max_examples=60)
@given(case=names, nodes=st.lists(names, min_size=2, max_size=14, unique=True))
def test_a_scores_chart_keeps_its_shape_whatever_the_names(case: str, nodes: list[str]) -> None:
    before = {name: float(index) for index, name in enumerate(nodes)}
    after = {name: 100.0 - score for name, score in before.items()}
    diff = DiffReport(
        "a",
        "b",
        fixtures=(compare_fixture("f", "why", [ranked(case, before)], [ranked(case, after)]),),
    )
    [chart] = mermaid_blocks(render(diff))
    drawn = min(len(nodes), MAX_NODES)
    assert chart[0] == "xychart-beta"
    title = re.fullmatch(r"    title (.*)", chart[1])
    assert title is not None and LABEL.fullmatch(title.group(1))
    labels = re.fullmatch(r"    x-axis \[(.*)\]", chart[2])
    assert labels is not None and len(LABEL.findall(labels.group(1))) == drawn
    assert LABEL.sub("", labels.group(1)) == ", " * (drawn - 1)
    assert re.fullmatch(r'    y-axis "score" 0 --> [\d.]+', chart[3])
    assert re.fullmatch(r"    bar \[[\d., ]+\]", chart[4]) and re.fullmatch(
        r"    line \[[\d., ]+\]", chart[5]
    )
    assert len(chart) == 6
