"""Helpers for the Volcano tests: documents from text, as the validate pipeline reads them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from policytest.core.findings import Finding
from policytest.core.options import CheckOptions
from policytest.read.recognise import Kind, expand
from policytest.read.source import Document, read_bytes
from policytest.volcano.check import as_scheduler_reads

DATA = Path(__file__).parent.parent / "data" / "volcano"
OPTIONS = CheckOptions()

Check = Callable[..., list[Finding]]


def documents(text: str, path: str = "volcano-scheduler.conf") -> list[Document]:
    """The Volcano conf documents the pipeline finds in ``text`` (ConfigMaps expanded)."""
    source = read_bytes(path, text.encode(), OPTIONS.limits)
    assert not source.problems, source.problems
    found = []
    for document in source.documents:
        found += [doc for doc, kind in expand(document, OPTIONS.limits) if kind is Kind.VOLCANO]
    return found


def conf_document(text: str) -> Document | Finding:
    """A raw conf text as the scheduler reads the file (also when only the trimmed text
    parses); a VC001 finding when Volcano cannot parse it."""
    source = read_bytes("volcano-scheduler.conf", text.encode(), OPTIONS.limits)
    if source.documents and not source.problems:
        return source.documents[0]
    return as_scheduler_reads("volcano-scheduler.conf", text, OPTIONS)
