"""Volcano's verdicts through the whole validate pipeline: read, recognise, check.

``test_oracle.py`` checks the loader on each conf; this feeds every oracle conf to
``validate_paths`` as a user would hand it over, as the raw ``volcano-scheduler.conf``
file and inside the chart's ``volcano-scheduler-configmap``, so recognition cannot skip
a conf Volcano rejects (empty, comment-only, a scalar, a list, a fragment, invalid YAML)
nor report one it accepts. Everything runs in this process.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from policytest import validate_paths
from policytest.core.findings import Severity
from tests.volcano.helpers import OPTIONS
from tests.volcano.test_oracle import CASES, REJECTING_RULES


def _as_raw_file(directory: Path, conf: str) -> Path:
    path = directory / "volcano-scheduler.conf"
    path.write_text(conf, encoding="utf-8", newline="")
    return path


def _in_configmap(directory: Path, conf: str) -> Path:
    configmap = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "volcano-scheduler-configmap", "namespace": "volcano-system"},
        "data": {"volcano-scheduler.conf": conf},
    }
    path = directory / "volcano-scheduler-configmap.json"
    path.write_text(json.dumps(configmap, indent=2), encoding="utf-8")
    return path


@pytest.mark.parametrize("write", [_as_raw_file, _in_configmap], ids=["raw", "configmap"])
def test_the_pipeline_rejects_exactly_what_volcano_rejects(
    write: Callable[[Path, str], Path], tmp_path: Path
) -> None:
    wrong = []
    for case in CASES:
        directory = tmp_path / case["id"]
        directory.mkdir()
        path = write(directory, case["conf"])
        report = validate_paths([str(path)], OPTIONS)
        rejecting = [
            f"{f.line}:{f.column} {f.rule} {f.message[:100]}"
            for f in report.findings
            if f.severity is Severity.ERROR and f.rule in REJECTING_RULES
        ]
        accepted = case["conf_result"]["scheduler_load"]["accepted"]
        if bool(rejecting) == accepted or report.checked != (str(path),):
            wrong.append(f"{case['id']}: accepted={accepted} checked={report.checked} {rejecting}")
    assert not wrong, "\n".join(wrong)
