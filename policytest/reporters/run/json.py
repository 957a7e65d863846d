"""JSON for automation: ``{"results": [...], "summary": {...}}`` as the README documents."""

from __future__ import annotations

from typing import Any

from policytest.harness.runner import CaseResult, plain_number
from policytest.harness.suite import RunReport
from policytest.reporters.json_report import finding_json
from policytest.reporters.quoting import json_document

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policytest.sessions.result import SessionsResult


def result_json(result: CaseResult) -> dict[str, Any]:
    rank_of = {
        name: position for position, group in enumerate(result.ranking, start=1) for name in group
    }
    return {
        "file": result.file,
        "case": result.case,
        "status": result.status,
        "release": result.release or None,
        "message": result.message,
        "nodes": [
            {
                "name": node.name,
                "rank": rank_of.get(node.name),
                "total": plain_number(node.total) if node.feasible else None,
                "plugins": {name: plain_number(value) for name, value in node.plugins.items()},
                "feasible": node.feasible,
                "reason": node.reason,
            }
            for node in result.nodes
        ],
        "ranking": [list(group) for group in result.ranking],
        "placements": dict(result.placements) if result.placements is not None else None,
        "pending": result.pending,
        "ties": [
            {
                "pod": step.index + 1,
                "node": step.node,
                "tiedWith": list(step.tied_with),
                "identical": step.identical,
            }
            for step in result.steps
            if step.tied_with
        ],
        "findings": [finding_json(f) for f in result.findings],
        "corrections": list(result.corrections),
        "notScored": list(result.not_modelled),
        "notSimulated": [
            {"name": item.name, "kind": item.kind, "effect": item.effect}
            for item in result.not_simulated
        ],
        "queue": None
        if result.queue is None or result.queue.plain
        else {
            "order": [position + 1 for position in result.queue.order],
            "priorities": list(result.queue.priorities),
        },
        **(_sessions_json(result.sessions) if result.sessions is not None else {}),
        **_repack_json(result),
    }


def _sessions_json(run: SessionsResult) -> dict[str, Any]:
    """A Volcano session case: every bind (commit order, all sessions), each PodGroup
    after the last session, and what was not simulated."""
    return {
        "binds": [
            {
                "pod": bind.pod,
                "node": bind.node,
                "session": bind.session,
                **(
                    {"tiedWith": list(bind.tied_with), "identical": bind.identical}
                    if bind.tied_with
                    else {}
                ),
            }
            for bind in run.binds
        ],
        "podGroups": {
            key: {
                "phase": outcome.phase,
                "bound": outcome.bound,
                "reason": outcome.reason,
                "minMember": outcome.min_member,
                "queue": outcome.queue,
            }
            for key, outcome in run.pod_groups.items()
        },
        "sessions": [
            {
                "index": record.index,
                "binds": len(record.binds),
                "discarded": [{"pod": pod, "node": node} for pod, node in record.discarded],
                "podGroups": {key: o.phase for key, o in record.jobs.items()},
            }
            for record in run.sessions
        ],
        "unsimulatedPlugins": list(run.unsimulated_plugins),
        "notes": list(run.notes),
        "equalShareQueues": run.equal_shares,
    }


def _repack_json(result: CaseResult) -> dict[str, Any]:
    """A repack's counts (``pods: {fromSnapshot: bound}``); nothing for other cases."""
    repack = result.repack
    if repack is None:
        return {}
    return {
        "nodesInUseBefore": repack.in_use_before,
        "nodesInUse": repack.in_use,
        "nodesFreed": repack.freed,
        "podsMoved": repack.moved,
        "podsKept": dict(repack.kept),
        "notes": list(repack.notes),
    }


def as_json(report: RunReport) -> dict[str, Any]:
    return {
        "results": [result_json(result) for result in report.results],
        "summary": {
            "passed": report.count("passed"),
            "failed": report.count("failed"),
            "errors": report.count("error"),
            "updated": report.count("updated"),
        },
    }


def render(report: RunReport, *, color: bool) -> str:
    return json_document(as_json(report))
