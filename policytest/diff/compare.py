"""``policytest diff``: what a change to the scheduler configs does to placement.

Two ways in, one report out (:class:`~policytest.diff.model.DiffReport`):

- :func:`diff_revisions` compares two revisions of a git repository (a commit and the
  working tree by default). Both sides are copied into a temporary directory, only the
  files the diff needs (see :mod:`policytest.diff.git`). Every fixture in scope that
  changed, or whose config changed, runs on both sides (every fixture with ``run_all``);
  every changed scheduler config is shown as the scheduler holds it on each side; the
  changed files are validated on both sides and their findings compared. When several
  changes act on a fixture (its files and a release, say), each also runs alone, to
  tell which one moved each case (see :mod:`policytest.diff.attribute`).
- :func:`diff_files` compares two config files outside git: the fixtures that use the
  old one (or all of them) run once with each.

Nothing here prints; reporters render the report.
"""

from __future__ import annotations

import os
import posixpath
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import cache, partial

from policytest.check.suppress import Suppressing, file_lines, kept, source_lines, suppresses
from policytest.check.validate import validate_paths
from policytest.core.errors import PathNotFound
from policytest.core.findings import Finding, Severity
from policytest.core.options import CheckOptions, RuleFilter
from policytest.diff.effective import UNREADABLE, ConfigView, config_views
from policytest.diff.git import (
    CommitSide,
    DiffError,
    Repository,
    Side,
    WorkTreeSide,
    find_repository,
)
from policytest.diff.model import (
    NOTHING_CHANGED,
    ConfigDiff,
    DiffReport,
    FixtureDiff,
    Located,
    SettingsChange,
    attribute_settings,
    compare_findings,
    compare_fixture,
    compare_views,
    left_out,
    other_scheduler,
)
from policytest.diff.settings import CommandLine
from policytest.harness.load import (
    Root,
    check_fixture,
    config_scheduler,
    load_fixture,
)
from policytest.harness.model import Fixture
from policytest.harness.runner import CaseResult, error_result
from policytest.harness.suite import (
    checked_cases,
    discover,
    is_fixture_name,
    run_as_loaded,
    run_file,
)
from policytest.read.paths import Refused, resolve
from policytest.read.recognise import Kind, kind_of
from policytest.read.source import SourceFile, is_yaml_path, read_file
from policytest.read.walk import SKIPPED_DIRECTORIES
from policytest.scoring.protocol import Scheduler

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policytest.check.bundle import Bundle

__all__ = [
    "DiffError",
    "PathNotFound",
    "ReviewRefused",
    "config_scheduler_of",
    "diff_files",
    "diff_revisions",
    "schedulers_of",
]

SCHEDULER_LABELS = {"volcano": "Volcano", "kube-scheduler": "kube-scheduler"}
"""How a scheduler is named in a sentence."""


def diff_revisions(
    paths: Sequence[str],
    options: CheckOptions,
    *,
    base: str | None = None,
    head: str | None = None,
    run_all: bool = False,
    cwd: str | None = None,
    command: CommandLine | None = None,
) -> DiffReport:
    """Compare ``base`` (default: the merge-base with the default branch) with ``head``
    (default: the working tree) for the fixtures and configs under ``paths`` (default:
    the whole repository). With ``command`` (what the command line said), each side reads
    its own settings file (see :mod:`policytest.diff.settings`); without, both sides are
    judged with ``options``. Raises :class:`DiffError` for what cannot be compared."""
    start = os.path.abspath(cwd or os.getcwd())
    repository = find_repository(start)
    scope = _scope(repository, start, paths)
    base_revision = repository.resolve(base) if base else repository.default_base()
    head_revision = repository.resolve(head) if head else None
    changed = repository.changed_paths(base_revision, head_revision)
    _refuse_too_many(changed, scope, options)
    with tempfile.TemporaryDirectory(prefix="policytest-diff-") as temporary:
        max_bytes = options.limits.max_file_bytes
        base_root = os.path.join(temporary, "base")
        before: Side = CommitSide(repository, base_revision, base_root, max_bytes)
        after: Side = (
            CommitSide(repository, head_revision, os.path.join(temporary, "head"), max_bytes)
            if head_revision
            else WorkTreeSide(repository, os.path.join(temporary, "head"))
        )
        for path, wanted in zip(paths, scope, strict=False):
            if not os.path.exists(os.path.join(start, path)) and not any(
                _within(name, (wanted,)) for name in before.files | after.files
            ):
                raise DiffError(f"path does not exist in {before.label} or {after.label}: {path}")
        comparison = _Comparison(before, after, changed, scope, options)
        if command is not None:
            comparison.read_settings(command, repository.root, start)
        return comparison.report(run_all)


