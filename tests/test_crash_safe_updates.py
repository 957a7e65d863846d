"""Golden updates survive being killed: ``policytest run --update`` and the pytest plugin's
``--policytest-update``, killed with SIGKILL at the hook point just before a rename.

Three failing fixtures (LF 0644, CRLF 0600, LF 0755) are updated by a subprocess that
kills itself at the N-th rename. Every fixture is then either its old text or the text an
uninterrupted update writes, byte for byte (so line endings are kept), with its mode; the
ones renamed before the kill are new, the rest old. A second, uninterrupted update then
finishes the job, and the temporary files the kill left behind are ignored by a run.
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from policytest.core.options import CheckOptions

FIXTURES = Path(__file__).parent.parent / "fixtures"
CONFIG_NAME = "volcano-binpack-cpu-weighted.yaml"
RIGHT = (FIXTURES / "volcano-three-nodes-cpu-weighted.policytest.yaml").read_text()
WRONG = RIGHT.replace("ranking: [node-a, node-c, node-b]", "ranking: [node-b, node-a, node-c]")
FILES = {  # name: (line ending, mode)
    "a.policytest.yaml": ("\n", 0o644),
    "b.policytest.yaml": ("\r\n", 0o600),
    "c.policytest.yaml": ("\n", 0o755),
}
# Registers the kill at the N-th rename (0: never), then runs the CLI or pytest.
BOOT = textwrap.dedent(
    """
    import os, signal, sys
    from policytest.fixtures import golden
    kill_at = int(sys.argv[1])
    renames = []
    def hook(temporary):
        renames.append(temporary)
        if len(renames) == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
    golden.BEFORE_RENAME.append(hook)
    if sys.argv[2] == "cli":
        from policytest.cli import main
        sys.exit(main(sys.argv[3:]))
    import pytest
    sys.exit(pytest.main(sys.argv[3:]))
    """
)
COMMANDS = {
    "run --update": ["cli", "run", "--update", "."],
    "--policytest-update": ["pytest", "--policytest-update", "-p", "no:cacheprovider", "-q"],
}


def make_project(path: Path) -> Path:
    (path / ".git").mkdir(parents=True)
    (path / "configs").mkdir()
    shutil.copy(FIXTURES / "configs" / CONFIG_NAME, path / "configs" / CONFIG_NAME)
    for name, (newline, mode) in FILES.items():
        fixture = path / name
        fixture.write_bytes(WRONG.replace("\n", newline).encode())
        fixture.chmod(mode)
    return path


def update(project: Path, command: str, kill_at: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", BOOT, str(kill_at), *COMMANDS[command]],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NO_COLOR": "1", "PYTEST_ADDOPTS": ""},
    )


@pytest.fixture(scope="module", params=sorted(COMMANDS))
def command(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def new_texts(command: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """What an uninterrupted update writes."""
    project = make_project(tmp_path_factory.mktemp("uninterrupted"))
    done = update(project, command, kill_at=0)
    assert done.returncode == 0, done.stdout + done.stderr
    texts = {name: (project / name).read_bytes() for name in FILES}
    for name, (newline, mode) in FILES.items():
        assert texts[name] != WRONG.replace("\n", newline).encode()
        assert texts[name] == RIGHT.replace("\n", newline).encode()  # comments, layout kept
        assert stat.S_IMODE((project / name).stat().st_mode) == mode
    return texts


@pytest.mark.parametrize("kill_at", [2, 3])
def test_killed_update_leaves_every_fixture_old_or_new(
    tmp_path: Path, command: str, new_texts: dict[str, bytes], kill_at: int
) -> None:
    project = make_project(tmp_path)
    done = update(project, command, kill_at)
    assert done.returncode == -signal.SIGKILL, done.stdout + done.stderr
    for index, (name, (newline, mode)) in enumerate(sorted(FILES.items()), start=1):
        data = (project / name).read_bytes()
        old = WRONG.replace("\n", newline).encode()
        assert data == (new_texts[name] if index < kill_at else old), name
        assert stat.S_IMODE((project / name).stat().st_mode) == mode
    leftovers = sorted(p.name for p in project.iterdir() if p.name not in FILES)
    temporary = [name for name in leftovers if name.startswith(".policytest-")]
    assert len(temporary) == 1 and temporary[0].endswith(".tmp")  # the one it was renaming
    assert set(leftovers) - set(temporary) <= {".git", "configs", "__pycache__"}

    finished = update(project, command, kill_at=0)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert {name: (project / name).read_bytes() for name in FILES} == new_texts
    rerun = update(project, "run --update", kill_at=0)
    assert rerun.returncode == 0 and "3 passed" in rerun.stdout, rerun.stdout


def test_crlf_comment_lines_stay_crlf(tmp_path: Path) -> None:
    """Regression: ruamel.yaml kept the ``\\r`` of comment lines, so a CRLF fixture's
    comments came out ``\\r\\r\\n`` after an update."""
    from policytest.fixtures.golden import rewrite_file
    from policytest.fixtures.suite import run_file

    project = make_project(tmp_path)
    path = str(project / "b.policytest.yaml")
    failing = {r.case: r for r in run_file(path, CheckOptions(), str(project))}
    assert rewrite_file(path, failing)
    assert (project / "b.policytest.yaml").read_bytes() == RIGHT.replace("\n", "\r\n").encode()
