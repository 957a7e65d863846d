"""Text that stays readable at any cluster size: the best nodes and a kube-scheduler
style summary of the filtered ones, placements summed up and wrapped, ``--top`` and
``--all-nodes``, and colour on a terminal unless ``NO_COLOR``."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policytest.reporters.run import DEFAULT_TOP
from policytest.reporters.run.availability import availability, reason_groups
from policytest.reporters.run.text import PER_LINE, node_table, placement_lines
from policytest.scoring.protocol import NodeScore
from tests.conftest import VOLCANO_CONF, RunLine, user_repository


def test_availability_counts_each_reason_and_sorts_as_kube_scheduler() -> None:
    nodes = [
        NodeScore("a", False, "Insufficient cpu"),
        NodeScore("b", False, "Insufficient cpu, Insufficient memory"),
        NodeScore("c", False, "node(s) were unschedulable"),
        NodeScore("d", True, None, 10.0),
    ]
    # FitError sorts the "count reason" strings, so "1 ..." comes before "2 ..."
    assert availability(nodes) == (
        "1/4 nodes are available: 1 Insufficient memory, 1 node(s) were unschedulable, "
        "2 Insufficient cpu."
    )
    groups = reason_groups(nodes)
    assert [(g.reason, g.count, g.examples) for g in groups] == [
        ("Insufficient cpu", 1, ("a",)),
        ("Insufficient cpu, Insufficient memory", 1, ("b",)),
        ("node(s) were unschedulable", 1, ("c",)),
    ]


def cluster(size: int, scored: int) -> list[NodeScore]:
    return [
        NodeScore(f"node-{i}", True, None, float(i), {"binpack": float(i)})
        if i < scored
        else NodeScore(
            f"node-{i}", False, "Insufficient cpu" if i % 2 else "node(s) were unschedulable"
        )
        for i in range(size)
    ]


def test_a_3000_node_table_is_the_best_nodes_and_one_summary() -> None:
    table = node_table(cluster(3000, 4))
    assert len(table) == 1 + 4 + 1 + 2  # header, scored, the line, one line per reason
    assert table[5] == (
        "4/3000 nodes are available: 1498 Insufficient cpu, 1498 node(s) were unschedulable."
    )
    assert table[6].startswith("  1,498 Insufficient cpu: node-5, node-7, node-9,")
    many_scored = node_table(cluster(3000, 3000))
    assert len(many_scored) == 1 + DEFAULT_TOP + 1
    assert many_scored[-1] == "... 2,990 more scored nodes"
    assert len(node_table(cluster(3000, 4), top=None)) == 1 + 3000


@settings(max_examples=40)
@given(names=st.lists(st.text(min_size=1, max_size=30), min_size=1, max_size=60, unique=True))
def test_placements_lines_depend_on_how_many_nodes_never_on_names(names: list[str]) -> None:
    placements = dict.fromkeys(names, 1)
    shown = min(len(names), DEFAULT_TOP) + (len(names) > DEFAULT_TOP)
    assert len(placement_lines(placements)) == -(-shown // PER_LINE)
    everything = placement_lines(placements, top=None, pending=0)
    assert len(everything) == -(-len(names) // PER_LINE)
    assert everything[-1].endswith("}, pending: 0")


def failing_fixture(path: Path, nodes: int) -> Path:
    rows = "\n".join(
        f"  - name: n{i}\n    allocatable: {{cpu: '8', memory: 8Gi, pods: '110'}}"
        + ("\n    unschedulable: true" if i >= 12 else "")
        for i in range(nodes)
    )
    path.write_text(
        "apiVersion: policytest/v1\nkind: PolicyTest\nscheduler:\n"
        "  volcano: {actions: 'enqueue, allocate',\n"
        "            tiers: [{plugins: [{name: predicates}, {name: binpack}]}]}\n"
        f"cluster:\n  nodes:\n{rows}\ncases:\n- name: wrong\n"
        "  pods: [{requests: {cpu: '1'}, count: 30}]\n  expect: {nodesUsed: 1}\n",
        encoding="utf-8",
    )
    return path


def test_run_lists_the_top_nodes_and_all_with_a_flag(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    fixture = failing_fixture(tmp_path / "big.policytest.yaml", 40).name
    default = run_line(["run", fixture])
    assert default.exit_code == 1, default
    assert "... 2 more scored nodes" in default.stdout
    assert "12/40 nodes are available: 28 node(s) were unschedulable." in default.stdout
    top = run_line(["run", fixture, "--top", "3"])
    assert "... 9 more scored nodes" in top.stdout
    every = run_line(["run", fixture, "--all-nodes"])
    assert every.stdout.count(" filtered ") == 28 and "more scored" not in every.stdout
    assert run_line(["run", fixture, "--top", "0"]).exit_code == 2


@pytest.mark.parametrize(("variable", "coloured"), [("FORCE_COLOR", True), ("NO_COLOR", False)])
def test_explain_colours_on_a_terminal_unless_no_color(
    run_line: RunLine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
    coloured: bool,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv(variable, "1")
    fixture = failing_fixture(tmp_path / "big.policytest.yaml", 14).name
    result = run_line(["explain", fixture])
    assert ("\033[31m[failed]\033[0m" in result.stdout) is coloured
    assert ("\033[" in result.stdout) is coloured


def test_an_empty_expectation_names_the_best_nodes_not_every_node(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """issue 37: the message inlined a 36-node ranking of long names on one line."""
    nodes = "".join(
        f'  - {{name: a-rather-long-node-name-in-pool-{i:02d}, allocatable: {{cpu: "{8 + i}",'
        f' memory: 64Gi, pods: "110"}}}}\n'
        for i in range(36)
    )
    fixture = (
        "apiVersion: policytest/v1\nkind: PolicyTest\nscheduler: {config: volcano.yaml}\n"
        f"cluster:\n  nodes:\n{nodes}cases:\n"
        '- name: one\n  pod: {requests: {cpu: "1"}}\n  expect: {}\n'
        '- name: many\n  pods: [{requests: {cpu: "4"}, count: 60}]\n  expect: {}\n'
    )
    user_repository(
        tmp_path, monkeypatch, {"volcano.yaml": VOLCANO_CONF, "f.policytest.yaml": fixture}
    )
    shown = run_line(["run", "f.policytest.yaml", "--format", "json"])
    one, many = (r["message"] for r in __import__("json").loads(shown.stdout)["results"])
    assert "... 31 more]" in one and len(one) < 400, one
    assert ", ... " in many and "more nodes}" in many and len(many) < 600, many


def test_a_long_filter_reason_sets_no_column_width() -> None:
    """issue 37: every plugin column was as wide as the longest filter reason."""
    nodes = [
        NodeScore("a", True, None, 10.0, {"binpack": 10.0}),
        NodeScore("b", False, "node(s) had untolerated taint {dedicated: gpu-training-only}"),
    ]
    header, scored, filtered = node_table(nodes)
    assert header == "rank  node  total     binpack"  # as wide as `filtered`
    assert scored == "1     a     10        10"
    assert filtered.startswith("-     b     filtered  node(s) had untolerated taint")


@pytest.mark.parametrize(
    ("values", "digits"),
    [([79.16666666666667, 64.58333333333333], 2), ([79.1666, 79.1684], 3), ([1.0, 2.0], 2)],
)
def test_scores_show_two_decimals_unless_two_would_print_alike(
    values: list[float], digits: int
) -> None:
    """Volcano's float scores printed ten significant digits in text and two in HTML; both
    show the same decimals now (tests/browser checks the page's)."""
    from policytest.harness.runner import score_digits
    from policytest.reporters.html.views import node_table as html_table

    assert score_digits(values) == digits
    nodes = [NodeScore(f"n{i}", True, None, v, {"binpack": v}) for i, v in enumerate(values)]
    assert html_table(nodes, (), {}, {}, None)["digits"] == digits


def test_a_new_case_in_diff_names_the_best_nodes_not_every_node() -> None:
    """issue 37: `diff` of a new fixture inlined a 36-node ranking on one line."""
    from policytest.diff.model import CaseSide
    from policytest.reporters.diff.words import outcome

    ranking = tuple((f"a-rather-long-node-name-in-pool-{i:02d}",) for i in range(36))
    said = outcome(CaseSide("passed", "", ranking))
    assert said.endswith("a-rather-long-node-name-in-pool-04, ... 31 more]") and len(said) < 300


@pytest.mark.parametrize(
    ("value", "shown"), [(489.125, "489.13"), (-0.125, "-0.13"), (2.675, "2.67"), (7.0, "7")]
)
def test_a_score_rounds_as_the_html_report_rounds(value: float, shown: str) -> None:
    """The text table printed 1114.125 as 1114.12 (Python rounds a tie to even) where the
    HTML report's toFixed printed 1114.13; both round a tie away from zero now (2.675 is
    2.67499999... in binary, so both print 2.67)."""
    from policytest.harness.runner import format_score

    assert format_score(value, 2) == shown
    (_, row) = node_table([NodeScore("a", True, None, value, {"binpack": value})])
    assert row.split() == ["1", "a", shown, shown]
