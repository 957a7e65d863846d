"""Recognising: which kind of document is this, and where do embedded configs hide?

A ``kind: List`` contributes its items and a ConfigMap contributes every ``data``
value that parses as a scheduler config (Volcano's chart uses
``volcano-scheduler.conf``, but Helm values may pick any key). Everything else is
"not ours" and is skipped, so the pre-commit hook can run on every YAML file.

Shape decides, with one exception: a file or ConfigMap key named
``volcano-scheduler.conf`` is what Volcano mounts and reads whatever its shape (empty,
a list, a fragment), and a ConfigMap value that is evidently a scheduler config but not
YAML is still that scheduler's config: both are checked so the rejection is reported.
How each scheduler reads its own file (trimming, load failures) is
:func:`policytest.check.configs.read_as_scheduler`.
"""

from __future__ import annotations

import enum
import os
import re
from collections.abc import Iterable

from policytest.core.limits import ConfigCounter, Limits, NodeCounter
from policytest.core.records import replace
from policytest.core.suggest import closest
from policytest.read import positions
from policytest.read.goyaml import scalar_text
from policytest.read.nodes import NULL, PLAIN, MappingNode, Node, ScalarNode
from policytest.read.source import (
    Document,
    Embedding,
    ParseFailure,
    child,
    compose_all,
    empty_root,
    lookup,
    mapping_items,
    scalar,
    sequence_items,
)

KUBE_SCHEDULER_API_GROUP = "kubescheduler.config.k8s.io/"
FIXTURE_API_VERSION = "policytest/v1"
SNAPSHOT_KIND = "ClusterSnapshot"
"""A cluster snapshot (``policytest snapshot``) shares the apiVersion; it is data, not a fixture."""
VOLCANO_CONF_NAME = "volcano-scheduler.conf"
"""The file Volcano mounts (and the key of its chart's ConfigMap)."""


class Kind(str, enum.Enum):
    """The kinds of document policytest understands."""

    VOLCANO = "volcano-scheduler-conf"
    KUBE_SCHEDULER = "KubeSchedulerConfiguration"
    KUBE_POLICY = "Policy"
    FIXTURE = "PolicyTest"
    CONFIGMAP_VALUE = "ConfigMap value"
    """A ConfigMap value meant as a scheduler config that Kubernetes would refuse (a
    mapping under ``data``, ``binaryData`` that is not base64 text): its ``unparsed``
    failure says why (see :mod:`policytest.check.configmap`)."""
    REFUSED = "refused"
    """Where a file passed the ``configs`` limit: not composed nor checked; its
    ``unparsed`` failure names the limit (reported as PT001)."""
    OTHER = "other"


def kind_of(root: Node) -> Kind:
    """Recognise one document by its shape (see :func:`expand` for the file name)."""
    if not isinstance(root, MappingNode):
        return Kind.OTHER
    kind = scalar(child(root, "kind"))
    api_version = scalar(child(root, "apiVersion")) or ""
    if kind == "KubeSchedulerConfiguration":
        return Kind.KUBE_SCHEDULER
    if kind == "PolicyTest" or (api_version == FIXTURE_API_VERSION and kind != SNAPSHOT_KIND):
        return Kind.FIXTURE
    if kind == "Policy" and (
        api_version in ("", "v1") or api_version.startswith(KUBE_SCHEDULER_API_GROUP)
    ):
        return Kind.KUBE_POLICY  # the scheduler's; audit.k8s.io and others have a Policy too
    if kind is None and (lookup(root, "predicates") or lookup(root, "priorities")):
        return Kind.KUBE_POLICY
    if api_version.startswith(KUBE_SCHEDULER_API_GROUP) and _meant_as_kube_config(kind):
        return Kind.KUBE_SCHEDULER  # kube-scheduler rejects it: the checker says why
    if kind is None and (lookup(root, "actions") or lookup(root, "tiers")):
        return Kind.VOLCANO
    return Kind.OTHER


def _meant_as_kube_config(kind: str | None) -> bool:
    """A missing ``kind`` or a near miss (``KubeSchedulerConfig``) in the scheduler's group;
    its other kinds (``NodeResourcesFitArgs``...) are plugin arguments, not configs."""
    if not kind:
        return True
    return closest(kind, [Kind.KUBE_SCHEDULER.value], cutoff=0.8, slips_only=False) is not None


