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
from policytest.core.limits import Limits
from policytest.core.rules import rule
from policytest.read.markers import end_marker_before, leading_end_marker
from policytest.read.nodes import MappingNode
from policytest.read.source import (
    PT001_UNREADABLE,
    Document,
    ParseFailure,
    child,
    compose_all,
    mapping_items,
    scalar,
)

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


def refused_wrapper(path: str, text: str, limits: Limits) -> Finding | None:
    """PT001 for a manifest holding a scheduler config (a ConfigMap, a ``data:``
    fragment) whose file starts with a ``...`` line.

    That line ends an empty implicit document, which YAML parsers refuse: kubectl (and
    kustomize, and a GitOps sync) cannot decode the document, so the ConfigMap never
    reaches the cluster. The config inside is not what starts with ``...`` (a raw conf
    that does is Volcano's load failure, VC001), so the message names the wrapper.
    """
    line = leading_end_marker(text)
    if line is None:
        return None
    rest = text.split("\n", line + 1)[-1]
    try:
        roots = compose_all(rest, limits)
    except ParseFailure:
        return None
    root = roots[0] if roots else None
    if not isinstance(root, MappingNode):
        return None
    if scalar(child(root, "kind")) == "ConfigMap":
        name = scalar(child(child(root, "metadata") or root, "name")) or ""
        held = f"the ConfigMap `{name}`" if name else "the ConfigMap"
    elif isinstance(data := child(root, "data"), MappingNode):
        keys = [f"`{scalar(key)}`" for key, _ in mapping_items(data)][:3]
        held = f"the `data:` that holds {', '.join(keys)}" if keys else "the `data:`"
    else:
        return None
    return PT001_UNREADABLE.finding(
        path,
        line + 1,
        1,
        f"this file starts with a `...` line, which ends an empty YAML document before "
        f"{held}: kubectl refuses the document that holds it (`did not find expected node "
        "content`), so it never reaches the cluster and the scheduler keeps its previous "
        "configuration; remove the `...` line",
    )


def _fields(document: Document) -> str:
    """``fields `extenders`, `percentageOfNodesToScore``` (or ``its lines``)."""
    names = [scalar(key) for key, _ in mapping_items(document.root)]
    shown = [f"`{name}`" for name in names[:4] if name]
    return f"fields {', '.join(shown)}" if shown else "its lines"