def _scope(repository: Repository, start: str, paths: Sequence[str]) -> tuple[str, ...]:
    """``paths`` relative to the repository root, ``/``-separated (``""``: all of it)."""
    scope = []
    for path in paths:
        real = os.path.realpath(os.path.join(start, path))
        relative = os.path.relpath(real, repository.root)
        if relative == os.pardir or relative.startswith(os.pardir + os.sep):
            raise DiffError(f"{path} is outside the repository")
        scope.append("" if relative == os.curdir else relative.replace(os.sep, "/"))
    return tuple(scope) or ("",)


class ReviewRefused(DiffError):
    """The change is larger than a review may read (``review-paths``): nothing was read."""


def _refuse_too_many(
    changed: frozenset[str], scope: tuple[str, ...], options: CheckOptions
) -> None:
    """Refuse, from the names git lists alone, a change with more files to review than
    ``review-paths``: each costs a copy out of git and a read on both sides, and one
    small blob repeated through a tree makes 250,000 paths of a few hundred bytes."""
    limit = options.limits.max_review_paths
    reviewed = sum(
        1
        for path in changed
        if (is_yaml_path(path) or is_fixture_name(path)) and _within(path, scope)
    )
    if reviewed > limit:
        raise ReviewRefused(
            f"the change has {reviewed:,} YAML and fixture files to review, more than the "
            f"limit of {limit:,}; nothing reviewed (raise it with --limit review-paths=N, "
            "or review part of the repository: policytest diff PATH)"
        )


SETTINGS_REASON = "the settings changed: "


def _within(path: str, scope: Iterable[str]) -> bool:
    return any(not top or path == top or path.startswith(top + "/") for top in scope)


def _walked(path: str) -> bool:
    """Would a directory walk reach ``path`` (not inside ``.git``, virtualenvs, ...)?"""
    return not any(
        part in SKIPPED_DIRECTORIES or part.endswith(".egg-info") for part in path.split("/")[:-1]
    )


