"""``benchmarks/suite_cost.py``, which measures this suite for docs/performance.md, records
each process's peak memory and CPU time, and each test's time and growth (so the figures
can be taken again on any main)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_plugin_records_peak_memory_and_each_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a process of its own, as the runner starts it (in this worker's process, a
    test's memory could come from what earlier tests freed, and grow nothing)."""
    monkeypatch.setenv("SUITE_COST_DIR", str(pytester.path))
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.setenv("PYTHONPATH", str(ROOT / "benchmarks"))
    pytester.makepyfile(
        test_cost="KEPT = []\n"
        'def test_grows(): KEPT.append(b"x" * (64 << 20))\n'  # touched: resident
        'def test_peaks(): assert len(b"y" * (128 << 20)) > 0\n'  # freed at once
        "def test_nothing(): pass\n"
    )
    ran = pytester.runpytest_subprocess("-p", "suite_cost", "-p", "no:cacheprovider")
    ran.assert_outcomes(passed=3)
    report = json.loads((pytester.path / "cost-main.json").read_text())
    assert report["worker"] == "main" and report["peakKiB"] > 128 * 1024
    assert report["cpuSeconds"] > 0
    grown = {nodeid.rsplit("::", 1)[-1]: kib for nodeid, _, kib, _ in report["growing"]}
    assert grown["test_grows"] >= 60 * 1024 > grown["test_nothing"]
    assert grown["test_peaks"] < 60 * 1024
    raised = {nodeid.rsplit("::", 1)[-1]: kib for nodeid, _, _, kib in report["raising"]}
    assert raised["test_peaks"] >= 60 * 1024 > raised["test_nothing"]
