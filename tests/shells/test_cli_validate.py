"""``policytest validate`` through the real entry point: formats, filters, exit codes."""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DATA, VOLCANO_CONF, RunLine, user_repository

BROKEN_FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
scheduler: {config: c.yaml}
cluster:
  nodes:
  - allocatable: {cpu: "8"}
cases:
- name: c
  pod: {requests: {cpu: "1"}}
  expect: {ranking: [a]}
"""


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    path = tmp_path / "broken.policytest.yaml"
    path.write_text(BROKEN_FIXTURE)
    return path


def test_text_output_and_exit_code(run_line: RunLine, broken: Path) -> None:
    result = run_line(["validate", broken])
    assert result.exit_code == 1, result
    assert f"{broken}:6:5: PT002 error: required key `name` is missing" in result.stdout
    assert result.stdout.rstrip().endswith("Found 1 error, 0 warnings in 1 file.")


def test_clean_file_exits_zero(run_line: RunLine, tmp_path: Path) -> None:
    path = tmp_path / "ok.yaml"
    fixed = BROKEN_FIXTURE.replace("  - allocatable", "  - name: a\n    allocatable")
    path.write_text(fixed.replace('{cpu: "8"}', '{cpu: "8", pods: "110"}'))
    (tmp_path / "c.yaml").write_text(VOLCANO_CONF)
    result = run_line(["validate", path])
    assert result.exit_code == 0, result
    assert "All clean: 1 file checked." in result.stdout


def test_json_output_shape(run_line: RunLine, broken: Path) -> None:
    result = run_line(["validate", "--format", "json", broken])
    data = json.loads(result.stdout)
    assert data["summary"] == {"files": 1, "errors": 1, "warnings": 0}
    assert data["findings"] == [
        {
            "rule": "PT002",
            "severity": "error",
            "path": str(broken),
            "line": 6,
            "column": 5,
            "message": data["findings"][0]["message"],
            "document": 0,
        }
    ]


def test_github_output(run_line: RunLine, broken: Path) -> None:
    result = run_line(["validate", "--format", "github", broken])
    assert result.stdout.startswith(f"::error file={broken},line=6,col=5,title=PT002::required key")


def test_github_format_is_the_default_under_actions(
    run_line: RunLine, broken: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert run_line(["validate", broken]).stdout.startswith("::error ")


def _sarif(run_line: RunLine, path: str | Path) -> dict[str, Any]:
    """``validate --format sarif`` output, checked against the official SARIF 2.1.0 schema."""
    from jsonschema import Draft7Validator

    schema = json.loads(
        gzip.decompress((DATA / "sarif" / "sarif-2.1.0-rtm.5.json.gz").read_bytes())
    )
    result = run_line(["validate", "--format", "sarif", path])
    sarif: dict[str, Any] = json.loads(result.stdout)
    Draft7Validator(schema).validate(sarif)
    return sarif


def test_sarif_output_validates_against_the_official_schema(
    run_line: RunLine, broken: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(broken.parent)
    sarif = _sarif(run_line, broken.name)
    (run,) = sarif["runs"]
    (finding,) = run["results"]
    assert finding["ruleId"] == "PT002" and finding["level"] == "error"
    assert run["tool"]["driver"]["rules"][finding["ruleIndex"]]["id"] == "PT002"
    location = finding["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": broken.name, "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 6, "startColumn": 5}


def _artifact(sarif: dict[str, Any]) -> Any:
    return sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]


def test_sarif_relative_uris_are_percent_encoded(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "my configs").mkdir()
    (tmp_path / "my configs" / "a#1.policytest.yaml").write_text(BROKEN_FIXTURE)
    monkeypatch.chdir(tmp_path)
    sarif = _sarif(run_line, "./my configs/a#1.policytest.yaml")
    assert _artifact(sarif) == {
        "uri": "my%20configs/a%231.policytest.yaml",
        "uriBaseId": "%SRCROOT%",
    }


def test_sarif_absolute_paths_are_file_uris_without_a_base(
    run_line: RunLine, tmp_path: Path
) -> None:
    path = tmp_path / "my configs" / "a#1.policytest.yaml"
    path.parent.mkdir()
    path.write_text(BROKEN_FIXTURE)
    sarif = _sarif(run_line, path)
    uri = "file://" + str(tmp_path).replace(" ", "%20") + "/my%20configs/a%231.policytest.yaml"
    assert _artifact(sarif) == {"uri": uri}


def test_ignore_and_select(run_line: RunLine, broken: Path) -> None:
    assert run_line(["validate", "--ignore", "PT002", broken]).exit_code == 0
    assert run_line(["validate", "--ignore", "pt", broken]).exit_code == 0
    assert run_line(["validate", "--select", "VB", broken]).exit_code == 0
    assert run_line(["validate", "--select", "PT00", broken]).exit_code == 1


def test_suppression_comment_on_the_offending_line(run_line: RunLine, tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_text(BROKEN_FIXTURE.replace('{cpu: "8"}', '{cpu: "8"}  # policytest: ignore[PT002]'))
    assert run_line(["validate", path]).exit_code == 0
    path.write_text(BROKEN_FIXTURE.replace('{cpu: "8"}', '{cpu: "8"}  # policytest: ignore[VB004]'))
    assert run_line(["validate", path]).exit_code == 1


def test_suppression_in_a_conf_volcano_reads_only_after_trimming(
    run_line: RunLine, tmp_path: Path
) -> None:
    """Lines count in the file as written, not in the trimmed text Volcano parses."""
    path = tmp_path / "volcano-scheduler.conf"
    conf = (
        '\n\n  actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: binpack\n'
        "    arguments: {binpack.weight: 0}"
    )
    path.write_text(conf + "\n")
    assert "VB003" in run_line(["validate", path]).stdout
    path.write_text(conf + "  # policytest: ignore[VB003]\n")
    assert "VB003" not in run_line(["validate", path]).stdout


def test_directories_are_walked_and_foreign_yaml_skipped(
    run_line: RunLine, tmp_path: Path, broken: Path
) -> None:
    (tmp_path / "deploy.yaml").write_text("apiVersion: apps/v1\nkind: Deployment\n")
    (tmp_path / "helm-template.yaml").write_text("a: {{ .Values.x }}\n")
    (tmp_path / "notes.txt").write_text("not yaml")
    hidden = tmp_path / "node_modules"
    hidden.mkdir()
    (hidden / "x.policytest.yaml").write_text(BROKEN_FIXTURE)
    result = run_line(["validate", "--verbose", tmp_path])
    assert result.exit_code == 1
    assert result.stdout.count("PT002") == 1
    assert "skipped (not a scheduler config or fixture):" in result.stderr
    assert "deploy.yaml" in result.stderr and "helm-template.yaml" in result.stderr


def test_thousands_of_unrelated_yaml_files_are_skipped(run_line: RunLine, tmp_path: Path) -> None:
    for index in range(2000):
        (tmp_path / f"values-{index}.yaml").write_text(f"replicas: {index}\nimage: app:{index}\n")
    result = run_line(["validate", tmp_path])
    assert result.exit_code == 0, result
    assert "All clean: 0 files checked." in result.stdout


def test_missing_path_is_a_usage_error(run_line: RunLine, tmp_path: Path) -> None:
    result = run_line(["validate", tmp_path / "nope.yaml"])
    assert result.exit_code == 2
    assert result.stderr == f"policytest: error: path does not exist: {tmp_path / 'nope.yaml'}\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["validate", "--format", "xml", "x"],
        ["validate", "--bogus", "x"],
        ["nope"],
        [],
        ["validate", "--volcano-version", "latest", "x"],
        ["validate", "--kubernetes-version", "1", "x"],
    ],
    ids=[
        "bad-format",
        "unknown-flag",
        "unknown-command",
        "no-command",
        "bad-volcano-version",
        "bad-kubernetes-version",
    ],
)
def test_usage_errors_exit_2(run_line: RunLine, argv: list[str]) -> None:
    assert run_line(argv).exit_code == 2


def test_validate_with_no_path_checks_the_working_directory(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As ruff and yamllint do: no path is `.`."""
    user_repository(tmp_path, monkeypatch, {"deploy/volcano-scheduler.conf": VOLCANO_CONF})
    (tmp_path / "deploy" / "broken-scheduler.conf").write_text("actions: [\n")
    result = run_line(["validate"])
    assert result.exit_code == 1, result
    assert result.stdout.startswith("./deploy/broken-scheduler.conf:")
    assert "in 2 files" in result.stdout


