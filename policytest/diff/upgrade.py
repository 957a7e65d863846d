"""``policytest upgrade``: what a release upgrade does to the fixtures, before it happens.

The same fixtures and configs run twice: as the release they are judged as today (each
fixture's own, else the flag's, the settings file's or the default) and as the target
release, which every fixture is judged as, also one that states its own. The result is
a :class:`~policytest.diff.model.DiffReport`, rendered by the ``diff`` reporters: which
rankings and placements change, and for each changed case the release fact behind it (a
plugin's formula, or the finding with which the new release refuses the config).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from policytest.core.errors import PathNotFound
from policytest.core.options import CheckOptions
from policytest.core.releases import kube_release, volcano_release
from policytest.diff.compare import schedulers_of
from policytest.diff.model import (
    OTHER_RELEASE,
    DiffReport,
    FixtureDiff,
    Located,
    SettingsChange,
    compare_findings,
    compare_fixture,
    left_out,
)
from policytest.harness.load import root_for
from policytest.harness.releases import SCHEDULER_NAMES, with_release
from policytest.harness.runner import CaseResult
from policytest.harness.suite import discover, run_file

__all__ = ["TARGETS", "PathNotFound", "preview_upgrade"]

TARGETS = (
    ("kubernetes_version", "kubernetesVersion", "kube-scheduler"),
    ("volcano_version", "volcanoVersion", "Volcano"),
)
"""(``CheckOptions`` field, settings key, the scheduler whose release it is)."""


def preview_upgrade(
    paths: Sequence[str], options: CheckOptions, targets: Mapping[str, str]
) -> DiffReport:
    """Run the fixtures under ``paths`` as today and as the ``targets`` releases
    (``CheckOptions`` field -> release) and compare. Raises :class:`PathNotFound`."""
    upgraded = replace(options, forced_releases=frozenset(targets))
    for field, release in targets.items():
        upgraded = with_release(upgraded, field, release)
    named = [
        (
            scheduler,
            SettingsChange(
                key, _shown(field, getattr(options, field)), _shown(field, targets[field])
            ),
        )
        for field, key, scheduler in TARGETS
        if field in targets
    ]
    runs: list[FixtureDiff] = []
    not_run: list[str] = []
    found_before: list[Located] = []
    found_after: list[Located] = []
    for path in discover(paths):
        if not _moves(schedulers_of(path, options), targets):
            not_run.append(path)
            continue
        root = root_for(path, options)
        before = run_file(path, options, root)
        after = run_file(path, upgraded, root)
        found_before += _findings(before)
        found_after += _findings(after)
        runs.append(compare_fixture(path, _reason(before, after), before, after))
    introduced, resolved = compare_findings(found_before, found_after)
    return DiffReport(
        ", ".join(f"{scheduler} {change.before}" for scheduler, change in named),
        ", ".join(f"{scheduler} {change.after}" for scheduler, change in named),
        fixtures=tuple(runs),
        introduced=introduced,
        resolved=resolved,
        skipped=left_out(OTHER_RELEASE, not_run, named=True),
        settings=tuple(change for _, change in named),
        command="upgrade",
    )


def _shown(field: str, text: str) -> str:
    """A release as the table names it (``v1.36.3`` -> ``1.36``)."""
    select = kube_release if field == "kubernetes_version" else volcano_release
    return select(text).name


def _moves(schedulers: set[str | None], targets: Mapping[str, str]) -> bool:
    """Is a fixture file of a scheduler whose release changes (or of none yet known: a
    fixture whose config cannot be read runs on both sides, and says so)?"""
    return not schedulers or any(
        scheduler is None or SCHEDULER_NAMES[scheduler] in targets for scheduler in schedulers
    )


def _reason(before: Sequence[CaseResult], after: Sequence[CaseResult]) -> str:
    old = sorted({r.release for r in before if r.release})
    new = sorted({r.release for r in after if r.release})
    if not old or not new:
        return "run on both releases"
    return f"judged as {', '.join(new)} instead of {', '.join(old)}"


def _findings(results: Sequence[CaseResult]) -> list[Located]:
    """The config findings the cases ran with, each once (a finding belongs to its file)."""
    unique = {finding for result in results for finding in result.findings}
    return [(finding.path, finding) for finding in sorted(unique)]