class _Comparison:
    """One git comparison: both sides, what changed, and the fixtures' config references."""

    def __init__(
        self,
        before: Side,
        after: Side,
        changed: frozenset[str],
        scope: tuple[str, ...],
        options: CheckOptions,
    ) -> None:
        self.before = before
        self.after = after
        self.changed = changed
        self.scope = scope
        self.options = options
        self.side_options = {id(before): options, id(after): options}
        self.settings: tuple[SettingsChange, ...] = ()
        self.settings_path = ""
        self.rejudged: set[str] = set()
        """Configs unchanged but judged otherwise (a settings change): validated too."""
        self._differs: dict[str, bool] = {}
        self.snapshots: set[str] = set()
        self._alone: dict[str, CheckOptions] = {}
        """Per settings change (its key): the base's options with that change alone."""
        self._bundles: dict[int, dict[str, Bundle]] = {}
        """Per side: what runs the configs of each directory (read once)."""

    def read_settings(self, command: CommandLine, root: str, start: str) -> None:
        """Each side's own settings file: the options each side is judged with, and what
        differs between them."""
        from policytest.diff import settings as project

        old = project.read(self.before, root, start, command)
        new = project.read(self.after, root, start, command)
        judging = new.settings if command.head_settings else old.settings
        self.side_options = {
            id(self.before): project.side_options(command, old.settings, judging),
            id(self.after): project.side_options(command, new.settings, judging),
        }
        self.settings = project.compare(old.settings, new.settings, command.head_settings)
        self.settings_path = new.path or old.path
        base = self.side_options[id(self.before)]
        for change in self.settings:
            alone = project.side_options(
                command, project.with_setting(old.settings, new.settings, change.key), judging
            )
            if alone != base:  # a flag that names the release overrides both files
                self._alone[change.key] = alone

    def options_of(self, side: Side) -> CheckOptions:
        """The options ``side`` is judged with, its root the side's copy."""
        return replace(self.side_options[id(side)], root=_root(side))

    def report(self, run_all: bool) -> DiffReport:
        before, after = self.before, self.after
        fixtures = sorted(
            path
            for path in before.files | after.files
            if is_fixture_name(path) and _within(path, self.scope) and _walked(path)
        )
        refs_after = {path: self._references(after, path) for path in fixtures if after.has(path)}
        refs_before = {
            path: self._references(before, path) if self.differs(path) else refs_after[path]
            for path in fixtures
            if before.has(path)
        }
        referenced = {ref for refs in (*refs_before.values(), *refs_after.values()) for ref in refs}
        runs: list[FixtureDiff] = []
        not_run: list[str] = []
        for path in fixtures:
            refs = sorted(set(refs_before.get(path, ())) | set(refs_after.get(path, ())))
            reason = self._reason(path, refs, run_all)
            if reason is None:
                not_run.append(path)
                continue
            if reason.startswith(SETTINGS_REASON):  # judged otherwise: their findings too
                self.rejudged.update(ref for ref in refs if ref not in self.snapshots)
            before.materialise([path, *refs])
            after.materialise([path, *refs])
            runs.append(self._compare(path, refs, reason))
        users = {
            config: tuple(
                path
                for path in fixtures
                if config in refs_after.get(path, ()) or config in refs_before.get(path, ())
            )
            for config in referenced
        }
        candidates = sorted(
            {
                path
                for path in self.changed
                if path in referenced
                or (_within(path, self.scope) and (is_yaml_path(path) or is_fixture_name(path)))
            }
            | self.rejudged
        )
        configs = self._configs(candidates, users)
        review = _ChangeSuppressions(before, after, self.options_of(before))
        head = self._findings(after, candidates, review)
        introduced, resolved = compare_findings(self._findings(before, candidates), head)
        return DiffReport(
            before.label,
            after.label,
            configs,
            tuple(runs),
            introduced,
            resolved,
            left_out(NOTHING_CHANGED, not_run),
            settings=self.settings,
            settings_path=self.settings_path,
            head_errors=_errors(head),
            suppressed=tuple(sorted(self._located(after, review.added))),
        )

    def _compare(self, path: str, refs: Sequence[str], reason: str) -> FixtureDiff:
        """The fixture at ``path`` run on both sides; when several changes act on it,
        each changed case with what each change alone does (see
        :mod:`policytest.diff.attribute`)."""
        from policytest.diff.attribute import Alone, attribute, measured

        limits = self.options.limits
        old, old_cost = measured(limits, partial(self._run, self.before, path))
        new, new_cost = measured(limits, partial(self._run, self.after, path))
        compared = compare_fixture(path, reason, old, new)
        if compared.change != "changed" or old is None:
            return compared
        changes = []
        edited = [name for name in (path, *refs) if self.differs(name)]
        if edited:
            base_options = self.side_options[id(self.before)]
            changes.append(
                Alone(
                    _edits(edited),
                    "files",
                    partial(self._run, self.after, path, base_options),
                    new_cost,
                )
            )
        changes += [
            Alone(
                change.describe(),
                "settings",
                partial(self._run, self.before, path, self._alone[change.key]),
                old_cost,
            )
            for change in (self._settings_affecting(path, refs) if self._alone else ())
            if change.key in self._alone
        ]
        return attribute(compared, old, changes, limits)

    def differs(self, path: str) -> bool:
        """Did what ``path`` resolves to really change (git may list a file whose bytes
        are the same; a link whose target changed is not listed itself)?"""
        if path not in self._differs:
            old, new = self.before.resolved(path)[0], self.after.resolved(path)[0]
            touched = old != new or bool({path, old, new} & self.changed)
            self._differs[path] = touched and self._content_differs(path, old, new)
        return self._differs[path]

    def _content_differs(self, path: str, old: str, new: str) -> bool:
        if self.before.has(old) != self.after.has(new):
            return True
        if not self.before.has(old):  # on neither side a file: a submodule, a directory
            return self.before.has(path) != self.after.has(path)
        self.before.materialise([path])
        self.after.materialise([path])
        return _content(self.before.path(old)) != _content(self.after.path(new))

    def _reason(self, path: str, refs: Sequence[str], run_all: bool) -> str | None:
        """Why the fixture at ``path`` runs, or ``None`` when nothing it uses changed."""
        if not self.before.has(path):
            return "the fixture is new"
        if not self.after.has(path):
            return "the fixture was removed"
        if self.differs(path):
            return "the fixture changed"
        changed = [ref for ref in refs if self.differs(ref)]
        if changed:
            noun = "its config changed" if len(changed) == 1 else "its configs changed"
            if all(ref in self.snapshots for ref in changed):
                noun = "its snapshot changed"
            return f"{noun}: {', '.join(changed)}"
        settings = self._settings_affecting(path, refs)
        if settings:
            return f"{SETTINGS_REASON}{'; '.join(change.describe() for change in settings)}"
        return "run with --all" if run_all else None

    def _settings_affecting(self, path: str, refs: Sequence[str]) -> list[SettingsChange]:
        """The applied settings changes that change how the fixture at ``path`` is judged
        (on either side: its scheduler, and the releases it does not state itself)."""
        from policytest.diff.settings import affects

        if not any(change.applied for change in self.settings):
            return []
        found: dict[SettingsChange, None] = {}
        for side in (self.before, self.after):
            side.materialise([path, *refs])
            options = self.options_of(side)
            for fixture in _fixtures(side.path(path), options):
                scheduler = _scheduler_of(fixture, options)
                pinned = fixture.scheduler.releases
                for change in self.settings:
                    if affects(change, scheduler, pinned):
                        found[change] = None
        return list(found)

    def _references(self, side: Side, path: str) -> tuple[str, ...]:
        """The config files and cluster snapshots (repo-relative) the fixture at ``path``
        names on ``side``; the snapshots are copied first, as loading the fixture reads them."""
        side.materialise([path])
        refs = _snapshot_references(side.path(path), path, self.options_of(side))
        side.materialise(refs)
        self.snapshots.update(refs)
        for fixture in _fixtures(side.path(path), self.options_of(side)):
            config = fixture.scheduler.config_path
            if config is None or os.path.isabs(config):
                continue
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), config))
            if joined != ".." and not joined.startswith("../"):
                refs.append(joined)
        # what a link resolves to is what the fixture uses: a config edited behind a file
        # or directory link is used by the fixture as much as the link is
        refs += (real for real in (side.resolved(ref)[0] for ref in refs) if real not in refs)
        return tuple(refs)

    def _run(
        self, side: Side, path: str, options: CheckOptions | None = None
    ) -> list[CaseResult] | None:
        """The cases of the fixture at ``path`` on ``side``, judged with ``options``
        (default: the side's own)."""
        if not side.has(path):
            return None
        judged = self.options_of(side) if options is None else replace(options, root=_root(side))
        results = run_file(side.path(path), judged, side.root)
        return [
            replace(result, file=path, message=_scrub(result.message, side)) for result in results
        ]

    def _configs(
        self, candidates: Sequence[str], users: dict[str, tuple[str, ...]]
    ) -> tuple[ConfigDiff, ...]:
        diffs: list[ConfigDiff] = []
        for path in candidates:
            if not self.differs(path):
                continue
            old = self._views(self.before, path)
            new = self._views(self.after, path)
            if not (_holds_config(old) or _holds_config(new)):
                continue
            compared = compare_views(path, old, new, users.get(path, ()))
            if self._alone and old is not None and new is not None:
                # a setting the head's file holds as the base's does when judged as the
                # base is changed by the settings file, not by the edit
                edit_alone = self._views(self.after, path, self.side_options[id(self.before)])
                settings = "; ".join(c.describe() for c in self.settings if c.key in self._alone)
                compared = tuple(
                    attribute_settings(config, edit_alone or (), settings) for config in compared
                )
            diffs.extend(compared)
        return tuple(diffs)

    def _views(
        self, side: Side, path: str, options: CheckOptions | None = None
    ) -> tuple[ConfigView, ...] | None:
        """The configs in ``path`` on ``side`` as the scheduler holds them, judged with
        ``options`` (default: the side's own)."""
        if not side.has(path):
            return None
        side.materialise([path, *_chart_of(path, side), *_neighbours([path], side)])
        judged = self.options_of(side) if options is None else replace(options, root=_root(side))
        views = config_views(side.path(path), judged, self._bundles.setdefault(id(side), {}))
        return tuple(_scrubbed(view, side) for view in views)

    def _findings(
        self, side: Side, candidates: Sequence[str], suppressing: Suppressing = kept
    ) -> list[Located]:
        paths = [
            path
            for path in candidates
            if side.has(path) and (self.differs(path) or path in self.rejudged)
        ]
        side.materialise([*paths, *_neighbours(paths, side)])
        # a link that leaves the repository is not read: the path rule makes it a finding
        files = [side.path(path) for path in paths if os.path.lexists(side.path(path))]
        if not files:
            return []
        options = self.options_of(side)
        report = validate_paths(
            files, options, check_fixture=check_fixture, suppressing=suppressing
        )
        return [(finding.path, finding) for finding in self._located(side, report.findings)]

    def _located(self, side: Side, findings: Iterable[Finding]) -> list[Finding]:
        """``findings`` of ``side``'s copy, their paths and messages as the repository
        names them."""
        located = []
        for finding in findings:
            relative = _relative(finding.path, side.root)
            located.append(replace(finding, path=relative, message=_scrub(finding.message, side)))
        return located


