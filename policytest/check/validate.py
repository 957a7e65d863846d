"""``policytest validate``: walk paths, read, recognise, check, filter findings.

This is the library entry point behind the CLI and the pre-commit hook; it returns a
report and never prints.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from types import ModuleType

from policytest.check import suppress
from policytest.check.configs import check_config, lookalike_of, other_scheduler, read_as_scheduler
from policytest.core.findings import Finding, Severity
from policytest.core.limits import ConfigCounter
from policytest.core.options import CheckOptions, RuleFilter
from policytest.core.records import field, record, replace
from policytest.read.paths import git_root, is_inside
from policytest.read.recognise import Kind, expand
from policytest.read.source import (
    PT001_UNREADABLE,
    STDIN_NAME,
    Document,
    SourceFile,
    is_yaml_path,
    read_file,
)
from policytest.read.walk import walk

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policytest.check.bundle import Bundle
    from policytest.volcano.lookalike import Lookalike

_LOOKS_LIKE_OURS = (
    r"(?m)KubeSchedulerConfiguration|kubescheduler\.config\.k8s\.io|policytest/v1|PolicyTest|"
    r"volcano-scheduler|^\s*(actions|tiers)\s*:"
)
"""Compiled (and cached by ``re``) for the first file that is not read cleanly."""


@record(frozen=True)
class ValidationReport:
    """What ``validate`` found: findings sorted by file and position, and file counts."""

    findings: tuple[Finding, ...]
    checked: tuple[str, ...]
    skipped: tuple[str, ...] = field(default=())
    notes: tuple[tuple[str, str], ...] = field(default=())
    """(path, why): paths skipped for a reason of their own (a Python virtualenv)."""
    judged: tuple[tuple[str, str], ...] = field(default=())
    """(path, release): configs judged as the release their files state, and why."""

    def count(self, severity: Severity) -> int:
        return sum(1 for finding in self.findings if finding.severity is severity)


Checker = Callable[[Document, CheckOptions], list[Finding]]
"""The findings of one recognised document."""


def validate_paths(
    paths: Sequence[str],
    options: CheckOptions,
    rules: RuleFilter | None = None,
    *,
    check_fixture: Checker,
    suppressing: suppress.Suppressing = suppress.kept,
) -> ValidationReport:
    """Validate every scheduler config and fixture under ``paths`` (findings filtered by
    ``rules``, default ``options.rules``, and the suppression comments ``suppressing``
    honours: every one, but in ``diff``'s review of a change).

    Fixtures are checked by ``check_fixture``, which loads their configs through this
    stage (:mod:`policytest.harness` sits above it); :func:`policytest.validate_paths`
    passes the fixtures' checker.
    """
    rules = options.rules if rules is None else rules
    findings: list[Finding] = []
    checked: list[str] = []
    skipped: list[str] = []
    notes: list[tuple[str, str]] = []
    virtualenvs: list[str] = []
    bundles: dict[str, Bundle] = {}
    judged: dict[tuple[str, str], None] = {}
    for path, explicit in walk(paths, is_yaml_path, virtualenvs):
        root = options.root or _default_root(path)
        source = read_as_scheduler(read_file(path, options.limits, root), options)
        around = Around(source, root, options, bundles, judged)
        ours, file_findings = _check_source(source, options, explicit, check_fixture, around)
        if not ours:
            skipped.append(source.path)
            continue
        checked.append(source.path)
        findings.extend(suppressing(file_findings, source, rules))
    skipped += virtualenvs
    notes += ((path, "a Python virtualenv, not walked") for path in virtualenvs)
    return ValidationReport(
        tuple(sorted(findings)), tuple(checked), tuple(skipped), tuple(notes), tuple(judged)
    )


def _check_source(
    source: SourceFile,
    options: CheckOptions,
    explicit: bool,
    check_fixture: Checker,
    around: Around,
) -> tuple[bool, list[Finding]]:
    """Whether the file holds anything of ours, and the findings for it.

    A file that cannot be parsed is an error when its text mentions a scheduler config
    or a fixture, when it is standard input (asked for, and never passed by a hook), or
    when it was named explicitly and cannot be read at all (permission denied, a
    dangling symlink). A template (Helm, Jinja, a placeholder an install script fills
    in) is one PT005 info when it looks like a scheduler config, else skipped; so is a
    recognised config whose own text is templated, and the others are checked. Otherwise
    it is somebody else's file (JSON with comments, a file too large): named explicitly,
    it gets a warning, so a repository-wide hook reports it without failing; found by
    walking, it is skipped.
    """
    templates = template_checks(source.path, source.text or source.head)
    template = (
        templates.file_template(source.path, source.text or source.head)
        if templates is not None and source.problems and not (source.refused or source.spent)
        else None
    )
    if template is not None and templates is not None:
        if not templates.OURS_IN_A_TEMPLATE.search(source.head):
            return False, []  # somebody else's template (a chart's Deployment)
        return True, [template]
    if source.problems:
        asked_for = (
            source.refused
            or source.spent
            or source.path == STDIN_NAME
            or (explicit and source.unreadable)
        )
        if asked_for or re.search(_LOOKS_LIKE_OURS, source.head) or _claimed(source):
            return True, list(source.problems)
        if not explicit:
            return False, []
        return True, [
            replace(
                problem,
                severity=Severity.WARNING,
                message=f"{problem.message} (not recognisable as a scheduler config or "
                "fixture, so not checked)",
            )
            for problem in source.problems
        ]
    findings: list[Finding] = []
    templated: list[Finding] = []
    ours = False
    documents = source.documents
    configs = ConfigCounter(options.limits.max_configs)
    for position, document in enumerate(documents):
        following = documents[position + 1] if position + 1 < len(documents) else None
        for embedded, kind in expand(document, options.limits, configs):
            ours = True
            other = around.other_scheduler(embedded, kind)
            if other is not None:
                findings.append(other)  # another scheduler's config: not checked
                continue
            template = templates.config_template(embedded) if templates else None
            if template is not None:
                templated = templated or [template]  # said once per file
                continue
            if kind is Kind.FIXTURE:
                findings.extend(check_fixture(embedded, options))
            else:
                findings.extend(around.check(embedded, kind))
            if kind in _MARKED and (following or embedded.embedding):
                from policytest.check.markers import marker_findings

                scheduler = _MARKED[kind]
                findings.extend(marker_findings(embedded, scheduler, document, following))
    return ours, findings + templated


_MARKED = {Kind.KUBE_SCHEDULER: "kube-scheduler", Kind.VOLCANO: "Volcano"}
"""The configs whose scheduler reads one YAML document (see :mod:`policytest.check.markers`)."""

_TEMPLATE_SIGNS = ("{{", "{%", "${", "__", "X")
"""Text without any of these (in a YAML-named file) is no template: the template checks
are not even imported for it."""


def template_checks(path: str, text: str) -> ModuleType | None:
    """:mod:`policytest.check.templates` when ``text`` (of ``path``) may be a template,
    else ``None``."""
    if is_yaml_path(path) and not any(sign in text for sign in _TEMPLATE_SIGNS):
        return None
    from policytest.check import templates

    return templates


class Around:
    """A file's configs checked where they are: as the release their files state, with
    the custom build that runs them (see :mod:`policytest.check.bundle`). The files of
    a directory are read once per run (``bundles``, shared between the files of a run),
    when its first config is checked. ``diff`` judges a config's effective settings
    with it too, so both commands judge a config alike."""

    def __init__(
        self,
        source: SourceFile,
        root: str | None,
        options: CheckOptions,
        bundles: dict[str, Bundle] | None = None,
        judged: dict[tuple[str, str], None] | None = None,
    ) -> None:
        self.source = source
        self.root = root
        self.options = options
        self.bundles = {} if bundles is None else bundles
        self.judged = {} if judged is None else judged
        """(path, release) of the configs judged as their files state (in order, once)."""

    def bundle(self) -> Bundle:
        from policytest.check.bundle import read_bundle

        path = self.source.path
        directory = path if path == STDIN_NAME else os.path.dirname(path)
        if directory not in self.bundles:
            self.bundles[directory] = read_bundle(
                path, self.source.documents, self.root, self.options.limits
            )
        return self.bundles[directory]

    def lookalike(self, config: Document, kind: Kind) -> Lookalike | None:
        """Whose config a Volcano-shaped document is, when not Volcano's (see
        :func:`~policytest.check.configs.lookalike_of`); the directory is read for a
        Volcano conf only, never for a fixture."""
        if kind is not Kind.VOLCANO:
            return None
        return lookalike_of(config, kind, self.bundle())

    def other_scheduler(self, config: Document, kind: Kind) -> Finding | None:
        """PT010 for another scheduler's config in the shape of a Volcano conf."""
        found = self.lookalike(config, kind)
        return None if found is None else other_scheduler(config, found)

    def judging(self, config: Document, kind: Kind) -> CheckOptions | Finding:
        """The options ``config`` is judged with: the release and build its files state
        (see :mod:`policytest.check.declared`), or the PT009 finding that it is not
        judged, its release being outside the table."""
        if kind not in _MARKED:
            return self.options
        from policytest.check import bundle

        around = self.bundle()
        if not bundle.may_state(config, self.source.documents, around):
            return self.options
        from policytest.check.declared import judge

        scheduler = bundle.KUBE if kind is Kind.KUBE_SCHEDULER else bundle.VOLCANO
        judged, said = judge(config, scheduler, self.source.documents, around, self.options)
        self.judged.update(((config.path, what), None) for what in said)
        return judged

    def check(self, config: Document, kind: Kind) -> list[Finding]:
        """The findings of one config, judged as its files say."""
        judged = self.judging(config, kind)
        if isinstance(judged, Finding):
            return [judged]
        if kind not in _MARKED:
            return check_config(config, kind, judged)
        from policytest.check import bundle

        scheduler = bundle.KUBE if kind is Kind.KUBE_SCHEDULER else bundle.VOLCANO
        runner = bundle.custom_build(config, scheduler, self.bundle())
        found = check_config(config, kind, judged)
        return [bundle.as_custom_build(finding, config, runner) for finding in found]


def _claimed(source: SourceFile) -> bool:
    """A scheduler's own reading already rejected it (VC001 for a Volcano conf file)."""
    return any(problem.rule != PT001_UNREADABLE.id for problem in source.problems)


def _default_root(path: str) -> str | None:
    """The root ``path`` must resolve inside: its git checkout, else (no ``.git``) the
    working directory when ``path`` is below it, as for a fixture's config (see
    ``policytest.harness.load.root_for``); ``None`` otherwise, which leaves the file's
    own directory."""
    if path == "-":
        return None
    checkout = git_root(path)
    if checkout is not None:
        return checkout
    where = os.getcwd()
    directory = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    return where if is_inside(directory, where) else None
