"""``policytest simulate`` output: packing metrics, one column per config."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from policytest.harness.runs import OrderSpread, spread
from policytest.harness.simulate import Breakdown, PackingReport, RepackPacking, ResourceUse
from policytest.harness.sweep import Variant, best
from policytest.reporters.quoting import json_document, text
from policytest.reporters.run import DEFAULT_TOP
from policytest.reporters.run.jobs import stranded_lines
from policytest.reporters.run.scheduling import not_simulated_lines, not_simulated_names
from policytest.reporters.run.text import frees
from policytest.reporters.validate.text import plural

__all__ = ["render_json", "render_text"]


def render_text(reports: Sequence[PackingReport], variants: Sequence[Variant] = ()) -> str:
    """A table per workload: rows are metrics, columns are the configs compared (for a
    sweep, a row per variant and the best named); then the random arrival orders."""
    blocks = []
    spreads = spread(reports)
    for (path, case), group in by_workload(reports):
        unsimulated = not_simulated_lines(
            list(dict.fromkeys(item for report in group for item in report.not_simulated))
        )
        notes = "".join(f"  {line}\n" for line in [*outcome_lines(group), *unsimulated])
        lines = [heading(path, case, group[0])]
        if variants:
            lines += repack_lines(group, answer=False)
            body = _table(sweep_rows(group, variants, spreads)) + _best_line(group, variants)
        else:
            lines += repack_lines(group)
            body = _table(metric_rows(group)) + _unplaced(group) + _orders(group, spreads)
        blocks.append("\n".join(lines) + f"\n{body}{notes}")
    return "\n".join(blocks)


def sweep_rows(
    group: Sequence[PackingReport], variants: Sequence[Variant], spreads: Sequence[OrderSpread]
) -> list[tuple[str, list[str]]]:
    """A sweep's table, transposed for :func:`_table`: a column per variant would not fit,
    so each row is a variant (its values, nodes in use, freed, pending, cpu use, whether
    it is a candidate) and the first "row" holds the headers."""
    keys = [key for key, _ in variants[0].params]
    by_label = {report.label: report for report in group}
    ordered = {(s.label): s for s in spreads if (s.path, s.case) == _place(group[0])}
    headers = [*keys, "nodes in use", "freed", "pending", "cpu mean"]
    if ordered:
        headers.append("orders min / median / max")
    headers.append("candidate")
    rows = [(headers[0], headers[1:])]
    for variant in variants:
        report = by_label[variant.name]
        cells = [text(value) for _, value in variant.params]
        freed = "-" if report.repack is None else f"{report.repack.nodes_freed:,}"
        cpu = _find(report, "cpu")
        cells += [f"{report.nodes_in_use:,}", freed, f"{report.pending:,}"]
        cells.append("-" if cpu is None else f"{cpu.mean_utilisation:.1%}")
        if ordered:
            over = ordered[variant.name]
            cells.append(f"{over.least} / {_number(over.median)} / {over.most}")
        cells.append("yes" if variant.candidate else "no: corrected")
        rows.append((cells[0], cells[1:]))
    return rows


def _best_line(group: Sequence[PackingReport], variants: Sequence[Variant]) -> str:
    chosen = best(variants, group)
    if chosen is None:
        return "  best: none (every variant is one the scheduler corrects)\n"
    report = next(r for r in group if r.label == chosen.name)
    found = ", ".join(f"{f.rule} {f.severity.value}" for f in chosen.findings) or "none"
    freed = "" if report.repack is None else f" ({frees(report.repack.nodes_freed)})"
    return (
        f"  best: {text(chosen.name)}: {report.nodes_in_use:,} nodes in use{freed}, "
        f"{report.pending:,} pending; its findings: {found}\n"
    )


def _orders(group: Sequence[PackingReport], spreads: Sequence[OrderSpread]) -> str:
    """``--orders``: nodes in use over each config's random arrival orders."""
    mine = [s for s in spreads if (s.path, s.case) == _place(group[0])]
    if not mine:
        return ""
    first = mine[0]
    parts = [f"{text(s.label)} {s.least}, {_number(s.median)}, {s.most}" for s in mine]
    return f"  nodes in use over {first.runs:,} random arrival orders (min, median, max): " + (
        "; ".join(parts) + "\n"
    )


