"""The pytest plugin reads the project settings file (pytester projects)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

PROJECT = Path(__file__).parent.parent / "data" / "realrepos" / "settings-project"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A scheduler-plugins repository: its fixture passes only with its settings."""
    shutil.copytree(PROJECT, pytester.path, dirs_exist_ok=True)
    (pytester.path / ".git").mkdir()
    return pytester


def test_settings_file_found_from_the_invocation_directory(project: pytest.Pytester) -> None:
    result = project.runpytest("-v")
    result.stdout.fnmatch_lines(["*gang-packing.policytest.yaml::the busy node wins PASS*"])
    result.assert_outcomes(passed=2)  # the case, and the config it runs with


def test_the_settings_file_is_not_collected_as_a_fixture(project: pytest.Pytester) -> None:
    result = project.runpytest("--collect-only", "-q")
    assert ".policytest.yaml::" not in result.stdout.str().replace(
        "gang-packing.policytest.yaml::", ""
    )


def test_without_the_settings_the_config_is_refused(project: pytest.Pytester) -> None:
    (project.path / ".policytest.yaml").unlink()
    result = project.runpytest()
    result.assert_outcomes(failed=2)  # the case errors as the scheduler refuses its config
    assert "KS020" in result.stdout.str()


def test_policytest_settings_option_names_another_file(project: pytest.Pytester) -> None:
    (project.path / ".policytest.yaml").rename(project.path / "ci.yaml")
    result = project.runpytest("--policytest-settings", "ci.yaml")
    result.assert_outcomes(passed=2)


def test_policytest_settings_ini_option(project: pytest.Pytester) -> None:
    (project.path / ".policytest.yaml").rename(project.path / "scheduler-settings.yaml")
    project.makeini("[pytest]\npolicytest_settings = scheduler-settings.yaml\n")
    result = project.runpytest()
    result.assert_outcomes(passed=2)


def test_malformed_settings_is_a_usage_error(project: pytest.Pytester) -> None:
    (project.path / ".policytest.yaml").write_text("kubeScheduler:\n  distribution: kai\n")
    result = project.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*policytest: settings file *.policytest.yaml:2: key `kubeScheduler.distribution`*"]
    )


def test_the_policytest_fixture_uses_the_settings(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_api="""
        def test_run(policytest):
            (result,) = policytest.run("fixtures/gang-packing.policytest.yaml")
            assert result.status == "passed", result.message
        """
    )
    result = project.runpytest("test_api.py")
    result.assert_outcomes(passed=1)


def test_the_settings_file_sets_severities_in_the_plugin(pytester: pytest.Pytester) -> None:
    """The config item fails on an error; a project that lowers the rule passes it."""
    (pytester.path / ".git").mkdir()
    (pytester.path / "off.policytest.yaml").write_text(
        "apiVersion: policytest/v1\nkind: PolicyTest\nmetadata: {name: weight-zero}\n"
        "scheduler:\n  volcano:\n    actions: enqueue, allocate\n    tiers:\n"
        "    - plugins:\n      - {name: binpack, arguments: {binpack.weight: 0}}\n"
        'cluster:\n  nodes:\n  - {name: a, allocatable: {cpu: "8", pods: "110"}}\n'
        "cases:\n- name: one pod\n  pod: {requests: {cpu: '1'}}\n  expect: {top: a}\n"
    )
    failed = pytester.runpytest()
    failed.assert_outcomes(failed=1, passed=1)
    failed.stdout.fnmatch_lines(["*VB003 error*"])
    (pytester.path / ".policytest.yaml").write_text("severity: {VB003: warning}\n")
    pytester.runpytest().assert_outcomes(passed=2)


def test_the_policytest_fixture_judges_with_the_session_settings(
    project: pytest.Pytester,
) -> None:
    """issue 28: `policytest.scheduler(path)` used the default releases and no builds, so
    a scheduler-plugins config was refused; a refused config fails without a traceback."""
    configs = sorted(p.relative_to(project.path) for p in project.path.rglob("*.yaml"))
    config = next(str(p) for p in configs if "policytest" not in p.name)
    project.makepyfile(
        test_api=f"""
        def test_settings_apply(policytest):
            assert policytest.scheduler({config!r}) is not None

        def test_a_broken_node_fails_cleanly(policytest):
            scheduler = policytest.scheduler({config!r})
            policytest.rank(scheduler, [{{"name": "a", "allocatable": {{"cpu": "8x"}}}}], {{}})
        """
    )
    result = project.runpytest("test_api.py")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*policytest: *8x*"])
    (project.path / ".policytest.yaml").unlink()
    refused = project.runpytest("test_api.py")
    refused.assert_outcomes(failed=2)
    refused.stdout.fnmatch_lines([f"*{config}:*: KS020 error: *"])
    for output in (result.stdout.str(), refused.stdout.str()):
        assert "Traceback" not in output and "policytest/harness" not in output, output
