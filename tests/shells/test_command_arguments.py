"""The commands that take one fixture (explain, simulate) and snapshot's input say the
same thing for the same mistake: a missing path, a directory, a file without cases, a
`--case` the fixture does not have (the names it has)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import RunLine

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURES, tmp_path / "fixtures")
    (tmp_path / ".git").mkdir()
    return tmp_path


@pytest.mark.parametrize("command", [["explain"], ["simulate"], ["snapshot"]])
def test_a_missing_path_and_a_directory(
    run_line: RunLine, project: Path, command: list[str]
) -> None:
    missing = run_line([*command, project / "nope.yaml"])
    assert missing.exit_code == 2
    assert missing.stderr == f"policytest: error: path does not exist: {project / 'nope.yaml'}\n"
    directory = run_line([*command, project / "fixtures"])
    assert directory.exit_code == 2
    assert directory.stderr == (
        f"policytest: error: not a file: {project / 'fixtures'} is a directory\n"
    )


@pytest.mark.parametrize("command", ["explain", "simulate"])
def test_a_config_named_instead_of_a_fixture_says_so(
    run_line: RunLine, project: Path, command: str
) -> None:
    config = project / "fixtures/configs/kube-most-allocated.yaml"
    result = run_line([command, config])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(f"policytest: {config}: no fixture cases (looked for ")
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("command", ["explain", "simulate"])
def test_an_unknown_case_lists_the_cases(run_line: RunLine, project: Path, command: str) -> None:
    fixture = project / "fixtures/kube-most-allocated.policytest.yaml"
    result = run_line([command, fixture, "--case", "one pods"])
    assert result.exit_code == 2
    assert result.stderr == (
        f"policytest: error: no case named 'one pods' in {fixture}; did you mean `one pod`? "
        "Its cases: 'one pod', 'six pods one after another'\n"
    )


BROKEN = """\
apiVersion: policytest/v1
kind: PolicyTest
scheduler:
  volcano: {actions: "enqueue, allocate", tiers: [{plugins: [{name: binpack}]}]}
cluster:
  nodes:
  - allocatable: {cpu: "8", pods: "110"}
  - {name: b, allocatable: {cpu: "6x", pods: "110"}}
cases:
- name: one
  pod: {requests: {cpu: "1"}}
  expect: {top: b}
"""


def test_run_shows_each_problem_of_a_fixture_on_its_own_line(
    run_line: RunLine, tmp_path: Path
) -> None:
    (tmp_path / ".git").mkdir()
    fixture = tmp_path / "broken.policytest.yaml"
    fixture.write_text(BROKEN)
    result = run_line(["run", fixture])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    start = lines.index("  ERROR one")
    assert lines[start + 1].startswith(f"      {fixture}:7:5: PT002 required key `name`")
    assert lines[start + 2].startswith(f'      {fixture}:8:34: PT003 `cpu: "6x"`')
    assert lines[start + 3].startswith("Cases: 0 passed, 0 failed, 1 error")


@pytest.mark.parametrize(
    "command",
    ["validate", "run", "explain", "diff", "upgrade", "simulate", "snapshot", "schema", "rules"],
)
def test_each_help_starts_with_its_usage(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    from policytest.cli import main

    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: policytest {command} ")
    second = out.splitlines()[1]
    if second.strip().startswith("policytest"):  # a second form lines up with the first
        assert second.startswith(" " * len("usage: ") + "policytest ")


@pytest.mark.parametrize(
    "command", ["validate", "run", "explain", "upgrade", "simulate", "rules", "schema"]
)
def test_each_positional_argument_is_explained(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from policytest.cli import main

    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    section = out.split("positional arguments:\n")[1].split("\n\n")[0]
    for line in section.splitlines():
        if not line.startswith("   "):  # an argument's own line, not its wrapped help
            assert len(line.split()) > 1, f"{command}: {line!r} has no help"
