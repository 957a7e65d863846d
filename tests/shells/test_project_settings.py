"""The project settings file ``.policytest.yaml``: found from the working directory
upwards or named with ``--settings``, read by every command and the pytest plugin,
overridden by flags; a malformed file is a usage error naming file, line and key."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from policytest.commands.common import checked_versions
from policytest.read.project_settings import (
    SettingsError,
    find_settings,
    load_settings,
    project_settings,
)
from tests.check.test_releases import PLACEMENT
from tests.conftest import DATA, RunLine

PROJECT = DATA / "realrepos" / "settings-project"
SETTINGS_PAGE = Path(__file__).parent.parent.parent / "docs" / "settings.md"

VOLCANO_GANG = """\
actions: "enqueue, allocate, gangpreempt"
tiers:
- plugins:
  - name: gang
  - name: magic
- plugins:
  - name: nodeorder
  - name: binpack
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of a repository whose scheduler is a scheduler-plugins build; cwd inside."""
    root = tmp_path / "repo"
    shutil.copytree(PROJECT, root)
    monkeypatch.chdir(root)
    return root


# --- finding the file -------------------------------------------------------------------


def test_the_nearest_file_upwards_wins(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # the repository root: the search stops there
    (tmp_path / ".policytest.yaml").write_text("ignore: [VB]\n")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_settings(str(deep)) == str(tmp_path / ".policytest.yaml")
    (tmp_path / "a" / ".policytest.yaml").write_text("ignore: [KS]\n")
    assert find_settings(str(deep)) == str(tmp_path / "a" / ".policytest.yaml")


def test_no_file_above_the_root(tmp_path: Path) -> None:
    (tmp_path / ".policytest.yaml").write_text("ignore: [VB]\n")
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    assert find_settings(str(tmp_path / "repo")) is None  # above the repository
    (tmp_path / "plain").mkdir()
    assert find_settings(str(tmp_path / "plain")) is None  # no git: the directory only
    tmp_path = tmp_path / "plain"
    assert project_settings(None, str(tmp_path)).path is None


def test_settings_found_from_a_subdirectory(run_line: RunLine, project: Path) -> None:
    (project / "deploy").mkdir()
    conf = project / "deploy" / "volcano.conf"
    conf.write_text(VOLCANO_GANG)
    (project / ".policytest.yaml").write_text(
        'volcanoVersion: "1.15"\nvolcano:\n  plugins: [magic]\n'
    )
    assert run_line(["validate", conf]).exit_code == 0
    (project / ".policytest.yaml").write_text('volcanoVersion: "1.13"\n')
    result = run_line(["validate", conf])
    assert "action `gangpreempt` does not exist in Volcano 1.13" in result.stdout
    assert "unknown plugin `magic`" in result.stdout


def test_settings_flag_names_another_file(run_line: RunLine, project: Path) -> None:
    conf = project / "volcano.conf"
    conf.write_text(VOLCANO_GANG)
    other = project / "ci-settings.yaml"
    other.write_text("volcano:\n  plugins: [magic]\n")
    assert "VC004" in run_line(["validate", conf]).stdout
    assert run_line(["validate", "--settings", other, conf]).exit_code == 0


# --- flags override the file --------------------------------------------------------------


def test_flags_override_versions(run_line: RunLine, project: Path) -> None:
    conf = project / "volcano.conf"
    conf.write_text(VOLCANO_GANG.replace("  - name: magic\n", ""))
    (project / ".policytest.yaml").write_text('volcanoVersion: "1.11"\n')
    assert run_line(["validate", conf]).exit_code == 1
    assert run_line(["validate", "--volcano-version", "1.15", conf]).exit_code == 0


def test_flags_override_select_and_ignore(run_line: RunLine, project: Path) -> None:
    conf = project / "volcano.conf"
    conf.write_text(VOLCANO_GANG)  # VC004 (magic) and VB012 (weights 1 and 1)
    (project / ".policytest.yaml").write_text("ignore: [VC004, VB012]\n")
    assert "All clean" in run_line(["validate", conf]).stdout
    result = run_line(["validate", "--ignore", "VB012", conf])
    assert "VC004" in result.stdout and "VB012" not in result.stdout
    (project / ".policytest.yaml").write_text("select: [VB]\n")
    assert "VC004" not in run_line(["validate", conf]).stdout
    assert "VC004" in run_line(["validate", "--select", "VC", conf]).stdout


def test_kubernetes_version_from_the_file(run_line: RunLine, project: Path) -> None:
    """The file selects a row of the release table, the flag overrides it, and a release
    outside the table is a usage error naming the file, the key and the range."""
    config = project / "placement.yaml"
    config.write_text(PLACEMENT)  # plugins.placementScore is new in 1.36
    result = run_line(["validate", config])  # the project's file says 1.34
    assert result.exit_code == 1 and "new in Kubernetes 1.36" in result.stdout, result
    assert "kube-scheduler 1.34 decodes strictly" in result.stdout
    assert run_line(["validate", "--kubernetes-version", "1.36", config]).exit_code == 0
    (project / ".policytest.yaml").write_text('kubernetesVersion: "1.36"\n')
    assert run_line(["validate", config]).exit_code == 0
    assert run_line(["validate", "--kubernetes-version", "1.35", config]).exit_code == 1
    (project / ".policytest.yaml").write_text('kubernetesVersion: "1.24"\n')
    refused = run_line(["validate", config])
    assert refused.exit_code == 2, refused
    assert "kubernetesVersion" in refused.stderr and "judges 1.33 to 1.37" in refused.stderr


# --- every command ------------------------------------------------------------------------


def test_run_reads_the_settings(run_line: RunLine, project: Path) -> None:
    result = run_line(["run"])
    assert result.exit_code == 0, result
    assert "PASS the busy node wins" in result.stdout
    (project / ".policytest.yaml").unlink()
    result = run_line(["run"])
    assert result.exit_code == 1, result
    assert "KS020" in result.stdout


def test_run_does_not_take_the_settings_file_for_a_fixture(
    run_line: RunLine, project: Path
) -> None:
    result = run_line(["run", "."])
    assert result.exit_code == 0, result
    assert ".policytest.yaml" not in result.stdout.replace("gang-packing.policytest.yaml", "")


def test_explain_reads_the_settings(run_line: RunLine, project: Path) -> None:
    fixture = "fixtures/gang-packing.policytest.yaml"
    assert run_line(["explain", fixture, "--fail-on", "failure"]).exit_code == 0
    (project / ".policytest.yaml").unlink()
    assert run_line(["explain", fixture, "--fail-on", "failure"]).exit_code == 1


def test_simulate_reads_the_settings(run_line: RunLine, project: Path) -> None:
    fixture = "fixtures/gang-packing.policytest.yaml"
    result = run_line(["simulate", fixture, "--config", "fixture"])
    assert result.exit_code == 0, result
    assert "pods placed" in result.stdout
    (project / ".policytest.yaml").unlink()
    assert run_line(["simulate", fixture, "--config", "fixture"]).exit_code != 0


def test_diff_reads_the_settings(run_line: RunLine, project: Path) -> None:
    argv = [
        "diff",
        "fixtures/configs/plain-packing.yaml",
        "fixtures/configs/gang-packing.yaml",
        "--fixtures",
        "fixtures",
    ]
    assert run_line(argv).exit_code == 0
    (project / ".policytest.yaml").unlink()
    result = run_line(argv)
    assert result.exit_code == 1, result  # the head introduces KS020 errors
    assert "KS020" in result.stdout


# --- malformed files are usage errors --------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "key", "says"),
    [
        ("kubernetesVersion: 1.30\n", 1, "kubernetesVersion", 'quote it: "1.30"'),
        ('volcanoVersion: "one"\n', 1, "volcanoVersion", "must match"),
        ("ignore: [VB012]\nselekt: [VB]\n", 2, "selekt", "did you mean `select`?"),
        ("ignore: VB012\n", 1, "ignore", "must be a list"),
        ("ignore: [VB012, VB999]\n", 1, "ignore[1]", "no such rule: 'VB999'"),
        ("select:\n- vc\n- nope\n", 3, "select[1]", "no such rule: 'NOPE'"),
        (
            "kubeScheduler:\n  distribution: scheduler-plugin\n",
            2,
            "kubeScheduler.distribution",
            'must be one of "scheduler-plugins"',
        ),
        (
            "kubeScheduler:\n  plugins:\n  - name: X\n    extensionPoints: [Score]\n",
            4,
            "kubeScheduler.plugins[0].extensionPoints[0]",
            "did you mean",
        ),
        ("kubeScheduler:\n  plugins:\n  - extensionPoints: [score]\n", 3, "", "`name`"),
        ("volcano:\n  plugin: [magic]\n", 2, "volcano.plugin", "did you mean `plugins`?"),
        ("ignore: [VB012]\nignore: [KS]\n", 2, "ignore", "written twice"),
        ("- ignore\n", 1, "", "must be a mapping"),
        ("ignore: [VB012\n", 1, "", "invalid YAML: this `[` starts a list that is never closed"),
    ],
)
def test_malformed_settings_are_usage_errors(
    run_line: RunLine, tmp_path: Path, text: str, line: int, key: str, says: str
) -> None:
    settings = tmp_path / "settings.yaml"
    settings.write_text(text)
    conf = tmp_path / "volcano-scheduler.conf"
    conf.write_text(VOLCANO_GANG)
    result = run_line(["validate", "--settings", settings, conf])
    assert result.exit_code == 2, result
    assert result.stdout == ""
    message = result.stderr.strip()
    assert message.startswith(f"policytest: error: settings file {settings}:{line}:"), message
    if key:
        assert f"key `{key}`:" in message
    assert says in message
    assert "\n" not in message
    with pytest.raises(SettingsError):
        checked_versions(load_settings(str(settings)))


def test_a_missing_settings_file_is_a_usage_error(run_line: RunLine, tmp_path: Path) -> None:
    result = run_line(["run", "--settings", tmp_path / "nope.yaml", tmp_path])
    assert result.exit_code == 2
    assert "settings file" in result.stderr and "no such file" in result.stderr


def test_an_empty_settings_file_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / ".policytest.yaml"
    path.write_text("# nothing yet\n")
    settings = load_settings(str(path))
    assert settings.kube_plugins == () and settings.select is None


# --- unknown rule ids on the command line ------------------------------------------------------


@pytest.mark.parametrize("flag", ["--select", "--ignore"])
def test_unknown_rule_id_on_the_command_line_is_a_usage_error(
    run_line: RunLine, tmp_path: Path, flag: str
) -> None:
    conf = tmp_path / "volcano-scheduler.conf"
    conf.write_text(VOLCANO_GANG)
    result = run_line(["validate", flag, "VB012,VB0O4", conf])
    assert result.exit_code == 2, result
    assert "no such rule: 'VB0O4'" in result.stderr
    assert run_line(["validate", flag, "vb,KS0", conf]).exit_code in (0, 1)


# --- the schema ----------------------------------------------------------------------------------


def test_schema_settings_is_printed(run_line: RunLine) -> None:
    result = run_line(["schema", "settings"])
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert schema["$id"].endswith("/settings.schema.json")
    assert "settings" in run_line(["schema"]).stdout.split()


def _readme_settings_examples() -> list[str]:
    text = SETTINGS_PAGE.read_text()
    return re.findall(r"```yaml\n(# \.policytest\.yaml.*?)```", text, re.S)


def test_readme_settings_examples_load(tmp_path: Path) -> None:
    examples = _readme_settings_examples()
    assert len(examples) >= 2
    for example in examples:
        path = tmp_path / ".policytest.yaml"
        path.write_text(example)
        load_settings(str(path))  # raises on any problem


def test_settings_versions_are_checked_as_the_flags_are(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever checks --kubernetes-version (a supported range, say) checks the file too."""
    import argparse

    from policytest.commands import common

    def supported(text: str) -> str:
        if text not in ("1.34", "1.35"):
            raise argparse.ArgumentTypeError(f"unsupported release {text}")
        return text

    monkeypatch.setitem(common.VERSION_TYPES, "kubernetes_version", supported)
    settings = tmp_path / "settings.yaml"
    settings.write_text('ignore: [VB012]\nkubernetesVersion: "1.20"\n')
    conf = tmp_path / "volcano-scheduler.conf"
    conf.write_text(VOLCANO_GANG)
    result = run_line(["validate", "--settings", settings, conf])
    assert result.exit_code == 2, result
    assert f"settings file {settings}:2: key `kubernetesVersion`: unsupported release 1.20" in (
        result.stderr
    )
    result = run_line(["validate", "--kubernetes-version", "1.20", conf])
    assert result.exit_code == 2 and "unsupported release 1.20" in result.stderr