def _place(report: PackingReport) -> tuple[str, str]:
    return report.path, report.case


def repack_lines(group: Sequence[PackingReport], *, answer: bool = True) -> list[str]:
    """A repack's answer in one line (each config: the nodes it needs, the nodes it
    frees; left out with ``answer`` false: a sweep's table says it), then what stayed
    where it was and what the reader should know."""
    first = group[0].repack
    if first is None:
        return []
    answers = [
        f"{text(r.label)} needs {r.nodes_in_use:,}"
        + (f" of the {first.nodes_in_use_before:,} nodes in use today" if i == 0 else "")
        + f", {frees(_repack(r).nodes_freed)}"
        + (f" ({_count(r.pending, 'pod')} fit nowhere)" if r.pending else "")
        for i, r in enumerate(group)
    ]
    stayed = ", ".join(f"{count:,} {reason}" for reason, count in first.pods_kept.items())
    order = "in creation order"
    if any(report.jobs for report in group):  # a Volcano conf ran them as sessions
        order += " (under a Volcano conf, job by job, as its sessions take them)"
    lines = [
        *(["  repack: " + "; ".join(answers)] if answer else []),
        f"  {_count(group[0].pods, 'pod')} placed again {order}; "
        f"stayed where they are: {stayed or 'none'}; {first.nodes_in_use_before:,} nodes "
        "in use today",
    ]
    return lines + [f"  note: {text(note)}" for note in first.notes]


def _repack(report: PackingReport) -> RepackPacking:
    assert report.repack is not None
    return report.repack


def _unplaced(group: Sequence[PackingReport]) -> str:
    """Per config, whose pods fit nowhere after a repack."""
    lines = []
    for report in group:
        if report.repack is not None and report.repack.unplaced:
            owners = ", ".join(f"{text(who)} ({n:,})" for who, n in report.repack.unplaced)
            lines.append(f"  {text(report.label)}: fit nowhere: {owners}\n")
    return "".join(lines)


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
    if any(report.jobs for report in group):
        rows.append(("jobs started", [_started(report) for report in group]))
    if any(report.not_simulated for report in group):
        rows.append(("not simulated", [not_simulated_names(r.not_simulated) or "-" for r in group]))
    for name in _resource_names(group):
        uses = [_find(report, name) for report in group]
        rows.append(
            (
                f"{text(name)} utilisation mean / max over nodes in use",
                [_utilisation(u) for u in uses],
            )
        )
        rows.append((f"{text(name)} stranded on full nodes", [_stranded(u) for u in uses]))
    if group[0].repack is not None:
        rows += _repack_rows(group)
    return rows


def _repack_rows(group: Sequence[PackingReport]) -> list[tuple[str, list[str]]]:
    """Nodes in use today and freed, in all and per shape and zone (rows of today's
    breakdown; every config has the same nodes)."""
    repacks = [_repack(report) for report in group]
    rows = [
        ("nodes in use today", [f"{r.nodes_in_use_before:,}" for r in repacks]),
        ("nodes freed", [f"{r.nodes_freed:,}" for r in repacks]),
    ]
    for title, tables in (
        ("instance type", [r.shapes for r in repacks]),
        ("zone", [r.zones for r in repacks]),
    ):
        for index, row in enumerate(tables[0]):
            label = f"{title} {text(row.name)} ({row.in_use_before:,} of {row.nodes:,} in use)"
            rows.append((label, [_in_use(table[index]) for table in tables]))
    return rows


def _in_use(row: Breakdown) -> str:
    """``9 in use, frees 5``."""
    return f"{row.in_use:,} in use, {frees(row.freed)}"


def outcome_lines(group: Sequence[PackingReport], top: int = DEFAULT_TOP) -> list[str]:
    """Per config, the jobs that did not start and why (the first ``top``), and the
    capacity left free in pieces too small for them, or for the pods left pending."""
    lines: list[str] = []
    for report in group:
        waiting = [(key, job) for key, job in report.jobs.items() if job.bound < job.min_member]
        if not waiting and not report.stranded:
            continue
        lines.append(f"With {text(report.label)}:")
        if waiting:
            lines.append(f"  {plural(len(waiting), 'job')} did not start:")
            for key, job in waiting[:top]:
                why = f": {text(job.reason)}" if job.reason else ""
                lines.append(f"    {text(key)} ({job.phase}, {job.bound:,} bound){why}")
            if len(waiting) > top:
                lines.append(f"    ... {len(waiting) - top:,} more")
        lines += [f"  {line}" for line in stranded_lines(report.stranded, top)]
    return lines