class _ChangeSuppressions:
    """What review keeps of the head's findings: a pull request cannot silence the review
    of its own change. A suppression comment counts when the base's file has the same
    line, comment and all (as many times: a copy the change adds is its own); one the
    change adds on a line it writes silences nothing, and each finding it would have
    hidden is kept in ``added``, shown as suppressed by this change. The base's own
    findings are judged with every comment it has."""

    def __init__(self, before: Side, after: Side, options: CheckOptions) -> None:
        self.before = before
        self.after = after
        self.options = options
        self.added: list[Finding] = []

    def __call__(
        self, findings: Iterable[Finding], source: SourceFile, rules: RuleFilter
    ) -> list[Finding]:
        lines = source_lines(source)
        allowed = _base_comments(lines, self._base_lines(source.path))
        shown = []
        for finding in findings:
            if not rules.allows(finding.rule):
                continue
            graded = rules.graded(finding)
            line = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
            if suppresses(line, finding.rule):
                if finding.line in allowed:
                    continue
                self.added.append(graded)
            shown.append(graded)
        return shown

    def _base_lines(self, path: str) -> list[str]:
        """The lines of the base's version of the head's file at ``path`` (none when the
        change adds the file)."""
        relative = _relative(path, self.after.root)
        if not self.before.has(relative):
            return []
        self.before.materialise([relative])
        return file_lines(self.before.path(relative), self.options)


