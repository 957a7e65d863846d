"""ConfigMap values that hold a scheduler config Kubernetes or the scheduler cannot use.

A ConfigMap's ``data`` values are strings: a ``volcano-scheduler.conf:`` written without
its ``|`` (so the conf is a YAML mapping, not a string) makes Kubernetes refuse the whole
ConfigMap, and the scheduler keeps running with its old configuration. A config under
``binaryData`` is base64; Kubernetes mounts its decoded bytes, so policytest checks what
they decode to, and reports a value that is not base64 or not UTF-8 text.

:func:`policytest.read.recognise.expand` finds these values and hands each over as a document
of kind ``CONFIGMAP_VALUE`` whose ``unparsed`` failure says what is wrong; this module's
rule reports it, so such a file is never "clean" and ``diff`` never calls the config
removed.
"""

from __future__ import annotations

from policytest.core.findings import Finding, Severity
from policytest.core.options import CheckOptions
from policytest.core.rules import rule
from policytest.read.nodes import MappingNode
from policytest.read.source import Document

PT004_CONFIGMAP_VALUE = rule(
    "PT004",
    Severity.ERROR,
    "a ConfigMap value meant as a scheduler config is not one Kubernetes accepts",
    """
    A ConfigMap's ``data`` values must be strings. A ``volcano-scheduler.conf`` (or any
    value that holds a scheduler config) written as a YAML mapping or list, usually
    because the ``|`` after the key is missing, makes Kubernetes refuse the ConfigMap:
    ``kubectl apply`` fails, a GitOps sync stays out of sync, and the scheduler keeps its
    previous configuration. A config under ``binaryData`` must be base64 of UTF-8 text.
    Write the config as a block string (``key: |`` and the config indented under it).

    Failing::

        apiVersion: v1
        kind: ConfigMap
        metadata: {name: volcano-scheduler-configmap}
        data:
          volcano-scheduler.conf:
            actions: "enqueue, allocate, backfill"

    Passing::

        apiVersion: v1
        kind: ConfigMap
        metadata: {name: volcano-scheduler-configmap}
        data:
          volcano-scheduler.conf: |
            actions: "enqueue, allocate, backfill"
    """,
)

VOLCANO = "Volcano"
KUBE = "kube-scheduler"
"""The names ``diff`` gives the two schedulers' configs (as :mod:`policytest.diff.effective`)."""


def load(document: Document, options: CheckOptions) -> tuple[None, list[Finding]]:
    """No model (Kubernetes refuses the ConfigMap), and the one finding saying why."""
    return None, check(document, options)


def check(document: Document, options: CheckOptions) -> list[Finding]:
    """The one finding of a ConfigMap value that cannot be used (see the module)."""
    failure = document.unparsed
    assert failure is not None  # recognise builds these documents with their failure
    where = document.positions.map(failure.line, failure.column)
    return [
        PT004_CONFIGMAP_VALUE.finding(
            document.path, where.line, where.column, failure.message, document.index
        )
    ]


def scheduler_of(document: Document) -> str:
    """Which scheduler the unusable value was meant for (for ``diff``'s settings view)."""
    from policytest.read.recognise import Kind, kind_of

    key = document.embedding.key if document.embedding is not None else ""
    root = document.root
    if isinstance(root, MappingNode) and kind_of(root) in (Kind.KUBE_SCHEDULER, Kind.KUBE_POLICY):
        return KUBE
    return VOLCANO if key.endswith(".conf") or isinstance(root, MappingNode) else KUBE
