"""Document markers: a ``...`` line ends a YAML document, and a scheduler reads one.

kube-scheduler converts its ``--config`` file from YAML to JSON before decoding it, and
that conversion reads the first YAML document only. A ``...`` line in the middle of a
KubeSchedulerConfiguration (seen in an example that then lists its ``extenders``) ends
the document there: every field after it is silently dropped, with no error at start-up.
The same holds for a ConfigMap value that holds the config, after ``...`` or ``---``.
Volcano's side of this is VC009 and VC001 (:mod:`policytest.volcano.check`).
"""

from __future__ import annotations

from policytest.core.findings import Finding, Severity
from policytest.core.rules import rule
from policytest.read.markers import end_marker_before
from policytest.read.source import Document, mapping_items, scalar

KUBE = "kube-scheduler"

PT006_AFTER_DOCUMENT_END = rule(
    "PT006",
    Severity.ERROR,
    "fields after a `...` line are not read by the scheduler",
    """
    A ``...`` line ends a YAML document. kube-scheduler reads only the first document of
    its ``--config`` file (or of the ConfigMap value mounted as that file, after ``...``
    or ``---``), and Volcano only the first of its conf, so the fields after the marker
    are silently dropped: an example whose ``extenders`` follow a ``...`` line runs
    without any extender, and nothing says so at start-up. Remove the marker so the
    fields belong to the config (``...`` is never needed in a config file). A ``---``
    line between two files' worth of manifests starts another object on purpose and is
    not reported; in a Volcano ConfigMap value the rest is VC009.

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


def marker_findings(
    config: Document, scheduler: str, outer: Document, following: Document | None
) -> list[Finding]:
    """PT006 for a config of ``scheduler`` found in ``outer`` (a document of the file,
    ``following`` the next one): as the document itself, or (kube-scheduler; Volcano's is
    VC009) in a ConfigMap value."""
    if config.embedding is not None:
        found = embedded_rest(config) if scheduler == KUBE else None
    elif following is not None and config.root is outer.root:
        found = ended_early(config, scheduler, following)
    else:
        found = None
    return [] if found is None else [found]


def ended_early(config: Document, scheduler: str, following: Document) -> Finding | None:
    """PT006 when ``following`` (the next document of the same file) is only separated
    from ``config`` by a ``...`` line: the rest of it."""
    line = end_marker_before(config.text, following.root.start_mark.index)
    if line is None:
        return None  # a `---` starts a document on purpose: another manifest
    where = config.positions.map(line, 0)
    return PT006_AFTER_DOCUMENT_END.finding(
        config.path,
        where.line,
        where.column,
        f"this `...` line ends the YAML document: {scheduler} reads only the first "
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