def _base_comments(lines: Sequence[str], base: Sequence[str]) -> set[int]:
    """The numbers (1-based) of the lines of ``lines`` whose suppression comment the
    base has: the same line, matched in order, no more often than the base has it."""
    left = Counter(line.rstrip() for line in base if "policytest" in line)
    allowed = set()
    for number, line in enumerate(lines, 1):
        if "policytest" in line and left[line.rstrip()] > 0:
            left[line.rstrip()] -= 1
            allowed.add(number)
    return allowed


def _root(side: Side) -> Root:
    """The root a side's fixtures must stay inside: the revision's copy of the repository
    (named so in messages, never as ``--root``)."""
    return Root(side.root, "the repository at that revision")


def _edits(paths: Sequence[str]) -> str:
    """``the change to configs/kube.yaml``: the files a revision edited, as a cause."""
    noun = "the change to" if len(paths) == 1 else "the changes to"
    return f"{noun} {', '.join(paths)}"


def _holds_config(views: Sequence[ConfigView] | None) -> bool:
    return any(view.kind != UNREADABLE for view in views or ())


def _content(path: str) -> bytes | str:
    if os.path.islink(path):
        return os.readlink(path)
    with open(path, "rb") as handle:
        return handle.read()


def _relative(path: str, root: str) -> str:
    """``path`` (absolute, or relative to the working directory) relative to ``root``."""
    for candidate, base in (
        (os.path.abspath(path), os.path.abspath(root)),
        (os.path.realpath(path), os.path.realpath(root)),
    ):
        if candidate.startswith(base + os.sep):
            return os.path.relpath(candidate, base).replace(os.sep, "/")
    return path


