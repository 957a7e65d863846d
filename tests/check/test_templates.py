"""Templates are one info each, never an error, and the real configs around them are checked.

Shaped like what real repositories hold: Volcano's chart template of its scheduler
ConfigMap (``{{- if }}`` lines), a chart template that parses as YAML but templates the
conf's values, a kubespray-style ``.j2`` KubeSchedulerConfiguration, and an installer
manifest whose install script substitutes ``XVERSIONX``. Before, they drew PT001 "invalid
YAML", KS006, VC004 errors and blocked the pre-commit hook.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from policytest.check.templates import PT005_TEMPLATE, template_of
from tests.check.helpers import example_rules, validate_json
from tests.conftest import DATA, RunLine

TEMPLATES = DATA / "realrepos" / "templates"
CHART = TEMPLATES / "volcano-chart"


def _findings(run_line: RunLine, *paths: Path) -> tuple[int, list[tuple[str, str, int, int]]]:
    code, found = validate_json(run_line, *paths)
    return code, [(Path(f["path"]).name, f["rule"], f["line"], f["column"]) for f in found]


@pytest.mark.parametrize(
    ("path", "line", "column"),
    [
        pytest.param(CHART / "templates" / "scheduler-configmap.yaml", 1, 1, id="helm-if-lines"),
        pytest.param(TEMPLATES / "kube-scheduler-config.yaml.j2", 5, 16, id="jinja-j2"),
        pytest.param(TEMPLATES / "volcano-scheduler-install.yaml", 16, 27, id="XVERSIONX"),
    ],
)
def test_a_template_is_one_info_and_exit_0(
    run_line: RunLine, path: Path, line: int, column: int
) -> None:
    code, rows = _findings(run_line, path)
    assert code == 0
    assert rows == [(path.name, "PT005", line, column)]


def test_walking_a_chart_reports_each_template_once_and_checks_the_real_config(
    run_line: RunLine,
) -> None:
    code, rows = _findings(run_line, CHART)
    assert code == 1  # the literal KubeSchedulerConfiguration's real mistake
    assert rows == [
        ("kube-scheduler-configmap.yaml", "PT005", 13, 28),
        ("kube-scheduler-configmap.yaml", "KS010", 29, 19),
        ("scheduler-configmap.yaml", "PT005", 1, 1),
    ]  # the chart's scheduler Deployment template is not a scheduler config: skipped


def test_the_message_says_how_to_check_the_rendered_chart(run_line: RunLine) -> None:
    result = run_line(["validate", CHART / "templates" / "scheduler-configmap.yaml"])
    assert "PT005 info: this is a Helm template (`{{- if .Values.custom.scheduler_enable }}`)" in (
        result.stdout
    )
    assert (
        "volcano-chart --show-only templates/scheduler-configmap.yaml | policytest validate -`"
        in result.stdout
    )


def test_a_named_helm_template_is_helm_and_rendered_with_its_chart(run_line: RunLine) -> None:
    """A chart's ``_helpers.tpl`` holds Go templates for Helm: called "a Jinja template
    ... render it as your playbook does" before; ``--show-only`` cannot show a named
    template, which renders only where the chart includes it."""
    result = run_line(["validate", CHART / "templates" / "_helpers.tpl"])
    assert result.exit_code == 0, result
    assert (
        "_helpers.tpl:2:1: PT005 info: this is a Helm named template "
        '(`{{- define "volcano-chart.kube-scheduler-config" -}}`), which renders where the '
        "chart includes it" in result.stdout
    )
    assert "volcano-chart | policytest validate -`" in result.stdout
    assert "Jinja" not in result.stdout and "playbook" not in result.stdout


@pytest.mark.parametrize(
    ("name", "text", "what"),
    [
        pytest.param("x.tpl", "kind: KubeSchedulerConfiguration\n", "a Go template (a `.tpl`"),
        pytest.param("x.jinja", "actions: allocate\n", "a Jinja template (a `.jinja`"),
        pytest.param("x.j2", "actions: {{ acts }}\n", "a Jinja template (`{{ acts }}`)"),
        pytest.param("x.yaml", "name: {{ .Values.n }}\n", "a Helm template (`{{ .Values"),
    ],
)
def test_the_template_language_follows_the_syntax_then_the_name(
    name: str, text: str, what: str
) -> None:
    found = template_of(name, text)
    assert found is not None and found.what.startswith(what)


def test_the_placeholder_message_names_the_substitution(run_line: RunLine) -> None:
    result = run_line(["validate", TEMPLATES / "volcano-scheduler-install.yaml"])
    assert "`XVERSIONX` is a placeholder an install script substitutes" in result.stdout
    assert "sed 's/XVERSIONX/VALUE/g'" in result.stdout


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('name: config-volcano\nnameFormat: "job{{._ENUM_}}"\n', id="outside"),
        pytest.param("# sed -i s/XVERSIONX/$V/ this file\nactions: allocate\n", id="comment"),
        pytest.param('actions: "enqueue, allocate"\n', id="plain"),
    ],
)
def test_what_is_not_a_template(text: str) -> None:
    start = text.find("actions") if "actions" in text else len(text)
    assert template_of("conf.yaml", text, start) is None


@pytest.mark.parametrize(("label", "expected"), [("Failing", ["PT005"]), ("Passing", [])])
def test_the_rule_examples(
    run_line: RunLine, tmp_path: Path, label: str, expected: list[str]
) -> None:
    assert example_rules(run_line, tmp_path, PT005_TEMPLATE.doc, label) == (0, expected)


def test_another_programs_template_named_explicitly_is_skipped_even_strict(
    run_line: RunLine, tmp_path: Path
) -> None:
    path = tmp_path / "templates" / "deployment.yaml"
    path.parent.mkdir()
    path.write_text("apiVersion: apps/v1\nspec:\n  {{- if .Values.x }}\n", encoding="utf-8")
    result = run_line(["validate", "--strict", "--verbose", path])
    assert result.exit_code == 0, result
    assert "0 files checked" in result.stdout
    assert "skipped (not a scheduler config or fixture)" in result.stderr