def _started(report: PackingReport) -> str:
    started = sum(1 for job in report.jobs.values() if job.bound >= job.min_member)
    return f"{started:,} of {len(report.jobs):,}"


def render_json(reports: Sequence[PackingReport], variants: Sequence[Variant] = ()) -> str:
    """``{"reports": [...]}``: every field of every report in the case's own order
    (utilisation as 0..1), its keys in camelCase as ``run`` and ``diff`` write theirs
    (``nodesUsed``, ``fullNodes``); ``orders``: per config, nodes in use over the random
    orders; ``sweep``: the variants and the best of each workload."""
    shown = [
        {key: value for key, value in asdict(report).items() if key not in _PER_NODE}
        | _repack_counts(report)
        for report in reports
        if report.order is None
    ]
    document: dict[str, Any] = {"reports": [_camel_keys(item, nested=True) for item in shown]}
    spreads = spread(reports)
    if spreads:
        document["orders"] = [
            {
                "path": s.path,
                "case": s.case,
                "label": s.label,
                "runs": s.runs,
                "min": s.least,
                "median": s.median,
                "max": s.most,
                "nodesInUse": [
                    r.nodes_in_use
                    for r in reports
                    if r.order is not None
                    and (r.path, r.case, r.label) == (s.path, s.case, s.label)
                ],
            }
            for s in spreads
        ]
    if variants:
        document["sweep"] = _sweep_json(reports, variants)
    return json_document(document)


def _sweep_json(reports: Sequence[PackingReport], variants: Sequence[Variant]) -> dict[str, Any]:
    from policytest.reporters.json_report import finding_json

    main = [report for report in reports if report.order is None]
    return {
        "variants": [
            {
                "label": variant.name,
                "params": dict(variant.params),
                "candidate": variant.candidate,
                "findings": [finding_json(f) for f in variant.findings],
            }
            for variant in variants
        ],
        "best": [
            {"path": path, "case": case, "label": chosen.name if chosen else None}
            for (path, case), group in by_workload(main)
            for chosen in [best(variants, group)]
        ],
    }


def _repack_counts(report: PackingReport) -> dict[str, Any]:
    """A repack's nodes in use before and freed, beside ``nodes_in_use`` (its details
    stay under ``repack``); nothing for other workloads."""
    if report.repack is None:
        return {}
    return {
        "nodes_in_use_before": report.repack.nodes_in_use_before,
        "nodes_freed": report.repack.nodes_freed,
    }


def _camel_keys(value: Any, *, nested: bool) -> Any:
    """Field names in camelCase, down through lists and the resource entries; the keys of
    ``placements`` (node names) and ``jobs`` (PodGroups) stay as they are."""
    if isinstance(value, (list, tuple)):
        return [_camel_keys(item, nested=nested) for item in value]
    if not isinstance(value, dict) or not nested:
        return value
    return {
        _camel(key): {name: _camel_keys(each, nested=True) for name, each in item.items()}
        if key == "jobs"
        else _camel_keys(item, nested=key not in _NAMED_KEYS)
        for key, item in value.items()
    }


_NAMED_KEYS = frozenset({"placements", "pods_kept"})
"""Maps keyed by names from the input or reasons, not by field names: kept as they are."""


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.capitalize() for part in rest)


_PER_NODE = frozenset({"utilisation", "before"})
"""Fields with one entry per node and resource: for the HTML report, not the JSON summary."""


def by_workload(
    reports: Sequence[PackingReport],
) -> list[tuple[tuple[str, str], list[PackingReport]]]:
    """The reports of each workload in the case's own order (random orders left out)."""
    groups: dict[tuple[str, str], list[PackingReport]] = {}
    for report in reports:
        if report.order is None:
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
    if use is None or use.stranded is None:
        return "-"  # not a resource of this config's report, or one no pod requests
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
