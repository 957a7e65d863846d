"""The README's and docs' claims that code can check: the opening path works as written, the
fixture example runs and passes, the Quickstart is two commands."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import RunLine, readme_opening_files

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"


def _opening_commands() -> list[list[str]]:
    """The console commands of the README's opening path, split at ``&&``."""
    section = README[README.index("## Use it in your repository") : README.index("## Quickstart")]
    lines = re.findall(r"```console\n(.*?)```", section, re.DOTALL)
    return [shlex.split(part) for line in lines for part in line.strip().split("&&")]


def test_readme_opening_path_works_as_written(tmp_path: Path) -> None:
    """A fresh repository with the README's config and fixture: validate, run and pytest pass."""
    files = readme_opening_files()
    assert set(files) == {
        "deploy/volcano-scheduler-configmap.yaml",
        "fixtures/binpack.policytest.yaml",
        ".pre-commit-config.yaml",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    subprocess.run(["git", "init", "--quiet"], cwd=tmp_path, check=True)
    commands = _opening_commands()
    assert [c[0] for c in commands] == ["pip", "policytest", "policytest", "pytest"]
    outputs = []
    for program, *args in commands[1:]:
        module = ["policytest"] if program == "policytest" else ["pytest", "-p", "no:cacheprovider"]
        done = subprocess.run(
            [sys.executable, "-m", *module, *args], cwd=tmp_path, capture_output=True, text=True
        )
        assert done.returncode == 0, (program, args, done.stdout, done.stderr)
        outputs.append(done.stdout)
    validated, ran, tested = outputs
    assert "All clean: 2 files checked." in validated
    assert "Cases: 2 passed, 0 failed" in ran
    assert "3 passed" in tested  # two cases and the config item


def test_fixture_format_example_passes(run_line: RunLine, tmp_path: Path) -> None:
    section = (DOCS / "fixtures.md").read_text(encoding="utf-8")
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
    quickstart = README[README.index("## Quickstart") : README.index("## Reference")]
    commands = re.findall(r"```console\n(.*?)```", quickstart, re.DOTALL)
    assert [c.count("\n") for c in commands] == [1, 1]
    assert commands[0].strip().endswith("policytest run fixtures/")
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install --quiet -e '.[test]'" in ci and "python -m pytest -n 2" in ci
    assert "pip install -e '.[test]'" in commands[1] and "python -m pytest -n 2" in commands[1]


def test_editor_schema_modeline_points_at_the_file_its_commands_write(tmp_path: Path) -> None:
    """The editor page's commands run, and its modeline resolves to the file they write."""
    section = (DOCS / "editors.md").read_text(encoding="utf-8")
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


def test_library_example_runs(tmp_path: Path) -> None:
    text = (DOCS / "python.md").read_text(encoding="utf-8")
    section = text[text.index("## The library") :]
    example = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert example is not None
    done = subprocess.run(
        [sys.executable, "-c", example.group(1)], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "volcano-nodeorder-binpack-weight-1.yaml" in done.stdout  # its VB012 warning


def test_readme_repack_answer_is_what_simulate_prints(run_line: RunLine) -> None:
    """The README's repack example: its command (in the text, across lines) prints the
    answer shown."""
    section = README[README.index("## What a config frees") : README.index("## Development")]
    command = re.search(r"`(policytest simulate\s+--snapshot fixtures/[^`]*)`", section)
    shown = re.search(r"```text\n(.*?)```", section, re.DOTALL)
    assert command is not None and shown is not None
    program, *args = shlex.split(command.group(1))
    assert program == "policytest"
    result = run_line(args)
    assert result.exit_code == 0, result
    assert result.stdout.startswith(shown.group(1))


def test_readme_quickstart_output_is_what_run_prints(run_line: RunLine, bundled_repo: Path) -> None:
    """Each line the Quickstart quotes is a line ``policytest run fixtures/`` prints, in
    order (``...`` skips lines; a quoted line ending ``...`` is the start of a longer one)."""
    quickstart = README[README.index("## Quickstart") : README.index("## Reference")]
    quoted = re.search(r"```text\n(.*?)```", quickstart, re.DOTALL)
    assert quoted is not None
    printed = run_line(["run", "fixtures/"]).stdout.splitlines()
    at = 0
    for line in quoted.group(1).splitlines():
        if line == "...":
            continue
        start = line.removesuffix("...")
        while at < len(printed) and not (
            printed[at] == line or (start != line and printed[at].startswith(start))
        ):
            at += 1
        assert at < len(printed), f"the README quotes a line run does not print: {line}"
        at += 1


def test_the_readme_picture_shows_the_report_the_readme_command_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/html-report.png carries the hash of the report it shows; the README's command
    must still write that report (else run `python benchmarks/readme_picture.py`, which
    takes the screenshot in headless Chromium)."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent.parent / "benchmarks"))
    import readme_picture

    picture = Path(__file__).parent.parent / "docs" / "html-report.png"
    shown = readme_picture.stamp_of(picture.read_bytes())
    now = readme_picture.digest(readme_picture.report_html(tmp_path))
    assert shown == now, "docs/html-report.png is stale: run python benchmarks/readme_picture.py"
