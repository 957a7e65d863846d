"""A fixture's ``config:`` never reaches outside the repository root, and nothing leaks.

The layout of every test: ``tmp/repo`` (with ``.git``) holds the fixture, ``tmp/outside``
holds ``secret.yaml``: a KubeSchedulerConfiguration whose profile name is a secret. The
fixture asks for a profile the config does not have, so if policytest ever read the
secret file, the error (which lists the config's profiles) would print the secret. A
positive control shows exactly that once the root is widened to include it.

Every way out is tried: ``../`` paths, absolute paths, a symlinked config, a symlinked
``configs/`` directory, a symlinked ``fixtures/`` directory. Each must end in a PT003
error at the fixture's ``config:`` line, without the file ever being opened (a spy on
every ``open``) and without the secret in any output of ``run``, ``explain`` or
``validate``.
"""

from __future__ import annotations

import builtins
import io
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from policytest.options import CheckOptions
from policytest.suite import repository_root, run_file
from tests.conftest import RunLine

SECRET = "s3cr3t-token-7f1c9b"
SECRET_CONFIG = f"""\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: {SECRET}
"""
FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
scheduler:
  config: {config}
  profile: not-there
cluster:
  nodes:
  - {{name: node-a, allocatable: {{cpu: "4", pods: "10"}}}}
cases:
- name: one pod
  pod: {{requests: {{cpu: "1"}}}}
  expect: {{ranking: [node-a]}}
