"""Templates are not configs: a Helm or Jinja template, or a file an install script fills in.

A chart's ``templates/volcano-scheduler-configmap.yaml`` (``{{ .Values... }}``,
``{{- if }}`` lines), an Ansible ``.j2`` file or a manifest with a placeholder such as
``XVERSIONX`` is not what reaches the cluster: what it renders to is. Checking the raw
text reports invented errors (invalid YAML, an unknown apiVersion, an invalid key), and a
chart in the repository then blocks every commit. Such a file gets one info finding
saying how to check what it renders to, and the files around it are checked as usual.
"""

from __future__ import annotations

import os
import re

from policytest.core.findings import Finding, Severity
from policytest.core.records import record
from policytest.core.rules import rule
from policytest.read.nodes import line_column
from policytest.read.source import STDIN_NAME, Document

OURS_IN_A_TEMPLATE = re.compile(
    r"KubeSchedulerConfiguration|kubescheduler\.config\.k8s\.io|policytest/v1|"
    r"volcano-scheduler\.conf\s*:|^\s*(actions|tiers)\s*:",
    re.MULTILINE,
)
"""What makes a template one of a scheduler config (a chart's scheduler Deployment,
which names the conf's path, is not)."""

PT005_TEMPLATE = rule(
    "PT005",
    Severity.INFO,
    "a template, not a config: check what it renders to",
    """
    A Helm template (``{{ ... }}``, ``{{- if }}`` lines, a file under a chart's
    ``templates/``, a named template a chart's ``_helpers.tpl`` defines with
    ``{{- define }}``), a Jinja template (``{% ... %}``, a ``.j2`` file) or a manifest
    with a placeholder an install script substitutes (``XVERSIONX``, ``${VERSION}``) is
    not the config the scheduler reads: what it renders to is. policytest does not check
    the template itself (its raw text is rarely valid YAML); it says so once, with the
    command that renders it (``helm template CHART --show-only templates/FILE`` for a
    chart's template, the whole chart for a named template, which renders where it is
    included), and checks the other files. Check the rendered config instead, e.g.
    ``helm template volcano ./chart | policytest validate -`` in CI.

    Failing::

        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ .Release.Name }}-scheduler-configmap
        data:
          volcano-scheduler.conf: |
            actions: "{{ .Values.scheduler.actions }}"

    Passing::

        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: volcano-scheduler-configmap
        data:
          volcano-scheduler.conf: |
            actions: "enqueue, allocate, backfill"
    """,
)

JINJA_SUFFIXES = (".j2", ".jinja", ".jinja2")
GO_TEMPLATE_SUFFIXES = (".tpl", ".tmpl", ".gotmpl")
"""Go templates: a chart's ``_helpers.tpl`` holds Helm's named templates (``define``)."""
_HELM = re.compile(
    r"\{\{-?\s*(?:[.$]|(?:if|else|end|range|with|include|template|define|toYaml|tpl)\b)"
)
_DEFINE = re.compile(r"\{\{-?\s*define\b")
"""A named template: it renders only where a chart template includes it."""
_JINJA = re.compile(r"\{%-?\s*\w|\{\{-?\s*\w")
_PLACEHOLDER = re.compile(
    r"(?<![A-Za-z0-9])X[A-Z][A-Z0-9_]*[A-Z0-9]X(?![A-Za-z0-9])|\$\{[A-Za-z_][A-Za-z0-9_]*\}|__[A-Z][A-Z0-9_]*__"
)


@record(frozen=True)
class Template:
    """Why a text is a template, where that shows first (an index), and how to check
    what it renders to."""

    what: str
    index: int
    render: str


def template_of(path: str, text: str, start: int = 0, end: int | None = None) -> Template | None:
    """The template ``text[start:end]`` (read from ``path``) is, or ``None``."""
    stop = len(text) if end is None else end
    name = path.lower()
    jinja_name = name.endswith(JINJA_SUFFIXES)
    helm = None if jinja_name else _search(_HELM, text, start, stop)
    if helm is not None:
        return _helm_template(path, text, start, stop, helm.start())
    if name.endswith(GO_TEMPLATE_SUFFIXES):
        return Template(
            f"a Go template (a `{os.path.splitext(name)[1]}` file)",
            start,
            "render it as the tool that reads it does (`helm template` for a chart) and "
            "pipe the result to `policytest validate -`",
        )
    jinja = _search(_JINJA, text, start, stop)
    if jinja_name or jinja is not None:
        return Template(
            f"a Jinja template (`{_excerpt(text, jinja.start())}`)"
            if jinja
            else f"a Jinja template (a `{os.path.splitext(name)[1]}` file)",
            jinja.start() if jinja else start,
            "render it as your playbook does and pipe the result to `policytest validate -`",
        )
    placeholder = _search(_PLACEHOLDER, text, start, stop)
    if placeholder is not None:
        token = placeholder.group(0)
        shown = "-" if path == STDIN_NAME else path
        return Template(
            f"a template: `{token}` is a placeholder an install script substitutes",
            placeholder.start(),
            f"substitute it and pipe the result, e.g. "
            f"`sed 's/{re.escape(token)}/VALUE/g' {shown} | policytest validate -`",
        )
    return None


