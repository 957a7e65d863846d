"""Recognising: which kind of document is this, and where do embedded configs hide?

A ``kind: List`` contributes its items and a ConfigMap contributes every ``data``
value that parses as a scheduler config (Volcano's chart uses
``volcano-scheduler.conf``, but Helm values may pick any key). Everything else is
"not ours" and is skipped, so the pre-commit hook can run on every YAML file.
"""

from __future__ import annotations

import dataclasses
import enum
import re

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode

from policytest import positions
from policytest.goyaml import scalar_text
from policytest.limits import Limits
from policytest.options import CheckOptions
from policytest.source import (
    Document,
    Embedding,
    ParseFailure,
    SourceFile,
    child,
    compose_all,
    lookup,
    scalar,
    sequence_items,
)

KUBE_SCHEDULER_API_GROUP = "kubescheduler.config.k8s.io/"
FIXTURE_API_VERSION = "policytest/v1"


class Kind(str, enum.Enum):
    """The kinds of document policytest understands."""

    VOLCANO = "volcano-scheduler-conf"
    KUBE_SCHEDULER = "KubeSchedulerConfiguration"
    KUBE_POLICY = "Policy"
    FIXTURE = "PolicyTest"
    OTHER = "other"


def kind_of(root: Node) -> Kind:
    """Recognise one document by its shape (never by its file name)."""
    if not isinstance(root, MappingNode):
        return Kind.OTHER
    kind = scalar(child(root, "kind"))
    api_version = scalar(child(root, "apiVersion")) or ""
    if kind == "KubeSchedulerConfiguration":
        return Kind.KUBE_SCHEDULER
    if kind == "PolicyTest" or api_version == FIXTURE_API_VERSION:
        return Kind.FIXTURE
    if kind == "Policy" and (
        api_version in ("", "v1") or api_version.startswith(KUBE_SCHEDULER_API_GROUP)
    ):
        return Kind.KUBE_POLICY  # the scheduler's; audit.k8s.io and others have a Policy too
    if kind is None and (lookup(root, "predicates") or lookup(root, "priorities")):
        return Kind.KUBE_POLICY
    if kind is None and (lookup(root, "actions") or lookup(root, "tiers")):
        return Kind.VOLCANO
    return Kind.OTHER


def expand(document: Document, limits: Limits) -> list[tuple[Document, Kind]]:
    """The documents to check inside ``document``: itself, List items, ConfigMap data."""
    root = document.root
    kind = scalar(child(root, "kind"))
    if kind == "List":
        found: list[tuple[Document, Kind]] = []
        for item in sequence_items(child(root, "items"))[: limits.max_documents]:
            found.extend(expand(document.item(item), limits))
        return found
    if kind == "ConfigMap":
        return _configmap_documents(document, limits)
    recognised = kind_of(root)
    return [] if recognised is Kind.OTHER else [(document, recognised)]


def _configmap_documents(document: Document, limits: Limits) -> list[tuple[Document, Kind]]:
    name = scalar(child(child(document.root, "metadata") or document.root, "name")) or ""
    found: list[tuple[Document, Kind]] = []
    data = child(document.root, "data")
    if not isinstance(data, MappingNode):
        return found
    for key_node, value_node in data.value:
        if not isinstance(value_node, ScalarNode) or "\n" not in scalar_text(value_node).strip():
            continue
        embedded = _embedded_document(
            document, value_node, Embedding(name, str(key_node.value)), limits
        )
        if embedded is None:
            continue
        embedded_kind = kind_of(embedded.root)
        if embedded_kind in (Kind.VOLCANO, Kind.KUBE_SCHEDULER, Kind.KUBE_POLICY):
            found.append((embedded, embedded_kind))
    return found


def _embedded_document(
    outer: Document, node: ScalarNode, embedding: Embedding, limits: Limits
) -> Document | None:
    """Parse a ConfigMap value; ``None`` if it is not YAML."""
    mark = node.start_mark
    text = scalar_text(node)
    mapping = (
        positions.for_scalar(outer.text, node.style, mark.line, mark.column, mark.index, text)
        if outer.positions is positions.IDENTITY
        else positions.Fixed(outer.position(node))
    )
    try:
        roots = compose_all(text, limits)
    except ParseFailure:
        return None
    if not roots:
        return None
    # The schedulers read the first document of a multi-document string only.
    embedding = dataclasses.replace(embedding, ignored=tuple(roots[1:]))
    return outer.embedded(roots[0], text, mapping, embedding)


def read_as_scheduler(source: SourceFile, options: CheckOptions) -> SourceFile:
    """``source``, or the Volcano conf inside it when only Volcano's own reading parses it.

    volcano-scheduler trims the whole file (Go's ``strings.TrimSpace``) before parsing, so
    a raw conf whose first line is indented loads in Volcano while YAML tools reject it.
    """
    if source.text is None or not _VOLCANO_HINT.search(source.head):
        return source
    from policytest.volcano.check import as_scheduler_reads

    read = as_scheduler_reads(source.path, source.text, options)
    if isinstance(read, Document) and kind_of(read.root) is Kind.VOLCANO:
        return dataclasses.replace(source, documents=(read,), problems=())
    return source


_VOLCANO_HINT = re.compile(r"^\s*(actions|tiers)\s*:", re.MULTILINE)
