"""The pytest plugin, tested with pytester on small fixture projects."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# pytester's in-process runs drop the modules first imported inside them; imported here,
# the YAML node classes stay the same objects across runs (else a lone run of this file
# composes with one run's classes and checks with the next one's).

FIXTURES = Path(__file__).parent.parent.parent / "fixtures"
CONFIG = (FIXTURES / "configs" / "volcano-binpack-cpu-weighted.yaml").read_text()
FIXTURE = (FIXTURES / "volcano-three-nodes-cpu-weighted.policytest.yaml").read_text()
WRONG = FIXTURE.replace("ranking: [node-a, node-c, node-b]", "ranking: [node-b, node-a, node-c]")


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.mkdir("configs")
    (pytester.path / "configs" / "volcano-binpack-cpu-weighted.yaml").write_text(CONFIG)
    (pytester.path / ".git").mkdir()  # the repository root configs must stay inside
    return pytester


def test_each_case_is_an_item_named_file_and_case(project: pytest.Pytester) -> None:
    (project.path / "three.policytest.yaml").write_text(FIXTURE)
    result = project.runpytest("-v")
    result.stdout.fnmatch_lines(
        [
            "*three.policytest.yaml::a 1-CPU task prefers the node with the most CPU in use PASS*",
            "*three.policytest.yaml::config configs/volcano-binpack-cpu-weighted.yaml PASS*",
        ]
    )
    result.assert_outcomes(passed=2)  # the case, and the config it runs with


def test_failure_shows_expected_and_actual_without_a_traceback(project: pytest.Pytester) -> None:
    (project.path / "three.policytest.yaml").write_text(WRONG)
    result = project.runpytest()
    result.assert_outcomes(failed=1, passed=1)
    assert (
        "ranking: expected [node-b, node-a, node-c], got [node-a, node-c, node-b]"
        in result.stdout.str()
    )
    result.stdout.fnmatch_lines(
        [
            "*rank*node*total*binpack*",
            "*1*node-a*79.17*",
            "*run with --policytest-update to accept the actual results*",
        ]
    )
    assert "Traceback" not in result.stdout.str()
    assert "policytest/harness/runner.py" not in result.stdout.str()


def test_broken_config_reference_is_an_error_case(project: pytest.Pytester) -> None:
    broken = FIXTURE.replace("configs/volcano-binpack-cpu-weighted.yaml", "configs/missing.yaml")
    (project.path / "broken.policytest.yaml").write_text(broken)
    result = project.runpytest()
    result.assert_outcomes(failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*PT003*configs/missing.yaml*does not exist*"])


def test_update_rewrites_expectations_and_keeps_comments(project: pytest.Pytester) -> None:
    path = project.path / "three.policytest.yaml"
    path.write_text(WRONG)
    result = project.runpytest("--policytest-update")
    result.assert_outcomes(passed=2)
    assert path.read_text() == FIXTURE
    project.runpytest().assert_outcomes(passed=2)


def test_update_through_a_symlink_rewrites_its_target(project: pytest.Pytester) -> None:
    target = project.mkdir("real") / "three.policytest.yaml"
    target.write_text(WRONG)  # its config is found from the link, where pytest found it
    link = project.path / "three.policytest.yaml"
    link.symlink_to(target)
    project.runpytest("--policytest-update", link.name).assert_outcomes(passed=2)
    assert link.is_symlink()
    assert target.read_text() == FIXTURE


def test_update_through_a_symlink_out_of_the_repository_is_refused(
    project: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory
) -> None:
    target = tmp_path_factory.mktemp("elsewhere") / "three.policytest.yaml"
    target.write_text(WRONG)
    (project.path / "three.policytest.yaml").symlink_to(target)
    result = project.runpytest("--policytest-update")
    result.assert_outcomes(failed=1)  # the one path rule: the fixture is not even read
    result.stdout.fnmatch_lines(["*resolves outside the root*"])
    assert target.read_text() == WRONG


def test_file_pattern_is_configurable(project: pytest.Pytester) -> None:
    (project.path / "three.golden.yaml").write_text(FIXTURE)
    project.makeini("[pytest]\npolicytest_files = *.golden.yaml\n")
    project.runpytest().assert_outcomes(passed=2)


def test_runs_under_xdist(project: pytest.Pytester) -> None:
    for index in range(4):
        (project.path / f"f{index}.policytest.yaml").write_text(FIXTURE)
    (project.path / "wrong.policytest.yaml").write_text(WRONG)
    result = project.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=9, failed=1)


def test_a_file_name_that_is_not_utf8_keeps_every_result_under_xdist(
    project: pytest.Pytester,
) -> None:
    """A lone surrogate in a node's name or location cannot travel to the controller: it
    was an INTERNALERROR that lost every other result."""
    for index in range(2):
        (project.path / f"f{index}.policytest.yaml").write_text(FIXTURE)
    (project.path / os.fsdecode(b"bad-\xff.policytest.yaml")).write_text(WRONG)
    result = project.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider", "-rf")
    result.assert_outcomes(passed=5, failed=1)
    assert "INTERNALERROR" not in result.stdout.str()
    result.stdout.fnmatch_lines(["FAILED bad-\\xff.policytest.yaml::*"])


def test_update_under_xdist_rewrites_every_file_once(project: pytest.Pytester) -> None:
    paths = [project.path / f"wrong{index}.policytest.yaml" for index in range(6)]
    for path in paths:
        path.write_text(WRONG)
    log = project.path / "renames.log"
    project.makeconftest(
        f"""
        import os
        _replace = os.replace
        def _log(temporary, target):
            if target.endswith(".policytest.yaml"):
                with open({str(log)!r}, "a") as stream:
                    stream.write(temporary + "\\n")
            _replace(temporary, target)

        os.replace = _log
        """
    )
    result = project.runpytest_subprocess(
        "-n", "2", "-p", "no:cacheprovider", "--policytest-update"
    )
    result.assert_outcomes(passed=12)
    assert len(log.read_text().splitlines()) == len(paths)  # one write per file
    for path in paths:  # each holds one update's text, its comments kept
        assert path.read_text() == FIXTURE
    assert not [p.name for p in project.path.iterdir() if p.name.startswith(".policytest-")]
    project.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider").assert_outcomes(passed=12)


def test_policytest_fixture_ranks_places_and_runs_in_python(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_api="""
        import pytest

        NODES = [
            {"name": "a", "allocatable": {"cpu": "8", "memory": "16Gi", "pods": "10"},
             "used": {"cpu": "6"}},
            {"name": "b", "allocatable": {"cpu": "8", "memory": "16Gi", "pods": "10"}},
        ]

        @pytest.fixture
        def scheduler(policytest):
            return policytest.scheduler("configs/volcano-binpack-cpu-weighted.yaml")

        def test_rank(policytest, scheduler):
            assert policytest.rank(scheduler, NODES, {"requests": {"cpu": "1"}}) == [["a"], ["b"]]

        def test_place(policytest, scheduler):
            placed = policytest.place(scheduler, NODES, [{"requests": {"cpu": "1"}, "count": 12}])
            assert placed.placements == {"a": 2, "b": 8}
            assert (placed.pending, placed.nodes_used) == (2, 2)
            assert [step.node for step in placed.steps] == ["a"] * 2 + ["b"] * 8 + [None] * 2

        def test_run(policytest):
            (result,) = policytest.run("three.policytest.yaml")
            assert result.status == "passed"
        """
    )
    (project.path / "three.policytest.yaml").write_text(FIXTURE)
    project.runpytest("test_api.py").assert_outcomes(passed=3)


def test_a_snapshot_fixture_runs_as_items(pytester: pytest.Pytester) -> None:
    """A fixture whose cluster is a snapshot collects and runs like any other."""
    pytester.mkdir("fixtures")
    for sub in ("configs", "snapshots"):
        (pytester.path / "fixtures" / sub).mkdir()
    for path in (
        "configs/kube-most-allocated.yaml",
        "snapshots/cluster.json",
        "snapshot-kube-most-allocated.policytest.yaml",
    ):
        (pytester.path / "fixtures" / path).write_text((FIXTURES / path).read_text())
    (pytester.path / ".git").mkdir()
    result = pytester.runpytest("fixtures")
    result.assert_outcomes(passed=5)  # four cases and the config's item


# --- configs scored as loaded, suppressions, the root, updates listed -------------------

NEGATIVE_CONFIG = CONFIG.replace("binpack.cpu: 5", "binpack.cpu: -5")
AS_LOADED = (  # what Volcano does with binpack.cpu: -5, which it holds as 1
    FIXTURE.replace("ranking: [node-a, node-c, node-b]", "ranking: [node-c, node-a, node-b]")
    .replace("    scores: {node-a: 79.17, node-b: 41.67, node-c: 64.58}\n", "")
    .replace("    plugins: {node-a: {binpack: 79.17}}\n", "")
)


def test_config_findings_are_one_failing_item_beside_passing_cases(
    project: pytest.Pytester,
) -> None:
    """binpack.cpu: -5 is held as 1 by Volcano: the cases are scored so (and pass when
    they expect that), the config's error finding fails its own item, shown once."""
    (project.path / "configs" / "volcano-binpack-cpu-weighted.yaml").write_text(NEGATIVE_CONFIG)
    (project.path / "three.policytest.yaml").write_text(AS_LOADED)
    (project.path / "again.policytest.yaml").write_text(AS_LOADED)
    result = project.runpytest("-v")
    result.assert_outcomes(passed=2, failed=2)  # a case and a config item per file
    result.stdout.fnmatch_lines(
        [
            "*three.policytest.yaml::a 1-CPU task prefers the node with the most CPU in use PASS*",
            "*three.policytest.yaml::config configs/volcano-binpack-cpu-weighted.yaml FAIL*",
        ]
    )
    section = result.stdout.str().split("= FAILURES =")[1].split("short test summary")[0]
    assert section.count("VB002 error: `binpack.cpu: -5` is negative") == 2  # once per item