def expand(
    document: Document, limits: Limits, configs: ConfigCounter | None = None
) -> list[tuple[Document, Kind]]:
    """The documents to check inside ``document``: itself, List items, ConfigMap data.

    One search per document: a node reached again through an alias (a List item, a
    wrapped ConfigMap) is searched once, so its configs are found once, and every
    ConfigMap value composed in it shares one ``yaml-nodes`` budget (a value shared by
    many ConfigMaps through an alias is charged each time it is composed). Each config
    looked for is counted by ``configs`` (the file's, shared by its documents; default:
    this document's own) before it is composed: past the limit, one ``REFUSED`` document
    says so and the rest is not searched."""
    return _Search(limits, configs or ConfigCounter(limits.max_configs)).expand(document)


class _Search:
    """The search of one document: what it has visited, the node budget it shares and
    the configs its file may still look for."""

    def __init__(self, limits: Limits, configs: ConfigCounter) -> None:
        self.limits = limits
        self.budget = NodeCounter.of(limits)
        self.searched: set[int] = set()
        self.configs = configs

    def counted(self, document: Document, node: Node) -> list[tuple[Document, Kind]] | None:
        """``None`` when one more config may be looked for at ``node``; else what to
        report instead: the refusal at the first one past the limit, nothing after it."""
        if self.configs.take():
            return None
        if self.configs.left < -1:
            return []
        mark = node.start_mark
        failure = ParseFailure(self.configs.refusal(), mark.line, mark.column)
        return [(replace(document.item(node), unparsed=failure), Kind.REFUSED)]

    def first_visit(self, node: Node) -> bool:
        """Whether ``node`` is reached for the first time (the document holds it, so its
        id is never reused during the search)."""
        if id(node) in self.searched:
            return False
        self.searched.add(id(node))
        return True

    def expand(self, document: Document) -> list[tuple[Document, Kind]]:
        root = document.root
        kind = scalar(child(root, "kind"))
        if kind == "List":
            found: list[tuple[Document, Kind]] = []
            for item in sequence_items(child(root, "items"))[: self.limits.max_documents]:
                if self.first_visit(item):
                    found.extend(self.expand(document.item(item)))
                if self.configs.left < 0:
                    break
            return found
        if kind == "ConfigMap":
            return self.configmap_documents(document)
        recognised = kind_of(root)
        if recognised is Kind.OTHER and _is_volcano_file(document):
            recognised = Kind.VOLCANO
        if recognised is Kind.OTHER:
            return self.wrapped(document)
        refused = self.counted(document, root)
        return [(document, recognised)] if refused is None else refused

    def wrapped(self, document: Document) -> list[tuple[Document, Kind]]:
        """The configs a wrapper holds wherever they are nested (an Ansible task's
        ``definition``, a knavigator workflow's ``params``, a bare ``data:`` fragment,
        a chart's values): only the unmistakable ones, a ConfigMap (``kind: ConfigMap``,
        or a ``data`` mapping with a ``volcano-scheduler.conf`` key), a
        ``KubeSchedulerConfiguration`` or a chart value the chart writes into its
        scheduler's ConfigMap (Volcano's ``custom.scheduler_config_override``). Positions
        stay those of the file: each one is a sub-tree of this document, or a string in it."""
        found: list[tuple[Document, Kind]] = []
        pending: list[Node] = [document.root]
        while pending and len(found) < self.limits.max_documents:
            node = pending.pop()
            if isinstance(node, MappingNode):
                for built in _chart_values(document, node, self.limits, self.budget):
                    refused = self.counted(document, node)  # composed by the shared budget
                    found.extend([built] if refused is None else refused)
                if self.configs.left < 0:
                    break
                holder = _holder_kind(node)
                if holder is not None:
                    item = document.item(node)
                    if holder == "ConfigMap":
                        found.extend(self.configmap_documents(item))
                    else:
                        refused = self.counted(document, node)
                        found.extend([(item, Kind.KUBE_SCHEDULER)] if refused is None else refused)
                    if self.configs.left < 0:
                        break
                    continue
                items: Iterable[Node] = (value for _, value in reversed(node.value))
            else:
                items = reversed(sequence_items(node))
            pending.extend(item for item in items if self.first_visit(item))
        return found

    def configmap_documents(self, document: Document) -> list[tuple[Document, Kind]]:
        """The configs in a ConfigMap's ``data`` (strings) and ``binaryData`` (base64),
        and the values meant as configs that Kubernetes would refuse."""
        metadata = child(document.root, "metadata") or document.root
        name = scalar(child(metadata, "name")) or ""
        owner = Embedding(name, "", namespace=scalar(child(metadata, "namespace")) or "")
        found: list[tuple[Document, Kind]] = []
        for section in ("data", "binaryData"):
            values = child(document.root, section)
            if not isinstance(values, MappingNode):
                continue
            for key_node, value_node in mapping_items(values):
                embedding = replace(owner, key=str(key_node.value))
                found.extend(self.configmap_value(document, section, embedding, value_node))
                if self.configs.left < 0:
                    return found
        return found

    def configmap_value(
        self, document: Document, section: str, embedding: Embedding, value_node: Node
    ) -> list[tuple[Document, Kind]]:
        """The config one ConfigMap value holds, if any (see :meth:`configmap_documents`)."""
        name, key = embedding.configmap, embedding.key
        if not isinstance(value_node, ScalarNode):
            if _named_as_config(key) or kind_of(value_node) in _SCHEDULER_KINDS:
                what = "a mapping" if isinstance(value_node, MappingNode) else "a list"
                problem = (
                    f"`{section}.{key}` of ConfigMap `{name}` is {what}, not a string: "
                    f"Kubernetes refuses the ConfigMap ({section} values are strings), so "
                    f"the scheduler keeps its previous configuration; write `{key}: |` "
                    "and indent the config under it"
                )
                return [_unusable(document, value_node, embedding, problem)]
            return []
        decoded, problem = (None, "") if section == "data" else _binary_text(value_node)
        if section != "data" and decoded is None:
            if _named_as_config(key):
                message = f"`binaryData.{key}` of ConfigMap `{name}` {problem}"
                return [_unusable(document, value_node, embedding, message)]
            return []
        text = scalar_text(value_node) if decoded is None else decoded
        if key != VOLCANO_CONF_NAME and not _may_hold_config(text):
            return []
        refused = self.counted(document, value_node)
        if refused is not None:
            return refused
        embedded = _embedded_document(
            document, value_node, embedding, self.limits, self.budget, decoded
        )
        embedded_kind = _embedded_kind(embedded, key)
        return [] if embedded_kind is None else [(embedded, embedded_kind)]


