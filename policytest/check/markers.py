"""Document markers: a ``...`` line ends a YAML document, and kube-scheduler reads one.

kube-scheduler converts its ``--config`` file from YAML to JSON before decoding it, and
that conversion reads the first YAML document only. A ``...`` line in the middle of a
KubeSchedulerConfiguration (seen in an example that then lists its ``extenders``) ends
the document there: every field after it is silently dropped, with no error at start-up.
The same holds for a ConfigMap value that holds the config, after ``...`` or ``---``.
Volcano's side of this is VC009 and VC001 (:mod:`policytest.volcano.check`).
"""

from __future__ import annotations

import re

from policytest.core.findings import Finding, Severity
from policytest.core.rules import rule
from policytest.read.source import Document, mapping_items, scalar

PT006_AFTER_DOCUMENT_END = rule(
    "PT006",
    Severity.ERROR,
    "fields after a `...` (or `---`) line are not read by kube-scheduler",
    """
    A ``...`` line ends a YAML document. kube-scheduler reads only the first document of
    its ``--config`` file (or of the ConfigMap value mounted as that file), so the fields
    after the marker are silently dropped: an example whose ``extenders`` follow a
    ``...`` line runs without any extender, and nothing says so at start-up. Remove the
    marker so the fields belong to the config (``...`` is never needed in a config file).

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: topolvm-scheduler
        ...
        extenders:
        - urlPrefix: http://127.0.0.1:9251
          filterVerb: predicate
          weight: 1

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: topolvm-scheduler
        extenders:
        - urlPrefix: http://127.0.0.1:9251
          filterVerb: predicate
          weight: 1
    """,
)

_END = re.compile(r"^\.\.\.[ \t]*(?:#.*)?$", re.MULTILINE)
_START = re.compile(r"^---(?:[ \t]|$)", re.MULTILINE)


def marker_findings(config: Document, outer: Document, following: Document | None) -> list[Finding]:
    """PT006 for a KubeSchedulerConfiguration found in ``outer`` (a document of the file,
    ``following`` the next one): in a ConfigMap value, or as the document itself."""
    if config.embedding is not None:
        found = embedded_rest(config)
    elif following is not None and config.root is outer.root:
        found = ended_early(config, following)
    else:
        found = None
    return [] if found is None else [found]


def ended_early(config: Document, following: Document) -> Finding | None:
    """PT006 when ``following`` (the next document of the same file) is only separated
    from the KubeSchedulerConfiguration ``config`` by a ``...`` line: the rest of it."""
    text = config.text
    between = text[config.root.end_mark.index : following.root.start_mark.index]
    marker = _END.search(between)
    if marker is None or _START.search(between):
        return None  # a `---` starts a document on purpose: another manifest
    line = text.count("\n", 0, config.root.end_mark.index + marker.start())
    where = config.positions.map(line, 0)
    return PT006_AFTER_DOCUMENT_END.finding(
        config.path,
        where.line,
        where.column,
        "this `...` line ends the YAML document: kube-scheduler reads only the first "
        f"document of its config and silently drops what follows ({_fields(following)}); "
        "remove the `...` line",
        config.index,
    )


def embedded_rest(config: Document) -> Finding | None:
    """PT006 for a ConfigMap value holding the config and more YAML documents."""
    if config.embedding is None or not config.embedding.ignored:
        return None
    rest = config.item(config.embedding.ignored[0])
    return PT006_AFTER_DOCUMENT_END.at(
        config,
        rest.root,
        f"`{config.embedding.key}` holds more than one YAML document (a `...` or `---` "
        "line ends the first): kube-scheduler reads only the first and silently drops the "
        f"rest ({_fields(rest)}); remove the marker",
    )


def _fields(document: Document) -> str:
    """``fields `extenders`, `percentageOfNodesToScore``` (or ``its lines``)."""
    names = [scalar(key) for key, _ in mapping_items(document.root)]
    shown = [f"`{name}`" for name in names[:4] if name]
    return f"fields {', '.join(shown)}" if shown else "its lines"