@pytest.mark.parametrize(
    ("args", "ini"),
    [
        (["--policytest-ignore", "VB002"], ""),
        (["--policytest-select", "KS"], ""),
        ([], "[pytest]\npolicytest_ignore = VB002\n"),
        ([], "[pytest]\npolicytest_ignore = VN VB\n"),
    ],
    ids=["option-ignore", "option-select", "ini-ignore", "ini-prefixes"],
)
def test_suppressions_reach_the_plugin(project: pytest.Pytester, args: list[str], ini: str) -> None:
    (project.path / "configs" / "volcano-binpack-cpu-weighted.yaml").write_text(NEGATIVE_CONFIG)
    (project.path / "three.policytest.yaml").write_text(AS_LOADED)
    if ini:
        project.makeini(ini)
    project.runpytest(*args).assert_outcomes(passed=2)


def test_a_suppression_comment_reaches_the_plugin(project: pytest.Pytester) -> None:
    config = NEGATIVE_CONFIG.replace(
        "binpack.cpu: -5", "binpack.cpu: -5  # policytest: ignore[VB002]"
    )
    (project.path / "configs" / "volcano-binpack-cpu-weighted.yaml").write_text(config)
    (project.path / "three.policytest.yaml").write_text(AS_LOADED)
    project.runpytest().assert_outcomes(passed=2)