def _holder_kind(node: MappingNode) -> str | None:
    """``ConfigMap`` or ``KubeSchedulerConfiguration`` when ``node`` unmistakably is one."""
    kind = scalar(child(node, "kind"))
    if kind == Kind.KUBE_SCHEDULER.value:
        return kind
    data = child(node, "data")
    if kind == "ConfigMap" or (isinstance(data, MappingNode) and lookup(data, VOLCANO_CONF_NAME)):
        return "ConfigMap"
    return None


VOLCANO_VALUES = ("custom", "scheduler_config_override")
"""Volcano's chart (``installer/helm/chart/volcano``, from v1.10) writes this value, a
block string, into its scheduler ConfigMap as ``volcano-scheduler.conf`` (its
``templates/scheduler.yaml``; the agent scheduler's template too)."""
VOLCANO_VALUES_KEY = ".".join(VOLCANO_VALUES)
SCHEDULER_PLUGINS_VALUES_KEY = "plugins"
"""The ``values key`` of the config scheduler-plugins' chart builds from its values
(see :mod:`policytest.read.chart_values`)."""


def _chart_values(
    document: Document, node: MappingNode, limits: Limits, budget: NodeCounter
) -> list[tuple[Document, Kind]]:
    """The config a chart builds from its values (see :mod:`policytest.read.chart_values`):
    the Volcano conf under ``custom.scheduler_config_override`` (at any depth: an
    umbrella chart nests it under the subchart's name), checked as the conf it becomes,
    with positions inside the values file (a null value leaves the chart's own default
    conf, which is not in this file); the KubeSchedulerConfiguration scheduler-plugins'
    chart builds from ``plugins`` and ``pluginConfig``."""
    if child(node, "scheduler") is not None and child(node, "plugins") is not None:
        from policytest.read.chart_values import scheduler_plugins_config

        built = scheduler_plugins_config(node)
        if built is not None:
            embedding = Embedding("", SCHEDULER_PLUGINS_VALUES_KEY)
            return [(replace(document.item(built), embedding=embedding), Kind.KUBE_SCHEDULER)]
    holder = child(node, VOLCANO_VALUES[0])
    value = child(holder, VOLCANO_VALUES[1]) if isinstance(holder, MappingNode) else None
    if not isinstance(value, ScalarNode) or _helm_false(value):
        return []
    embedding = Embedding("", VOLCANO_VALUES_KEY)
    return [(_embedded_document(document, value, embedding, limits, budget), Kind.VOLCANO)]