HOSTILE = {
    "syntax-error": b"kind: PolicyTest\napiVersion: policytest/v1\ncases: [\n",
    "python-tag": (
        b"apiVersion: policytest/v1\nkind: PolicyTest\nx: !!python/object/apply:os.system [ls]\n"
    ),
    "non-utf8": b"kind: PolicyTest\nname: caf\xe9\n",
    "deep": b"kind: PolicyTest\nx: " + b"[" * 10_000 + b"]" * 10_000,
    "alias-bomb": (
        b"apiVersion: policytest/v1\nkind: PolicyTest\na: &a [x,x,x,x,x,x,x,x,x]\n"
        + b"".join(
            f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n".encode()
            for i in range(9)
        )
    ),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_input_gives_a_finding_not_a_traceback(
    run_line: RunLine, tmp_path: Path, name: str
) -> None:
    path = tmp_path / f"{name}.yaml"
    path.write_bytes(HOSTILE[name])
    result = run_line(["validate", "--format", "json", path])
    assert result.exit_code == 1, result
    findings = json.loads(result.stdout)["findings"]
    assert findings and all(f["line"] >= 1 for f in findings)
    assert any(f["severity"] == "error" for f in findings)
    assert "Traceback" not in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("binary.yaml", bytes(range(256)) * 4),
        ("deep.yaml", b"[" * 10_000 + b"]" * 10_000),
        ("tsconfig.json", b'{\n  // comment\n  "a": [1,\n}\n'),
    ],
)
def test_someone_elses_unreadable_file_warns_without_failing(
    run_line: RunLine, tmp_path: Path, name: str, data: bytes
) -> None:
    path = tmp_path / name
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)
    result = run_line(["validate", "--format", "json", path])
    assert result.exit_code == 0, result
    (finding,) = json.loads(result.stdout)["findings"]
    assert finding["severity"] == "warning"
    assert finding["message"].endswith(
        "(not recognisable as a scheduler config or fixture, so not checked)"
    )
    assert run_line(["validate", "--strict", path]).exit_code == 1
    assert run_line(["validate", tmp_path]).exit_code == 0  # walked, not named: skipped


