"""The validate pipeline recognises what the schedulers read, including what they reject.

A scheduler config that is broken (invalid YAML, empty, wrongly shaped, a misspelt kind)
must be reported as that scheduler's error, never skipped as "not ours".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from policytest import validate_paths
from policytest.core.findings import Finding, Severity
from policytest.core.limits import Limits
from policytest.core.options import CheckOptions, RuleFilter

OPTIONS = CheckOptions()
CONF = 'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: binpack\n'


def validate(tmp_path: Path, name: str, text: str, select: str = "") -> list[Finding]:
    path = tmp_path / name
    path.write_text(text)
    rules = RuleFilter(select=(select,) if select else ())
    return list(validate_paths([str(path)], OPTIONS, rules).findings)


def configmap(key: str, body: str) -> str:
    block = "".join(f"    {line}\n" for line in body.splitlines())
    return (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: volcano-scheduler-configmap\n"
        f"data:\n  {key}: |\n{block}"
    )


def where(findings: list[Finding]) -> list[tuple[str, int, int]]:
    return [(f.rule, f.line, f.column) for f in findings]


# --- 1. a ConfigMap value that is a scheduler config but not YAML ------------------------


@pytest.mark.parametrize(
    ("key", "body", "expected"),
    [
        pytest.param(
            "volcano-scheduler.conf",
            CONF.replace("  - name: binpack", "  - name: binpack\n   arguments: {a: 1}"),
            [("VC001", 11, 8)],
            id="volcano-key",
        ),
        pytest.param(
            "scheduler.conf", 'actions: "allocate\ntiers: []\n', [("VC001", 7, 14)], id="conf-key"
        ),
        pytest.param(
            "config", 'actions: "allocate"\ntiers:\n\t- plugins: []\n', [("VC001", 9, 5)], id="tab"
        ),
        pytest.param(
            "scheduler-config.yaml",
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
            "profiles: [{schedulerName: a}\n",
            [("KS006", 9, 15)],  # at the `[` never closed
            id="kube",
        ),
    ],
)
def test_a_broken_scheduler_configmap_value_is_the_schedulers_error(
    tmp_path: Path, key: str, body: str, expected: list[tuple[str, int, int]]
) -> None:
    findings = validate(tmp_path, "cm.yaml", configmap(key, body))
    assert where(findings) == expected
    assert all(f.severity is Severity.ERROR for f in findings)
    if expected[0][0] == "VC001":
        assert "keeps its previous configuration" in findings[0].message


def test_a_broken_configmap_value_that_is_no_config_stays_silent(tmp_path: Path) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text(configmap("notes", "not: [a config\n"))
    report = validate_paths([str(path)], OPTIONS)
    assert report.findings == ()
    assert report.skipped == (str(path),)


def test_a_broken_conf_in_a_json_string_points_into_the_escapes(tmp_path: Path) -> None:
    text = json.dumps(
        {
            "kind": "ConfigMap",
            "metadata": {"name": "volcano-scheduler-configmap"},
            "data": {"volcano-scheduler.conf": 'actions: "allocate"\ntiers:\n\t- plugins: []\n'},
        }
    )
    ((rule, line, column),) = where(validate(tmp_path, "cm.json", text))
    assert (rule, line) == ("VC001", 1)
    assert text[column - 1 : column + 1] == "\\t"


# --- 2. one-line JSON values ------------------------------------------------------------


def test_a_one_line_json_config_in_a_configmap_is_checked(tmp_path: Path) -> None:
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1beta2",
        "kind": "KubeSchedulerConfiguration",
    }
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s}\ndata:\n"
        f"  scheduler-config.json: '{json.dumps(config)}'\n"
    )
    ((rule, line, column),) = where(validate(tmp_path, "cm.yaml", text))
    assert (rule, line) == ("KS001", 5)
    assert text.splitlines()[4][column - 1 :].startswith('"kubescheduler.config.k8s.io/v1beta2"')


def test_a_one_line_json_volcano_conf_in_a_configmap_is_checked(tmp_path: Path) -> None:
    text = (
        "kind: ConfigMap\nmetadata: {name: v}\ndata:\n"
        '  conf: \'{"actions": "allocate, allocat", "tiers": []}\'\n'
    )
    ((rule, line, column),) = where(validate(tmp_path, "cm.yaml", text, select="VC002"))
    assert (rule, line) == ("VC002", 4)
    assert text.splitlines()[3][column - 1 :].startswith('allocat"')


# --- 3. a raw conf that is not YAML -------------------------------------------------------


@pytest.mark.parametrize("name", ["volcano-scheduler.conf", "my-scheduler.yaml"])
def test_a_yaml_error_in_a_raw_volcano_conf_is_vc001(tmp_path: Path, name: str) -> None:
    text = 'actions: "allocate"\ntiers:\n\t- plugins: []\n'
    assert where(validate(tmp_path, name, text, select="VC")) == [("VC001", 3, 1)]


def test_a_yaml_error_in_a_broken_manifest_stays_pt001(tmp_path: Path) -> None:
    text = configmap("volcano-scheduler.conf", CONF) + "  other: [\n"
    assert [f.rule for f in validate(tmp_path, "cm.yaml", text)] == ["PT001"]


# --- 4. multi-document raw confs -------------------------------------------------------


def test_only_the_first_document_of_a_raw_conf_is_checked(tmp_path: Path) -> None:
    findings = validate(tmp_path, "c.yaml", 'actions: "allocate"\n---\nactions: "allocat"\n')
    assert where(findings) == [("VC009", 3, 1)]


# --- 5. what Volcano reads by name ------------------------------------------------------


@pytest.mark.parametrize("text", ["", "# nothing\n", "  \n\t\n", "~\n"])
def test_an_empty_volcano_scheduler_conf_is_rejected(tmp_path: Path, text: str) -> None:
    (finding,) = validate(tmp_path, "volcano-scheduler.conf", text)
    assert (finding.rule, finding.severity) == ("VC001", Severity.ERROR)
    assert "Volcano rejects an empty config" in finding.message
    embedded = {"kind": "ConfigMap", "data": {"volcano-scheduler.conf": text}}
    (in_configmap,) = validate(tmp_path, "cm.json", json.dumps(embedded))
    assert "Volcano rejects an empty config" in in_configmap.message


@pytest.mark.parametrize("text", ["allocate\n", "- allocate\n"])
def test_a_volcano_scheduler_conf_of_the_wrong_shape_is_rejected(tmp_path: Path, text: str) -> None:
    assert [f.rule for f in validate(tmp_path, "volcano-scheduler.conf", text)] == ["VC001"]


def test_an_empty_file_of_another_name_stays_not_ours(tmp_path: Path) -> None:
    path = tmp_path / "scheduler.yaml"
    path.write_text("")
    assert validate_paths([str(path)], OPTIONS).skipped == (str(path),)


# --- 6. kube-scheduler's group with a missing or misspelt kind -------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("apiVersion: kubescheduler.config.k8s.io/v1\nprofiles: []\n", "`kind` is missing"),
        ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfig\n", "Config"),
        ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: kubeSchedulerConfiguration\n", "kube"),
    ],
)
def test_a_kube_config_with_a_missing_or_misspelt_kind_is_ks006(
    tmp_path: Path, text: str, message: str
) -> None:
    (finding,) = validate(tmp_path, "k.yaml", text)
    assert finding.rule == "KS006"
    assert message in finding.message


@pytest.mark.parametrize(
    "text",
    [
        "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n",
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: NodeResourcesFitArgs\n",
        "# nothing\n",
    ],
)
def test_other_kinds_stay_not_ours(tmp_path: Path, text: str) -> None:
    path = tmp_path / "k.yaml"
    path.write_text(text)
    assert validate_paths([str(path)], OPTIONS).skipped == (str(path),)


def test_a_legacy_policy_in_a_configmap_is_ks002(tmp_path: Path) -> None:
    body = '{\n  "kind": "Policy",\n  "apiVersion": "v1",\n  "priorities": []\n}\n'
    text = configmap("policy.cfg", body)
    assert where(validate(tmp_path, "cm.yaml", text)) == [("KS002", 8, 15)]


# --- 7. actions written as a list ------------------------------------------------------


def test_actions_as_a_list_is_only_vc001(tmp_path: Path) -> None:
    findings = validate(tmp_path, "c.yaml", "actions: [allocate]\ntiers: []\n", select="VC00")
    assert where(findings) == [("VC001", 1, 10)]


# --- 9. directory walks -----------------------------------------------------------------


@pytest.mark.parametrize("directory", [".git", ".venv", "py311-env"])
def test_configs_in_tool_directories_and_virtualenvs_are_not_walked(
    tmp_path: Path, directory: str
) -> None:
    hidden = tmp_path / directory
    hidden.mkdir()
    if directory == "py311-env":
        (hidden / "pyvenv.cfg").write_text("home = /usr/bin\n")
        (hidden / "bin").mkdir()
    (hidden / "volcano-scheduler.conf").write_text('actions: "allocat"\n')
    (tmp_path / "volcano-scheduler.conf").write_text(CONF)
    report = validate_paths([str(tmp_path)], OPTIONS)
    assert report.checked == (str(tmp_path / "volcano-scheduler.conf"),)


KUBE_BROKEN = (
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    'profiles:\n- schedulerName: "unclosed\n'
)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(KUBE_BROKEN, id="yaml"),
        pytest.param(
            '{\n  "apiVersion": "kubescheduler.config.k8s.io/v1",\n'
            '  "kind": "KubeSchedulerConfiguration",\n  "profiles": [\n}\n',
            id="json",
        ),
    ],
)
def test_a_yaml_error_in_a_raw_kube_config_is_ks006(tmp_path: Path, text: str) -> None:
    """kube-scheduler cannot read its --config: its error, selectable as KS."""
    (finding,) = validate(tmp_path, "scheduler.yaml", text, select="KS")
    assert (finding.rule, finding.severity) == ("KS006", Severity.ERROR)
    assert finding.message.startswith("invalid YAML") and "refuses to start" in finding.message


def test_a_broken_file_that_only_mentions_the_kube_kind_stays_pt001(tmp_path: Path) -> None:
    """An over-limit file is our limit, not kube-scheduler's, and a broken manifest that
    embeds a config is not the scheduler's file."""
    big = tmp_path / "big.yaml"
    big.write_text(KUBE_BROKEN.replace('"unclosed', "a"))
    tight = CheckOptions(limits=Limits(max_nodes=5))
    (finding,) = validate_paths([str(big)], tight, RuleFilter()).findings
    assert (finding.rule, finding.severity) == ("PT001", Severity.ERROR)
    assert "too many nodes" in finding.message
    embedded = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s}\ndata:\n  config.yaml: |\n"
        "    kind: KubeSchedulerConfiguration\n  broken: [\n"
    )
    assert [f.rule for f in validate(tmp_path, "cm.yaml", embedded)] == ["PT001"]
