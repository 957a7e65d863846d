"""Helpers for the kube-scheduler tests: read a YAML text, run the checks, find nodes."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from policytest.core.findings import Finding, Severity
from policytest.core.limits import DEFAULT_LIMITS
from policytest.core.options import DEFAULT_OPTIONS, CheckOptions
from policytest.kube.check import check, check_policy
from policytest.read.nodes import MappingNode, Node, ScalarNode, SequenceNode
from policytest.read.recognise import Kind, kind_of
from policytest.read.source import Document, compose_all, read_bytes

ORACLE = Path(__file__).parent.parent / "data" / "kube" / "validate_cases.jsonl.gz"


@cache
def oracle_cases() -> tuple[dict[str, Any], ...]:
    """The real kube-scheduler's verdicts (copied from the shared oracle, gzipped)."""
    with gzip.open(ORACLE, "rt", encoding="utf-8") as handle:
        return tuple(json.loads(line) for line in handle)


@cache
def documents(text: str) -> tuple[tuple[Document, ...], tuple[Finding, ...]]:
    """The documents of a YAML text and its read problems; an empty text is one null
    document (kube-scheduler reads an empty file as a document without a kind)."""
    source = read_bytes("config.yaml", text.encode("utf-8"), DEFAULT_LIMITS)
    if not source.documents and not source.problems:
        root = compose_all("~", DEFAULT_LIMITS)[0]
        return (Document("config.yaml", 0, root, "~"),), ()
    return source.documents, source.problems


@cache
def findings_for(text: str, options: CheckOptions = DEFAULT_OPTIONS) -> tuple[Finding, ...]:
    """Every finding for a text: read problems, then each document as its kind says
    (a legacy Policy goes to ``check_policy``, anything else to ``check``)."""
    docs, problems = documents(text)
    found = list(problems)
    for document in docs:
        if kind_of(document.root) is Kind.KUBE_POLICY:
            found += check_policy(document, options)
        else:
            found += check(document, options)
    return tuple(found)


def errors(findings: Sequence[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity is Severity.ERROR]


def rule_ids(findings: Sequence[Finding]) -> set[str]:
    return {f.rule for f in findings}


# --- locating the node an upstream error message names ---------------------------------

Span = tuple[tuple[int, int], tuple[int, int]]
_STEP = re.compile(r"([^.\[\]]+)|\[(\d+|\*)\]")


def parse_path(text: str) -> list[str | int]:
    """``profiles[0].plugins.score`` -> ["profiles", 0, "plugins", "score"]; ``[*]`` -> -1."""
    steps: list[str | int] = []
    for name, index in _STEP.findall(text):
        if name:
            steps.append(name)
        else:
            steps.append(-1 if index == "*" else int(index))
    return steps


def nodes(document: Document, path: list[str | int]) -> list[tuple[Node | None, Node]]:
    """(key, value) nodes at ``path`` (-1: any index, or none if no list is there; "*":
    any key); where the path does not exist, its deepest existing prefix."""
    return list(_walk(document.root, None, path))


def span(document: Document, key: Node | None, value: Node) -> Span:
    """From the key's start (or the value's) to the value's end, 1-based."""
    start = document.position(key if key is not None else value)
    end = document.position(value, end=True)
    return (start.line, start.column), (end.line, end.column)


def spans(document: Document, path: list[str | int]) -> list[Span]:
    """The spans of ``nodes(document, path)``."""
    return [span(document, key, value) for key, value in nodes(document, path)]


def _walk(
    node: Node, key: Node | None, path: list[str | int]
) -> Iterator[tuple[Node | None, Node]]:
    if not path:
        yield key, node
        return
    step, rest = path[0], path[1:]
    if isinstance(node, MappingNode) and isinstance(step, str):
        matches = [(k, v) for k, v in node.value if step in ("*", getattr(k, "value", None))]
        if step == "*" and matches:
            for key_node, value_node in matches:
                yield from _walk(value_node, key_node, rest)
            return
        if matches:
            yield from _walk(matches[-1][1], matches[-1][0], rest)
            return
    if step == -1 and not isinstance(node, SequenceNode):  # an optional index
        yield from _walk(node, key, rest)
        return
    if isinstance(node, SequenceNode) and isinstance(step, int):
        chosen = node.value if step == -1 else node.value[step : step + 1]
        if chosen:
            for item in chosen:
                yield from _walk(item, None, rest)
            return
    yield key, node


def inside(finding: Finding, span: Span) -> bool:
    return span[0] <= (finding.line, finding.column) <= span[1]


def scalar_text(node: Node) -> str | None:
    return node.value if isinstance(node, ScalarNode) else None
