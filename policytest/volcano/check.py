"""Checking a Volcano conf: load it as the scheduler does, then say what it will do.

The scheduler reads the mounted file, ``strings.TrimSpace``s it and unmarshals the first
YAML document; a YAML error, a wrongly typed field, a hierarchical drf next to
proportion or an unknown action rejects the whole file (it keeps its previous conf).
:func:`load` reproduces that and builds the model; :func:`check` returns the findings.
"""

from __future__ import annotations

import re

from policytest.core.findings import Finding
from policytest.core.options import CheckOptions
from policytest.core.records import record, replace
from policytest.read.goyaml import Budget, DecodeError, DecodeLimit, resolve_scalar
from policytest.read.markers import end_marker_before
from policytest.read.nodes import NULL, ScalarNode
from policytest.read.positions import IDENTITY, Position
from policytest.read.source import PT001_UNREADABLE, Document, ParseFailure, compose_all, empty_root
from policytest.volcano import rules, versions
from policytest.volcano.arguments import ACTIONS_CHECKED, TABLE_CHECKED
from policytest.volcano.binpack_args import BINPACK, binpack_findings
from policytest.volcano.conf import VolcanoConf, build, drf_conflicts, split_actions
from policytest.volcano.conf_checks import (
    EXAMPLE_ACTIONS,
    action_findings,
    cancellation_findings,
    configuration_findings,
    drf_findings,
    plugin_findings,
    spreading_findings,
    structure_findings,
    type_problem,
)
from policytest.volcano.decode import RawConf, unmarshal
from policytest.volcano.gotext import leading_space, trim_space
from policytest.volcano.nodeorder_args import NODEORDER, nodeorder_findings
from policytest.volcano.plugin_checks import plugin_argument_findings, plugin_stops_scheduler

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policytest.read.positions import PositionMap

_LEADING_END = re.compile(r"\.\.\.[ \t]*(?:#[^\n]*)?(?:\n|$)")
"""A ``...`` document end marker as the first line of the trimmed conf."""
_KEEP_CHOMPING = re.compile(r"[|>][1-9]?\+|[|>]\+")
_LINE_BREAKS = ("\r\n", "\n", "\r", "\x85", "\u2028", "\u2029")


@record(frozen=True)
class Shifted:
    """Positions in the trimmed text, mapped into the text the document came from."""

    base: PositionMap
    lines: int
    first_column: int

    def map(self, line: int, column: int) -> Position:
        shift = self.first_column if line == 0 else 0
        return self.base.map(line + self.lines, column + shift)


def _advance(prefix: str) -> tuple[int, int]:
    """(line breaks, column after the last one) in ``prefix``, counted as ruamel.yaml does."""
    lines = 0
    column = 0
    index = 0
    while index < len(prefix):
        for brk in _LINE_BREAKS:
            if prefix.startswith(brk, index):
                lines += 1
                column = 0
                index += len(brk)
                break
        else:
            column += 1
            index += 1
    return lines, column


def trimmed(document: Document, options: CheckOptions) -> Document | Finding:
    """The document the scheduler parses: its text after ``strings.TrimSpace``.

    Re-composed only when trimming can change the parse (leading white space, or trailing
    characters YAML does not itself ignore); positions stay those of the original file.
    """
    text = document.text
    if document.unparsed is not None and document.unparsed.limited:
        # the value's file ran out of its node budget: composing it again under a budget
        # of its own would let each value of a ConfigMap spend a whole file's
        failure = document.unparsed
        where = document.positions.map(failure.line, failure.column)
        return PT001_UNREADABLE.finding(
            document.path, where.line, where.column, failure.message, document.index
        )
    if document.unparsed is not None:
        return as_scheduler_reads(document.path, text, options, template=document)
    start = leading_space(text)
    tail = text[start + len(trim_space(text)) :]
    if start == 0 and not tail.strip(" \t\r\n") and not _KEEP_CHOMPING.search(text):
        return document
    if not _is_whole_text(document):
        return document  # a `kind: List` item: never a file of its own
    return as_scheduler_reads(document.path, text, options, template=document)


_PREAMBLE_LINE = re.compile(r"\s*(?:(?:---|%\S.*?)(?:\s+#.*)?|#.*)?\s*")


def _is_whole_text(document: Document) -> bool:
    """Does the root start the text (only blank, comment, directive or ``---`` lines before)?"""
    prefix = document.text[: document.root.start_mark.index]
    return all(_PREAMBLE_LINE.fullmatch(line) for line in prefix.splitlines() or [""])


def as_scheduler_reads(
    path: str, text: str, options: CheckOptions, *, template: Document | None = None
) -> Document | Finding:
    """The conf document Volcano parses from ``text``: the first YAML document of the
    ``strings.TrimSpace``d text, with positions in ``text`` (mapped further through
    ``template``'s positions when given), or the VC001 finding when it does not parse.

    The reader composes the text as written; a raw conf that only parses after trimming
    (an indented first line) needs this to be read at all.
    """
    start = leading_space(text)
    kept = trim_space(text)
    lines, column = _advance(text[:start])
    base = template.positions if template is not None else IDENTITY
    positions = Shifted(base, lines, column)
    try:
        roots = compose_all(kept, options.limits)
    except ParseFailure as failure:
        where = positions.map(failure.line, failure.column)
        why = (
            "the conf starts with a `...` line, which ends a YAML document before it has "
            "any content: Volcano's YAML parser (yaml.v2) rejects that, so Volcano keeps "
            "its previous configuration; remove the `...` line"
            if _LEADING_END.match(kept)
            else f"{failure.message}; Volcano trims the file and then cannot parse it, so "
            "it keeps its previous configuration"
        )
        return rules.VC001_LOAD_FAILURE.finding(
            path, where.line, where.column, why, template.index if template is not None else 0
        )
    if template is None:
        template = Document(path, 0, empty_root(), text)
    root = roots[0] if roots else empty_root()
    return replace(template, root=root, text=kept, positions=positions, unparsed=None)


