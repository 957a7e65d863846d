"""``policytest simulate`` output: packing metrics, one column per config."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from policytest.harness.simulate import PackingReport, ResourceUse
from policytest.reporters.quoting import json_document, text
from policytest.reporters.run.scheduling import not_simulated_lines, not_simulated_names

__all__ = ["render_json", "render_text"]


def render_text(reports: Sequence[PackingReport]) -> str:
    """A table per workload: rows are metrics, columns are the configs compared."""
    blocks = []
    for (path, case), group in by_workload(reports):
        unsimulated = not_simulated_lines(
            list(dict.fromkeys(item for report in group for item in report.not_simulated))
        )
        notes = "".join(f"  {line}\n" for line in unsimulated)
        blocks.append(f"{heading(path, case, group[0])}\n{_table(metric_rows(group))}{notes}")
    return "\n".join(blocks)


def heading(path: str, case: str, first: PackingReport) -> str:
    """``PATH: case `NAME` (10 pods, 3 nodes)``, quoted for a terminal."""
    counts = f"{_count(first.pods, 'pod')}, {_count(first.nodes, 'node')}"
    return f"{text(path)}: case `{text(case)}` ({counts})"


def metric_rows(group: Sequence[PackingReport]) -> list[tuple[str, list[str]]]:
    """The metrics of one workload: a label, then one cell per config compared."""
    rows: list[tuple[str, list[str]]] = [
        ("config", [text(report.label) for report in group]),
        ("judged as", [text(report.release or "-") for report in group]),
        ("pods placed", [f"{r.placed:,} of {r.pods:,}" for r in group]),
        ("pods pending", [f"{r.pending:,}" for r in group]),
        ("nodes used (got pods)", [f"{r.nodes_used:,}" for r in group]),
        ("nodes in use", [f"{r.nodes_in_use:,} of {r.nodes:,}" for r in group]),
        ("full nodes (no pod fits any more)", [f"{r.full_nodes:,}" for r in group]),
        ("placements decided by a tie", [f"{r.tie_decided:,}" for r in group]),
    ]
    if any(report.not_simulated for report in group):
        rows.append(("not simulated", [not_simulated_names(r.not_simulated) or "-" for r in group]))
    for name in _resource_names(group):
        uses = [_find(report, name) for report in group]
        rows.append((f"{text(name)} utilisation mean / max", [_utilisation(u) for u in uses]))
        rows.append((f"{text(name)} stranded on full nodes", [_stranded(u) for u in uses]))
    return rows


def render_json(reports: Sequence[PackingReport]) -> str:
    """``{"reports": [...]}``: every field of every report (utilisation as 0..1), its keys
    in camelCase as ``run`` and ``diff`` write theirs (``nodesUsed``, ``fullNodes``)."""
    shown = [
        {key: value for key, value in asdict(report).items() if key not in _PER_NODE}
        for report in reports
    ]
    return json_document({"reports": [_camel_keys(item, nested=True) for item in shown]})


def _camel_keys(value: Any, *, nested: bool) -> Any:
    """Field names in camelCase, down through lists and the resource entries; the keys of
    ``placements`` are node names and stay as they are."""
    if isinstance(value, (list, tuple)):
        return [_camel_keys(item, nested=nested) for item in value]
    if not isinstance(value, dict) or not nested:
        return value
    return {
        _camel(key): _camel_keys(item, nested=key != "placements") for key, item in value.items()
    }


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.capitalize() for part in rest)


_PER_NODE = frozenset({"utilisation", "before"})
"""Fields with one entry per node and resource: for the HTML report, not the JSON summary."""


def by_workload(
    reports: Sequence[PackingReport],
) -> list[tuple[tuple[str, str], list[PackingReport]]]:
    groups: dict[tuple[str, str], list[PackingReport]] = {}
    for report in reports:
        groups.setdefault((report.path, report.case), []).append(report)
    return list(groups.items())


def _resource_names(group: Sequence[PackingReport]) -> list[str]:
    names: dict[str, None] = {}
    for report in group:
        names.update((use.name, None) for use in report.resources)
    return list(names)


def _find(report: PackingReport, name: str) -> ResourceUse | None:
    return next((use for use in report.resources if use.name == name), None)


def _utilisation(use: ResourceUse | None) -> str:
    if use is None:
        return "-"
    return f"{use.mean_utilisation:.1%} / {use.max_utilisation:.1%}"


def _stranded(use: ResourceUse | None) -> str:
    if use is None:
        return "-"
    return f"{_number(use.stranded)} {use.unit}".rstrip()


def _count(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'s' * (count != 1)}"


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def _table(rows: Sequence[tuple[str, list[str]]]) -> str:
    label_width = max(len(label) for label, _ in rows)
    columns = len(rows[0][1])
    widths = [max(len(cells[i]) for _, cells in rows) for i in range(columns)]
    lines = []
    for label, cells in rows:
        padded = "  ".join(cell.rjust(widths[i]) for i, cell in enumerate(cells))
        lines.append(f"  {label.ljust(label_width)}  {padded}")
    return "\n".join(lines) + "\n"
