"""``policytest run`` and ``explain`` through the real entry point, on the bundled fixtures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DATA, VOLCANO_CONF, RunLine, write_files

ROOT = Path(__file__).parent.parent.parent
EXPLAINED = [
    "volcano-three-nodes-cpu-weighted",
    "volcano-three-nodes-memory-weighted",
    "volcano-gpu-two-nodes",
    "kube-requested-to-capacity-ratio",
    "volcano-gpu-sequence-binpack-weight-10",
    "snapshot-kube-most-allocated",
    "snapshot-volcano-binpack",
    "volcano-gpu-rsf-most-allocated",
]


def test_bundled_fixtures_pass(run_line: RunLine, bundled_repo: Path) -> None:
    result = run_line(["run"])
    assert result.exit_code == 0, result
    assert result.stdout.rstrip().endswith(
        "Cases: 36 passed, 0 failed; judged as kube-scheduler 1.36, Volcano 1.15; "
        "config findings: 5 warnings, 1 info"
    )


def test_json_output(run_line: RunLine, bundled_repo: Path) -> None:
    result = run_line(["run", "--format", "json", "fixtures/volcano-gpu-two-nodes.policytest.yaml"])
    data = json.loads(result.stdout)
    assert data["summary"] == {"passed": 1, "failed": 0, "errors": 0, "updated": 0}
    (case,) = data["results"]
    assert case["ranking"] == [["node-2"], ["node-1"]]
    assert {n["name"]: n["total"] for n in case["nodes"]} == {"node-1": 437.5, "node-2": 468.75}


def break_fixture(bundled_repo: Path, name: str, old: str, new: str) -> Path:
    path = bundled_repo / "fixtures" / f"{name}.policytest.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return path


@pytest.mark.parametrize(
    ("name", "old", "new", "status", "message"),
    [
        pytest.param(
            "volcano-three-nodes-cpu-weighted",
            "ranking: [node-a, node-c, node-b]",
            "ranking: [node-c, node-a, node-b]",
            "FAIL",
            "ranking: expected [node-c, node-a, node-b], got [node-a, node-c, node-b]",
            id="wrong-ranking",
        ),
        pytest.param(
            "volcano-gpu-two-nodes",
            "node-2: 468.75}",
            "node-2: 468.7}",
            "FAIL",
            "scores: node-2 expected 468.7, got 468.75",
            id="wrong-score",
        ),
        pytest.param(
            "volcano-gpu-sequence-binpack-weight-10",
            "placements: {gpu-1: 2, gpu-2: 2}",
            "placements: {gpu-1: 4}",
            "FAIL",
            "placements: expected {gpu-1: 4}, got {gpu-1: 2, gpu-2: 2}",
            id="wrong-placement",
        ),
        pytest.param(
            "volcano-gpu-two-nodes",
            "configs/volcano-binpack-gpu.yaml",
            "configs/missing.yaml",
            "ERROR",
            "PT003 config `configs/missing.yaml` does not exist",
            id="missing-config",
        ),
        pytest.param(
            "kube-most-allocated",
            "profile: bin-packing-scheduler",
            "profile: no-such-profile",
            "ERROR",
            "no profile with schedulerName `no-such-profile`",
            id="unknown-profile",
        ),
    ],
)
def test_broken_copies_fail_readably(
    run_line: RunLine, bundled_repo: Path, name: str, old: str, new: str, status: str, message: str
) -> None:
    path = break_fixture(bundled_repo, name, old, new)
    result = run_line(["run", path.relative_to(bundled_repo)])
    assert result.exit_code == 1, result
    assert f"  {status} " in result.stdout
    assert message in result.stdout, result


def test_invalid_config_makes_the_case_an_error(run_line: RunLine, bundled_repo: Path) -> None:
    config = bundled_repo / "fixtures" / "configs" / "kube-most-allocated.yaml"
    config.write_text(config.read_text().replace("type: MostAllocated", "type: MostAlocated"))
    result = run_line(["run", "fixtures/kube-most-allocated.policytest.yaml"])
    assert result.exit_code == 1, result
    assert "  ERROR one pod" in result.stdout
    assert "fixtures/configs/kube-most-allocated.yaml:" in result.stdout
    assert "MostAlocated" in result.stdout


def test_junit_and_github_formats(run_line: RunLine, bundled_repo: Path) -> None:
    path = break_fixture(bundled_repo, "volcano-gpu-two-nodes", "node-2: 468.75}", "node-2: 1}")
    junit = run_line(["run", "--format", "junit", path])
    assert junit.exit_code == 1 and '<failure message="scores: node-2 expected 1' in junit.stdout
    github = run_line(["run", "--format", "github", path])
    assert github.stdout.startswith(f"::error file={path},line=")


def test_update_through_the_cli(run_line: RunLine, bundled_repo: Path) -> None:
    path = break_fixture(
        bundled_repo,
        "volcano-gpu-two-nodes",
        "ranking: [node-2, node-1]",
        "ranking: [node-1, node-2]  # keep me",
    )
    result = run_line(["run", "--update", path])
    assert result.exit_code == 0, result
    assert result.stderr == f"policytest: updated {path}\n"  # as pytest --policytest-update says
    assert "ranking: [node-2, node-1]  # keep me" in path.read_text()


def test_a_sequences_placements_are_in_one_order_in_its_message_and_under_it(
    run_line: RunLine, tmp_path: Path
) -> None:
    """The cluster's node order in both (the message sorted them by name, two lines
    above a placements line in the cluster's order)."""
    write_files(
        tmp_path,
        {
            "volcano-scheduler.conf": VOLCANO_CONF,
            "f.policytest.yaml": (
                "apiVersion: policytest/v1\nkind: PolicyTest\nmetadata: {name: f}\n"
                "scheduler: {config: volcano-scheduler.conf}\ncluster:\n  nodes:\n"
                '  - {name: zeta, allocatable: {cpu: "4", memory: 32Gi, pods: "9"},'
                ' used: {cpu: "1"}}\n'
                '  - {name: alpha, allocatable: {cpu: "8", memory: 32Gi, pods: "9"}}\n'
                "cases:\n- name: ten\n  ties: allow\n"
                '  pods: [{requests: {cpu: "1", memory: 1Gi}, count: 10}]\n'
                "  expect: {placements: {alpha: 1}}\n"
            ),
        },
    )
    out = run_line(["run", str(tmp_path / "f.policytest.yaml")]).stdout
    assert "placements: expected {alpha: 1}, got {zeta: 3, alpha: 7}\n" in out
    assert "placements: {zeta: 3, alpha: 7}, pending: 0\n" in out