"""
CONFIG_LINE, CONFIG_COLUMN = 4, 11  # the value of `config:`


class Layout:
    def __init__(self, tmp: Path) -> None:
        self.repo = tmp / "repo"
        self.outside = tmp / "outside"
        (self.repo / ".git").mkdir(parents=True)
        (self.repo / "fixtures").mkdir()
        self.outside.mkdir()
        self.secret = self.outside / "secret.yaml"
        self.secret.write_text(SECRET_CONFIG)

    def fixture(self, config: str, directory: str = "fixtures") -> Path:
        path = self.repo / directory / "leak.policytest.yaml"
        path.write_text(FIXTURE.format(config=config))
        return path


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    return Layout(tmp_path)


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every path opened in-process while the test runs (``open``, ``io.open``, ``os.open``)."""
    paths: list[str] = []

    def spy(real: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(file: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(file, (str, bytes, os.PathLike)):
                paths.append(os.path.realpath(os.fsdecode(file)))
            return real(file, *args, **kwargs)

        return wrapper

    monkeypatch.setattr(builtins, "open", spy(builtins.open))
    monkeypatch.setattr(io, "open", spy(io.open))
    monkeypatch.setattr(os, "open", spy(os.open))
    yield paths


def escape(layout: Layout, how: str) -> tuple[Path, str]:
    """A fixture whose config reaches ``secret.yaml`` one way or another; and its root."""
    repo, secret = layout.repo, layout.secret
    if how == "dotdot":
        return layout.fixture("../../outside/secret.yaml"), str(repo)
    if how == "deep-dotdot":
        return layout.fixture("configs/../../" * 3 + "../outside/secret.yaml"), str(repo)
    if how == "absolute":
        return layout.fixture(str(secret)), str(repo)
    if how == "symlinked-file":
        (repo / "fixtures" / "configs").mkdir()
        (repo / "fixtures" / "configs" / "c.yaml").symlink_to(secret)
        return layout.fixture("configs/c.yaml"), str(repo)
    if how == "symlinked-directory":
        (repo / "fixtures" / "configs").symlink_to(layout.outside, target_is_directory=True)
        return layout.fixture("configs/secret.yaml"), str(repo)
    if how == "symlink-chain":
        (repo / "a.yaml").symlink_to(repo / "b.yaml")
        (repo / "b.yaml").symlink_to(secret)
        return layout.fixture("../a.yaml"), str(repo)
    assert how == "symlinked-fixtures-directory"
    (layout.outside / "configs").mkdir()
    (layout.outside / "configs" / "c.yaml").write_text(SECRET_CONFIG)
    (repo / "linked").symlink_to(layout.outside, target_is_directory=True)
    fixture = layout.outside / "leak.policytest.yaml"
    fixture.write_text(FIXTURE.format(config="configs/c.yaml"))
    return repo / "linked" / "leak.policytest.yaml", str(repo)


ESCAPES = [
    "dotdot",
    "deep-dotdot",
    "absolute",
    "symlinked-file",
    "symlinked-directory",
    "symlink-chain",
    "symlinked-fixtures-directory",
]


@pytest.mark.parametrize("how", ESCAPES)
def test_escape_is_an_error_at_the_config_line_and_never_a_read(
    layout: Layout, opened: list[str], how: str
) -> None:
    fixture, _ = escape(layout, how)
    opened.clear()  # only what policytest opens from here on
    root = repository_root(str(fixture))
    assert root == os.path.realpath(layout.repo)
    (result,) = run_file(str(fixture), CheckOptions(), root)
    assert result.status == "error"
    (finding,) = result.findings
    assert (finding.rule, finding.line, finding.column) == ("PT003", CONFIG_LINE, CONFIG_COLUMN)
    assert "is outside the root" in finding.message
    assert SECRET not in result.message + finding.message
    touched = {path for path in opened if path.startswith(os.path.realpath(layout.outside))}
    assert not touched - {os.path.realpath(fixture)}, "a file outside the root was opened"


@pytest.mark.parametrize("how", ESCAPES)
@pytest.mark.parametrize("command", ["run", "explain", "validate"])
def test_no_output_echoes_the_secret(
    run_line: RunLine, layout: Layout, how: str, command: str
) -> None:
    fixture, root = escape(layout, how)
    argv = {
        "run": ["run", "--format", "json", "--root", root, fixture],
        "explain": ["explain", "--root", root, fixture],
        "validate": ["validate", "--format", "json", layout.repo],
    }[command]
    result = run_line(argv)
    assert result.exit_code in (0, 1), result
    assert SECRET not in result.stdout + result.stderr
    if command == "run":
        (case,) = json.loads(result.stdout)["results"]
        assert case["status"] == "error" and "is outside the root" in case["message"]


def test_positive_control_the_secret_would_show_if_the_file_were_read(
    run_line: RunLine, layout: Layout
) -> None:
    """With the root widened to include ``outside/``, the same fixture prints the secret:
    the tests above would notice a read."""
    fixture, _ = escape(layout, "dotdot")
    result = run_line(["run", "--root", layout.repo.parent, fixture])
    assert SECRET in result.stdout


def test_a_config_inside_the_root_through_a_symlink_is_fine(layout: Layout) -> None:
    (layout.repo / "configs").mkdir()
    real = layout.repo / "configs" / "real.yaml"
    real.write_text(SECRET_CONFIG.replace(SECRET, "in-repo"))
    (layout.repo / "fixtures" / "alias.yaml").symlink_to(real)
    fixture = layout.fixture("alias.yaml")
    (result,) = run_file(str(fixture), CheckOptions(), repository_root(str(fixture)))
    assert "is outside the root" not in result.message
    assert "in-repo" in result.message  # read: the profile error names the config's profiles


def test_root_option_narrows_the_repository(run_line: RunLine, layout: Layout) -> None:
    """``--root`` wins over ``.git``: a config elsewhere in the repository is outside it."""
    (layout.repo / "configs").mkdir()
    (layout.repo / "configs" / "c.yaml").write_text(SECRET_CONFIG)
    fixture = layout.fixture("../configs/c.yaml")
    result = run_line(["run", "--root", layout.repo / "fixtures", fixture])
    assert result.exit_code == 1
    assert "is outside the root" in result.stdout and SECRET not in result.stdout