def test_without_git_the_root_is_the_invocation_directory(pytester: pytest.Pytester) -> None:
    pytester.mkdir("configs")
    (pytester.path / "configs" / "volcano-binpack-cpu-weighted.yaml").write_text(CONFIG)
    tests = pytester.mkdir("tests")
    (tests / "three.policytest.yaml").write_text(
        FIXTURE.replace("configs/volcano", "../configs/volcano")
    )
    pytester.runpytest("tests").assert_outcomes(passed=2)  # no .git: the invocation dir
    result = pytester.runpytest("--rootdir", str(tests), str(tests), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)  # the invocation directory, not pytest's rootdir
    os_tests = str(tests)
    os.chdir(os_tests)  # pytester restores the working directory afterwards
    refused = pytester.runpytest(os_tests)
    refused.assert_outcomes(failed=1, skipped=1)
    out = refused.stdout.str()
    message = "is outside the root"
    report = out.split("short test summary info")[0]  # under CI=true the summary is whole
    assert report.count(message) == 1, out  # each error printed once
    assert "(the working directory, as no `.git` was found above the fixture)" in out
    assert "--policytest-root" in out
    fixed = pytester.runpytest(os_tests, f"--policytest-root={pytester.path}")
    fixed.assert_outcomes(passed=2)