def _helm_false(node: ScalarNode) -> bool:
    """Is the value one the chart's ``{{- if }}`` skips (null, an empty string,
    ``false``), so that it writes its default conf instead?"""
    text = str(node.value)
    plain = node.tag == PLAIN and text in ("~", "null", "Null", "NULL", "false", "False")
    return node.tag == NULL or plain or not text.strip()


def named_volcano_conf(document: Document) -> bool:
    """Is this the conf Volcano reads by name (a file or ConfigMap key
    ``volcano-scheduler.conf``, or the chart value written there), rather than a
    document recognised by shape alone?"""
    if document.embedding is not None:
        return document.embedding.key in (VOLCANO_CONF_NAME, VOLCANO_VALUES_KEY)
    return os.path.basename(document.path) == VOLCANO_CONF_NAME


def _is_volcano_file(document: Document) -> bool:
    """The first document of a file named ``volcano-scheduler.conf``: what Volcano reads."""
    return (
        document.embedding is None
        and document.index == 0
        and os.path.basename(document.path) == VOLCANO_CONF_NAME
    )


_SCHEDULER_KINDS = (Kind.VOLCANO, Kind.KUBE_SCHEDULER, Kind.KUBE_POLICY)


def _named_as_config(key: str) -> bool:
    """A ConfigMap key that names a scheduler config file (``volcano-scheduler.conf``)."""
    return key == VOLCANO_CONF_NAME or key.endswith(".conf")


def _binary_text(node: ScalarNode) -> tuple[str | None, str]:
    """A ``binaryData`` value as the text Kubernetes mounts, or why it is not text."""
    import base64
    import binascii

    encoded = "".join(scalar_text(node).split())
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return None, "is not valid base64: Kubernetes refuses the ConfigMap"
    try:
        return data.decode("utf-8"), ""
    except UnicodeDecodeError:
        return None, "does not decode to UTF-8 text: the scheduler cannot read it as a config"


def _unusable(
    outer: Document, node: Node, embedding: Embedding, message: str
) -> tuple[Document, Kind]:
    """A ConfigMap value Kubernetes or the scheduler cannot use, as a document to report."""
    mark = node.start_mark
    failure = ParseFailure(message, mark.line, mark.column)
    return outer.embedded(node, outer.text, outer.positions, embedding, failure), (
        Kind.CONFIGMAP_VALUE
    )


def _may_hold_config(value: str) -> bool:
    """Several lines, or one line of JSON: a one-word value is never a config."""
    text = value.strip()
    return "\n" in text or text.startswith("{")


def _embedded_kind(embedded: Document, key: str) -> Kind | None:
    """The scheduler that reads this ConfigMap value, or ``None`` if it is not a config."""
    if embedded.unparsed is not None:
        if _KUBE_TEXT.search(embedded.text):
            return Kind.KUBE_SCHEDULER
        # a `*.conf` key is any program's (Fluent Bit, supervisord): only Volcano's own
        # key or a text with Volcano's top-level keys is a Volcano conf that fails to load
        volcano = key == VOLCANO_CONF_NAME or VOLCANO_HINT.search(embedded.text)
        return Kind.VOLCANO if volcano else None
    recognised = kind_of(embedded.root)
    if recognised in _SCHEDULER_KINDS:
        return recognised
    return Kind.VOLCANO if key == VOLCANO_CONF_NAME else None


def _embedded_document(
    outer: Document,
    node: ScalarNode,
    embedding: Embedding,
    limits: Limits,
    budget: NodeCounter,
    decoded: str | None = None,
) -> Document:
    """Parse a ConfigMap value (``decoded``: the text a ``binaryData`` value decodes to,
    whose positions all map to the value); a text that is not YAML keeps the failure
    (``unparsed``)."""
    mark = node.start_mark
    text = scalar_text(node) if decoded is None else decoded
    mapping = (
        positions.for_scalar(outer.text, node.style, mark.line, mark.column, mark.index, text)
        if outer.positions is positions.IDENTITY and decoded is None
        else positions.Fixed(outer.position(node))
    )
    try:
        roots = compose_all(text, limits, budget)
    except ParseFailure as failure:
        return outer.embedded(empty_root(), text, mapping, embedding, unparsed=failure)
    if not roots:
        return outer.embedded(empty_root(), text, mapping, embedding)
    # The schedulers read the first document of a multi-document string only.
    embedding = replace(embedding, ignored=tuple(roots[1:]))
    return outer.embedded(roots[0], text, mapping, embedding)


VOLCANO_HINT = re.compile(r"^\s*(actions|tiers)\s*:", re.MULTILINE)
_KUBE_TEXT = re.compile(r"KubeSchedulerConfiguration|kubescheduler\.config\.k8s\.io")
