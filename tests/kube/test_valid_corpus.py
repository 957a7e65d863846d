"""Real-world-shaped valid configurations (``tests/data/kube/valid/``): no findings at
all, and a model. Adding a case is adding a file."""

from __future__ import annotations

from pathlib import Path

import pytest

from policytest.core.options import DEFAULT_OPTIONS
from policytest.kube.check import load
from tests.kube.helpers import documents, findings_for

VALID = sorted((Path(__file__).parent.parent / "data" / "kube" / "valid").glob("*.yaml"))


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_valid_configuration_is_clean(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    # KS047 is advice on a packing profile under default spreading, not a mistake
    assert [f for f in findings_for(text) if f.rule != "KS047"] == []
    config, _ = load(documents(text)[0][0], DEFAULT_OPTIONS)
    assert config is not None and config.profiles


def test_the_corpus_is_there() -> None:
    assert len(VALID) >= 3
