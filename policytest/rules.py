"""The rule catalogue: every rule's stable id, severity and user documentation.

A rule is declared once, in the module whose check emits it; its docstring-like
``doc`` (what the scheduler does, a failing and a passing example) renders
``policytest rules`` and ``docs/rules.md``. Rule ids are a public contract: users
write them in suppressions, so they never change meaning.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from policytest.findings import Finding, Severity

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

    from policytest.source import Document


@dataclass(frozen=True)
class Rule:
    """A documented check with a stable id such as ``VB004``."""

    id: str
    severity: Severity
    summary: str
    doc: str

    def finding(
        self,
        path: str,
        line: int,
        column: int,
        message: str,
        document: int = 0,
        severity: Severity | None = None,
    ) -> Finding:
        """Build a finding of this rule (``severity`` overrides the default)."""
        return Finding(path, line, column, self.id, severity or self.severity, message, document)

    def at(
        self, document: Document, node: Node, message: str, severity: Severity | None = None
    ) -> Finding:
        """A finding pointing at ``node`` (a key or value node) of ``document``."""
        where = document.position(node)
        return self.finding(
            document.path, where.line, where.column, message, document.index, severity
        )


_REGISTRY: dict[str, Rule] = {}


def rule(rule_id: str, severity: Severity, summary: str, doc: str) -> Rule:
    """Declare a rule; ids must be unique across the whole catalogue."""
    if rule_id in _REGISTRY:
        raise ValueError(f"rule {rule_id} declared twice")
    declared = Rule(rule_id, severity, summary, doc.strip())
    _REGISTRY[rule_id] = declared
    return declared


def get_rule(rule_id: str) -> Rule | None:
    """The declared rule with this id, if its module has been imported."""
    return _REGISTRY.get(rule_id)


RULE_MODULES = (
    "policytest.checks",
    "policytest.schema",
    "policytest.volcano.rules",
    "policytest.kube.rules",
)


def all_rules() -> Iterator[Rule]:
    """Every declared rule, sorted by id (imports every module that declares rules)."""
    import importlib

    for name in RULE_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:  # a rule module not written yet
            if exc.name != name:
                raise
    yield from sorted(_REGISTRY.values(), key=lambda r: r.id)
