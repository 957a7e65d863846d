"""``policytest diff --format json``: the whole diff for automation.

``{"base", "head", "summary": {...}, "configs": [...], "fixtures": [...],
"findings": {"introduced": [...], "resolved": [...], "suppressedByChange": [...]},
"notRun": [...],
"notRunReasons": [{"reason", "fixtures"}]}``; keys may be
added, never renamed. Every before/after pair is ``{"before": ..., "after": ...}``.
A case that several changes act on lists under ``causes`` what each one alone does
(``effect``: a case of its own, the base against the base with that change only), and
under ``movedBy`` those that alone have the case's main change (a new winner first).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from policytest.check.validate import ValidationReport
from policytest.core.findings import Finding
from policytest.diff.effective import Setting
from policytest.diff.model import CaseDiff, CaseSide, ConfigDiff, DiffReport, FixtureDiff
from policytest.harness.runner import plain_number
from policytest.reporters.json_report import as_json as findings_json
from policytest.reporters.quoting import json_document

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policytest.reporters.json_report import FindingJSON


def _number(value: float | None) -> float | int | None:
    return None if value is None else plain_number(value)


def _pair(before: object, after: object) -> dict[str, Any]:
    return {"before": before, "after": after}


def _setting(setting: Setting | None) -> dict[str, Any] | None:
    if setting is None:
        return None
    return {"value": setting.value, "written": setting.written}


def _config(config: ConfigDiff) -> dict[str, Any]:
    return {
        "path": config.path,
        "document": config.document,
        "kind": config.kind,
        "change": config.change,
        "settings": [
            {
                "key": change.key,
                **_pair(_setting(change.before), _setting(change.after)),
                "cause": change.cause or None,
            }
            for change in config.settings
        ],
        "fixtures": list(config.fixtures),
    }


def _side(side: CaseSide | None) -> dict[str, Any] | None:
    if side is None:
        return None
    return {
        "status": side.status,
        "message": side.message,
        "winner": list(side.winner),
        "ranking": [list(group) for group in side.ranking],
        "placements": dict(side.placed) if side.placements is not None else None,
        "nodesUsed": side.nodes_used,
        "pending": side.pending,
        "release": side.release or None,
        "notSimulated": [item.name for item in side.not_simulated],
    }


def _plugins(plugins: Mapping[str, float]) -> dict[str, float | int | None]:
    return {name: _number(value) for name, value in plugins.items()}


def _case(case: CaseDiff) -> dict[str, Any]:
    return {
        "case": case.name,
        "change": case.change,
        "sequence": case.sequence,
        "winnerChanged": case.winner_changed,
        "rankingChanged": case.ranking_changed,
        "placementsChanged": case.placements_changed,
        "statusChanged": case.status_changed,
        "why": list(case.why),
        "causes": [
            {
                "change": cause.change,
                "kind": cause.kind,
                "stopped": cause.stopped or None,
                "effect": None if cause.effect is None else _case(cause.effect),
            }
            for cause in case.causes
        ],
        "movedBy": [cause.change for cause in case.moved_by],
        **_pair(_side(case.before), _side(case.after)),
        "nodes": [
            {
                "name": node.name,
                "rank": _pair(node.rank_before, node.rank_after),
                "score": _pair(_number(node.score_before), _number(node.score_after)),
                "delta": _number(node.delta),
                "filtered": _pair(node.filtered_before, node.filtered_after),
                "plugins": _pair(_plugins(node.plugins_before), _plugins(node.plugins_after)),
            }
            for node in case.nodes
        ],
        "placements": [{"node": p.node, **_pair(p.before, p.after)} for p in case.placements],
        "jobs": [
            {
                "job": change.job,
                "bound": _pair(*(o.bound if o else None for o in (change.before, change.after))),
                "phase": _pair(*(o.phase if o else None for o in (change.before, change.after))),
                "reason": _pair(*(o.reason if o else None for o in (change.before, change.after))),
            }
            for change in case.jobs
        ],
    }


def _fixture(fixture: FixtureDiff) -> dict[str, Any]:
    return {
        "path": fixture.path,
        "change": fixture.change,
        "reason": fixture.reason,
        "cases": [_case(case) for case in fixture.cases],
    }


def _findings(findings: tuple[Finding, ...]) -> list[FindingJSON]:
    """Findings in the shape ``policytest validate --format json`` prints them."""
    return findings_json(ValidationReport(findings, ()))["findings"]


def as_json(report: DiffReport) -> dict[str, Any]:
    return {
        "base": report.base,
        "head": report.head,
        "summary": {
            "changed": report.has_changes,
            "configsChanged": len(report.changed_configs),
            "fixturesRun": len(report.fixtures),
            "fixturesChanged": len(report.changed_fixtures),
            "fixturesNotRun": len(report.not_run),
            "casesChanged": len(report.changed_cases),
            "newWinners": report.count("winner"),
            "rankingChanges": report.count("ranking"),
            "placementChanges": report.count("placements"),
            "statusChanges": report.count("status"),
            "findingsIntroduced": len(report.introduced),
            "errorsIntroduced": len(report.introduced_errors),
            "findingsResolved": len(report.resolved),
            "findingsSuppressedByChange": len(report.suppressed),
            "settingsChanged": len(report.settings),
        },
        "settingsPath": report.settings_path or None,
        "settings": [
            {"key": c.key, **_pair(c.before, c.after), "applied": c.applied}
            for c in report.settings
        ],
        "configs": [_config(config) for config in report.configs],
        "fixtures": [_fixture(fixture) for fixture in report.fixtures],
        "findings": {
            "introduced": _findings(report.introduced),
            "resolved": _findings(report.resolved),
            "suppressedByChange": _findings(report.suppressed),
        },
        "notRun": list(report.not_run),
        "notSimulated": [
            {"name": item.name, "kind": item.kind, "effect": item.effect, "side": side}
            for item, side in report.not_simulated
        ],
        "notRunReasons": [
            {"reason": group.reason, "fixtures": list(group.paths)} for group in report.skipped
        ],
    }


def render(report: DiffReport, *, color: bool) -> str:
    return json_document(as_json(report))
