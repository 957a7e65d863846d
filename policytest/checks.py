"""Checking: one recognised document in, its findings out.

Each document kind has one checker; they are imported only when a document of their
kind turns up, so validating a single Volcano conf never loads kube-scheduler code.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from policytest.bigload import decode as fast_decode
from policytest.findings import Finding, Severity
from policytest.goyaml import DecodeError
from policytest.options import CheckOptions
from policytest.recognise import Kind
from policytest.rules import rule
from policytest.source import READ_ERROR, Document

UNREADABLE = rule(
    READ_ERROR,
    Severity.ERROR,
    "file cannot be read as YAML or JSON",
    """
    The file is not valid YAML or JSON (a syntax error, a binary file, a non-UTF-8
    encoding, or beyond the size, depth, alias or document-count limits). Neither
    scheduler can load it; fix the syntax at the reported line and column.

    Failing::

        actions: "enqueue, allocate"
        tiers:
        - plugins:
          - name: binpack
           arguments: {binpack.weight: 10}

    Passing::

        actions: "enqueue, allocate"
        tiers:
        - plugins:
          - name: binpack
            arguments: {binpack.weight: 10}
    """,
)

Checker = Callable[[Document, CheckOptions], list[Finding]]

# kind -> (module, function): resolved lazily, see the module docstring.
_CHECKERS: dict[Kind, tuple[str, str]] = {
    Kind.VOLCANO: ("policytest.volcano.check", "check"),
    Kind.KUBE_SCHEDULER: ("policytest.kube.check", "check"),
    Kind.KUBE_POLICY: ("policytest.kube.check", "check_policy"),
    Kind.FIXTURE: ("policytest.checks", "check_fixture"),
    Kind.CONFIGMAP_VALUE: ("policytest.configmap", "check"),
}


def check_document(document: Document, kind: Kind, options: CheckOptions) -> list[Finding]:
    """Every finding for one recognised document."""
    module_name, function_name = _CHECKERS[kind]
    checker: Checker = getattr(importlib.import_module(module_name), function_name)
    return checker(document, options)


def check_fixture(document: Document, options: CheckOptions) -> list[Finding]:
    """What would make the fixture's cases error under ``run``: the schema, then the
    fixture's content and its ``scheduler.config`` (resolved inside the repository)."""
    from policytest.suite import fixture_findings, root_for

    return fixture_findings(document, options, root_for(document.path, options))


def decoded(document: Document, options: CheckOptions) -> object:
    """The document decoded with yaml.v2 typing, or the finding that says why not."""
    try:
        return fast_decode(document.root, document.text, options.limits)
    except DecodeError as error:
        return UNREADABLE.at(document, error.node, str(error))