def test_a_schema_problem_names_its_key_once(run_line: RunLine, tmp_path: Path) -> None:
    """The key leads the line; the schema's own ``in `key``` is not repeated after it."""
    settings = tmp_path / "settings.yaml"
    settings.write_text("kubernetesVersion: 1.30\n")
    conf = tmp_path / "volcano-scheduler.conf"
    conf.write_text(VOLCANO_GANG)
    result = run_line(["validate", "--settings", settings, conf])
    assert result.exit_code == 2, result
    assert result.stderr == (
        f"policytest: error: settings file {settings}:1: key `kubernetesVersion`: "
        '`kubernetesVersion` must be a string, not 1.3 (quote it: "1.30", as YAML reads 1.30 '
        "as the number 1.3)\n"
    )


# --- severity per rule ------------------------------------------------------------------

BINPACK_OFF = """\
actions: "enqueue, allocate"
tiers:
- plugins:
  - name: binpack
    arguments: {binpack.weight: 0, binpack.cpu: -2}
"""


@pytest.mark.parametrize(
    ("severity", "exit_code", "shown"),
    [
        pytest.param("", 1, ["VB003 error", "VB002 error"], id="defaults"),
        pytest.param("severity: {VB003: warning}\n", 1, ["VB003 warning", "VB002 error"], id="one"),
        pytest.param(
            "severity: {VB: warning, VB002: info}\n",
            0,
            ["VB003 warning", "VB002 info"],
            id="prefix",
        ),
    ],
)
def test_a_project_sets_the_severity_of_a_rule(
    run_line: RunLine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    severity: str,
    exit_code: int,
    shown: list[str],
) -> None:
    """binpack.weight: 0 fails by default; the longest matching prefix decides."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "volcano-scheduler.conf").write_text(BINPACK_OFF)
    (tmp_path / ".policytest.yaml").write_text(severity)
    result = run_line(["validate", "volcano-scheduler.conf"])
    assert result.exit_code == exit_code, result
    for text in shown:
        assert text in result.stdout


def test_a_severity_raised_to_error_fails_run(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copytree(DATA.parent.parent / "fixtures", tmp_path / "fixtures")
    (tmp_path / ".git").mkdir()
    assert run_line(["run"]).exit_code == 0  # its VB012 warning and info
    (tmp_path / ".policytest.yaml").write_text("severity:\n  VB012: error\n")
    result = run_line(["run"])
    assert result.exit_code == 1, result
    assert "config findings: 2 errors" in result.stdout


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        pytest.param(
            "severity: {VB999: error}\n", ":1: key `severity.VB999`", "no such rule", id="rule"
        ),
        pytest.param("severity: {VB003: fatal}\n", ":1: key `severity.VB003`", "fatal", id="level"),
    ],
)
def test_a_severity_for_no_rule_or_of_no_level_is_refused(
    run_line: RunLine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    text: str,
    where: str,
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".policytest.yaml").write_text(text)
    (tmp_path / "volcano-scheduler.conf").write_text(BINPACK_OFF)
    result = run_line(["validate", "volcano-scheduler.conf"])
    assert result.exit_code == 2, result
    assert where in result.stderr and message in result.stderr, result.stderr


def test_verbose_names_the_settings_file_and_no_settings_skips_it(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """issue 28: which settings file was read and what it suppressed was never shown,
    and there was no way to leave it out for one run."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "volcano-scheduler.conf").write_text(BINPACK_OFF)
    (tmp_path / ".policytest.yaml").write_text("ignore: [VB002]\nseverity: {VB003: warning}\n")
    read = run_line(["validate", "--verbose", "volcano-scheduler.conf"])
    assert read.exit_code == 0, read
    assert "settings: .policytest.yaml (ignore VB002; severity VB003: warning)\n" in read.stderr
    skipped = run_line(["validate", "--verbose", "--no-settings", "volcano-scheduler.conf"])
    assert skipped.exit_code == 1, skipped  # VB002 and VB003 errors, as without the file
    assert "settings: none read (--no-settings)\n" in skipped.stderr
    assert "VB002 error" in skipped.stdout and "VB003 error" in skipped.stdout


