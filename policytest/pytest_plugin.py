"""pytest plugin: every case of every ``*.policytest.yaml`` file becomes a test item.

Items are named ``file::case``; a failure prints the expected-versus-actual table, not
a traceback of policytest's internals. ``--policytest-update`` rewrites failing
expectations in place. The ``policytest`` fixture gives Python tests the same API.
This module imports nothing heavy until a fixture file is actually collected.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cached_property, partial
from pathlib import Path

import pytest

from policytest.core.errors import PolicytestError
from policytest.core.gctuning import young_collections_only
from policytest.core.options import RuleFilter
from policytest.core.records import replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from policytest.core.options import CheckOptions
    from policytest.harness.runner import CaseResult, Placement
    from policytest.read.project_settings import ProjectSettings

DEFAULT_PATTERNS = ["*.policytest.yaml", "*.policytest.yml"]
SETTINGS_NAMES = (".policytest.yaml", ".policytest.yml")
"""The project settings file (see :mod:`policytest.project_settings`), never a fixture."""

_OPTIONS: pytest.StashKey[CheckOptions] = pytest.StashKey()
SETTINGS: pytest.StashKey[ProjectSettings] = pytest.StashKey()
"""The project settings of the session (``config.stash[SETTINGS]``, once configured):
its ``select``/``ignore`` are the rules filter for the plugin's findings."""


def check_options(config: pytest.Config) -> CheckOptions:
    """The check options of this session: the project settings file's releases and
    scheduler builds (read once; a bad file is a usage error naming file, line, key)."""
    if _OPTIONS not in config.stash:
        from policytest.read.project_settings import SettingsError, options_from, project_settings

        explicit = config.getoption("policytest_settings") or None
        ini = config.getini("policytest_settings")
        if explicit is None and ini:
            explicit = str(config.rootpath / ini)
        from policytest.commands.common import checked_versions
        from policytest.core.limits import Invocation

        try:
            settings = checked_versions(
                project_settings(explicit, str(config.invocation_params.dir))
            )
        except SettingsError as error:
            raise pytest.UsageError(f"policytest: {error}") from None
        config.stash[SETTINGS] = settings
        options = options_from(settings)
        # one budget for the session (per process under pytest-xdist): every fixture charges it
        settings = config.getoption("policytest_limit")
        limits = options.limits.overridden(settings).for_invocation(Invocation())
        config.stash[_OPTIONS] = replace(
            options, limits=limits, rules=_rules(config, options.rules)
        )
    return config.stash[_OPTIONS]


def _rules(config: pytest.Config, settings: RuleFilter) -> RuleFilter:
    """The rule filter of the session (the same as ``policytest --select/--ignore``):
    ``--policytest-select``/``--policytest-ignore``, else the ``policytest_select`` /
    ``policytest_ignore`` ini keys, else the settings file's ``select``/``ignore``."""
    from policytest.core.options import rule_ids

    def chosen(name: str, fallback: tuple[str, ...]) -> tuple[str, ...]:
        given = config.getoption(f"policytest_{name}")
        if given is not None:
            return rule_ids(given)
        ini = config.getini(f"policytest_{name}")
        return rule_ids(",".join(ini)) if ini else fallback

    return replace(
        settings,
        select=chosen("select", settings.select),
        ignore=chosen("ignore", settings.ignore),
    )


def _limit_setting(text: str) -> tuple[str, int]:
    from policytest.commands.common import limit_setting

    return limit_setting(text)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("policytest", "scheduler config golden tests")
    group.addoption(
        "--policytest-update",
        action="store_true",
        default=False,
        help="rewrite the expectations of failing fixture cases from actual results",
    )
    group.addoption(
        "--policytest-settings",
        default=None,
        metavar="FILE",
        help="the policytest project settings file (default: the policytest_settings ini "
        "option, else the nearest .policytest.yaml in the invocation directory or above)",
    )
    group.addoption(
        "--policytest-root",
        default=None,
        metavar="DIR",
        help="configs must live inside DIR (default: the git checkout's top directory, "
        "else the directory pytest was invoked from if the fixture is below it, else the "
        "fixture's own directory)",
    )
    group.addoption(
        "--policytest-limit",
        type=_limit_setting,
        action="append",
        default=[],
        metavar="NAME=N",
        help="change an input limit, as policytest's --limit (repeatable; the total-* "
        "limits bound the whole session, per process under pytest-xdist)",
    )
    group.addoption(
        "--policytest-select",
        default=None,
        metavar="RULES",
        help="only these rules or prefixes count, comma-separated (ini: policytest_select)",
    )
    group.addoption(
        "--policytest-ignore",
        default=None,
        metavar="RULES",
        help="these rules or prefixes do not count, comma-separated (ini: policytest_ignore)",
    )
    parser.addini(
        "policytest_select",
        type="args",
        default=[],
        help="rules or prefixes whose findings count (default: all), as --select",
    )
    parser.addini(
        "policytest_ignore",
        type="args",
        default=[],
        help="rules or prefixes whose findings do not count, as --ignore",
    )
    parser.addini(
        "policytest_settings",
        type="string",
        default="",
        help="the policytest project settings file, relative to the rootdir "
        "(default: the nearest .policytest.yaml)",
    )
    parser.addini(
        "policytest_files",
        type="args",
        default=DEFAULT_PATTERNS,
        help="glob patterns of fixture files to collect (default: *.policytest.yaml)",
    )


