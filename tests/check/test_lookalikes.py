"""Other programs' files are not broken scheduler configs.

ConfigMaps of Fluent Bit and supervisord have ``*.conf`` keys; NVIDIA's KAI Scheduler
reads a config with ``actions:`` and ``tiers:``. None of them is a Volcano conf, so
none draws a finding; a Volcano conf with a real mistake still does, also when all of
them arrive together from ``helm template | policytest validate -``.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from tests.conftest import DATA, RunLine

LOOKALIKES = DATA / "realrepos" / "lookalikes"
RENDERED = DATA / "realrepos" / "helm" / "rendered.yaml"


@pytest.mark.parametrize(
    "name",
    [
        "fluent-bit-configmap.yaml",
        "supervisord-configmap.yaml",
        "kai-scheduler-configmap.yaml",
        "kai-config.yaml",
    ],
)
def test_other_programs_configs_are_skipped(run_line: RunLine, name: str) -> None:
    result = run_line(["validate", LOOKALIKES / name])
    assert result.exit_code == 0, result
    assert "All clean: 0 files checked." in result.stdout


def test_kai_scheduler_config_is_one_note_with_verbose(run_line: RunLine) -> None:
    result = run_line(["validate", "--verbose", LOOKALIKES / "kai-scheduler-configmap.yaml"])
    assert result.exit_code == 0, result
    notes = [line for line in result.stderr.splitlines() if line.startswith("skipped")]
    assert len(notes) == 1, result
    assert "another scheduler's config shaped like a Volcano conf" in notes[0]
    assert "`consolidation`, `stalegangeviction`" in notes[0]
    assert "16 of its 19 plugins" in notes[0]


def test_a_fluent_bit_configmap_is_listed_as_not_a_scheduler_config(run_line: RunLine) -> None:
    result = run_line(["validate", "-v", LOOKALIKES / "fluent-bit-configmap.yaml"])
    assert "skipped (not a scheduler config or fixture)" in result.stderr
    assert "VC001" not in result.stdout


def test_helm_template_on_stdin_reports_only_the_volcano_conf(
    run_line: RunLine, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = io.TextIOWrapper(io.BytesIO(RENDERED.read_bytes()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stream)
    result = run_line(["validate", "--verbose", "-"])
    assert result.exit_code == 1, result
    findings = [line for line in result.stdout.splitlines() if line.startswith("<stdin>:")]
    assert [line.split(" ")[1] for line in findings] == ["VB015", "VB002"]
    assert findings[1:] == [
        "<stdin>:128:24: VB002 error: `binpack.cpu: -1` is negative: Volcano silently uses "
        "weight 1 instead; use 0 to leave the resource out of the score, or a positive weight"
    ]
    assert "skipped a document (ConfigMap key `config.yaml`: another scheduler's" in result.stderr


CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata: {{name: scheduler}}
data:
  {key}: |
{body}
"""


def _configmap(tmp_path: Path, key: str, body: str) -> Path:
    path = tmp_path / "cm.yaml"
    indented = "\n".join("    " + line if line else "" for line in body.splitlines())
    path.write_text(CONFIGMAP.format(key=key, body=indented))
    return path


@pytest.mark.parametrize(
    ("key", "body", "exit_code", "expected"),
    [
        pytest.param(
            "config.yaml",
            'actions: "enqueue, allocate, consolidation"\n'
            "tiers:\n- plugins:\n  - name: priority\n  - name: gang\n"
            "- plugins:\n  - name: predicates\n  - name: binpack\n",
            1,
            "VC002 error: unknown action `consolidation`",
            # Volcano's plugins and an action Volcano does not have: a Volcano conf, rejected
            id="volcano-plugins-with-a-mistaken-action-are-reported",
        ),
        pytest.param(
            "my-scheduler.conf",
            'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: gang\n   - name: drf\n',
            1,
            "VC001 error",
            id="unparsable-conf-key-with-volcano-keys-is-a-volcano-load-failure",
        ),
        pytest.param(
            "fluent-bit.conf",
            "[SERVICE]\n    Flush 1\n[INPUT]\n    Name tail\n",
            0,
            "0 files checked",
            id="unparsable-conf-key-of-another-program-is-skipped",
        ),
    ],
)
def test_a_configmap_key_is_judged_by_what_it_holds(
    run_line: RunLine, tmp_path: Path, key: str, body: str, exit_code: int, expected: str
) -> None:
    result = run_line(["validate", _configmap(tmp_path, key, body)])
    assert result.exit_code == exit_code, result
    assert expected in result.stdout


def test_a_slip_in_an_action_name_is_not_taken_for_another_scheduler(
    run_line: RunLine, tmp_path: Path
) -> None:
    body = 'actions: "enqueue, alocate"\ntiers:\n- plugins:\n  - name: mycustom\n'
    result = run_line(["validate", _configmap(tmp_path, "scheduler.conf", body)])
    assert "VC002 error: unknown action `alocate`" in result.stdout
    assert "did you mean `allocate`?" in result.stdout


def test_volcano_key_is_checked_whatever_it_holds(run_line: RunLine, tmp_path: Path) -> None:
    """``volcano-scheduler.conf`` is what Volcano reads: a KAI config there is broken."""
    text = (LOOKALIKES / "kai-config.yaml").read_text()
    result = run_line(["validate", _configmap(tmp_path, "volcano-scheduler.conf", text)])
    assert result.exit_code == 1, result
    assert "VC002 error: unknown action `consolidation`" in result.stdout
