"""A run loads each distinct scheduler config once, however many fixtures use it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from policytest import run_paths
from policytest.harness import load
from policytest.kube import check as kube_check
from policytest.volcano import check as volcano_check

FIXTURES = Path(__file__).parent.parent.parent / "fixtures"


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[str, int, object]]:
    """Every call of the Volcano and kube-scheduler config loaders, by config document."""
    monkeypatch.setattr(load, "_LOADED", {})  # nothing loaded by earlier tests
    calls: Counter[tuple[str, int, object]] = Counter()
    for module in (volcano_check, kube_check):
        real = module.load

        def counting(document: Any, options: Any, real: Any = real) -> Any:
            calls[(document.path, document.index, document.embedding)] += 1
            return real(document, options)

        monkeypatch.setattr(module, "load", counting)
    return calls


def test_a_run_of_the_bundled_fixtures_loads_each_config_once(
    loads: Counter[tuple[str, int, object]],
) -> None:
    report = run_paths([str(FIXTURES)])
    assert report.ok and len(report.results) >= 10
    shared = {path for path, _, _ in loads if "/configs/" in path}
    assert len(shared) >= 3  # several fixtures share these files
    assert loads and set(loads.values()) == {1}, loads


def test_two_profiles_of_one_config_load_it_once(
    tmp_path: Path, loads: Counter[tuple[str, int, object]]
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "kube.yaml").write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\n"
        "kind: KubeSchedulerConfiguration\n"
        "profiles:\n- schedulerName: a\n- schedulerName: b\n"
    )
    for profile in ("a", "b"):
        (tmp_path / f"{profile}.policytest.yaml").write_text(
            "apiVersion: policytest/v1\nkind: PolicyTest\n"
            f"metadata: {{name: {profile}}}\n"
            f"scheduler: {{config: kube.yaml, profile: {profile}}}\n"
            "cluster:\n  nodes:\n  - {name: node-1, allocatable: {cpu: '4', pods: '110'}}\n"
            "cases:\n- name: one\n  pod: {requests: {cpu: '1'}}\n  expect: {ranking: [node-1]}\n"
        )
    report = run_paths([str(tmp_path)])
    assert report.ok and len(report.results) == 2
    assert list(loads.values()) == [1]
