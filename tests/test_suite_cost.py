"""``benchmarks/suite_cost.py``, which measures this suite for docs/performance.md, records
each process's peak memory and each test's time and growth (so the figures can be taken
again on any main)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_plugin_records_peak_memory_and_each_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SUITE_COST_DIR", str(pytester.path))
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    pytester.makepyfile(
        test_cost="KEPT = []\n"
        "def test_grows(): KEPT.append(bytearray(64 << 20))\n"
        "def test_nothing(): pass\n"
    )
    pytester.runpytest("-p", "suite_cost", "-p", "no:cacheprovider").assert_outcomes(passed=2)
    report = json.loads((pytester.path / "cost-main.json").read_text())
    assert report["worker"] == "main" and report["peakKiB"] > 64 * 1024
    grown = {nodeid.rsplit("::", 1)[-1]: kib for nodeid, _, kib in report["growing"]}
    assert grown["test_grows"] >= 60 * 1024 > grown["test_nothing"]
