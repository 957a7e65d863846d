"""The pre-commit hooks are product code: their file patterns, and the hooks under real pre-commit.

The pattern tests read ``.pre-commit-hooks.yaml`` and match it the way pre-commit does
(``files`` / ``exclude`` regexes searched in the repo-relative path, ``types`` from
``identify``), after check-jsonschema's ``tests/acceptance/test_hook_file_matches.py``.

``TestRealPreCommit`` runs the real ``pre-commit`` in a temporary git repository: once
``pre-commit try-repo`` on this checkout (what the README and contributors do), and then
``pre-commit run`` with a ``.pre-commit-config.yaml`` pointing at a snapshot of this
checkout, which lets pre-commit build the hook environment once for the whole class
(``try-repo`` builds a new one on every call). Both install policytest from source with pip,
so they need the package index; deselect them with ``-k "not RealPreCommit"``.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from identify import identify
from ruamel.yaml import YAML

from tests.conftest import readme_opening_files

try:
    import fcntl
except ImportError:  # Windows: no sharing between xdist workers
    fcntl = None  # type: ignore[assignment]

ROOT = Path(__file__).resolve().parents[2]
HOOKS_FILE = ROOT / ".pre-commit-hooks.yaml"
DATA = Path(__file__).parent.parent / "data"

FINDING_LINE = re.compile(
    r"^(?P<path>[^:\s][^:]*):(?P<line>\d+):(?P<column>\d+): "
    r"(?P<rule>[A-Z]{2}\d{3}) (?P<severity>error|warning|info): (?P<message>.+)$"
)


def load_hooks() -> dict[str, dict[str, Any]]:
    hooks = YAML(typ="safe", pure=True).load(HOOKS_FILE.read_text(encoding="utf-8"))
    return {hook["id"]: hook for hook in hooks}


def selects(hook: Mapping[str, Any], path: str) -> bool:
    """Would pre-commit hand ``path`` (relative to the repo root) to ``hook``?"""
    if not re.search(hook.get("files", ""), path):
        return False
    exclude = hook.get("exclude", "^$")
    if re.search(exclude, path):
        return False
    tags = identify.tags_from_filename(path) | {"file"}
    types_or = set(hook.get("types_or", ()))
    return (
        set(hook.get("types", ["file"])) <= tags
        and (not types_or or bool(types_or & tags))
        and not set(hook.get("exclude_types", ())) & tags
    )


# --- the manifest and its patterns ----------------------------------------------------

SCHEDULER_FILES = [
    "volcano-scheduler-configmap.yaml",
    "deploy/volcano/values.yml",
    "kube/KUBE-SCHEDULER-CONFIG.YAML",
    "configs/kube-scheduler.json",
    "fixtures/gpu-two-nodes.policytest.yaml",
    "fixtures/configs/volcano-binpack-gpu.yaml",
    "installer/helm/chart/volcano/config/volcano-scheduler.conf",
    "agent-scheduler.conf",
    "builtin-DefaultSchedulerConf.conf",
    "path with spaces/kustomization.yaml",
]
OTHER_FILES = [
    "README.md",
    "nginx.conf",  # .conf is nginx, INI, supervisord...: only scheduler confs are passed
    "scheduler/supervisord.conf",
    "volcano-scheduler.conf.bak",
    "volcano-scheduler.yaml.tpl",
    "settings.json5",
    "policytest/cli.py",
    "pkg/scheduler/plugins/binpack/binpack.go",
    ".yamllint",
]


def test_manifest_is_valid_for_pre_commit() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-manifest", str(HOOKS_FILE)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_hook_ids_and_entries() -> None:
    hooks = load_hooks()
    assert sorted(hooks) == ["policytest-run", "policytest-validate"]
    validate, run = hooks["policytest-validate"], hooks["policytest-run"]
    assert (validate["entry"], validate["language"]) == ("policytest validate", "python")
    assert validate.get("pass_filenames", True) is True
    assert (run["entry"], run["language"]) == ("policytest run --cases-only", "python")
    assert run["pass_filenames"] is False
    assert run.get("always_run", False) is False


@pytest.mark.parametrize("hook_id", ["policytest-validate", "policytest-run"])
@pytest.mark.parametrize("path", SCHEDULER_FILES)
def test_hook_matches_scheduler_files(hook_id: str, path: str) -> None:
    assert selects(load_hooks()[hook_id], path)


@pytest.mark.parametrize("hook_id", ["policytest-validate", "policytest-run"])
@pytest.mark.parametrize("path", OTHER_FILES)
def test_hook_ignores_other_files(hook_id: str, path: str) -> None:
    assert not selects(load_hooks()[hook_id], path)


# --- the hooks under the real pre-commit ------------------------------------------------

BROKEN_CONF = """\
actions: "enqueue, allocate"
tiers:
- plugins:
  - name: binpack
    arguments: {binpack.weight: [10}
"""
BROKEN_CONF_FINDING = (
    "broken-scheduler.yaml:5:33: VC001 error: invalid YAML: "
    "this `[` starts a list that `}` at line 5, column 36 closes: close it with `]`; Volcano "
    "trims the "
    "file and then cannot parse it, so it keeps its previous configuration"
)
BROKEN_FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata:
  name: broken
scheduler:
  config: ../volcano-scheduler-configmap.yaml
cluster:
  nodes:
  - name: node-a
    allocatable: {cpu: "8", memory: 16Gi}
  - allocatable: {cpu: "8", memory: 16Gi}
cases:
- name: anything
  pod: {requests: {cpu: "1"}}
  expect: {unschedulable: []}
"""
BROKEN_FIXTURE_FINDING = (
    "broken/broken.policytest.yaml:11:5: PT002 error: "
    "required key `name` is missing in `cluster.nodes[1]`"
)
PASSING_FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata:
  name: small-node-cannot-fit
scheduler:
  volcano:
    actions: "enqueue, allocate"
    tiers:
    - plugins:
      - name: predicates
      - name: binpack
cluster:
  nodes:
  - name: node-big
    allocatable: {cpu: "8", memory: 16Gi, pods: "110"}
  - name: node-small
    allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
cases:
- name: a 4-CPU pod fits only the big node
  pod: {requests: {cpu: "4", memory: 1Gi}}
  expect:
    unschedulable: [node-small]
"""
HELM_TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "app.fullname" . }}
spec:
  {{- if not .Values.autoscaling.enabled }}
  replicas: {{ .Values.replicaCount }}
  {{- end }}
"""
USER_FILES = {
    "volcano-scheduler.conf": (DATA / "kubectl" / "volcano-scheduler.conf").read_text(),
    "volcano-scheduler-configmap.yaml": (DATA / "kubectl" / "volcano-configmap.yaml").read_text(),
    "broken-scheduler.yaml": BROKEN_CONF,
    "broken/broken.policytest.yaml": BROKEN_FIXTURE,
    "fixtures/binpack.policytest.yaml": PASSING_FIXTURE,
    "chart/templates/deployment.yaml": HELM_TEMPLATE,
    "chart/Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.1.0\n",
    "chart/templates/scheduler-configmap.yaml": (
        DATA
        / "realrepos"
        / "templates"
        / "volcano-chart"
        / "templates"
        / "scheduler-configmap.yaml"
    ).read_text(),
    "values.yaml": "replicaCount: 2\nimage: {repository: nginx, tag: stable}\n",
    "supervisord.conf": "[program:app]\ncommand=/usr/bin/app\n",  # not YAML at all
    "README.md": "# cluster config\n",
}
CLEAN_FILES = [
    "volcano-scheduler.conf",
    "volcano-scheduler-configmap.yaml",
    "fixtures/binpack.policytest.yaml",
]


@dataclass(frozen=True)
class Result:
    returncode: int
    output: str

    @property
    def lines(self) -> list[str]:
        return self.output.splitlines()

    def findings(self) -> list[re.Match[str]]:
        return [match for line in self.lines if (match := FINDING_LINE.match(line))]

    def __str__(self) -> str:
        return f"exit {self.returncode}\n{self.output}"


@dataclass(frozen=True)
class UserRepo:
    """A user's repository with scheduler configs, and how to run pre-commit in it."""

    path: Path
    source: Path  # the policytest repository pre-commit installs the hooks from
    env: Mapping[str, str]

    def git(self, *args: str, cwd: Path | None = None) -> str:
        return _run(["git", *args], cwd or self.path, self.env).output

    def pre_commit(self, *args: str) -> Result:
        command = [sys.executable, "-m", "pre_commit", *args]
        return _run(command, self.path, self.env, check=False)


def _run(command: Sequence[str], cwd: Path, env: Mapping[str, str], check: bool = True) -> Result:
    completed = subprocess.run(
        list(command),
        cwd=cwd,
        env=dict(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
        check=False,
    )
    result = Result(completed.returncode, completed.stdout)
    if check:
        assert result.returncode == 0, f"{' '.join(command)}\n{result}"
    return result


def _environment(home: Path) -> dict[str, str]:
    """The test's environment without anything that changes git's or policytest's output."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("GIT_", "PRE_COMMIT"))
        and key not in {"GITHUB_ACTIONS", "FORCE_COLOR", "NO_COLOR", "PYTHONPATH"}
    }
    env.update(
        PRE_COMMIT_HOME=str(home),
        GIT_AUTHOR_NAME="policytest tests",
        GIT_AUTHOR_EMAIL="tests@policytest.invalid",
        GIT_COMMITTER_NAME="policytest tests",
        GIT_COMMITTER_EMAIL="tests@policytest.invalid",
        GIT_CONFIG_NOSYSTEM="1",
    )
    return env


def _snapshot(root: Path, destination: Path, env: Mapping[str, str]) -> str:
    """Clone ``root`` and commit its uncommitted changes to tracked files, as try-repo does.

    Untracked files are left out (try-repo leaves them out too): commit a new file such as
    ``.pre-commit-hooks.yaml`` before these tests can see it. Returns the commit id.
    """
    _run(["git", "clone", "--quiet", str(root), str(destination)], destination.parent, env)
    diff = subprocess.run(
        ["git", "diff", "HEAD", "--binary"], cwd=root, env=dict(env), capture_output=True
    ).stdout
    if diff:
        subprocess.run(
            ["git", "apply", "--whitespace=nowarn", "--index", "-"],
            cwd=destination,
            env=dict(env),
            input=diff,
            check=True,
        )
        _run(["git", "commit", "--quiet", "--no-verify", "-m", "uncommitted"], destination, env)
    assert (destination / ".pre-commit-hooks.yaml").is_file(), (
        ".pre-commit-hooks.yaml is not tracked: pre-commit only sees committed files"
    )
    return _run(["git", "rev-parse", "HEAD"], destination, env).output.strip()


@contextlib.contextmanager
def _shared_directory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A directory for the hook source and pre-commit's cache, held under a lock.

    Under pytest-xdist the workers of one run share it, so pre-commit builds the hook
    environment once per run, not once per worker; otherwise it is this session's own.
    """
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run_id is None or fcntl is None:
        yield tmp_path_factory.mktemp("precommit-shared")
        return
    shared = tmp_path_factory.getbasetemp().parent / f"precommit-{run_id}"
    shared.mkdir(exist_ok=True)
    with open(shared / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield shared
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="module")
def user_repo(tmp_path_factory: pytest.TempPathFactory) -> UserRepo:
    if shutil.which("git") is None:
        pytest.fail("git is required to test the pre-commit hooks")
    with _shared_directory(tmp_path_factory) as shared:
        env = _environment(shared / "pre-commit-home")
        toplevel = _run(["git", "rev-parse", "--show-toplevel"], ROOT, env, check=False)
        if toplevel.returncode != 0 or Path(toplevel.output.strip()).resolve() != ROOT:
            pytest.skip(f"{ROOT} is not a git checkout (pre-commit installs hooks from git)")
        source = shared / "policytest"
        revision_file = shared / "revision"
        if not revision_file.is_file():
            shutil.rmtree(source, ignore_errors=True)  # a failed attempt by another worker
            revision_file.write_text(_snapshot(ROOT, source, env), encoding="utf-8")
        revision = revision_file.read_text(encoding="utf-8")
    path = tmp_path_factory.mktemp("user-repo")
    for name, text in USER_FILES.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text, encoding="utf-8")
    (path / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        f"- repo: {source}\n"
        f"  rev: {revision}\n"
        "  hooks:\n"
        "  - id: policytest-validate\n"
        "    args: [--verbose]\n"
        "  - id: policytest-run\n",
        encoding="utf-8",
    )
    repo = UserRepo(path, source, env)
    repo.git("init", "--quiet")
    repo.git("add", ".")
    return repo


class TestRealPreCommit:
    def test_try_repo_fails_on_the_broken_config_only(self, user_repo: UserRepo) -> None:
        clean = ["volcano-scheduler.conf", "volcano-scheduler-configmap.yaml"]
        result = user_repo.pre_commit(
            "try-repo",
            str(ROOT),
            "policytest-validate",
            "--color=never",
            "--files",
            *clean,
            "broken-scheduler.yaml",
        )
        assert result.returncode == 1, result
        assert "- exit code: 1" in result.lines, result  # findings, not a crash (3)
        assert BROKEN_CONF_FINDING in result.lines, result
        errors = [m["path"] for m in result.findings() if m["severity"] == "error"]
        assert errors == ["broken-scheduler.yaml"], result

    def test_clean_configs_pass_and_other_files_are_not_passed(self, user_repo: UserRepo) -> None:
        others = ["values.yaml", "supervisord.conf", "README.md"]
        result = user_repo.pre_commit(
            "run",
            "policytest-validate",
            "--color=never",
            "--verbose",
            "--files",
            *CLEAN_FILES,
            *others,
        )
        assert result.returncode == 0, result
        assert any(re.match(r"policytest validate\.+Passed$", line) for line in result.lines)
        assert not [m for m in result.findings() if m["severity"] == "error"], result
        # values.yaml reached policytest, which skipped it as not ours; the hook's
        # patterns kept README.md and supervisord.conf (a PT001 if read) away from it
        assert "skipped (not a scheduler config or fixture): values.yaml" in result.lines
        assert "supervisord.conf" not in result.output
        assert "README.md" not in result.output

    def test_broken_fixture_fails(self, user_repo: UserRepo) -> None:
        result = user_repo.pre_commit(
            "run",
            "policytest-validate",
            "--color=never",
            "--files",
            "broken/broken.policytest.yaml",
        )
        assert result.returncode == 1, result
        assert BROKEN_FIXTURE_FINDING in result.lines, result

    def test_all_files_finds_both_broken_files(self, user_repo: UserRepo) -> None:
        result = user_repo.pre_commit("run", "policytest-validate", "--color=never", "--all-files")
        assert result.returncode == 1, result
        errors = sorted(m.group(0) for m in result.findings() if m["severity"] == "error")
        assert BROKEN_CONF_FINDING in errors, result
        assert BROKEN_FIXTURE_FINDING in errors, result
        assert "supervisord.conf" not in result.output
        chart = [m for m in result.findings() if m["path"].startswith("chart/")]
        assert all(m["severity"] == "info" for m in chart), result  # templates never fail

    def test_helm_templates_never_fail_the_hook(self, user_repo: UserRepo) -> None:
        result = user_repo.pre_commit(
            "run",
            "policytest-validate",
            "--color=never",
            "--verbose",
            "--files",
            "chart/templates/deployment.yaml",
            "chart/templates/scheduler-configmap.yaml",
        )
        assert result.returncode == 0, result
        found = [(m["path"], m["rule"], m["severity"]) for m in result.findings()]
        assert found == [("chart/templates/scheduler-configmap.yaml", "PT005", "info")], result
        # another program's template is skipped like any file that is not ours
        assert "skipped (not a scheduler config or fixture): chart/templates/deployment.yaml" in (
            result.lines
        ), result

    def test_binpack_switched_off_fails_the_hook_unless_the_project_says_so(
        self, user_repo: UserRepo
    ) -> None:
        """issue 28: `binpack.weight: 0` is an error by default; a project that means it
        lowers VB003 in its settings file, as ruff and yamllint let a project do."""
        off = user_repo.path / "off-scheduler.conf"
        off.write_text(
            'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: binpack\n'
            "    arguments: {binpack.weight: 0}\n",
            encoding="utf-8",
        )
        settings = user_repo.path / ".policytest.yaml"
        hook = (
            "run",
            "policytest-validate",
            "--color=never",
            "--verbose",
            "--files",
            "off-scheduler.conf",
        )
        try:
            failed = user_repo.pre_commit(*hook)
            settings.write_text("severity:\n  VB003: warning\n", encoding="utf-8")
            passed = user_repo.pre_commit(*hook)
        finally:
            off.unlink()  # the repository is shared by the module's tests
            settings.unlink(missing_ok=True)
        assert failed.returncode == 1, failed
        assert "off-scheduler.conf:5:33: VB003 error: " in failed.output, failed
        assert passed.returncode == 0, passed
        assert "off-scheduler.conf:5:33: VB003 warning: " in passed.output, passed

    def test_a_billion_laughs_values_file_is_refused_by_the_hook(self, user_repo: UserRepo) -> None:
        """issue 34: a 306-byte values file of no known kind, nine anchors each aliasing
        the previous one nine times, hung the hook (387 million nodes visited while
        looking for configs nested in it); it is a warning, read once."""
        from tests.read.test_bounded_walks import bomb, values_file

        values = user_repo.path / "bomb-values.yaml"
        values.write_text(values_file(bomb()), encoding="utf-8")
        try:
            result = user_repo.pre_commit(
                "run", "policytest-validate", "--color=never", "--verbose", "--files", values.name
            )
        finally:
            values.unlink()  # the repository is shared by the module's tests
        assert result.returncode == 0, result
        (warning,) = [m for m in result.findings() if m["path"] == values.name]
        assert warning["rule"] == "PT001" and warning["severity"] == "warning", result
        assert "alias bomb" in warning["message"], result

    def test_a_config_error_is_shown_once_by_the_validate_hook(self, user_repo: UserRepo) -> None:
        """issue 37: both hooks printed the config's error, and the run hook said "1
        passed, 0 failed" while failing; it leaves the config's findings to validate."""
        off = user_repo.path / "off-scheduler.conf"
        off.write_text(
            'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: binpack\n'
            "    arguments: {binpack.weight: 0}\n",
            encoding="utf-8",
        )
        fixture = user_repo.path / "fixtures" / "off.policytest.yaml"
        fixture.write_text(
            PASSING_FIXTURE.replace(
                PASSING_FIXTURE[
                    PASSING_FIXTURE.index("  volcano:") : PASSING_FIXTURE.index("cluster:")
                ],
                "  config: ../off-scheduler.conf\n",
            ),
            encoding="utf-8",
        )
        try:
            result = user_repo.pre_commit(
                "run", "--color=never", "--files", "off-scheduler.conf", str(fixture)
            )
        finally:
            off.unlink()  # the repository is shared by the module's tests
            fixture.unlink()
        assert result.returncode == 1, result
        assert any(re.match(r"policytest validate\.+Failed$", line) for line in result.lines)
        assert any(re.match(r"policytest run\.+Passed$", line) for line in result.lines)
        assert result.output.count("off-scheduler.conf:5:33: VB003 error: ") == 1, result

    def test_run_hook_skips_commits_without_configs(self, user_repo: UserRepo) -> None:
        result = user_repo.pre_commit(
            "run", "policytest-run", "--color=never", "--files", "README.md"
        )
        assert result.returncode == 0, result
        assert any(
            re.match(r"policytest run\.+\(no files to check\)Skipped$", line)
            for line in result.lines
        ), result

    def test_run_hook_fails_on_a_failing_case(self, user_repo: UserRepo) -> None:
        wrong = user_repo.path / "fixtures" / "wrong.policytest.yaml"
        wrong.write_text(
            PASSING_FIXTURE.replace("unschedulable: [node-small]", "unschedulable: [node-big]"),
            encoding="utf-8",
        )
        try:
            result = user_repo.pre_commit(
                "run", "policytest-run", "--color=never", "--files", "values.yaml"
            )
        finally:
            wrong.unlink()  # the repository is shared by the module's tests
        assert result.returncode == 1, result
        assert any(re.match(r"policytest run\.+Failed$", line) for line in result.lines), result
        assert "- exit code: 1" in result.lines, result  # a failed case, not a crash (3)
        assert "FAIL a 4-CPU pod fits only the big node" in result.output, result
        assert "Traceback" not in result.output, result

    def test_run_hook_runs_the_fixture_suite(self, user_repo: UserRepo) -> None:
        result = user_repo.pre_commit(
            "run",
            "policytest-run",
            "--color=never",
            "--verbose",
            "--files",
            "fixtures/binpack.policytest.yaml",
        )
        assert result.returncode == 0, result
        assert any(re.match(r"policytest run\.+Passed$", line) for line in result.lines)


# --- the README's snippet, as written, in a fresh repository ----------------------------

GITHUB = "https://github.com/policytest/policytest"


@pytest.fixture
def readme_repo(user_repo: UserRepo, tmp_path: Path) -> UserRepo:
    """A fresh repository that follows the README: its snippet, with the GitHub address
    replaced by the local copy of this checkout (the tests do not reach GitHub), where
    ``main`` names the commit under test."""
    _run(["git", "update-ref", "refs/heads/main", "HEAD"], user_repo.source, user_repo.env)
    snippet = readme_opening_files()[".pre-commit-config.yaml"]
    assert f"- repo: {GITHUB}\n" in snippet
    (tmp_path / ".pre-commit-config.yaml").write_text(
        snippet.replace(GITHUB, str(user_repo.source)), encoding="utf-8"
    )
    repo = UserRepo(tmp_path, user_repo.source, user_repo.env)
    repo.git("init", "--quiet")
    return repo


class TestReadmeSnippet:
    def test_autoupdate_pins_a_commit_and_the_readme_files_pass(
        self, readme_repo: UserRepo
    ) -> None:
        updated = readme_repo.pre_commit("autoupdate")
        assert updated.returncode == 0, updated
        config = (readme_repo.path / ".pre-commit-config.yaml").read_text()
        revision = _run(["git", "rev-parse", "HEAD"], readme_repo.source, readme_repo.env)
        assert f"rev: {revision.output.strip()}" in config, config
        for name, text in readme_opening_files().items():  # its config and fixture
            (readme_repo.path / name).parent.mkdir(parents=True, exist_ok=True)
            (readme_repo.path / name).write_text(text, encoding="utf-8")
        (readme_repo.path / ".pre-commit-config.yaml").write_text(config)
        readme_repo.git("add", ".")
        result = readme_repo.pre_commit("run", "--all-files", "--color=never")
        assert result.returncode == 0, result
        assert any(re.match(r"policytest validate\.+Passed$", line) for line in result.lines)
        assert any(re.match(r"policytest run\.+Passed$", line) for line in result.lines)

    def test_run_hook_without_fixtures_fails_and_says_how_to_set_args(
        self, readme_repo: UserRepo
    ) -> None:
        (readme_repo.path / "values.yaml").write_text("replicaCount: 2\n")
        readme_repo.git("add", ".")
        result = readme_repo.pre_commit("run", "policytest-run", "--all-files", "--color=never")
        assert result.returncode == 1, result
        assert "- exit code: 1" in result.lines, result  # nothing to run, not a usage error
        assert "there is no fixtures/ directory here" in result.output
        assert "`args: [DIR]`" in result.output

    def test_args_name_other_fixture_folders(self, readme_repo: UserRepo) -> None:
        config = readme_repo.path / ".pre-commit-config.yaml"
        text = config.read_text()
        commented = re.search(r"\n(\s+)# (args: \[([^\]]+)\])", text)
        assert commented is not None, text
        config.write_text(text.replace(commented.group(0), f"\n{commented[1]}{commented[2]}"))
        folder = readme_repo.path / commented.group(3)
        folder.mkdir(parents=True)
        wrong = PASSING_FIXTURE.replace("unschedulable: [node-small]", "unschedulable: []")
        (folder / "binpack.policytest.yaml").write_text(wrong)
        readme_repo.git("add", ".")
        result = readme_repo.pre_commit("run", "policytest-run", "--all-files", "--color=never")
        assert result.returncode == 1, result
        assert "FAIL a 4-CPU pod fits only the big node" in result.output, result
