"""The result of ``policytest diff``: frozen values, computed once, rendered by reporters.

Comparing is pure: two runs of the same fixture (``CaseResult``s), two views of the same
config (``ConfigView``s), two lists of findings go in; what changed comes out. Reading
revisions and running fixtures happens in :mod:`policytest.diff.compare`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

from policytest.core.exitcodes import ExitCode
from policytest.core.findings import Finding, Severity
from policytest.diff.effective import STATUS, ConfigView, Setting
from policytest.harness.runner import FLOAT_TOLERANCE, CaseResult, Ranking, Status, close_enough
from policytest.scoring.protocol import NotSimulated
from policytest.sessions.result import JobOutcome

Change = Literal["added", "removed", "changed", "unchanged"]
Side = Literal["before", "after", "both"]
Effect = Literal["winner", "ranking", "placements", "status", "error", "scores"]
EFFECTS: tuple[Effect, ...] = ("winner", "ranking", "placements", "status", "error", "scores")
"""What changes in a case, most important first (:attr:`CaseDiff.effect`)."""
FailOn = Literal["findings", "ranking-change", "never"]
FAIL_ON: tuple[FailOn, ...] = ("findings", "ranking-change", "never")


# --- configs ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SettingChange:
    """One effective setting that differs: absent on one side when ``None``."""

    key: str
    before: Setting | None
    after: Setting | None
    cause: str = ""
    """What changed the setting when it was not the file's edit: the settings file's
    change (``kubernetesVersion 1.34 -> 1.36``: a release's default plugins)."""


@dataclass(frozen=True)
class ConfigDiff:
    """One scheduler config (a document of a changed file) before and after.

    ``change`` is ``unchanged`` when the file changed but the scheduler holds the same
    settings (a comment, a reordering, a value it reads the same).
    """

    path: str
    document: str
    kind: str
    change: Change
    settings: tuple[SettingChange, ...]
    fixtures: tuple[str, ...] = ()

    @property
    def unchecked(self) -> bool:
        """Edited, but checked on neither side (a template, another scheduler's conf):
        its one setting is its status, the same before and after."""
        settings = self.settings
        return (
            self.change == "changed"
            and bool(settings)
            and all(s.before == s.after for s in settings)
        )


def compare_settings(
    before: Sequence[Setting], after: Sequence[Setting]
) -> tuple[SettingChange, ...]:
    """The settings that differ, in the head's order, then those only the base has. A
    side the scheduler refuses has only its status: then only the status is compared
    (every other setting would read as removed or added, which the refusal already says)."""
    old = {setting.key: setting for setting in before}
    new = {setting.key: setting for setting in after}
    if set(old) == {STATUS} or set(new) == {STATUS}:
        old, new = _only_status(old), _only_status(new)
    changes = [SettingChange(key, old.get(key), s) for key, s in new.items() if old.get(key) != s]
    changes += [SettingChange(key, s, None) for key, s in old.items() if key not in new]
    return tuple(changes)


def _only_status(settings: dict[str, Setting]) -> dict[str, Setting]:
    return {STATUS: settings[STATUS]} if STATUS in settings else {}


def compare_views(
    path: str,
    before: Sequence[ConfigView] | None,
    after: Sequence[ConfigView] | None,
    fixtures: Sequence[str] = (),
) -> tuple[ConfigDiff, ...]:
    """Pair the configs of one file by label (then by order) and compare each pair;
    ``None`` for a side that does not have the file."""
    diffs = []
    for old, new in _pairs(before or (), after or ()):
        shown = new or old
        assert shown is not None
        if old is None or new is None:
            change: Change = "added" if old is None else "removed"
            settings = tuple(
                SettingChange(s.key, None if old is None else s, None if new is None else s)
                for s in shown.settings
            )
        else:
            settings = compare_settings(old.settings, new.settings)
            if not settings and old.unchecked != new.unchecked:  # edited, checked on neither
                settings = tuple(SettingChange(s.key, s, s) for s in new.settings)
            change = "changed" if settings or old.kind != new.kind else "unchanged"
        kind = (
            shown.kind
            if old is None or new is None or old.kind == new.kind
            else (f"{old.kind} -> {new.kind}")
        )
        diffs.append(ConfigDiff(path, shown.label, kind, change, settings, tuple(fixtures)))
    return tuple(diffs)


def attribute_settings(
    config: ConfigDiff, edit_alone: Sequence[ConfigView], cause: str
) -> ConfigDiff:
    """``config`` with each changed setting that the file's edit alone leaves as it was
    (``edit_alone``: the head's file judged as the base is) attributed to ``cause``."""
    if config.change != "changed":
        return config
    alone = next((view for view in edit_alone if view.label == config.document), None)
    if alone is None:
        return config
    held = {setting.key: setting for setting in alone.settings}
    settings = tuple(
        replace(change, cause=cause) if held.get(change.key) == change.before else change
        for change in config.settings
    )
    return replace(config, settings=settings)


def _pairs(
    before: Sequence[ConfigView], after: Sequence[ConfigView]
) -> Iterator[tuple[ConfigView | None, ConfigView | None]]:
    old_by_label = {view.label: view for view in before}
    matched = {view.label for view in after if view.label in old_by_label}
    old_left = [view for view in before if view.label not in matched]
    for view in after:
        if view.label in matched:
            yield old_by_label[view.label], view
        elif old_left:
            yield old_left.pop(0), view  # relabelled (a ConfigMap renamed, say)
        else:
            yield None, view
    for view in old_left:
        yield view, None


# --- cases -----------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeChange:
    """One node in one case: rank (1 = best, ties share) and total score on each side.

    ``None`` rank and score: filtered out (``filtered_*`` says why) or not scored.
    """

    name: str
    rank_before: int | None
    rank_after: int | None
    score_before: float | None
    score_after: float | None
    filtered_before: str | None = None
    filtered_after: str | None = None
    plugins_before: Mapping[str, float] = field(default_factory=dict)
    plugins_after: Mapping[str, float] = field(default_factory=dict)

    @property
    def delta(self) -> float | None:
        if self.score_before is None or self.score_after is None:
            return None
        return self.score_after - self.score_before

    @property
    def rank_changed(self) -> bool:
        return self.rank_before != self.rank_after

    @property
    def changed(self) -> bool:
        return (
            self.rank_changed
            or self.filtered_before != self.filtered_after
            or not _same_score(self.score_before, self.score_after)
        )


@dataclass(frozen=True)
class PlacementChange:
    """How many pods of a sequence one node received, before and after."""

    node: str
    before: int
    after: int


@dataclass(frozen=True)
class JobChange:
    """One job of a Volcano session case whose pods bound or phase differ between the
    sides (``None``: the side has no such job)."""

    job: str
    before: JobOutcome | None
    after: JobOutcome | None


@dataclass(frozen=True)
class CaseSide:
    """One side's outcome of a case."""

    status: Status
    message: str
    ranking: Ranking
    placements: Mapping[str, int] | None = None
    pending: int | None = None
    release: str = ""
    """The release the case was judged as on this side (``kube-scheduler 1.36``)."""
    not_simulated: tuple[NotSimulated, ...] = ()
    """What this side's config makes the scheduler do that policytest does not simulate."""
    jobs: Mapping[str, JobOutcome] = field(default_factory=dict)
    """A Volcano session case: each job (PodGroup) after the last session."""
    before: Mapping[str, Mapping[str, tuple[int, int]]] = field(
        default_factory=dict, compare=False, repr=False
    )
    """Per node, per resource: (requested, allocatable) before the case (for the HTML
    report; never compared)."""
    utilisation: Mapping[str, Mapping[str, tuple[int, int]]] = field(
        default_factory=dict, compare=False, repr=False
    )
    """The same after the case (see :attr:`CaseResult.utilisation`)."""

    @property
    def winner(self) -> tuple[str, ...]:
        """The best node, or the nodes tied for best."""
        return self.ranking[0] if self.ranking else ()

    @property
    def nodes_used(self) -> int | None:
        if self.placements is None:
            return None
        return sum(1 for count in self.placements.values() if count)

    @property
    def placed(self) -> dict[str, int]:
        """Nodes that received pods, with their counts."""
        return {name: count for name, count in (self.placements or {}).items() if count}


@dataclass(frozen=True)
class CaseDiff:
    """One case of a fixture on both sides (``None``: the side does not have it)."""

    name: str
    before: CaseSide | None
    after: CaseSide | None
    nodes: tuple[NodeChange, ...] = ()
    why: tuple[str, ...] = ()
    """When the two sides were judged as different releases: the release facts that
    explain what changed (see :mod:`policytest.diff.why`); when several changes act on
    the case, those of what the release alone does to it."""
    causes: tuple[Cause, ...] = ()
    """When several changes act on the case together (a config edit and a release,
    say): what each one alone does to it (see :mod:`policytest.diff.attribute`)."""

    @property
    def release_change(self) -> str:
        """``kube-scheduler 1.35 -> 1.36`` when the sides were judged as different
        releases, else ""."""
        if self.before is None or self.after is None:
            return ""
        old, new = self.before.release, self.after.release
        if not old or not new or old == new:
            return ""
        name, _, version = new.partition(" ")
        return f"{old} -> {version}" if old.startswith(f"{name} ") else f"{old} -> {new}"

    @property
    def sequence(self) -> bool:
        """A sequence of pods placed one by one (its sides have placements)."""
        shown = self.after or self.before
        return shown is not None and shown.placements is not None

    @property
    def change(self) -> Change:
        if self.before is None:
            return "added"
        if self.after is None:
            return "removed"
        return "unchanged" if self.effect is None and not self.jobs else "changed"

    def _sides(self) -> tuple[CaseSide, CaseSide] | None:
        """Both sides, when the case is on both."""
        return None if self.before is None or self.after is None else (self.before, self.after)

    def _ran(self) -> tuple[CaseSide, CaseSide] | None:
        """Both sides, when both ran (an error has no ranking to compare)."""
        sides = self._sides()
        if sides is None or "error" in (sides[0].status, sides[1].status):
            return None
        return sides

    @property
    def comparable(self) -> bool:
        """Both sides ran (an error has no ranking to compare)."""
        return self._ran() is not None

    @property
    def status_changed(self) -> bool:
        sides = self._sides()
        return sides is not None and sides[0].status != sides[1].status

    @property
    def error_changed(self) -> bool:
        """Both sides error, for different reasons."""
        sides = self._sides()
        return (
            sides is not None
            and sides[0].status == sides[1].status == "error"
            and sides[0].message != sides[1].message
        )

    @property
    def winner_changed(self) -> bool:
        ran = self._ran()
        return ran is not None and set(ran[0].winner) != set(ran[1].winner)

    @property
    def ranking_changed(self) -> bool:
        ran = self._ran()
        return ran is not None and [set(group) for group in ran[0].ranking] != [
            set(group) for group in ran[1].ranking
        ]

    @property
    def placements_changed(self) -> bool:
        ran = self._ran()
        return (
            ran is not None
            and self.sequence
            and (ran[0].placed, ran[0].pending) != (ran[1].placed, ran[1].pending)
        )

    @property
    def scores_changed(self) -> bool:
        return self.comparable and any(node.changed for node in self.nodes)

    @property
    def effect(self) -> Effect | None:
        """The most important thing that changed: a new winner, another ranking, other
        placements, another status, another error, other scores (``None``: nothing, or
        the case is on one side only)."""
        return next((effect for effect in EFFECTS if self.has(effect)), None)

    def has(self, effect: Effect) -> bool:
        """Does the case have ``effect`` (a new winner, ...)?"""
        if effect == "winner":
            return self.winner_changed
        if effect == "ranking":
            return self.ranking_changed
        if effect == "placements":
            return self.placements_changed
        if effect == "status":
            return self.status_changed
        if effect == "error":
            return self.error_changed
        return self.scores_changed

    @property
    def moved_by(self) -> tuple[Cause, ...]:
        """The causes that alone have the case's :attr:`effect` (none when they have it
        only together, or when the case has no causes)."""
        effect = self.effect
        if effect is None:
            return ()
        return tuple(c for c in self.causes if c.effect is not None and c.effect.has(effect))

    @property
    def jobs(self) -> tuple[JobChange, ...]:
        """The jobs whose pods bound or phase moved, in the head's order, then those only
        the base has (both sides ran)."""
        ran = self._ran()
        if ran is None:
            return ()
        old, new = ran[0].jobs, ran[1].jobs
        changes = [
            JobChange(key, old.get(key), outcome)
            for key, outcome in new.items()
            if _job_moved(old.get(key), outcome)
        ]
        changes += [JobChange(key, outcome, None) for key, outcome in old.items() if key not in new]
        return tuple(changes)

    @property
    def moved(self) -> tuple[NodeChange, ...]:
        """Nodes whose rank changed (filtered nodes have no rank)."""
        return tuple(node for node in self.nodes if node.rank_changed)

    @property
    def placements(self) -> tuple[PlacementChange, ...]:
        """Every node that received pods on either side, in fixture order."""
        before = self.before.placed if self.before else {}
        after = self.after.placed if self.after else {}
        return tuple(
            PlacementChange(name, before.get(name, 0), after.get(name, 0))
            for name in dict.fromkeys(_all_nodes(self))
            if before.get(name, 0) or after.get(name, 0)
        )


CauseKind = Literal["files", "settings"]


@dataclass(frozen=True)
class Cause:
    """One of several changes that act on a case together, and what it does alone.

    ``files``: the edits to the fixture, its configs and snapshots, judged as the base
    is judged; ``settings``: one setting of the settings file (a release), applied to
    the base's files. ``effect`` compares the base with the base plus this change only;
    ``None`` when that was not run (``stopped`` says why: a budget ran out)."""

    change: str
    """What changed, as the report names it (``the change to configs/kube.yaml``,
    ``kubernetesVersion 1.34 -> 1.36``)."""
    kind: CauseKind
    effect: CaseDiff | None = None
    stopped: str = ""


def _job_moved(before: JobOutcome | None, after: JobOutcome) -> bool:
    return before is None or (before.bound, before.phase) != (after.bound, after.phase)


def _all_nodes(case: CaseDiff) -> list[str]:
    names: list[str] = []
    for side in (case.before, case.after):
        if side is not None and side.placements is not None:
            names.extend(side.placements)
    return names


def compare_case(name: str, before: CaseResult | None, after: CaseResult | None) -> CaseDiff:
    """One case's two results, compared node by node; when the sides ran under
    different releases, with the release facts that explain the change."""
    from policytest.diff.why import moved_plugins, reasons, refusals

    compared = CaseDiff(name, _side(before), _side(after), _node_changes(before, after))
    if not compared.release_change or compared.change == "unchanged":
        return compared
    assert before is not None and after is not None  # both sides have a release
    if compared.comparable:
        pairs = [(node.plugins_before, node.plugins_after) for node in compared.nodes]
        why = reasons(before.release, after.release, moved_plugins(pairs))
    else:
        why = refusals(after.message if after.status == "error" else before.message)
    return replace(compared, why=why) if why else compared


def _side(result: CaseResult | None) -> CaseSide | None:
    if result is None:
        return None
    placements = None if result.placements is None else MappingProxyType(dict(result.placements))
    return CaseSide(
        result.status,
        result.message,
        result.ranking,
        placements,
        result.pending,
        result.release,
        result.not_simulated,
        MappingProxyType(dict(result.sessions.pod_groups)) if result.sessions else {},
        result.before,
        result.utilisation,
    )


def _node_changes(before: CaseResult | None, after: CaseResult | None) -> tuple[NodeChange, ...]:
    old = {node.name: node for node in (before.nodes if before else ())}
    new = {node.name: node for node in (after.nodes if after else ())}
    old_rank = _ranks(before)
    new_rank = _ranks(after)
    changes = []
    for name in dict.fromkeys([*new, *old]):
        was, now = old.get(name), new.get(name)
        changes.append(
            NodeChange(
                name,
                old_rank.get(name),
                new_rank.get(name),
                was.total if was is not None and was.feasible else None,
                now.total if now is not None and now.feasible else None,
                was.reason if was is not None and not was.feasible else None,
                now.reason if now is not None and not now.feasible else None,
                MappingProxyType(dict(was.plugins)) if was is not None else MappingProxyType({}),
                MappingProxyType(dict(now.plugins)) if now is not None else MappingProxyType({}),
            )
        )
    unranked = math.inf
    changes.sort(
        key=lambda n: (
            n.rank_after if n.rank_after is not None else unranked,
            n.rank_before if n.rank_before is not None else unranked,
        )
    )
    return tuple(changes)


def _ranks(result: CaseResult | None) -> dict[str, int]:
    if result is None:
        return {}
    return {name: rank for rank, group in enumerate(result.ranking, start=1) for name in group}


def _same_score(before: float | None, after: float | None) -> bool:
    if before is None or after is None:
        return before is after
    return close_enough(after, before, FLOAT_TOLERANCE)


# --- fixtures --------------------------------------------------------------------------


@dataclass(frozen=True)
class FixtureDiff:
    """One fixture file run on both sides; ``reason`` says why it was run."""

    path: str
    change: Change
    reason: str
    cases: tuple[CaseDiff, ...]

    @property
    def changed_cases(self) -> tuple[CaseDiff, ...]:
        return tuple(case for case in self.cases if case.change != "unchanged")


def compare_fixture(
    path: str,
    reason: str,
    before: Sequence[CaseResult] | None,
    after: Sequence[CaseResult] | None,
) -> FixtureDiff:
    """Match the cases of both runs by name (and occurrence, for repeated names)."""
    old = keyed_results(before or ())
    new = keyed_results(after or ())
    cases = tuple(
        compare_case(key[0], old.get(key), new.get(key)) for key in dict.fromkeys([*new, *old])
    )
    if before is None or after is None:
        change: Change = "added" if before is None else "removed"
    else:
        change = "changed" if any(case.change != "unchanged" for case in cases) else "unchanged"
    return FixtureDiff(path, change, reason, cases)


CaseKey = tuple[str, int]
"""A case's name and its occurrence among the cases of that name (1 for the first)."""


def case_keys(names: Sequence[str]) -> list[CaseKey]:
    """The key of each name in order: cases are matched by name, and repeated names by
    occurrence."""
    seen: Counter[str] = Counter()
    keys = []
    for name in names:
        seen[name] += 1
        keys.append((name, seen[name]))
    return keys


def keyed_results(results: Sequence[CaseResult]) -> dict[CaseKey, CaseResult]:
    """``results`` by :func:`case_keys`."""
    return dict(zip(case_keys([result.case for result in results]), results, strict=True))


# --- findings --------------------------------------------------------------------------

Located = tuple[str, Finding]
"""A finding with the logical file it belongs to (the same file on both sides)."""
FindingKey = tuple[str, str, str, str]


def compare_findings(
    before: Sequence[Located], after: Sequence[Located]
) -> tuple[tuple[Finding, ...], tuple[Finding, ...]]:
    """(introduced, resolved): findings matched by file, rule, severity and message, never
    by line, so moving a block of YAML is not noise. Repeats are counted."""

    def key(item: Located) -> FindingKey:
        logical, finding = item
        return logical, finding.rule, finding.severity.value, finding.message

    old = Counter(key(item) for item in before)
    new = Counter(key(item) for item in after)
    introduced = _surplus(after, new - old, key)
    resolved = _surplus(before, old - new, key)
    return tuple(sorted(introduced)), tuple(sorted(resolved))


def _surplus(
    items: Sequence[Located], surplus: Counter[FindingKey], key: Callable[[Located], FindingKey]
) -> list[Finding]:
    """The last ``surplus[key]`` findings of each key (the earlier ones are matched)."""
    left = Counter(surplus)
    picked = []
    for item in reversed(items):
        k = key(item)
        if left[k] > 0:
            left[k] -= 1
            picked.append(item[1])
    return picked


# --- the report ------------------------------------------------------------------------


@dataclass(frozen=True)
class SettingsChange:
    """One setting of the project settings file that differs between the sides (or, in
    an upgrade preview, the release each side is judged as).

    ``applied``: the head's value was used. What describes the cluster (releases,
    distribution) always is; what judges findings (select, ignore, declared plugins)
    is the base's unless the head's was asked for, so a change cannot silence its own
    findings."""

    key: str
    before: str | None
    after: str | None
    applied: bool = True

    def describe(self) -> str:
        """``kubernetesVersion 1.35 -> 1.36``."""
        return f"{self.key} {self.before or '(unset)'} -> {self.after or '(unset)'}"


@dataclass(frozen=True)
class NotRun:
    """Fixtures in scope that were not run, for one reason."""

    reason: str
    paths: tuple[str, ...]
    named: bool = False
    """Name them in the report: fixtures a reader may expect to run (those of another
    scheduler than the configs compared), not merely unaffected ones."""


NOTHING_CHANGED = "nothing they use changed"
OTHER_RELEASE = "their scheduler's release does not change"
"""Why an upgrade preview leaves out the fixtures of the other scheduler."""


def left_out(reason: str, paths: Sequence[str], *, named: bool = False) -> tuple[NotRun, ...]:
    """The group of ``paths`` not run for ``reason`` (none when there are none)."""
    return (NotRun(reason, tuple(paths), named),) if paths else ()


def other_scheduler(schedulers: Sequence[str]) -> str:
    """Why ``diff`` of two files leaves out a fixture of another scheduler than theirs."""
    return f"their scheduler is not the configs', {' or '.join(schedulers)}"


@dataclass(frozen=True)
class DiffReport:
    """Everything ``policytest diff`` found, in a stable order.

    ``fixtures`` are the fixtures that were run (affected by the change, or all with
    ``--all``); ``skipped`` the fixtures in scope that were not, grouped by why.
    """

    base: str
    head: str
    configs: tuple[ConfigDiff, ...] = ()
    fixtures: tuple[FixtureDiff, ...] = ()
    introduced: tuple[Finding, ...] = ()
    resolved: tuple[Finding, ...] = ()
    skipped: tuple[NotRun, ...] = ()
    settings: tuple[SettingsChange, ...] = ()
    """The settings that differ between the sides, always shown."""
    settings_path: str = ""
    """The settings file they come from ("" in an upgrade preview)."""
    command: str = "diff"
    """The command that made the report (``diff``, ``upgrade``), for its title."""
    head_errors: int = 0
    """Error findings the head's changed files have, introduced or not."""
    suppressed: tuple[Finding, ...] = ()
    """The head's findings that a suppression comment the change adds would hide: review
    judges them as if it were not there (introduced when new), and shows them."""

    @property
    def not_run(self) -> tuple[str, ...]:
        """Every fixture in scope that was not run."""
        return tuple(path for group in self.skipped for path in group.paths)

    @property
    def failing_on_both_sides(self) -> int:
        """Cases that fail or error before and after (changed by it or not)."""
        return sum(
            1
            for fixture in self.fixtures
            for case in fixture.cases
            if case.before is not None
            and case.after is not None
            and case.before.status != "passed"
            and case.after.status != "passed"
        )

    @property
    def not_simulated(self) -> tuple[tuple[NotSimulated, Side], ...]:
        """What the configs of the fixtures run make the scheduler do that the results
        leave out, each with the sides whose configs do it (``after`` only: this change
        brings it; ``before`` only: this change removes it)."""
        sides: dict[NotSimulated, set[Side]] = {}
        for fixture in self.fixtures:
            for case in fixture.cases:
                for item in case.before.not_simulated if case.before else ():
                    sides.setdefault(item, set()).add("before")
                for item in case.after.not_simulated if case.after else ():
                    sides.setdefault(item, set()).add("after")
        return tuple(
            (item, "both" if len(found) == 2 else next(iter(found)))
            for item, found in sides.items()
        )

    @property
    def changed_configs(self) -> tuple[ConfigDiff, ...]:
        return tuple(config for config in self.configs if config.change != "unchanged")

    @property
    def changed_fixtures(self) -> tuple[FixtureDiff, ...]:
        return tuple(fixture for fixture in self.fixtures if fixture.change != "unchanged")

    @property
    def unchanged_fixtures(self) -> tuple[FixtureDiff, ...]:
        return tuple(fixture for fixture in self.fixtures if fixture.change == "unchanged")

    @property
    def changed_cases(self) -> tuple[tuple[FixtureDiff, CaseDiff], ...]:
        return tuple((fixture, case) for fixture in self.fixtures for case in fixture.changed_cases)

    def count(self, what: Effect) -> int:
        """How many cases have ``what`` (a new winner, another ranking, ...)."""
        return sum(1 for _, case in self.changed_cases if case.has(what))

    @property
    def introduced_errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.introduced if f.severity is Severity.ERROR)

    @property
    def placement_changed(self) -> bool:
        """Does any case rank or place differently?"""
        return any(
            case.ranking_changed or case.placements_changed for _, case in self.changed_cases
        )

    @property
    def has_changes(self) -> bool:
        return bool(
            self.changed_configs
            or self.changed_fixtures
            or self.introduced
            or self.resolved
            or self.suppressed
            or self.settings
        )

    def exit_code(self, fail_on: FailOn) -> ExitCode:
        """``findings``: error findings introduced fail; ``ranking-change``: those, and any
        ranking or placement change, fail; ``never``: always 0."""
        if fail_on == "never":
            return ExitCode.OK
        if self.introduced_errors:
            return ExitCode.FINDINGS
        if fail_on == "ranking-change" and self.placement_changed:
            return ExitCode.FINDINGS
        return ExitCode.OK


__all__ = [
    "FAIL_ON",
    "CaseDiff",
    "CaseSide",
    "Cause",
    "Change",
    "ConfigDiff",
    "DiffReport",
    "Effect",
    "FailOn",
    "FixtureDiff",
    "JobChange",
    "NodeChange",
    "NotRun",
    "PlacementChange",
    "SettingChange",
    "SettingsChange",
    "attribute_settings",
    "case_keys",
    "compare_case",
    "compare_findings",
    "compare_fixture",
    "compare_settings",
    "compare_views",
    "keyed_results",
    "left_out",
    "other_scheduler",
]