_UPDATED = pytest.StashKey[list[str]]()
"""The fixture files ``--policytest-update`` rewrote in this process."""


def pytest_assertrepr_compare(op: str, left: object, right: object) -> list[str] | None:
    """A failing ``==`` between two records of policytest's (a ``Finding``, a
    ``CheckOptions``) says which fields differ, as pytest says it for two dataclasses
    (pytest knows those by the code ``dataclasses`` generates; records are built without
    it, see :mod:`policytest.core.records`)."""
    if op != "==" or type(left) is not type(right) or not hasattr(left, "__record_fields__"):
        return None
    from policytest.core.records import fields

    compared = [item.name for item in fields(left) if item.compare]
    differing = [name for name in compared if getattr(left, name) != getattr(right, name)]
    if not differing:
        return None
    kind = type(left).__name__
    lines = [f"{kind}(...) == {kind}(...)", ""]
    if len(compared) > len(differing):
        lines.append(f"Omitting {len(compared) - len(differing)} identical items")
    lines += ["Differing attributes:", repr(differing), ""]
    lines += [f"{name}: {getattr(left, name)!r} != {getattr(right, name)!r}" for name in differing]
    return lines


def pytest_configure(config: pytest.Config) -> None:
    """Read the project settings file now: a malformed one is a usage error (exit 4)."""
    config.stash[_UPDATED] = []
    check_options(config)


def _updated(config: pytest.Config) -> list[str]:
    return config.stash.setdefault(_UPDATED, [])


def pytest_sessionfinish(session: pytest.Session) -> None:
    output = getattr(session.config, "workeroutput", None)  # a pytest-xdist worker
    if output is not None:
        output["policytest_updated"] = list(_updated(session.config))


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """pytest-xdist: a worker finished; keep the files it rewrote, to list them."""
    updated = getattr(node, "workeroutput", {}).get("policytest_updated", [])
    _updated(node.config).extend(updated)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for path in sorted(set(_updated(terminalreporter.config))):
        terminalreporter.write_line(f"policytest: updated {path}")


def fixture_root(config: pytest.Config, path: str) -> Any:
    """``--policytest-root``, else the fixture's git checkout, else the directory pytest
    was invoked from."""
    from policytest.core.options import CheckOptions
    from policytest.harness.load import root_for

    given = config.getoption("policytest_root")
    return root_for(path, CheckOptions(root=given), str(config.invocation_params.dir))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> FixtureFile | None:
    patterns = parent.config.getini("policytest_files")
    if file_path.name in SETTINGS_NAMES:
        return None  # the project settings file, not a fixture
    if any(fnmatch.fnmatch(file_path.name, pattern) for pattern in patterns):
        from policytest.reporters.quoting import text

        collected: FixtureFile = FixtureFile.from_parent(parent, path=file_path)
        # pytest -v prints the node id at the start of a line: a file name must not
        # start a workflow command there (nor break the line); nor may a name that is not
        # UTF-8 (a lone surrogate) reach pytest-xdist, which cannot send it to the
        # controller (an INTERNALERROR that lost every other result)
        shown = text(collected.nodeid)
        if shown != collected.nodeid:
            collected = FixtureFile.from_parent(
                parent, path=file_path, nodeid=shown, name=text(file_path.name)
            )
        return collected
    return None


