"""The built wheel: what it contains, and that it works installed, away from the checkout.

The wheel is built from a copy of the working tree (so the checkout gets no ``build/`` or
``*.egg-info`` litter) with ``python -m build`` in its usual isolated environment, then
installed with ``--no-deps`` into a fresh venv. That venv sees this interpreter's
site-packages only as plain directories listed in a ``.pth`` file, which gives it
ruamel.yaml and jsonschema without running the editable install's import hook, so the
``policytest`` it imports can only be the one from the wheel (checked, not assumed).
"""

from __future__ import annotations

import configparser
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

import policytest

ROOT = Path(__file__).resolve().parents[1]
BIN = "Scripts" if os.name == "nt" else "bin"
SKIPPED = shutil.ignore_patterns(
    ".git",
    ".venv",
    "venv",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    "*.pyc",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".tox",
    ".nox",
    ".hypothesis",
    "node_modules",
)
BROKEN_FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
scheduler:
  volcano: {actions: "enqueue, allocate", tiers: [{plugins: [{name: binpack}]}]}
cluster:
  nodes:
  - allocatable: {cpu: "8"}
cases:
- name: anything
  pod: {requests: {cpu: "1"}}
  expect: {unschedulable: []}
"""


def bundled_schemas() -> list[str]:
    return sorted(path.name for path in (ROOT / "schemas").glob("*.schema.json"))


def run(command: Sequence[str | Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    env["NO_COLOR"] = "1"
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def checked(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, f"{result.args}\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("build")
    source = work / "src"
    shutil.copytree(ROOT, source, ignore=SKIPPED)
    dist = work / "dist"
    checked(run([sys.executable, "-m", "build", "--wheel", "--outdir", dist, source], cwd=work))
    wheels = list(dist.glob("*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


@dataclass(frozen=True)
class Installed:
    python: Path
    script: Path
    site_packages: Path
    cwd: Path


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    work = tmp_path_factory.mktemp("installed")
    venv = work / "venv"
    checked(run([sys.executable, "-m", "venv", "--without-pip", venv], cwd=work))
    python = venv / BIN / ("python.exe" if os.name == "nt" else "python")
    site_packages = Path(
        checked(
            run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], work)
        ).strip()
    )
    checked(
        run(
            [
                *(sys.executable, "-m", "pip", "--python", python, "install"),
                *("--no-deps", "--no-index", "--no-compile", "--quiet", wheel),
            ],
            cwd=work,
        )
    )
    # ruamel.yaml, jsonschema and their dependencies, as plain directories: the .pth files
    # in them (the editable install's finder among them) are not processed from here.
    dependency_dirs = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (site_packages / "policytest_test_dependencies.pth").write_text(
        "".join(f"{directory}\n" for directory in sorted(dependency_dirs)), encoding="utf-8"
    )
    cwd = work / "elsewhere"
    cwd.mkdir()
    return Installed(python, venv / BIN / "policytest", site_packages, cwd)


def test_wheel_contents(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        dist_info = f"policytest-{policytest.__version__}.dist-info"
        entry_points = configparser.ConfigParser()
        entry_points.read_string(archive.read(f"{dist_info}/entry_points.txt").decode())
        metadata = archive.read(f"{dist_info}/METADATA").decode()
    assert bundled_schemas(), "no schemas/*.schema.json in the checkout"
    for schema in bundled_schemas():
        assert f"policytest/schemas/{schema}" in names
    assert {"policytest/py.typed", "policytest/__main__.py", "policytest/cli.py"} <= names
    modules = {
        f"policytest/{path.relative_to(ROOT / 'policytest').as_posix()}"
        for path in (ROOT / "policytest").rglob("*.py")
    }
    assert modules <= names, f"not in the wheel (pyproject's packages): {modules - names}"
    html = ROOT / "policytest" / "reporters" / "html"
    for asset in [*html.glob("templates/*.j2"), *html.glob("assets/*")]:
        assert f"policytest/reporters/html/{asset.relative_to(html)}" in names
    assert entry_points["console_scripts"]["policytest"] == "policytest.cli:console_main"
    assert "Requires-Python: >=3.10" in metadata
    assert "Requires-Dist: ruamel.yaml" in metadata
    assert "Requires-Dist: jsonschema" in metadata
    assert "Requires-Dist: Jinja2" in metadata
    # nothing but the package and its metadata: no top-level `schemas` or `tests`
    assert {name.split("/")[0] for name in names} == {"policytest", dist_info}


def test_installed_package_is_the_wheel(installed: Installed) -> None:
    code = "import policytest, policytest.schemas; print(policytest.__file__)"
    imported = Path(checked(run([installed.python, "-c", code], installed.cwd)).strip())
    assert imported.resolve().is_relative_to(installed.site_packages.resolve()), imported
    assert not imported.resolve().is_relative_to(ROOT)


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(["{script}", "--version"], id="console-script"),
        pytest.param(["{python}", "-m", "policytest", "--version"], id="python-m"),
    ],
)
def test_version(installed: Installed, command: list[str]) -> None:
    argv = [part.format(script=installed.script, python=installed.python) for part in command]
    first, *releases = checked(run(argv, installed.cwd)).strip().splitlines()
    assert first == f"policytest {policytest.__version__}"
    assert releases[0].startswith("judges kube-scheduler 1.33") and "(default 1.15)" in releases[1]


def test_schema_list_and_print(installed: Installed) -> None:
    listed = checked(run([installed.script, "schema"], installed.cwd)).split()
    assert sorted(listed) == [name.removesuffix(".schema.json") for name in bundled_schemas()]
    printed = json.loads(
        checked(run([installed.script, "schema", "policytest-fixture"], installed.cwd))
    )
    expected = json.loads((ROOT / "schemas" / "policytest-fixture.schema.json").read_text())
    assert printed == expected


def test_validate_uses_the_bundled_schema(installed: Installed) -> None:
    fixture = installed.cwd / "broken.policytest.yaml"
    fixture.write_text(BROKEN_FIXTURE, encoding="utf-8")
    result = run([installed.script, "validate", fixture.name], installed.cwd)
    assert result.returncode == 1, result
    assert result.stdout.splitlines()[0] == (
        "broken.policytest.yaml:7:5: PT002 error: "
        "required key `name` is missing in `cluster.nodes[0]`"
    )


def test_html_report_from_the_bundled_templates(installed: Installed) -> None:
    fixture = installed.cwd / "one.policytest.yaml"
    fixture.write_text(BROKEN_FIXTURE.replace("- allocatable", "- name: n1\n    allocatable"))
    result = run([installed.script, "explain", "--format", "html", fixture.name], installed.cwd)
    assert result.stdout.startswith("<!DOCTYPE html>"), result
    assert "Content-Security-Policy" in result.stdout and "</html>" in result.stdout