def test_update_lists_each_file_it_rewrote(project: pytest.Pytester) -> None:
    (project.path / "wrong.policytest.yaml").write_text(WRONG)
    (project.path / "right.policytest.yaml").write_text(FIXTURE)
    result = project.runpytest("--policytest-update")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["policytest: updated wrong.policytest.yaml"])
    assert "updated right.policytest.yaml" not in result.stdout.str()


def test_update_under_xdist_lists_each_file_once(project: pytest.Pytester) -> None:
    for index in range(3):
        (project.path / f"wrong{index}.policytest.yaml").write_text(WRONG)
    result = project.runpytest_subprocess(
        "-n", "2", "-p", "no:cacheprovider", "--policytest-update"
    )
    result.assert_outcomes(passed=6)
    lines = [line for line in result.stdout.lines if line.startswith("policytest: updated ")]
    assert lines == [f"policytest: updated wrong{index}.policytest.yaml" for index in range(3)]


def test_the_settings_file_suppresses_in_the_plugin(project: pytest.Pytester) -> None:
    (project.path / "configs" / "volcano-binpack-cpu-weighted.yaml").write_text(NEGATIVE_CONFIG)
    (project.path / "three.policytest.yaml").write_text(AS_LOADED)
    (project.path / ".policytest.yaml").write_text("ignore: [VB002]\n")
    project.runpytest().assert_outcomes(passed=2)
    project.runpytest("--policytest-ignore", "KS").assert_outcomes(passed=1, failed=1)


def test_a_refused_config_is_explained_once_not_per_case(project: pytest.Pytester) -> None:
    """issue 28: one mistake in a config the scheduler refuses was repeated under every
    case; the cases now point at the config item, which lists the findings once."""
    refused = CONFIG.replace(
        'actions: "enqueue, allocate, backfill"', 'actions: "enqueue, alocate"'
    )
    assert refused != CONFIG
    (project.path / "configs" / "volcano-binpack-cpu-weighted.yaml").write_text(refused)
    (project.path / "three.policytest.yaml").write_text(FIXTURE)
    (project.path / "again.policytest.yaml").write_text(FIXTURE)
    result = project.runpytest()
    result.assert_outcomes(failed=4)  # two cases, and each file's config item
    # the failure reports only: under CI=true pytest repeats each whole message in the
    # short summary too
    output = result.stdout.str().split("short test summary info")[0]
    assert output.count("its findings are in this file's `config` item") == 2, output
    assert output.count("VC002 error: ") == 2, output  # once per config item, not per case


def test_unequal_findings_in_a_user_s_test_say_which_fields_differ(
    pytester: pytest.Pytester,
) -> None:
    """Records are not dataclasses to pytest, so the plugin makes the attribute diff."""
    pytester.makepyfile(
        """
        from policytest import Finding, Severity

        def test_findings():
            assert Finding("a.yaml", 3, 1, "VB003", Severity.ERROR, "off") == Finding(
                "a.yaml", 4, 1, "VB003", Severity.ERROR, "off"
            )

        def test_other_values_are_left_to_pytest():
            assert [1, 2] == [1, 3]
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*Finding(...) == Finding(...)*",
            "*Omitting 6 identical items*",
            "*Differing attributes:*",
            "*['line']*",
            "*line: 3 != 4*",
            "*At index 1 diff: 2 != 3*",
        ]
    )