class FixtureFile(pytest.File):
    """A fixture file: loads and checks it, then yields one item per case; each item
    runs its own case, so ``pytest -n`` spreads the scoring over the workers.

    With ``--policytest-update`` the failing expectations are rewritten here, at
    collection, and the file is run again: under pytest-xdist every worker tries, and
    a lock on the fixture's directory lets the first write it (atomically) and the
    others find nothing left to change.
    """

    def collect(self) -> Iterator[CaseItem | ConfigItem]:
        from policytest.harness.suite import PlannedCase, PlannedConfig, plan_file, run_file

        options = check_options(self.config)
        root = fixture_root(self.config, str(self.path))
        with young_collections_only():
            planned = plan_file(str(self.path), options, root)
        configs: dict[str, PlannedConfig] = {}
        for case in planned:
            if case.config is not None:
                configs.setdefault(case.config.name, case.config)
        if self.config.getoption("policytest_update"):
            results = [case.run() for case in planned]
            failing = [r for r in results if r.status == "failed"]
            if failing:
                from policytest.harness.golden import UnsafeUpdate, rewrite_file

                try:
                    if rewrite_file(str(self.path), failing, root):
                        where = self.config.invocation_params.dir
                        _updated(self.config).append(os.path.relpath(self.path, where))
                except UnsafeUpdate as refusal:
                    from policytest.reporters.quoting import text

                    raise self.CollectError(text(refusal)) from None
                results = run_file(str(self.path), options, root)
            planned = [PlannedCase(r.case, r.line, partial(_known, r)) for r in results]
        from policytest.reporters.quoting import text

        for case in planned:  # the name is quoted: pytest prints it in its reports
            yield CaseItem.from_parent(self, name=text(case.name), line=case.line, run=case.run)
        for config in configs.values():
            yield ConfigItem.from_parent(
                self, name=f"config {text(config.name)}", line=config.line, check=config.check
            )


def _shown_path(path: Path) -> Path:
    """``path`` with its file name as the node id shows it (escaped), for the location
    pytest reports (and pytest-xdist sends)."""
    from policytest.reporters.quoting import text

    return path.with_name(text(path.name))


def _known(result: CaseResult) -> CaseResult:
    return result


class CaseFailure(PolicytestError):
    """Raised by a failing case; rendered by :meth:`CaseItem.repr_failure`."""


