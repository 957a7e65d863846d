"""Loading fixtures and their scheduler configs, and running whole suites.

A fixture's ``config:`` path is resolved relative to the fixture and must stay inside
the repository root (the nearest directory holding ``.git``, or ``--root``), also
through symlinks: fixtures come from pull requests, and a test must never read a file
outside the repository on their behalf.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, partial

from policytest.checks import check_document, decoded
from policytest.cluster import Node
from policytest.engine import Scheduler
from policytest.findings import Finding, Severity
from policytest.fixture import (
    FIXTURE_ERROR,
    Case,
    Fixture,
    build_fixture_all,
    merged_child,
    size_problem,
)
from policytest.fixture_checks import case_problems, cluster_problems
from policytest.fixture_salvage import salvageable
from policytest.options import CheckOptions
from policytest.recognise import Kind, expand, kind_of, read_as_scheduler
from policytest.runner import CaseResult, cluster_nodes, error_result, run_case
from policytest.schema import schema_findings
from policytest.source import Document, child, read_file, scalar, sequence_items
from policytest.suppression import visible
from policytest.validate import SKIPPED_DIRECTORIES, PathNotFound

FIXTURE_SUFFIXES = (".policytest.yaml", ".policytest.yml")
SCHEDULER_KINDS = (Kind.VOLCANO, Kind.KUBE_SCHEDULER)


@dataclass(frozen=True)
class RunReport:
    """Every case result of a run, in file and case order, and the paths searched."""

    results: tuple[CaseResult, ...]
    paths: tuple[str, ...] = ()

    def count(self, status: str) -> int:
        return sum(1 for result in self.results if result.status == status)

    @property
    def config_findings(self) -> tuple[Finding, ...]:
        """The shown findings of the configs the cases ran with, each once."""
        return tuple(sorted({f for r in self.results if r.status != "error" for f in r.findings}))

    @property
    def ok(self) -> bool:
        """Cases ran, all passed, and no config they ran with has an error finding
        (nothing to run is a failure: a wrong path or pattern must not pass CI)."""
        return (
            bool(self.results)
            and all(result.status == "passed" for result in self.results)
            and not any(f.severity is Severity.ERROR for f in self.config_findings)
        )


class Root(str):
    """The directory a fixture's configs must stay inside, and where that came from
    (shown when a config is refused as outside it)."""

    origin: str

    def __new__(cls, path: str, origin: str = "") -> Root:
        made = super().__new__(cls, path)
        made.origin = origin
        return made


ROOT_OPTION = "--root (pytest: --policytest-root)"


def root_for(path: str, options: CheckOptions, working_directory: str | None = None) -> Root:
    """Where ``path``'s configs must live: ``--root`` if given, else its git checkout,
    else the working directory (``working_directory``: pytest's invocation directory)."""
    if options.root:
        return Root(os.path.realpath(options.root), f"set by {ROOT_OPTION}")
    return repository_root(path, working_directory)


def repository_root(start: str, working_directory: str | None = None) -> Root:
    """The nearest directory at or above ``start`` that holds ``.git``; outside a git
    checkout (a Docker build context, a CI job without ``.git``), the working directory
    (``working_directory``: pytest's invocation directory), or the fixture's own
    directory when the fixture is not below the working directory.

    The search climbs the path as written, not its target: a symlinked ``fixtures/``
    that points outside the repository still belongs to the repository it sits in, so
    its configs must come from there. The root is returned with symlinks resolved.
    """
    current = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    probe = current
    while True:
        if os.path.exists(os.path.join(probe, ".git")):
            return Root(os.path.realpath(probe), "the git checkout the fixture is in")
        parent = os.path.dirname(probe)
        if parent == probe:
            where = os.path.realpath(working_directory or os.getcwd())
            if is_inside(os.path.realpath(current), where):
                return Root(
                    where, "the working directory, as no `.git` was found above the fixture"
                )
            return Root(
                os.path.realpath(current),
                "the fixture's own directory, as no `.git` was found above it and it is "
                "outside the working directory",
            )
        probe = parent


def discover(paths: Sequence[str]) -> Iterator[str]:
    """Fixture files: named explicitly, or ``*.policytest.yaml`` found under a directory."""
    for path in paths:
        if os.path.isdir(path):
            for directory, subdirectories, files in os.walk(path):
                subdirectories[:] = sorted(
                    d for d in subdirectories if d not in SKIPPED_DIRECTORIES
                )
                for name in sorted(files):
                    if name.endswith(FIXTURE_SUFFIXES):
                        yield os.path.join(directory, name)
        elif os.path.exists(path):
            yield path
        else:
            raise PathNotFound(path)


Progress = Callable[[int, int, str], None]
"""Told (files done, files in all, the file just run) after each fixture file."""


def run_paths(
    paths: Sequence[str], options: CheckOptions, progress: Progress | None = None
) -> RunReport:
    """Run every case of every fixture under ``paths``."""
    files = list(discover(paths))
    results: list[CaseResult] = []
    for done, path in enumerate(files, start=1):
        results.extend(run_file(path, options, root_for(path, options)))
        if progress is not None:
            progress(done, len(files), path)
    return RunReport(tuple(results), tuple(paths))


def run_file(path: str, options: CheckOptions, root: str) -> list[CaseResult]:
    """Every case of one fixture file (each document that is a fixture)."""
    return [case.run() for case in plan_file(path, options, root)]


@dataclass(frozen=True)
class PlannedCase:
    """A case of a loaded fixture, run on demand: the pytest plugin collects cases
    cheaply and runs each in its own item (so ``pytest -n`` shares the work out)."""

    name: str
    line: int
    run: Callable[[], CaseResult]
    config: PlannedConfig | None = None
    """The config the case runs with (shared by the cases of one fixture)."""


@dataclass(frozen=True)
class PlannedConfig:
    """A fixture's scheduler config, checked on demand: ``check`` gives its shown
    findings (loaded once, with the cases: the same load the cases score with)."""

    name: str
    line: int
    check: Callable[[], tuple[Finding, ...] | None]


def plan_file(path: str, options: CheckOptions, root: str) -> list[PlannedCase]:
    """The cases of one fixture file, loaded and checked but not run."""
    source = read_file(path, options.limits)
    if source.problems:
        return [_ready(_file_error(path, source.problems))]
    planned: list[PlannedCase] = []
    for document in source.documents:
        if kind_of(document.root) is Kind.FIXTURE:
            planned.extend(plan_fixture_document(document, options, root))
    return planned


def plan_fixture_document(
    document: Document, options: CheckOptions, root: str
) -> list[PlannedCase]:
    """One fixture document's cases; its scheduler config is loaded by the first run."""
    fixture, problems = load_fixture(document, options)
    if fixture is None:
        return [_ready(_file_error(document.path, problems, _case_names(document)))]
    scheduler = cache(lambda: load_scheduler(fixture, options, root))
    nodes = cache(lambda: cluster_nodes(fixture))  # every case starts from the same nodes

    def run(case: Case, problems: list[Finding]) -> CaseResult:
        loaded, findings = scheduler()
        return run_as_loaded(fixture, case, problems, loaded, findings, options, nodes())

    def check() -> tuple[Finding, ...] | None:
        """The config's shown findings; ``None`` when there is no config to check (the
        fixture's own problem, such as a missing file: its cases say so)."""
        loaded, findings = scheduler()
        if loaded is None and all(f.rule == FIXTURE_ERROR.id for f in findings):
            return None
        return tuple(f for f in visible(findings, options) if f.rule != FIXTURE_ERROR.id)

    ref = fixture.scheduler
    where = child(ref.node, "config") if ref.config_path is not None else ref.config_node
    config = PlannedConfig(
        ref.config_path or "(inline)", document.position(where or ref.node).line, check
    )
    return [
        PlannedCase(
            case.name, document.position(case.node).line, partial(run, case, problems), config
        )
        for case, problems in checked_cases(fixture)
    ]


def run_as_loaded(
    fixture: Fixture,
    case: Case,
    problems: Sequence[Finding],
    loaded: Scheduler | None,
    findings: Sequence[Finding],
    options: CheckOptions,
    nodes: Sequence[Node] | None = None,
) -> CaseResult:
    """One case as the scheduler would run it: scored with the config as loaded (with
    the scheduler's silent corrections), its shown findings attached; an error only
    when the fixture itself is broken (``problems``) or the scheduler refuses the config."""
    if problems:
        return findings_result(fixture, case, problems, problems)
    shown = visible(findings, options)
    if loaded is None:
        errors = [f for f in findings if f.severity is Severity.ERROR]
        return findings_result(fixture, case, errors, shown, refusal(errors))
    return run_case(fixture, case, loaded, shown, nodes)


def refusal(errors: Sequence[Finding]) -> str:
    """How a config the scheduler refuses is described before its errors."""
    rules = {finding.rule[:1] for finding in errors}
    if "K" in rules:
        return "kube-scheduler refuses this config and does not start"
    if "V" in rules:
        return "Volcano rejects this conf and keeps running its previous one"
    return "" if errors else "no scheduler config"  # the fixture's own problem (PT003)


def checked_cases(fixture: Fixture) -> list[tuple[Case, list[Finding]]]:
    """Each case with what makes it an error whatever the config: problems in the
    cluster (every case inherits them) and in its own pods (PT003)."""
    in_cluster = cluster_problems(fixture)
    return [(case, [*in_cluster, *case_problems(fixture, case)]) for case in fixture.cases]


def findings_result(
    fixture: Fixture,
    case: Case,
    errors: Sequence[Finding],
    findings: Sequence[Finding],
    otherwise: str = "",
) -> CaseResult:
    """A case that could not run because of ``errors`` (shown with all ``findings``)."""
    described = "; ".join(_describe(f) for f in errors)
    message = f"{otherwise}: {described}" if otherwise and described else described or otherwise
    line = fixture.document.position(case.node).line
    return error_result(fixture.document.path, case.name, message, line, findings)


def _ready(result: CaseResult) -> PlannedCase:
    return PlannedCase(result.case, result.line, lambda: result)


def load_fixture(document: Document, options: CheckOptions) -> tuple[Fixture | None, list[Finding]]:
    """Decode and schema-check a fixture document into the model (``None`` and every
    problem found when it is not a valid fixture)."""
    fixture, problems = _fixture_and_problems(document, options)
    return (None if problems else fixture), problems


def _fixture_and_problems(
    document: Document, options: CheckOptions
) -> tuple[Fixture | None, list[Finding]]:
    """The model and every problem that keeps it from running, found in one pass: with
    schema problems in some nodes or cases, the rest is still built and checked (see
    :mod:`policytest.fixture_salvage`) and the model is returned for the checks only."""
    value = decoded(document, options)
    if isinstance(value, Finding):
        return None, [value]
    problems = schema_findings(document, "policytest-fixture", value)
    skip_nodes: frozenset[int] = frozenset()
    skip_cases: frozenset[int] = frozenset()
    if problems:
        skipped = salvageable(value)
        if skipped is None:
            return None, problems
        skip_nodes, skip_cases = skipped
    assert isinstance(value, dict)  # the schema (or the salvage) says it is a mapping
    built, named = build_fixture_all(document, value, skip_nodes, skip_cases)
    problems = [*problems, *named]
    if problems:
        problems += cluster_problems(built)
        problems += (f for case in built.cases for f in case_problems(built, case))
        return built, sorted(set(problems))
    too_big = size_problem(built, options.limits)
    if too_big is not None:
        return None, [too_big]
    return built, []


def fixture_findings(document: Document, options: CheckOptions, root: str) -> list[Finding]:
    """Everything that would make a fixture's cases error, without running them: what
    ``validate`` reports for a fixture (the config's own findings belong to the config),
    all in one pass."""
    fixture, problems = _fixture_and_problems(document, options)
    if fixture is None:
        return problems
    if not problems:
        problems = cluster_problems(fixture)
        problems += (finding for case in fixture.cases for finding in case_problems(fixture, case))
    _, config_findings = load_scheduler(fixture, options, root)
    problems += (f for f in config_findings if f.rule == FIXTURE_ERROR.id)
    return sorted(set(problems))


def load_scheduler(
    fixture: Fixture, options: CheckOptions, root: str
) -> tuple[Scheduler | None, list[Finding]]:
    """The executable scheduler for a fixture, and the findings of its config."""
    ref = fixture.scheduler
    document = fixture.document
    if ref.config_node is not None:
        config = document.item(ref.config_node)
        volcano = merged_child(ref.node, "volcano", document.text)
        kind = Kind.VOLCANO if volcano is ref.config_node else Kind.KUBE_SCHEDULER
        return _scheduler_for_fixture(fixture, config, kind, options)
    assert ref.config_path is not None  # the schema requires one of the three
    resolved = _resolve_inside(document.path, ref.config_path, root)
    key_node = child(ref.node, "config") or ref.node
    if resolved is None:
        return None, [
            FIXTURE_ERROR.at(
                document,
                key_node,
                f"config `{ref.config_path}` is outside the root {root}"
                f"{_origin(root)}; fixtures may only use configs inside the root: run "
                f"from a directory that holds both, or name one with {ROOT_OPTION}",
            )
        ]
    if not os.path.isfile(resolved):
        return None, [
            FIXTURE_ERROR.at(
                document,
                key_node,
                f"config `{ref.config_path}` does not exist (looked for {resolved})",
            )
        ]
    source = read_as_scheduler(read_file(_shown(resolved), options.limits), options)
    if source.problems:
        return None, list(source.problems)
    for config_document in source.documents:
        for embedded, kind in expand(config_document, options.limits):
            if kind in SCHEDULER_KINDS:
                return _scheduler_for_fixture(fixture, embedded, kind, options)
    return None, [
        FIXTURE_ERROR.at(
            document,
            key_node,
            f"config `{ref.config_path}` holds no Volcano conf or KubeSchedulerConfiguration",
        )
    ]


def scheduler_from_file(
    path: str, profile: str | None = None, options: CheckOptions | None = None
) -> Scheduler:
    """An executable scheduler from a config file, for Python tests and scripts.

    Raises :class:`ConfigUnusable` listing the error findings when the scheduler would
    refuse the config, the file holds none, or the config has error findings that are
    not suppressed (a Python test asks for a config without mistakes).
    """
    options = options or CheckOptions()
    scheduler, findings = config_scheduler(path, profile, options)
    errors = [f for f in visible(findings, options) if f.severity is Severity.ERROR]
    if scheduler is None or errors:
        every = errors or [f for f in findings if f.severity is Severity.ERROR]
        raise ConfigUnusable("; ".join(_describe(f) for f in every) or path)
    return scheduler


def config_scheduler(
    path: str, profile: str | None, options: CheckOptions
) -> tuple[Scheduler | None, list[Finding]]:
    """The scheduler the first config in the file at ``path`` makes, as the scheduler
    loads it (``None`` when it refuses it), and every finding of the config."""
    source = read_as_scheduler(read_file(path, options.limits), options)
    for document in source.documents:
        for embedded, kind in expand(document, options.limits):
            if kind in SCHEDULER_KINDS:
                return _scheduler_from(embedded, kind, profile, options)
    if source.problems:
        return None, list(source.problems)
    return None, [
        FIXTURE_ERROR.finding(path, 1, 1, "no Volcano conf or KubeSchedulerConfiguration")
    ]


class ConfigUnusable(Exception):
    """A scheduler config the scheduler would refuse, or a file that holds none."""


def _scheduler_for_fixture(
    fixture: Fixture, config: Document, kind: Kind, options: CheckOptions
) -> tuple[Scheduler | None, list[Finding]]:
    from policytest.scoring.engines import UnknownProfile

    try:
        return _scheduler_from(config, kind, fixture.scheduler.profile, options)
    except UnknownProfile as unknown:
        profile_node = child(fixture.scheduler.node, "profile") or fixture.scheduler.node
        return None, [FIXTURE_ERROR.at(fixture.document, profile_node, str(unknown))]


_LOADED: dict[object, tuple[Scheduler | None, tuple[Finding, ...]]] = {}
_LOADED_MAX = 64


def _scheduler_from(
    config: Document, kind: Kind, profile: str | None, options: CheckOptions
) -> tuple[Scheduler | None, list[Finding]]:
    """Check and build a config; a suite's fixtures share a few configs, so the result is
    kept per config text, place and options (schedulers and findings are immutable)."""
    from policytest.scoring.engines import build_scheduler

    place = (config.path, config.index, config.root.start_mark.index, config.root.end_mark.index)
    key = (*place, config.text, config.positions, config.embedding, kind, profile, options)
    if key in _LOADED:
        scheduler, known = _LOADED[key]
        return scheduler, list(known)
    findings = check_document(config, kind, options)
    scheduler, problems = build_scheduler(config, kind, profile, options)
    result = sorted(set(findings) | set(problems))
    if len(_LOADED) >= _LOADED_MAX:
        _LOADED.clear()
    _LOADED[key] = scheduler, tuple(result)
    return scheduler, result


def _origin(root: str) -> str:
    origin = getattr(root, "origin", "")
    return f" ({origin})" if origin else ""


def _shown(path: str) -> str:
    """``path`` relative to the working directory when it is below it (as users type it)."""
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir) else relative


def _resolve_inside(fixture_path: str, config_path: str, root: str) -> str | None:
    """The real path of the config, or ``None`` when it leaves ``root`` (symlinks followed)."""
    base = os.path.dirname(os.path.abspath(fixture_path))
    real = os.path.realpath(os.path.join(base, config_path))
    return real if is_inside(real, root) else None


def is_inside(real: str, root: str) -> bool:
    """Whether the resolved path ``real`` is ``root`` or below it (``root`` resolved here)."""
    real_root = os.path.realpath(root)
    return real == real_root or real.startswith(real_root + os.sep)


def _file_error(path: str, problems: Sequence[Finding], cases: Sequence[str] = ()) -> CaseResult:
    message = "; ".join(_describe(p) for p in problems) or "not a fixture"
    line = problems[0].line if problems else 1
    return error_result(path, ", ".join(cases) or "(fixture)", message, line, problems)


def _case_names(document: Document) -> list[str]:
    names = []
    for case in sequence_items(child(document.root, "cases")):
        names.append(scalar(child(case, "name")) or "?")  # never a collection's repr
    return names


def _describe(finding: Finding) -> str:
    return f"{finding.path}:{finding.line}:{finding.column}: {finding.rule} {finding.message}"
