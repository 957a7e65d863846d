"""The rule catalogue: every rule's stable id, severity and user documentation.

A rule is declared once, in the module whose check emits it; its docstring-like
``doc`` (what the scheduler does, a failing and a passing example) renders
``policytest rules`` and ``docs/rules.md``. Rule ids are a public contract: users
write them in suppressions, so they never change meaning.
"""

from __future__ import annotations

from collections.abc import Iterator

from policytest.core.findings import Finding, Severity
from policytest.core.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    class _Position(Protocol):
        @property
        def line(self) -> int: ...
        @property
        def column(self) -> int: ...

    class Located(Protocol):
        """A document that can say where its nodes are
        (:class:`policytest.read.source.Document`)."""

        @property
        def path(self) -> str: ...
        @property
        def index(self) -> int: ...
        def position(self, node: Any) -> _Position: ...


@record(frozen=True)
class Rule:
    """A documented check with a stable id such as ``VB004``. ``written`` is the doc as
    declared (indented like the source); :attr:`doc` is it cleaned, when it is read (the
    hook declares every rule of its path and shows none of their docs)."""

    id: str
    severity: Severity
    summary: str
    written: str

    @property
    def doc(self) -> str:
        """The documentation, dedented as a docstring is (``inspect.cleandoc``)."""
        import inspect

        return inspect.cleandoc(self.written)

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
        self, document: Located, node: Any, message: str, severity: Severity | None = None
    ) -> Finding:
        """A finding pointing at ``node`` (a key or value node) of ``document``."""
        where = document.position(node)
        return self.finding(
            document.path, where.line, where.column, message, document.index, severity
        )


_REGISTRY: dict[str, Rule] = {}


def rule(rule_id: str, severity: Severity, summary: str, doc: str) -> Rule:
    """Declare a rule; ids must be unique across the whole catalogue."""
    declared = Rule(rule_id, severity, summary, doc)
    existing = _REGISTRY.setdefault(rule_id, declared)
    if existing != declared:  # an identical re-declaration is a module imported again
        raise ValueError(f"rule {rule_id} declared twice, differently")
    return existing


def get_rule(rule_id: str) -> Rule | None:
    """The declared rule with this id, if its module has been imported."""
    return _REGISTRY.get(rule_id)


def registered_rules() -> Iterator[Rule]:
    """The rules declared so far (by the modules imported so far), sorted by id."""
    yield from sorted(_REGISTRY.values(), key=lambda r: r.id)