def test_empty_file_is_not_a_config(run_line: RunLine, tmp_path: Path) -> None:
    path = tmp_path / "empty.yaml"
    path.write_bytes(b"")
    result = run_line(["validate", path])
    assert result.exit_code == 0, result
    assert result.stdout.strip() == "All clean: 0 files checked."
    verbose = run_line(["validate", "--verbose", path])
    assert f"skipped (not a scheduler config or fixture): {path}" in verbose.stderr + verbose.stdout


def test_fifty_megabyte_file_is_refused_without_reading_it(
    run_line: RunLine, tmp_path: Path
) -> None:
    path = tmp_path / "huge.yaml"
    with path.open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    result = run_line(["validate", "--format", "json", path])
    assert result.exit_code == 0
    assert "larger than" in json.loads(result.stdout)["findings"][0]["message"]


def test_a_named_file_that_cannot_be_read_is_an_error(run_line: RunLine, tmp_path: Path) -> None:
    link = tmp_path / "dangling.yaml"
    link.symlink_to(tmp_path / "missing-target.yaml")
    result = run_line(["validate", link])
    assert result.exit_code == 1, result
    assert "PT001 error: cannot read file" in result.stdout
    assert run_line(["validate", tmp_path]).exit_code == 0  # walked, not named: skipped


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_a_named_file_without_read_permission_is_an_error(
    run_line: RunLine, tmp_path: Path
) -> None:
    path = tmp_path / "secret.yaml"
    path.write_text("a: 1\n")
    path.chmod(0)
    result = run_line(["validate", path])
    assert result.exit_code == 1, result
    assert "PT001 error: cannot read file: Permission denied" in result.stdout


def test_stdin(run_line: RunLine, monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(BROKEN_FIXTURE.encode()))
    monkeypatch.setattr(sys, "stdin", stdin)
    result = run_line(["validate", "-"])
    assert result.exit_code == 1
    assert "<stdin>:6:5: PT002" in result.stdout


def test_internal_error_is_one_line_and_exit_3(
    run_line: RunLine, broken: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("policytest.check.validate.validate_paths", explode)
    result = run_line(["validate", broken])
    assert result.exit_code == 3
    assert result.stderr == "policytest: internal error: RuntimeError: boom\n"


def test_color_only_on_a_tty_and_never_with_no_color(broken: Path) -> None:
    from policytest.commands.common import use_color

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    env = dict(os.environ)
    try:
        os.environ.pop("NO_COLOR", None)
        os.environ.pop("FORCE_COLOR", None)
        assert use_color(Tty()) and not use_color(io.StringIO())
        os.environ["NO_COLOR"] = "1"
        assert not use_color(Tty())
    finally:
        os.environ.clear()
        os.environ.update(env)


def test_entry_points_run_as_real_processes(broken: Path) -> None:
    script = str(Path(sys.executable).with_name("policytest"))  # the venv's console script
    for command in ([script], [sys.executable, "-m", "policytest"]):
        done = subprocess.run(
            [*command, "validate", str(broken)], capture_output=True, text=True, check=False
        )
        assert done.returncode == 1, done.stderr
        assert "PT002 error" in done.stdout
