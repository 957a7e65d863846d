"""The README's claims that code can check: its fixture example runs and passes."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import RunLine

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_fixture_example_passes(run_line: RunLine, tmp_path: Path) -> None:
    section = README[README.index("## Testing configs") :]
    example = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert example is not None
    shutil.copytree(ROOT / "fixtures" / "configs", tmp_path / "configs")
    (tmp_path / ".git").mkdir()
    fixture = tmp_path / "example.policytest.yaml"
    fixture.write_text(example.group(1))
    result = run_line(["run", fixture])
    assert result.exit_code == 0, result
    assert "Cases: 2 passed, 0 failed" in result.stdout


def test_readme_quickstart_has_exactly_two_commands() -> None:
    quickstart = README[README.index("## Quickstart") : README.index("## Validating configs")]
    commands = re.findall(r"```console\n(.*?)```", quickstart, re.DOTALL)
    assert [c.count("\n") for c in commands] == [1, 1]
    assert commands[0].strip().endswith("policytest run fixtures/")
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install --quiet -e '.[test]'" in ci and "python -m pytest -n 2" in ci
    assert "pip install -e '.[test]'" in commands[1] and "python -m pytest -n 2" in commands[1]


def test_readme_schema_modeline_points_at_the_file_its_commands_write(tmp_path: Path) -> None:
    """The editor section's commands run, and its modeline resolves to the file they write."""
    section = README[README.index("## Editor support") : README.index("## Development")]
    commands = re.search(r"```console\n(.*?)```", section, re.S)
    assert commands is not None
    for line in commands.group(1).splitlines():
        program, *args = shlex.split(line.split(">")[0])
        if program == "mkdir":
            (tmp_path / args[-1]).mkdir(parents=True, exist_ok=True)
            continue
        assert program == "policytest"
        done = subprocess.run(
            [sys.executable, "-m", "policytest", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=True,
        )
        (tmp_path / line.split(">")[1].strip()).write_text(done.stdout)
    modeline = re.search(r"\$schema=(\S+)", section)
    fixture_dir = re.search(r"first line of `([^`]+)`", section)
    assert modeline is not None and fixture_dir is not None
    (tmp_path / fixture_dir.group(1)).parent.mkdir(parents=True)
    schema = tmp_path / Path(fixture_dir.group(1)).parent / modeline.group(1)
    assert json.loads(schema.read_text())["$id"].endswith("policytest-fixture.schema.json")


def test_readme_python_example_runs(tmp_path: Path) -> None:
    section = README[README.index("## From Python") : README.index("## pre-commit")]
    example = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert example is not None
    done = subprocess.run(
        [sys.executable, "-c", example.group(1)], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "volcano-nodeorder-binpack-weight-1.yaml" in done.stdout  # its VB012 warning
