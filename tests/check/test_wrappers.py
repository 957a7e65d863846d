"""Scheduler configs wrapped in other files are still checked, at their exact place.

Shaped like what real repositories carry: an Ansible role applying the ConfigMap with
``kubernetes.core.k8s``, a knavigator workflow configuring the scheduler before a
benchmark, a bare ``data:`` fragment a kustomize patch merges in. Before, all three were
skipped as "not a scheduler config" and their mistakes passed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.helpers import validate_json
from tests.conftest import DATA, RunLine

WRAPPERS = DATA / "realrepos" / "wrappers"


@pytest.mark.parametrize(
    ("name", "rule", "line", "column"),
    [
        pytest.param("ansible-volcano-tasks.yaml", "VB001", 37, 51, id="ansible-k8s-definition"),
        pytest.param("knavigator-configure-volcano.yaml", "VC004", 22, 21, id="knavigator"),
        pytest.param("data-fragment.yaml", "VB001", 18, 27, id="bare-data-fragment"),
    ],
)
def test_a_wrapped_conf_is_checked_at_its_place(
    run_line: RunLine, name: str, rule: str, line: int, column: int
) -> None:
    code, found = validate_json(run_line, WRAPPERS / name)
    assert code == 1, found
    assert [(f["rule"], f["line"], f["column"]) for f in found if f["severity"] == "error"] == [
        (rule, line, column)
    ]
    text = (WRAPPERS / name).read_text(encoding="utf-8").splitlines()[line - 1]
    assert text[column - 1 :].strip() in ('"8"', "binpak", "1.5")


def test_a_wrapper_without_a_scheduler_config_is_still_skipped(
    run_line: RunLine, tmp_path: Path
) -> None:
    playbook = tmp_path / "site.yaml"
    playbook.write_text(
        "- name: a ConfigMap of another program\n"
        "  kubernetes.core.k8s:\n"
        "    definition:\n"
        "      kind: ConfigMap\n"
        "      data:\n"
        "        app.properties: |\n"
        "          a=1\n"
        "          b=2\n",
        encoding="utf-8",
    )
    result = run_line(["validate", playbook])
    assert result.exit_code == 0, result
    assert "0 files checked" in result.stdout
