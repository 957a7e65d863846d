"""Fixtures for the Volcano tests."""

from __future__ import annotations

import pytest

from policytest.core.findings import Finding
from policytest.core.options import CheckOptions
from policytest.volcano.check import check
from tests.volcano.helpers import OPTIONS, Check, documents


@pytest.fixture
def check_text() -> Check:
    """``check_text(conf, version=...)``: every finding for the one Volcano conf in it."""

    def run(text: str, version: str | None = None) -> list[Finding]:
        options = OPTIONS if version is None else CheckOptions(volcano_version=version)
        (document,) = documents(text)
        return check(document, options)

    return run