def _helm_template(path: str, text: str, start: int, stop: int, index: int) -> Template:
    """A Helm template; a named one (``define``) renders only where the chart includes
    it, so the whole chart's output is what to check."""
    named = _search(_DEFINE, text, start, stop)
    if named is not None:
        return Template(
            f"a Helm named template (`{_excerpt(text, named.start())}`), which renders "
            "where the chart includes it",
            named.start(),
            f"`{_helm_command(path, whole=True)} | policytest validate -`",
        )
    return Template(
        f"a Helm template (`{_excerpt(text, index)}`)",
        index,
        f"`{_helm_command(path)} | policytest validate -`",
    )


def file_template(path: str, text: str) -> Finding | None:
    """PT005 for a whole file that is a template (one that is not even YAML)."""
    found = template_of(path, text)
    if found is None:
        return None
    line, column = _where(text, found.index)
    return _finding(path, line, column, 0, found)


def config_template(document: Document) -> Finding | None:
    """PT005 for a recognised config whose own text holds template syntax (a ConfigMap
    in a chart), checked instead of it; the configs around it are checked as usual."""
    found = config_template_of(document)
    if found is None:
        return None
    line, column = _where(document.text, found.index)
    where = document.positions.map(line - 1, column - 1)
    return _finding(document.path, where.line, where.column, document.index, found)


def config_template_of(document: Document) -> Template | None:
    """The template a recognised config's own text is (see :func:`config_template`)."""
    if document.embedding is not None or document.unparsed is not None:
        return template_of(document.path, document.text)
    root = document.root
    return template_of(document.path, document.text, root.start_mark.index, root.end_mark.index)


def not_checked(template: Template) -> str:
    """What ``diff`` says of a template's config: what PT005 says, as a status."""
    return (
        f"not checked: {template.what}, not the config the scheduler reads; check what it "
        f"renders to: {template.render}"
    )


def _finding(path: str, line: int, column: int, index: int, template: Template) -> Finding:
    return PT005_TEMPLATE.finding(
        path,
        line,
        column,
        f"this is {template.what}, not the config the scheduler reads, so it is not "
        f"checked; check what it renders to: {template.render}",
        index,
    )


def _helm_command(path: str, *, whole: bool = False) -> str:
    """``helm template`` for the chart holding ``path`` (a ``Chart.yaml`` above its
    ``templates/``), showing only this file unless ``whole``."""
    if path == STDIN_NAME:
        return "helm template RELEASE CHART"
    directory = os.path.dirname(os.path.abspath(path))
    while os.path.basename(directory) and os.path.basename(directory) != "templates":
        directory = os.path.dirname(directory)
    chart = os.path.dirname(directory)
    if not os.path.basename(directory) or not os.path.isfile(os.path.join(chart, "Chart.yaml")):
        return "helm template RELEASE CHART"
    shown = os.path.relpath(chart)
    if whole:
        return f"helm template {shown}"
    inside = os.path.relpath(os.path.abspath(path), chart).replace(os.sep, "/")
    return f"helm template {shown} --show-only {inside}"


def _search(pattern: re.Pattern[str], text: str, start: int, end: int) -> re.Match[str] | None:
    """The first match outside a comment line (a comment may name the placeholder)."""
    for found in pattern.finditer(text, start, end):
        line_start = text.rfind("\n", 0, found.start()) + 1
        if not text[line_start : found.start()].lstrip().startswith("#"):
            return found
    return None


def _where(text: str, index: int) -> tuple[int, int]:
    """1-based line and column of ``index``."""
    line, column = line_column(text, index)
    return line + 1, column + 1


def _excerpt(text: str, index: int) -> str:
    """The template action at ``index``, up to its ``}}`` (at most 60 characters)."""
    end = text.find("}}", index, index + 60)
    return text[index : end + 2 if end != -1 else index + 60].split("\n", 1)[0]
