"""Shared test helpers: run the real CLI entry point in-process and capture its output."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

from policytest.cli import main
from policytest.core.findings import Finding
from policytest.read import bigload
from policytest.scoring.cluster import Pod
from policytest.scoring.specs import pod_from_dict

# Speed is measured in benchmarks/, never asserted by a clock: hypothesis's 200 ms deadline
# per example failed tests at random on a loaded machine. A test that guards against a hang
# sets its own deadline (test_fuzz.py).
settings.register_profile("policytest", deadline=None)
settings.load_profile("policytest")

DATA = Path(__file__).parent / "data"
README = Path(__file__).parent.parent / "README.md"


def user_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> Path:
    """A repository (a ``.git`` directory marks its root) holding ``files``, as the
    working directory."""
    (tmp_path / ".git").mkdir()
    write_files(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def readme_opening_files() -> dict[str, str]:
    """The files the README's "Use it in your repository" path writes, by the path named on
    each YAML block's first line (``# fixtures/binpack.policytest.yaml``)."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Use it in your repository") :]
    section = section[: section.index("\n## ", 1)]
    blocks = re.findall(r"```yaml\n# (\S+)\n(.*?)```", section, re.DOTALL)
    return {path: f"# {path}\n{body}" for path, body in blocks}


# A small Volcano conf that loads cleanly (binpack with its recommended weight).
VOLCANO_CONF = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: binpack
    arguments: {binpack.weight: 10}
"""


@dataclass(frozen=True)
class CliResult:
    exit_code: int
    stdout: str
    stderr: str

    def __str__(self) -> str:  # shown by pytest when an assertion about the result fails
        return f"exit {self.exit_code}\n--- stdout\n{self.stdout}--- stderr\n{self.stderr}"


RunLine = Callable[..., CliResult]


@pytest.fixture
def bundled_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the bundled fixtures in a fresh repository, as the working directory."""
    shutil.copytree(Path(__file__).parents[1] / "fixtures", tmp_path / "fixtures")
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "policytest",
    "GIT_AUTHOR_EMAIL": "policytest@example.com",
    "GIT_COMMITTER_NAME": "policytest",
    "GIT_COMMITTER_EMAIL": "policytest@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}
"""A fixed identity for the commits tests make, whatever the machine's git config says."""


def git(repo: Path, *args: str, stdin: str = "") -> str:
    """Run git in ``repo`` (``stdin``: its standard input); its output, stripped."""
    done = subprocess.run(
        ["git", *args],
        cwd=repo,
        env=GIT_ENV,
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def write_files(root: Path, files: dict[str, str]) -> None:
    """Write ``files`` (path relative to ``root``: text), making their directories."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def committed_repo(path: Path, files: dict[str, str], *, commit: bool = True) -> Path:
    """A git repository at ``path`` holding ``files`` (relative path: text), committed
    unless ``commit`` is false."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "--quiet", "--initial-branch=main")
    write_files(path, files)
    if commit:
        git(path, "add", ".")
        git(path, "commit", "--quiet", "-m", "base")
    return path


def of_rule(findings: Iterable[Finding], rule: str) -> list[Finding]:
    """The findings of one rule."""
    return [finding for finding in findings if finding.rule == rule]


def requesting(requests: dict[str, str]) -> Pod:
    """A pod with these requests (the API server's defaulting applied)."""
    return pod_from_dict({"requests": requests}, default_requests_from_limits=True)


@pytest.fixture
def run_line(capsys: pytest.CaptureFixture[str]) -> RunLine:
    """``run_line(["validate", path])`` runs ``policytest`` through ``main(argv)``."""

    def run(argv: list[str]) -> CliResult:
        code = main([str(arg) for arg in argv])
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


pytest_plugins = ["pytester"]

# Each in-process pytester run drops the modules it imported; libyaml's extension keeps
# the ruamel.yaml node classes it first saw, so both are imported here, once, for good.
bigload.available()
