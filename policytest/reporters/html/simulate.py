"""``simulate --format html``: configs compared on one workload, drawn.

Per workload: the metrics table of the text report (one column per config), nodes used
per config, the utilisation distribution of every node per resource (before the
workload, then after it with each config), and per config the nodes with the pods
each received, searchable and sortable.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from policytest.harness.simulate import PackingReport
from policytest.harness.sweep import Variant, best
from policytest.reporters.html.page import render_page, shown
from policytest.reporters.html.views import (
    histograms,
    node_table,
    not_simulated,
    resource_names,
)
from policytest.reporters.run.packing import (
    by_workload,
    heading,
    metric_rows,
    outcome_lines,
    sweep_rows,
)
from policytest.scoring.protocol import NodeScore


def render(reports: Sequence[PackingReport], variants: Sequence[Variant] = ()) -> str:
    return render_page(
        "simulate.html.j2",
        title="policytest simulate",
        workloads=[
            _workload(path, case, group, variants) for (path, case), group in by_workload(reports)
        ],
    )


def _sweep(group: Sequence[PackingReport], variants: Sequence[Variant]) -> dict[str, Any]:
    """A sweep, drawn: per parameter, every variant's nodes in use at its value (a
    corrected variant hollow), the best named."""
    by_label = {report.label: report for report in group}
    counts = [by_label[v.name].nodes_in_use for v in variants]
    charts = []
    for position, (key, _) in enumerate(variants[0].params):
        values = list(dict.fromkeys(v.params[position][1] for v in variants))
        charts.append(
            {
                "key": shown(key),
                "values": [shown(value) for value in values],
                "points": [
                    (values.index(v.params[position][1]), count, shown(v.name), v.candidate)
                    for v, count in zip(variants, counts, strict=True)
                ],
            }
        )
    chosen = best(variants, group)
    return {
        "charts": charts,
        "least": min(counts),
        "most": max(counts),
        "best": shown(chosen.name) if chosen else "",
        "rows": sweep_rows(group, variants, ()),
    }


def _workload(
    path: str, case: str, group: Sequence[PackingReport], variants: Sequence[Variant]
) -> dict[str, Any]:
    first = group[0]
    series = [("before", first.before)] + [(shown(r.label), r.utilisation) for r in group]
    return {
        "heading": heading(path, case, first),
        "rows": metric_rows(group),
        "sweep": _sweep(group, variants) if variants else None,
        "used": [(shown(r.label), r.nodes_used, r.nodes_in_use, r.nodes) for r in group],
        "histograms": histograms(resource_names(first.before), series),
        "tables": [(shown(report.label), _nodes(report)) for report in group],
        "outcomes": [shown(line.strip()) for line in outcome_lines(group)],
        "not_simulated": not_simulated(
            dict.fromkeys(item for report in group for item in report.not_simulated)
        ),
    }


def _nodes(report: PackingReport) -> dict[str, Any]:
    nodes = [NodeScore(name, True) for name in report.utilisation]
    return node_table(nodes, (), report.before, report.utilisation, report.placements)
