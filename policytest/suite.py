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
from policytest.engine import Scheduler
from policytest.findings import Finding, Severity
from policytest.fixture import (
    FIXTURE_ERROR,
    Case,
    Fixture,
    build_fixture,
    merged_child,
    size_problem,
)
from policytest.fixture_checks import case_problems, cluster_problems
from policytest.listing import listed
from policytest.options import CheckOptions
from policytest.paths import Refused, resolve
from policytest.paths import is_inside as is_inside  # the one path rule lives there
from policytest.paths import repository_root as repository_root
from policytest.recognise import Kind, expand, kind_of, read_as_scheduler
from policytest.runner import CaseResult, cluster_nodes, error_result, run_case
from policytest.schema import schema_findings
from policytest.source import Document, child, read_file, scalar, sequence_items
from policytest.validate import SKIPPED_DIRECTORIES, PathNotFound

FIXTURE_SUFFIXES = (".policytest.yaml", ".policytest.yml")
SCHEDULER_KINDS = (Kind.VOLCANO, Kind.KUBE_SCHEDULER)


@dataclass(frozen=True)
class RunReport:
    """Every case result of a run, in file and case order."""

    results: tuple[CaseResult, ...]

    def count(self, status: str) -> int:
        return sum(1 for result in self.results if result.status == status)

    @property
    def ok(self) -> bool:
        return all(result.status == "passed" for result in self.results)


def root_for(path: str, options: CheckOptions) -> str:
    """Where ``path``'s configs must live: ``--root`` if given, else its git repository."""
    return options.root or repository_root(path)


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
    return RunReport(tuple(results))


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


def plan_file(path: str, options: CheckOptions, root: str) -> list[PlannedCase]:
    """The cases of one fixture file, loaded and checked but not run."""
    source = read_file(path, options.limits, root)
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
        if problems:
            return findings_result(fixture, case, problems, problems)
        loaded, findings = scheduler()
        errors = [f for f in findings if f.severity is Severity.ERROR]
        if loaded is None or errors:
            return findings_result(fixture, case, errors, findings, "no scheduler config")
        return run_case(fixture, case, loaded, findings, nodes())

    return [
        PlannedCase(case.name, document.position(case.node).line, partial(run, case, problems))
        for case, problems in checked_cases(fixture)
    ]


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
    message = "; ".join(_describe(f) for f in errors) or otherwise
    line = fixture.document.position(case.node).line
    return error_result(fixture.document.path, case.name, message, line, findings)


def _ready(result: CaseResult) -> PlannedCase:
    return PlannedCase(result.case, result.line, lambda: result)


def load_fixture(document: Document, options: CheckOptions) -> tuple[Fixture | None, list[Finding]]:
    """Decode and schema-check a fixture document into the model."""
    value = decoded(document, options)
    if isinstance(value, Finding):
        return None, [value]
    problems = schema_findings(document, "policytest-fixture", value)
    if problems:
        return None, problems
    assert isinstance(value, dict)  # the schema says the document is a mapping
    built = build_fixture(document, value)
    if isinstance(built, Finding):
        return None, [built]
    too_big = size_problem(built, options.limits)
    if too_big is not None:
        return None, [too_big]
    return built, []


def fixture_findings(document: Document, options: CheckOptions, root: str) -> list[Finding]:
    """Everything that would make a fixture's cases error, without running them: what
    ``validate`` reports for a fixture (the config's own findings belong to the config)."""
    fixture, problems = load_fixture(document, options)
    if fixture is None:
        return problems
    problems = cluster_problems(fixture)
    problems += (finding for case in fixture.cases for finding in case_problems(fixture, case))
    _, config_findings = load_scheduler(fixture, options, root)
    problems += (f for f in config_findings if f.rule == FIXTURE_ERROR.id)
    return problems


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
    key_node = child(ref.node, "config") or ref.node
    try:
        resolved = _resolve_inside(document.path, ref.config_path, root)
    except Refused as refusal:
        return None, [
            FIXTURE_ERROR.at(document, key_node, f"config `{ref.config_path}`: {refusal}")
        ]
    if resolved is None:
        return None, [
            FIXTURE_ERROR.at(
                document,
                key_node,
                f"config `{ref.config_path}` is outside the repository root ({root}); "
                "fixtures may only use configs inside the repository",
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
    source = read_as_scheduler(read_file(_shown(resolved), options.limits, root), options)
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
    refuse the config or the file holds none.
    """
    options = options or CheckOptions()
    source = read_as_scheduler(read_file(path, options.limits, options.root), options)
    for document in source.documents:
        for embedded, kind in expand(document, options.limits):
            if kind in SCHEDULER_KINDS:
                scheduler, findings = _scheduler_from(embedded, kind, profile, options)
                errors = [f for f in findings if f.severity is Severity.ERROR]
                if scheduler is None or errors:
                    raise ConfigUnusable("; ".join(_describe(f) for f in errors) or path)
                return scheduler
    raise ConfigUnusable(
        "; ".join(_describe(p) for p in source.problems)
        or f"{path}: no Volcano conf or KubeSchedulerConfiguration"
    )


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


def _shown(path: str) -> str:
    """``path`` relative to the working directory when it is below it (as users type it)."""
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir) else relative


def _resolve_inside(fixture_path: str, config_path: str, root: str) -> str | None:
    """The real path of the config, or ``None`` when it leaves ``root`` (symlinks followed);
    :class:`Refused` for a name no file can have."""
    base = os.path.dirname(os.path.abspath(fixture_path))
    real = resolve(os.path.join(base, config_path))
    return real if is_inside(real, root) else None


def _file_error(path: str, problems: Sequence[Finding], cases: Sequence[str] = ()) -> CaseResult:
    message = "; ".join(_describe(p) for p in problems) or "not a fixture"
    line = problems[0].line if problems else 1
    return error_result(path, listed(cases) or "(fixture)", message, line, problems)


def _case_names(document: Document) -> list[str]:
    names = []
    for case in sequence_items(child(document.root, "cases")):
        names.append(scalar(child(case, "name")) or "?")  # never a collection's repr
    return names


def _describe(finding: Finding) -> str:
    return f"{finding.path}:{finding.line}:{finding.column}: {finding.rule} {finding.message}"