def _scrub(text: str, side: Side) -> str:
    """Paths in a message as the user knows them: inside the temporary copy, relative to
    the repository; the copy itself, the repository's own directory."""
    root = side.root
    prefixes = {root, os.path.realpath(root)}
    prefixes.add(os.path.relpath(root))  # as `helm template ../../policytest-diff-x/head/c`
    for prefix in sorted(prefixes, key=len, reverse=True):
        text = text.replace(prefix + os.sep, "")
    # the root itself: never where the checkout lies (a pull-request comment would show
    # the runner's /home/runner/work/...), but as a command run at the top of it says it
    for prefix in sorted(prefixes, key=len, reverse=True):
        text = text.replace(f"({prefix})", "(the repository)")
        text = re.sub(rf" {re.escape(prefix)}(?=[;,)]|$| \()", "", text)
        text = text.replace(prefix, os.curdir)
    return text


def _neighbours(paths: Sequence[str], side: Side) -> list[str]:
    """The files ``validate`` reads around ``paths`` on ``side`` (see
    :mod:`policytest.check.bundle`): the YAML files beside them (the Deployment that runs a
    config, its chart's ``Chart.yaml``) and the ``Chart.yaml`` above a chart's
    ``config/``, so a change is judged with what runs it, as ``validate`` does."""
    from policytest.check.bundle import MAX_FILES, chart_above

    directories = {path.rpartition("/")[0] for path in paths}
    beside: dict[str, list[str]] = {directory: [] for directory in directories}
    for path in sorted(side.files):
        directory = path.rpartition("/")[0]
        if directory in beside and is_yaml_path(path) and len(beside[directory]) < MAX_FILES:
            beside[directory].append(path)
    charts = (chart_above(directory) for directory in directories)
    above = [chart for chart in charts if chart is not None and side.has(chart)]
    return [path for found in beside.values() for path in found] + above


