"""Other programs' files are not broken scheduler configs.

ConfigMaps of Fluent Bit and supervisord have ``*.conf`` keys: skipped. NVIDIA's KAI
Scheduler and kube-batch read confs of Volcano's shape (``actions``, ``tiers``): each is
one PT010 info saying whose it is and that it is not checked, never Volcano's verdicts.
Before, a KAI config without ``actions`` (KAI fills them from its defaults) was "Volcano
rejects the whole file", its ``proportion`` ``kValue`` an argument Volcano ignores and
``minruntime`` an unknown plugin. A Volcano conf with a real mistake is still reported,
also when all of them arrive together from ``helm template | policytest validate -``.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from policytest.volcano.lookalike import PT010_OTHER_SCHEDULER
from tests.check.helpers import example_rules, validate_json
from tests.conftest import DATA, RunLine

LOOKALIKES = DATA / "realrepos" / "lookalikes"
RENDERED = DATA / "realrepos" / "helm" / "rendered.yaml"


@pytest.mark.parametrize("name", ["fluent-bit-configmap.yaml", "supervisord-configmap.yaml"])
def test_other_programs_configs_are_skipped(run_line: RunLine, name: str) -> None:
    result = run_line(["validate", LOOKALIKES / name])
    assert result.exit_code == 0, result
    assert "All clean: 0 files checked." in result.stdout


@pytest.mark.parametrize(
    ("name", "line", "why"),
    [
        pytest.param(
            "kai-scheduler-configmap.yaml",
            13,
            "its ConfigMap `kai-scheduler-default` in namespace `kai-scheduler` is KAI Scheduler's",
            id="operator-configmap",
        ),
        pytest.param(
            "kai-config.yaml",
            2,
            "its plugins `nodeavailability`, `resourcetype`, `subgrouporder` are KAI "
            "Scheduler's, not Volcano's",
            id="mounted-config",
        ),
        pytest.param(
            "kai-shard-config-without-actions.yaml",
            3,
            "its plugins `minruntime`, `nodeplacement` are KAI Scheduler's, not Volcano's; "
            "KAI Scheduler fills a missing `actions` from its defaults",
            id="no-actions",
        ),
    ],
)
def test_a_kai_scheduler_config_is_one_info_saying_it_is_not_checked(
    run_line: RunLine, name: str, line: int, why: str
) -> None:
    code, found = validate_json(run_line, LOOKALIKES / name)
    assert code == 0
    assert [(f["rule"], f["severity"], f["line"]) for f in found] == [("PT010", "info", line)]
    assert str(found[0]["message"]) == (
        f"this is KAI Scheduler's config, not Volcano's ({why}): policytest judges Volcano's "
        "and kube-scheduler's configs, so nothing in it is checked (Volcano's verdicts do "
        "not apply to it)"
    )


def test_a_kube_batch_conf_is_known_by_the_scheduler_that_mounts_it(run_line: RunLine) -> None:
    """kube-batch's plugins are all Volcano's: only its Deployment tells them apart."""
    code, found = validate_json(run_line, LOOKALIKES / "kube-batch")
    assert code == 0
    [other] = found
    assert (Path(str(other["path"])).name, other["rule"]) == ("kube-batch-conf.yaml", "PT010")
    assert str(other["message"]).startswith(
        "this is kube-batch's config, not Volcano's (Deployment `kube-batch` at "
    )
    assert "deployment.yaml:18 runs it, image `kubesigs/kube-batch:v0.5`)" in str(other["message"])


@pytest.mark.parametrize(
    ("extra", "rules"),
    [("", ["PT010"]), ("  - name: binpack\n", ["VB012"])],
    ids=["kube-batch-plugins", "a-volcano-plugin-kube-batch-lacks"],
)
def test_a_conf_named_for_kube_batch(
    run_line: RunLine, tmp_path: Path, extra: str, rules: list[str]
) -> None:
    """kube-batch's own ``config/kube-batch-conf.yaml``; a Volcano plugin kube-batch does
    not have outweighs the name."""
    conf = tmp_path / "kube-batch-conf.yaml"
    conf.write_text(
        'actions: "reclaim, allocate, backfill, preempt"\ntiers:\n- plugins:\n'
        "  - name: priority\n  - name: gang\n- plugins:\n  - name: drf\n"
        "  - name: predicates\n  - name: proportion\n  - name: nodeorder\n" + extra,
        encoding="utf-8",
    )
    found = validate_json(run_line, conf)[1]
    assert [f["rule"] for f in found] == rules
    if not extra:
        assert "kube-batch's config, not Volcano's (it is named `kube-batch-conf.yaml`)" in str(
            found[0]["message"]
        )


def test_a_scheduling_shard_beside_a_conf_of_no_volcano_only_plugin(
    run_line: RunLine, tmp_path: Path
) -> None:
    """KAI's objects beside a conf make it KAI's unless its plugins are Volcano's own."""
    shard = "apiVersion: kai.scheduler/v1\nkind: SchedulingShard\nmetadata: {name: default}\n"
    (tmp_path / "shard.yaml").write_text(shard, encoding="utf-8")
    kai = "tiers:\n- plugins:\n  - name: predicates\n  - name: proportion\n"
    (tmp_path / "scheduler.yaml").write_text(kai, encoding="utf-8")
    volcano = kai + "  - name: binpack\n"
    (tmp_path / "volcano.yaml").write_text(volcano, encoding="utf-8")
    code, found = validate_json(run_line, tmp_path)
    assert code == 1
    rows = [(Path(str(f["path"])).name, f["rule"]) for f in found]
    assert rows == [("scheduler.yaml", "PT010"), ("volcano.yaml", "VC002")]  # no `actions`
    assert "a KAI Scheduler `SchedulingShard` is beside it (" in str(found[0]["message"])


def test_helm_template_on_stdin_reports_the_volcano_conf_and_one_info(
    run_line: RunLine, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = io.TextIOWrapper(io.BytesIO(RENDERED.read_bytes()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stream)
    result = run_line(["validate", "-"])
    assert result.exit_code == 1, result
    findings = [line for line in result.stdout.splitlines() if line.startswith("<stdin>:")]
    assert [line.split(" ")[1] for line in findings] == ["PT010", "VB015", "VB002"]
    assert findings[2:] == [
        "<stdin>:128:24: VB002 error: `binpack.cpu: -1` is negative: Volcano silently uses "
        "weight 1 instead; use 0 to leave the resource out of the score, or a positive weight"
    ]
    assert "this is KAI Scheduler's config, not Volcano's" in findings[0]


@pytest.mark.parametrize(("label", "expected"), [("Failing", ["PT010"]), ("Passing", [])])
def test_the_rule_examples(
    run_line: RunLine, tmp_path: Path, label: str, expected: list[str]
) -> None:
    found = example_rules(run_line, tmp_path, PT010_OTHER_SCHEDULER.doc, label)[1]
    assert [rule for rule in found if rule != "VB015"] == expected


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
