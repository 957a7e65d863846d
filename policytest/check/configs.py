"""Scheduler configs: read as their scheduler reads them, then loaded once.

Each config kind has one loader, which builds the model the scheduler would run
(``None`` when the scheduler refuses the config) and every finding about it. Checking
a config is loading it and keeping the findings; running fixtures keeps the model too,
so a config is never loaded twice for the two. Loaders are imported only when a
document of their kind turns up: validating a Volcano conf never loads kube-scheduler
code.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable

from policytest.core.findings import Finding
from policytest.core.options import CheckOptions
from policytest.core.records import replace
from policytest.read.recognise import (
    VOLCANO_CONF_NAME,
    VOLCANO_HINT,
    Kind,
    kind_of,
    named_volcano_conf,
)
from policytest.read.source import INVALID_YAML, Document, SourceFile, empty_root

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policytest.check.bundle import Bundle
    from policytest.volcano.lookalike import Lookalike, Place

SCHEDULER_KINDS = (Kind.VOLCANO, Kind.KUBE_SCHEDULER)
"""The kinds a fixture can run (the legacy Policy API is only reported)."""

Loaded = tuple[object | None, list[Finding]]
Loader = Callable[[Document, CheckOptions], Loaded]

# kind -> (module, function): resolved lazily, see the module docstring.
_LOADERS: dict[Kind, tuple[str, str]] = {
    Kind.VOLCANO: ("policytest.volcano.check", "load"),
    Kind.KUBE_SCHEDULER: ("policytest.kube.check", "load"),
    Kind.KUBE_POLICY: ("policytest.kube.check", "load_policy"),
    Kind.CONFIGMAP_VALUE: ("policytest.check.configmap", "load"),
    Kind.REFUSED: ("policytest.check.configs", "refused"),
}


def refused(document: Document, options: CheckOptions) -> Loaded:
    """A config the file's ``configs`` limit left unread: no model, and the PT001 that
    names the limit (see :func:`policytest.read.recognise.expand`)."""
    from policytest.read.source import PT001_UNREADABLE

    failure = document.unparsed
    assert failure is not None  # recognise builds these documents with their refusal
    where = document.positions.map(failure.line, failure.column)
    finding = PT001_UNREADABLE.finding(
        document.path, where.line, where.column, failure.message, document.index
    )
    return None, [finding]


def load_config(document: Document, kind: Kind, options: CheckOptions) -> Loaded:
    """The model the scheduler runs from this config (``None`` if it refuses it) and
    every finding about it, sorted."""
    module_name, function_name = _LOADERS[kind]
    loader: Loader = getattr(importlib.import_module(module_name), function_name)
    return loader(document, options)


def check_config(document: Document, kind: Kind, options: CheckOptions) -> list[Finding]:
    """Every finding for one recognised config document."""
    return load_config(document, kind, options)[1]


def other_scheduler(document: Document, found: Lookalike) -> Finding:
    """PT010 for a document that is another scheduler's config (see
    :func:`lookalike_of`)."""
    from policytest.volcano import lookalike

    message = lookalike.not_checked(found, document.root)
    return lookalike.PT010_OTHER_SCHEDULER.at(document, document.root, message)


def lookalike_of(document: Document, kind: Kind, bundle: Bundle | None) -> Lookalike | None:
    """Whose config a document recognised as a Volcano conf by its shape alone is, when
    it is another scheduler's (see :mod:`policytest.volcano.lookalike`), from what it
    and the files around it (``bundle``) say, else ``None``. What Volcano reads by name
    (``volcano-scheduler.conf``) is always its conf."""
    if kind is not Kind.VOLCANO or document.unparsed is not None:
        return None
    if named_volcano_conf(document):
        return None
    from policytest.volcano.lookalike import lookalike

    return lookalike(document.root, _places(document, bundle))


def _places(document: Document, bundle: Bundle | None) -> tuple[Place, ...]:
    """What the files around ``document`` say of the scheduler that reads it."""
    from policytest.check.bundle import KAI, KUBE_BATCH
    from policytest.volcano.lookalike import Place

    places = [
        Place(runner.family, f"{runner.workload} at {runner.where} runs it, image `{runner.image}`")
        for runner in (bundle.of(document) if bundle is not None else ())
        if runner.family in (KAI, KUBE_BATCH)
    ]
    embedding = document.embedding
    if embedding is not None and (
        embedding.namespace == "kai-scheduler" or embedding.configmap.startswith("kai-scheduler")
    ):
        where = f" in namespace `{embedding.namespace}`" if embedding.namespace else ""
        places.append(Place(KAI, f"its ConfigMap `{embedding.configmap}`{where} is {KAI}'s"))
    named = embedding.configmap if embedding is not None else os.path.basename(document.path)
    if KUBE_BATCH in named:
        places.append(Place(KUBE_BATCH, f"it is named `{named}`", strong=False))
    near = bundle.kai_near(document) if bundle is not None else None
    if near is not None:
        places.append(
            Place(KAI, f"a {KAI} `{near.kind}` is beside it ({near.where})", strong=False)
        )
    return tuple(places)


def read_as_scheduler(source: SourceFile, options: CheckOptions) -> SourceFile:
    """``source`` as its scheduler reads it, when it is a Volcano conf or a
    KubeSchedulerConfiguration file.

    A file that says ``kind: KubeSchedulerConfiguration`` and is not YAML is
    kube-scheduler's failure to start (KS006), not a mere unreadable file.

    volcano-scheduler trims the whole file (Go's ``strings.TrimSpace``) before parsing, so
    a raw conf whose first line is indented loads in Volcano while YAML tools reject it;
    one that does not parse even then is Volcano's load failure (VC001), not a mere
    unreadable file. A ``volcano-scheduler.conf`` without any YAML content (empty,
    comments only) is still read by Volcano, as an empty conf.
    """
    syntax = [p for p in source.problems if p.message.startswith(INVALID_YAML)]
    refused = _refused_wrapper(source, options) if syntax else None
    if refused is not None:
        return replace(source, problems=(refused,))
    if syntax and re.search(_KUBE_CONFIG_KIND, source.head):
        from policytest.kube.check import load_failure

        return replace(source, problems=tuple(map(load_failure, syntax)))
    named = os.path.basename(source.path) == VOLCANO_CONF_NAME
    if source.text is None:
        if named and not source.documents and not source.problems:
            return replace(source, documents=(Document(source.path, 0, empty_root(), source.head),))
        return source
    if not (named or VOLCANO_HINT.search(source.head)):
        return source
    from policytest.volcano.check import as_scheduler_reads

    read = as_scheduler_reads(source.path, source.text, options)
    if isinstance(read, Document):
        if named or kind_of(read.root) is Kind.VOLCANO:
            return replace(source, documents=(read,), problems=())
        return source
    if named or not re.search(_KUBERNETES_OBJECT, source.head):
        return replace(source, problems=(read,))
    return source


def _refused_wrapper(source: SourceFile, options: CheckOptions) -> Finding | None:
    """A manifest holding a config that kubectl refuses for its leading ``...`` line
    (see :func:`policytest.check.markers.refused_wrapper`); never the conf Volcano reads
    by name."""
    if source.text is None or os.path.basename(source.path) == VOLCANO_CONF_NAME:
        return None
    from policytest.check.markers import refused_wrapper

    return refused_wrapper(source.path, source.text, options.limits)


_KUBE_CONFIG_KIND = r"""(?m)^(kind|[ \t]{0,4}"kind")\s*:\s*["']?KubeSchedulerConfiguration\b"""
"""A top-level ``kind: KubeSchedulerConfiguration`` in the head: YAML at column 0, or a
JSON key indented as a pretty-printed top level is (not as one embedded in a ConfigMap)."""
_KUBERNETES_OBJECT = r'(?m)^(apiVersion|kind)\s*:|"(apiVersion|kind)"\s*:'
"""A top-level ``kind``/``apiVersion``: a manifest or fixture, never a raw Volcano conf.
Both patterns are compiled (and cached by ``re``) for the first file that needs them."""