def test_missing_path_is_a_usage_error(run_line: RunLine, bundled_repo: Path) -> None:
    assert run_line(["run", "nope/"]).exit_code == 2


@pytest.mark.parametrize("name", EXPLAINED)
def test_explain_golden_text(run_line: RunLine, bundled_repo: Path, name: str) -> None:
    result = run_line(["explain", f"fixtures/{name}.policytest.yaml"])
    assert result.exit_code == 0, result
    golden = DATA / "explain" / f"{name}.txt"
    if os.environ.get("POLICYTEST_REGENERATE"):
        golden.write_text(result.stdout)
    assert result.stdout == golden.read_text(), (
        f"explain output changed; if intended, rerun with POLICYTEST_REGENERATE=1 and review "
        f"the diff of {golden.relative_to(ROOT)}"
    )


def test_explain_one_case_and_unknown_case(run_line: RunLine, bundled_repo: Path) -> None:
    path = "fixtures/kube-most-allocated.policytest.yaml"
    one = run_line(["explain", path, "--case", "one pod"])
    assert one.exit_code == 0 and "six pods" not in one.stdout
    assert run_line(["explain", path, "--case", "nope"]).exit_code == 2


@pytest.mark.parametrize("report", ["text", "html"])
def test_explain_exits_0_once_it_wrote_its_report_unless_asked(
    run_line: RunLine, bundled_repo: Path, report: str
) -> None:
    """A report command: ``explain --format html > report.html`` on a failing case wrote
    its report and exits 0; ``--fail-on failure`` makes a failing case exit 1."""
    path = bundled_repo / "fixtures" / "kube-most-allocated.policytest.yaml"
    path.write_text(
        path.read_text().replace("[node-1, node-2, node-3]", "[node-3, node-2, node-1]")
    )
    argv = ["explain", path, "--case", "one pod", "--format", report]
    assert run_line(["run", path]).exit_code == 1
    explained = run_line(argv)
    assert explained.exit_code == 0, explained
    assert "node-3" in explained.stdout
    assert run_line([*argv, "--fail-on", "failure"]).exit_code == 1


