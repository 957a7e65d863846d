"""Without `.git`, the root is the working directory when the fixture is below it, else
the fixture's own directory (as README and `--root`'s help say); the PT003 says which."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import RunLine

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
FIXTURE = "fixtures/kube-most-allocated.policytest.yaml"


@pytest.fixture
def copy(tmp_path: Path) -> Iterator[Path]:
    """The bundled fixtures in a directory with no `.git` above it, and a `sub/` to run in."""
    project = tmp_path / "project"
    shutil.copytree(FIXTURES, project / "fixtures")
    (project / "sub").mkdir()
    cwd = os.getcwd()
    try:
        yield project
    finally:
        os.chdir(cwd)


def test_the_working_directory_is_the_root(run_line: RunLine, copy: Path) -> None:
    os.chdir(copy)
    assert run_line(["run", "fixtures"]).exit_code == 0
    assert run_line(["validate", "fixtures"]).exit_code == 0
    fixture = copy / FIXTURE
    fixture.write_text(fixture.read_text().replace("configs/", "../../outside/"))
    result = run_line(["run", FIXTURE])
    assert result.exit_code == 1
    assert "the working directory, as no `.git` was found above the fixture" in result.stdout


def test_a_fixture_outside_the_working_directory_has_its_own_directory_as_root(
    run_line: RunLine, copy: Path
) -> None:
    os.chdir(copy / "sub")
    assert run_line(["run", "../fixtures"]).exit_code == 0
    fixture = copy / FIXTURE
    fixture.write_text(fixture.read_text().replace("configs/", "../sub/"))
    (copy / "sub" / "kube-most-allocated.yaml").write_text(
        (copy / "fixtures/configs/kube-most-allocated.yaml").read_text()
    )
    result = run_line(["run", f"../{FIXTURE}"])
    assert result.exit_code == 1
    assert "the fixture's own directory" in result.stdout
    assert run_line(["run", f"../{FIXTURE}", "--root", ".."]).exit_code == 0


def test_validate_takes_the_same_root_as_run(run_line: RunLine, copy: Path) -> None:
    """A config linked from `fixtures/` to a sibling directory of the working directory is
    read by validate as by run; a link out of the working directory is refused by both."""
    shared = copy / "shared"
    shared.mkdir()
    config = copy / "fixtures/configs/kube-most-allocated.yaml"
    (shared / "kube.yaml").write_text(config.read_text())
    config.unlink()
    config.symlink_to(os.path.join("..", "..", "shared", "kube.yaml"))
    os.chdir(copy)
    assert run_line(["validate", "fixtures/configs/kube-most-allocated.yaml"]).exit_code == 0
    assert run_line(["run", FIXTURE]).exit_code == 0
    os.chdir(copy / "fixtures")
    refused = run_line(["validate", "configs/kube-most-allocated.yaml"])
    assert refused.exit_code == 1 and "PT001" in refused.stdout