class CaseItem(pytest.Item):
    """One fixture case."""

    def __init__(self, *, line: int, run: Callable[[], CaseResult], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.line = line
        self.run = run

    @cached_property
    def result(self) -> CaseResult:
        """The case's outcome, computed when the item runs (in whichever worker)."""
        with young_collections_only():
            result = self.run()
        # drop the closure: once every case of a file has run, its YAML tree is freed
        # (a big fixture would otherwise stay alive for the rest of the session)
        self.run = partial(_known, result)
        return result

    def runtest(self) -> None:
        if self.result.release:  # in --junitxml and to other plugins
            self.user_properties.append(("policytest_release", self.result.release))
        if self.result.status != "passed":
            raise CaseFailure()

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | Any:
        if not isinstance(excinfo.value, CaseFailure):
            return super().repr_failure(excinfo)
        from policytest.harness.suite import refused_config
        from policytest.reporters.quoting import text
        from policytest.reporters.run.text import describe_failure

        result = self.result
        under = f", judged as {result.release}" if result.release else ""
        where = f"{text(result.case)} ({result.status}{under}) at {text(result.file)}:{result.line}"
        refused = refused_config(result)
        if refused:  # the config item lists the findings
            return f"{where}\n{refused}: its findings are in this file's `config` item"
        lines = [where, *describe_failure(result)]
        # an error's message already names its findings; a config's own findings are
        # the config item's (one per config, beside the cases)
        if result.corrections:
            lines.append("as the scheduler loads the config:")
            lines += [f"  {text(correction)}" for correction in result.corrections]
        if self.result.status == "failed":  # after an update, the lines above say why
            updated = self.config.getoption("policytest_update")
            lines.append(
                "(--policytest-update could not make this case pass)"
                if updated
                else "(run with --policytest-update to accept the actual results)"
            )
        # the file as pytest names it (relative to its rootdir): a report shows no
        # absolute path of the checkout
        return "\n".join(lines).rstrip().replace(str(self.path), self.nodeid.split("::")[0])

    def reportinfo(self) -> tuple[Path, int, str]:
        return _shown_path(self.path), self.line - 1, f"policytest: {self.name}"


class ConfigFindings(PolicytestError):
    """Raised by a config item whose config has error findings."""


class ConfigItem(pytest.Item):
    """The findings of the scheduler config a fixture file's cases run with: one item
    per config, failing on error findings (suppressions applied), as ``policytest run``
    fails on them. The cases are scored with the config as the scheduler loads it."""

    def __init__(self, *, line: int, check: Callable[[], tuple[Any, ...]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.line = line
        self.check = check

    def runtest(self) -> None:
        from policytest.core.findings import Severity

        with young_collections_only():
            findings = self.check()
        if findings is None:
            pytest.skip("the config was not loaded (its fixture's cases say why)")
        if any(f.severity is Severity.ERROR for f in findings):
            raise ConfigFindings(findings)

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | Any:
        if not isinstance(excinfo.value, ConfigFindings):
            return super().repr_failure(excinfo)
        from policytest.reporters.validate.text import format_finding

        (findings,) = excinfo.value.args
        return "\n".join(format_finding(f, color=False) for f in findings)

    def reportinfo(self) -> tuple[Path, int, str]:
        return _shown_path(self.path), self.line - 1, f"policytest: {self.name}"


class PolicytestAPI:
    """The ``policytest`` fixture: load fixtures, or build clusters and rank pods in Python
    (judged with the project settings file's releases and scheduler builds)."""

    def __init__(self, options: CheckOptions | None = None) -> None:
        self.options = options

    def run(self, path: str | Path) -> list[CaseResult]:
        """Run every case of a fixture file (with the session's settings)."""
        from policytest.core.options import CheckOptions
        from policytest.harness.load import root_for
        from policytest.harness.suite import run_file

        options = self.options or CheckOptions()
        return run_file(str(path), options, root_for(str(path), options))

    def scheduler(self, config: str | Path, profile: str | None = None) -> Any:
        """An executable scheduler from a config file (raw or inside a ConfigMap), judged
        with the session's settings (releases, builds, select/ignore, severities). A
        config with error findings fails the test with them, as a config item does."""
        from policytest.harness.load import scheduler_from_file

        with _failing_the_test():
            return scheduler_from_file(str(config), profile, self.options)

    def rank(
        self, scheduler: Any, nodes: Sequence[Mapping[str, Any]], pod: Mapping[str, Any]
    ) -> list[list[str]]:
        """Rank ``nodes`` (fixture node form) for ``pod``: best first, ties grouped."""
        from policytest.harness.runner import rank
        from policytest.scoring.specs import node_from_dict, pod_from_dict

        with _failing_the_test():
            state = scheduler.cluster(
                [node_from_dict(n, default_requests_from_limits=True) for n in nodes]
            )
            scores = state.score(pod_from_dict(pod, default_requests_from_limits=True))
        return [list(group) for group in rank(scores)]

    def place(
        self, scheduler: Any, nodes: Sequence[Mapping[str, Any]], pods: Sequence[Mapping[str, Any]]
    ) -> Placement:
        """Place ``pods`` (fixture pod form, ``count`` allowed) one by one, as ``run``
        places a case's ``pods`` (kube-scheduler takes them by priority, then as listed):
        ``.placements`` (pods per node), ``.pending``, ``.nodes_used`` and ``.steps``
        (where each pod went, and the nodes it tied with)."""
        from policytest.harness.queue import pod_queue
        from policytest.harness.runner import place_sequence
        from policytest.scoring.fast import build_nodes
        from policytest.scoring.specs import pods_from_dict

        with _failing_the_test():
            built = build_nodes((str(spec.get("name", "")), spec) for spec in nodes)
            incoming = [
                one
                for index, entry in enumerate(pods)
                for one in pods_from_dict(
                    entry, default_requests_from_limits=True, where=f"pods[{index}]"
                )
            ]
            queue = pod_queue(pods, priority_sort=scheduler.priority_sort, where="pods")
        placed, _ = place_sequence(scheduler.cluster(built), built, incoming, order=queue.order)
        return placed


@contextmanager
def _failing_the_test() -> Iterator[None]:
    """A config or node the scheduler would refuse fails the test with the findings, as a
    fixture item fails: no traceback through policytest's modules."""
    try:
        yield
    except PolicytestError as error:
        from policytest.reporters.validate.text import format_finding

        findings = getattr(error, "findings", ())
        lines = [format_finding(f, color=False) for f in findings] or [f"policytest: {error}"]
        pytest.fail("\n".join(lines), pytrace=False)


@pytest.fixture
def policytest(request: pytest.FixtureRequest) -> PolicytestAPI:
    """The policytest API for Python tests (see :class:`PolicytestAPI`)."""
    return PolicytestAPI(check_options(request.config))