@pytest.mark.parametrize(
    ("name", "plugin"),
    [
        ("kube-most-allocated-deployment", "PodTopologySpread"),
        ("volcano-binpack-deployment", "nodeorder.podtopologyspread"),
    ],
)
def test_explain_says_why_as_the_first_pod_was_scored(
    run_line: RunLine, bundled_repo: Path, name: str, plugin: str
) -> None:
    """The spreading notes of a sequence's first pod count the pods bound before it
    (none), not those the sequence bound afterwards (explain reads the notes at the end)."""
    case = "twelve replicas of a Deployment spread over every node"
    result = run_line(["explain", f"fixtures/{name}.policytest.yaml", "--case", case])
    notes = [line for line in result.stdout.splitlines() if f" / {plugin} " in line]
    assert len(notes) == 5, result.stdout
    assert all("maxSkew 3: 0 matching pods on this node" in line for line in notes)


def test_progress_line_on_a_terminal_for_long_runs() -> None:
    import io

    from policytest.commands.run import progress_line
    from tests.shells.test_progress import Clock, FakeTerminal

    stream = FakeTerminal()
    line, show, placed = progress_line(stream)
    assert show is not None and placed is not None
    clock = Clock()
    line.clock = clock
    line.started = clock()
    show(1, 25, "f1.policytest.yaml")
    assert stream.getvalue() == ""  # quick runs get no progress line
    clock.now = 3.0
    show(2, 25, "f2.policytest.yaml")
    assert stream.getvalue().startswith("\rrunning fixtures [")
    assert "2/25 files" in stream.getvalue()
    clock.now = 4.0
    placed("big.policytest.yaml", 5000)
    assert stream.getvalue().endswith("2/25 files; big.policytest.yaml: 5,000 pods placed")
    assert progress_line(io.StringIO())[1:] == (None, None)  # not a terminal: no callbacks
    line.close()
    assert stream.getvalue().endswith("\r")  # cleared, so the report starts on a clean line


def test_a_refused_config_is_listed_once_not_per_case(bundled_repo: Path) -> None:
    """issue 28: one typo in a config kube-scheduler refuses was printed under each of
    the eight cases (three fixture files) that use the config; each case now points at
    the config's lines, which list the findings once per run (the real entry point)."""
    config = bundled_repo / "fixtures" / "configs" / "kube-most-allocated.yaml"
    config.write_text(config.read_text().replace("type: MostAllocated", "type: MostAlocated"))
    done = subprocess.run(
        [sys.executable, "-m", "policytest", "run", "fixtures"],
        capture_output=True,
        text=True,
        cwd=bundled_repo,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    pointer = (
        "kube-scheduler refuses this config and does not start: its findings are listed "
        "once, under `config fixtures/configs/kube-most-allocated.yaml`"
    )
    assert done.stdout.count(pointer) == 8, done.stdout
    assert done.stdout.count("  ERROR ") == 8, done.stdout
    finding_lines = [line for line in done.stdout.splitlines() if "MostAlocated" in line]
    assert len(finding_lines) == 1, done.stdout
    assert "fixtures/configs/kube-most-allocated.yaml:" in finding_lines[0]
    listed = "  config fixtures/configs/kube-most-allocated.yaml: 1 error"
    assert done.stdout.count(f"{listed}\n") == 1, done.stdout
    assert done.stdout.count(f"{listed} (listed above)") == 2, done.stdout