def test_every_mistake_of_the_settings_file_is_reported_at_once(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".policytest.yaml").write_text("kubernetesVersion: 1.30\nignor: [VB012]\n")
    (tmp_path / "volcano-scheduler.conf").write_text(BINPACK_OFF)
    result = run_line(["validate", "volcano-scheduler.conf"])
    assert result.exit_code == 2, result
    assert ".policytest.yaml:1: key `kubernetesVersion`: `kubernetesVersion` must be a string" in (
        result.stderr
    )
    assert "; also line 2: key `ignor`: unknown key `ignor`; did you mean `ignore`?" in (
        result.stderr
    )


def test_verbose_says_where_it_looked_and_what_it_left_unread(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """issue 37: without git, `validate --verbose` said "no .policytest.yaml here or above"
    while one lay above; the search stops at the root (as docs/settings.md says), and the
    message says where it stopped and names the file it did not read."""
    (tmp_path / ".policytest.yaml").write_text("ignore: [VB012]\n")
    work = tmp_path / "project" / "sub"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    plain = run_line(["validate", "--verbose", "."])
    assert (
        "settings: none read (no .policytest.yaml in the working directory, which is in no "
        f"git checkout: nothing above it is read; {tmp_path / '.policytest.yaml'} is above "
        "that, not read (--settings FILE or --root DIR reads it))"
    ) in plain.stderr
    rooted = run_line(["validate", "--verbose", "--root", str(tmp_path), "."])
    assert f"settings: {tmp_path / '.policytest.yaml'} (ignore VB012)" in rooted.stderr
    (tmp_path / "project" / ".git").mkdir()
    checkout = run_line(["validate", "--verbose", "."])
    top = os.path.realpath(tmp_path / "project")
    assert f"up to the top of the git checkout, {top}; " in checkout.stderr
    (tmp_path / "project" / ".policytest.yml").write_text("ignore: [KS]\n")
    found = run_line(["validate", "--verbose", "."]).stderr
    assert f"settings: {tmp_path / 'project' / '.policytest.yml'} (ignore KS)" in found