def _chart_of(path: str, side: Side) -> list[str]:
    """The ``Chart.yaml`` of the chart whose ``templates/`` holds ``path``, if ``side``
    has one: a template's status names the chart to render."""
    directories = path.split("/")[:-1]
    if "templates" not in directories:
        return []
    last = len(directories) - 1 - directories[::-1].index("templates")
    chart = "/".join([*directories[:last], "Chart.yaml"])
    return [chart] if side.has(chart) else []


def _scrubbed(view: ConfigView, side: Side) -> ConfigView:
    """``view`` with paths in its settings (a template's ``helm template`` command) as
    the user knows them."""
    settings = tuple(
        replace(setting, value=_scrub(setting.value, side)) for setting in view.settings
    )
    return replace(view, settings=settings)


def _snapshot_references(local: str, path: str, options: CheckOptions) -> list[str]:
    """The ``cluster.snapshot`` files (repo-relative) the fixture file ``local`` (at ``path``
    in the repository) names, read without loading the fixture (which needs them)."""
    from policytest.read.source import decoded

    refs = []
    for document in read_file(local, options.limits, options.root).documents:
        if kind_of(document.root) is not Kind.FIXTURE:
            continue
        value = decoded(document, options.limits)
        cluster = value.get("cluster") if isinstance(value, dict) else None
        snapshot = cluster.get("snapshot") if isinstance(cluster, dict) else None
        if isinstance(snapshot, str) and not os.path.isabs(snapshot):
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), snapshot))
            if joined != ".." and not joined.startswith("../"):
                refs.append(joined)
    return refs


def _scheduler_of(fixture: Fixture, options: CheckOptions) -> str | None:
    """``kube-scheduler`` or ``volcano``: the scheduler whose config the fixture uses
    (``None`` when it names none that can be read)."""
    from policytest.harness.model import merged_child

    ref = fixture.scheduler
    if ref.config_node is not None:
        volcano = merged_child(ref.node, "volcano", fixture.document.text)
        return "volcano" if volcano is ref.config_node else "kube-scheduler"
    try:
        named = resolve(os.path.join(os.path.dirname(fixture.document.path), ref.config_path or ""))
    except Refused:
        return None
    return config_scheduler_of(named, options) if os.path.isfile(named) else None


def config_scheduler_of(path: str, options: CheckOptions) -> str | None:
    """``kube-scheduler`` or ``volcano``: the scheduler of the first config in the file
    at ``path`` (``None`` when it holds none)."""
    from policytest.read.recognise import expand

    for document in read_file(path, options.limits, options.root).documents:
        for _, kind in expand(document, options.limits):
            if kind is Kind.VOLCANO:
                return "volcano"
            if kind is Kind.KUBE_SCHEDULER:
                return "kube-scheduler"
    return None


def schedulers_of(path: str, options: CheckOptions) -> set[str | None]:
    """The schedulers of the fixtures in the file at ``path`` (``None`` for one whose
    config cannot be read; empty when the file holds no fixture that loads)."""
    return {_scheduler_of(fixture, options) for fixture in _fixtures(path, options)}


def _fixtures(path: str, options: CheckOptions) -> list[Fixture]:
    source = read_file(path, options.limits, options.root)
    fixtures = []
    for document in source.documents:
        if kind_of(document.root) is Kind.FIXTURE:
            fixture, _ = load_fixture(document, options)
            if fixture is not None:
                fixtures.append(fixture)
    return fixtures


# --- two files outside git -------------------------------------------------------------


