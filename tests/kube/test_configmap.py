"""A KubeSchedulerConfiguration inside a ConfigMap: findings at the outer line/column.

Uses the reader and the lead's ConfigMap expansion (``recognise.expand``), then
``check`` on the embedded document, for the ``|`` block form and for the one-line JSON
string ``kubectl -o json`` writes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from policytest.core.limits import DEFAULT_LIMITS
from policytest.core.options import DEFAULT_OPTIONS
from policytest.kube.check import check, load
from policytest.read.recognise import Kind, expand
from policytest.read.source import Document, read_file

DATA = Path(__file__).parent.parent / "data" / "kube"


def embedded(name: str) -> Document:
    source = read_file(str(DATA / name), DEFAULT_LIMITS)
    [(document, kind)] = expand(source.documents[0], DEFAULT_LIMITS)
    assert kind is Kind.KUBE_SCHEDULER
    assert document.embedding is not None
    assert document.embedding.key == "scheduler-config.yaml"
    return document


def outer(name: str, needle: str) -> tuple[int, int]:
    """1-based line and column of ``needle`` in the file the user edits."""
    for number, line in enumerate((DATA / name).read_text().splitlines(), start=1):
        if needle in line:
            return number, line.index(needle) + 1
    raise AssertionError(needle)


@pytest.mark.parametrize("name", ["configmap.yaml", "configmap.json"])
def test_findings_point_into_the_outer_file(name: str) -> None:
    found = {f.rule: (f.line, f.column) for f in check(embedded(name), DEFAULT_OPTIONS)}
    found.pop("KS047", None)  # the spreading advice on its MostAllocated profile
    assert found == {
        "KS011": outer(name, "101"),  # weight 101 of nvidia.com/gpu
        "KS003": outer(name, "wieght"),  # unknown field
    }
    line, column = found["KS011"]
    assert (DATA / name).read_text().splitlines()[line - 1][column - 1 :].startswith("101")


def test_the_embedded_config_would_not_start() -> None:
    config, found = load(embedded("configmap.yaml"), DEFAULT_OPTIONS)
    assert config is None
    assert all(f.path.endswith("configmap.yaml") for f in found)