def load(document: Document, options: CheckOptions) -> tuple[VolcanoConf | None, list[Finding]]:
    """Load one recognised Volcano conf document: the model Volcano would run (``None``
    when it rejects the file) and every finding about it, sorted."""
    release = versions.release(options.volcano_version)
    findings: list[Finding] = []
    if document.embedding is None and document.index > 0:
        if end_marker_before(document.text, document.root.start_mark.index) is not None:
            return None, []  # the `...` line before it is PT006 (policytest.check.markers)
        return None, [
            rules.VC009_IGNORED_DOCUMENT.at(
                document,
                document.root,
                f"this is YAML document {document.index + 1} of the file: mounted as "
                "volcano-scheduler.conf, Volcano reads only the first document and ignores "
                "this one (nothing in it is checked); keep one conf per file",
            )
        ]
    view = trimmed(document, options)
    if document.embedding is not None and document.embedding.ignored:
        findings.append(
            rules.VC009_IGNORED_DOCUMENT.at(
                document,
                document.embedding.ignored[0],
                f"`{document.embedding.key}` holds more than one YAML document (a `---` or "
                "`...` line ends the first): Volcano reads only the first and silently "
                "ignores the rest; remove the marker or move the rest into the first document",
            )
        )
    if isinstance(view, Finding):
        return None, sorted([*findings, view])
    if _is_empty(view):
        return None, sorted([*findings, _empty_conf(view)])
    budget = Budget.of(options.limits)
    try:
        raw = unmarshal(view.root, view.text, budget, string_arguments=release.string_arguments)
    except DecodeLimit as error:
        return None, sorted([*findings, PT001_UNREADABLE.at(view, error.node, str(error))])
    except DecodeError as error:
        message = (
            f"{error}: Volcano cannot load this file (yaml.v2 stops here) and keeps running "
            "its previous configuration"
        )
        return None, sorted([*findings, rules.VC001_LOAD_FAILURE.at(view, error.node, message)])
    conf = build(raw, release, frozenset(options.volcano_plugins))
    findings.extend(type_problem(view, problem) for problem in raw.problems)
    findings.extend(drf_findings(view, conf))
    findings.extend(action_findings(view, raw, release))
    findings.extend(structure_findings(view, raw))
    findings.extend(plugin_findings(view, conf, release))
    findings.extend(configuration_findings(view, conf, release))
    for entry in conf.plugins:
        if entry.name == BINPACK and entry.registered:
            findings.extend(
                binpack_findings(view, entry, string_arguments=release.string_arguments)
            )
        elif entry.name == NODEORDER and entry.registered:
            findings.extend(
                nodeorder_findings(view, entry, string_arguments=release.string_arguments)
            )
    findings.extend(plugin_argument_findings(view, conf, release))
    if _table_arguments(conf):
        from policytest.volcano.argument_checks import argument_findings  # the table, lazily

        findings.extend(argument_findings(view, conf, release))
    findings.extend(cancellation_findings(view, conf))
    findings.extend(spreading_findings(view, conf))
    accepted = (
        not raw.problems
        and not drf_conflicts(conf)
        and _actions_found(raw, release)
        and not plugin_stops_scheduler(conf, release)
    )
    return (conf if accepted else None), sorted(set(findings))


def _is_empty(document: Document) -> bool:
    """No content (empty, white space, comments) or a null: yaml.v2 decodes nothing. A
    scalar whose tag cannot hold it (``!!int abc``) is not empty: decoding it fails."""
    root = document.root
    if not isinstance(root, ScalarNode):
        return False
    try:
        return resolve_scalar(root, document.text)[0] == NULL
    except DecodeError:
        return False


def _empty_conf(document: Document) -> Finding:
    return rules.VC001_LOAD_FAILURE.at(
        document,
        document.root,
        "the conf is empty (no YAML content, or only a null): Volcano rejects an empty "
        'config ("failed to find Action": it reads no actions) and keeps running its '
        f"previous configuration; write the conf, e.g. `actions: {EXAMPLE_ACTIONS}` "
        "and its `tiers:`",
    )


def check(document: Document, options: CheckOptions) -> list[Finding]:
    """Every finding for one recognised Volcano conf document, sorted."""
    return load(document, options)[1]


def _actions_found(raw: RawConf, release: versions.Release) -> bool:
    """Volcano loads the conf: every action exists, or the release only logs the others."""
    if not release.unknown_action_rejects:
        return True
    return all(item.name in release.actions for item in split_actions(raw.actions))


def _table_arguments(conf: VolcanoConf) -> bool:
    """Does the conf give a table-checked plugin, or an action, arguments (is the table
    worth loading)?"""
    return any(e.name in TABLE_CHECKED and e.arguments for e in conf.plugins) or any(
        c.name in ACTIONS_CHECKED and c.arguments for c in conf.configurations
    )