def diff_files(
    old: str,
    new: str,
    fixture_paths: Sequence[str],
    options: CheckOptions,
    *,
    run_all: bool = False,
) -> DiffReport:
    """Run the fixtures under ``fixture_paths`` that use ``old`` (or ``new``; every
    fixture with ``run_all``) once with each config, and compare the two configs.
    Raises :class:`PathNotFound` for a path that does not exist."""
    for path in (old, new):
        if not os.path.isfile(path):
            raise PathNotFound(path)
    runs: list[FixtureDiff] = []
    not_run: list[str] = []
    other: list[str] = []
    loaders = {config: _loader(config) for config in (old, new)}
    schedulers = {config_scheduler_of(config, options) for config in (old, new)} - {None}
    for path in discover(fixture_paths):
        fixtures = _fixtures(path, options)
        uses = [
            shown
            for shown in (old, new)
            if any(_uses(path, fixture, shown) for fixture in fixtures)
        ]
        if not (uses or run_all):
            not_run.append(path)
            continue
        if not uses and schedulers:  # a fixture runs against a config of its own scheduler
            own = [f for f in fixtures if _scheduler_of(f, options) in (*schedulers, None)]
            if fixtures and not own:
                other.append(path)
                continue
            fixtures = own
        reason = f"it uses {' and '.join(uses)}" if uses else "run with --all"
        before = _run_with(path, fixtures, loaders[old], options)
        after = _run_with(path, fixtures, loaders[new], options)
        runs.append(compare_fixture(path, reason, before, after))
    label = f"{old} -> {new}"
    users = tuple(fixture.path for fixture in runs)
    head = [
        (label, f) for f in validate_paths([new], options, check_fixture=check_fixture).findings
    ]
    introduced, resolved = compare_findings(
        [(label, f) for f in validate_paths([old], options, check_fixture=check_fixture).findings],
        head,
    )
    return DiffReport(
        old,
        new,
        compare_views(label, config_views(old, options), config_views(new, options), users),
        tuple(runs),
        introduced,
        resolved,
        left_out(f"they use neither {old} nor {new}", not_run)
        + left_out(
            other_scheduler(sorted(SCHEDULER_LABELS[s] for s in schedulers if s)), other, named=True
        ),
        head_errors=_errors(head),
    )


def _errors(findings: Sequence[tuple[str, Finding]]) -> int:
    return sum(1 for _, finding in findings if finding.severity is Severity.ERROR)


def _uses(path: str, fixture: Fixture, config_file: str) -> bool:
    config = fixture.scheduler.config_path
    if config is None:
        return False
    try:
        named = resolve(os.path.join(os.path.dirname(path), config))
    except Refused:  # not a file name: it names no config
        return False
    return named == os.path.realpath(config_file)


_Loader = Callable[[str | None, CheckOptions], tuple[Scheduler | None, list[Finding]]]


def _loader(config: str) -> _Loader:
    """The scheduler of ``config`` for a profile and release, loaded once each and shared
    by every fixture that runs with it."""
    return cache(lambda profile, options: config_scheduler(config, profile, options))


def _run_with(
    path: str, fixtures: Sequence[Fixture], load: _Loader, options: CheckOptions
) -> list[CaseResult]:
    """Every case of the fixtures in one file, scored with the scheduler ``load`` gives
    as the scheduler loads it (an error only where it refuses it)."""
    from policytest.kube.scheduler import UnknownProfile

    if not fixtures:
        return [error_result(path, "(fixture)", "not a valid fixture; see `policytest validate`")]
    from policytest.harness.releases import fixture_options

    results: list[CaseResult] = []
    for fixture in fixtures:
        pinned = fixture_options(fixture, options)  # judged as the release it states
        if isinstance(pinned, Finding):
            results.extend(
                run_as_loaded(fixture, case, [pinned], None, [], options) for case in fixture.cases
            )
            continue
        try:
            scheduler, findings = load(fixture.scheduler.profile, pinned)
        except UnknownProfile as unusable:
            results.extend(
                error_result(
                    path, case.name, str(unusable), fixture.document.position(case.node).line
                )
                for case in fixture.cases
            )
            continue
        results.extend(
            run_as_loaded(fixture, case, problems, scheduler, findings, pinned)
            for case, problems in checked_cases(fixture)
        )
    return results
