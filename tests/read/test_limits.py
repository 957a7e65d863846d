"""Every input limit: a clear error past it, configurable with ``--limit NAME=N``, and the
hostile inputs of issue 9 (alias bomb, 10,000-deep document, 1 GB stream on stdin, a
``count`` of a billion) rejected by a real process that stays under 200 MB.

Memory is measured, time is not: each hostile input runs in its own ``policytest``
process and ``os.wait4`` reports that process's peak resident size.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from policytest.core.limits import DEFAULT_LIMITS, Limits, NodeCounter, describe, limit_names
from policytest.core.options import CheckOptions
from policytest.harness.suite import run_file
from policytest.read import bigload
from policytest.read.goyaml import Budget, DecodeLimit, decode
from policytest.read.source import read_bytes
from tests.conftest import RunLine

ROOT = Path(__file__).parent.parent.parent
MEMORY_LIMIT_MB = 200


def alias_bomb(levels: int = 9, fan: int = 9) -> bytes:
    """The billion laughs: ``levels`` anchors, each aliasing the previous one ``fan`` times."""
    lines = [b"apiVersion: policytest/v1", b"kind: PolicyTest", b"l0: &l0 [" + b"x," * fan + b"]"]
    for level in range(1, levels + 1):
        items = ", ".join([f"*l{level - 1}"] * fan)
        lines.append(f"l{level}: &l{level} [{items}]".encode())
    return b"\n".join(lines) + b"\n"


def fixture(nodes: int = 2, pods: str = "", cases: str = "") -> str:
    node_lines = "".join(
        f"  - name: node-{index}\n    allocatable: {{cpu: '64', pods: '1000000000'}}\n{pods}"
        for index in range(nodes)
    )
    return (
        "apiVersion: policytest/v1\nkind: PolicyTest\n"
        "scheduler:\n  volcano:\n    actions: 'enqueue, allocate'\n"
        "    tiers: [{plugins: [{name: binpack}]}]\n"
        f"cluster:\n  nodes:\n{node_lines}"
        "cases:\n"
        + (
            cases
            or "- name: one pod\n  pod: {requests: {cpu: 1m}}\n  expect: {unschedulable: []}\n"
        )
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return tmp_path


def write(repo: Path, name: str, text: str | bytes) -> Path:
    path = repo / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


# --- the limits themselves -------------------------------------------------------------


def test_every_limit_has_a_name_a_summary_and_a_positive_default() -> None:
    names = limit_names()
    assert len(set(names)) == len(names) == len(dataclasses.fields(Limits))
    for attribute, name, summary in describe():
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", name) and summary
        assert getattr(DEFAULT_LIMITS, attribute) > 0


def test_the_documented_table_matches_the_code() -> None:
    """docs/robustness.md lists every limit with its name and default."""
    text = (ROOT / "docs" / "robustness.md").read_text()
    for attribute, name, _ in describe():
        default = getattr(DEFAULT_LIMITS, attribute)
        row = re.search(rf"^\| `{name}` \|[^\n]*?\| ([\d,]+)", text, re.MULTILINE)
        assert row is not None, f"{name} is missing from docs/robustness.md"
        assert int(row.group(1).replace(",", "")) == default, name


def test_limit_option_overrides_and_rejects_bad_values(run_line: RunLine, repo: Path) -> None:
    path = write(repo, "f.policytest.yaml", fixture(nodes=3))
    assert run_line(["run", "--limit", "cluster-nodes=3", path]).exit_code == 0
    assert run_line(["run", "--limit", "cluster-nodes=2", path]).exit_code == 1
    for bad in ["nodes=3", "cluster-nodes", "cluster-nodes=0", "cluster-nodes=-1", "pods=x"]:
        result = run_line(["run", "--limit", bad, path])
        assert result.exit_code == 2 and "--limit" in result.stderr, bad


def test_max_file_bytes_is_still_accepted(run_line: RunLine, repo: Path) -> None:
    path = write(repo, "f.policytest.yaml", fixture())
    result = run_line(["validate", "--max-file-bytes", "64", path])
    assert result.exit_code == 1 and "larger than 64 bytes" in result.stdout


# --- one clear error per limit -----------------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "text", "message"),
    [
        pytest.param("file-bytes=100", fixture(), "file is larger than 100 bytes", id="file-bytes"),
        pytest.param(
            "documents=2", "---\n".join([fixture()] * 3), "more than 2 documents", id="documents"
        ),
        pytest.param("yaml-nodes=50", fixture(nodes=10), "too many nodes", id="yaml-nodes"),
        pytest.param(
            "alias-nodes=30",
            fixture().replace(
                "cases:",
                "metadata:\n  a: &a [b, c, d, e]\n  f: [*a, *a, *a, *a, *a, *a, *a]\ncases:",
            ),
            "too many nodes through aliases",
            id="alias-nodes",
        ),
        pytest.param(
            "depth=5",
            fixture().replace("cases:", "metadata: {x: {a: {b: {c: {d: {e: 1}}}}}}\ncases:"),
            "nests deeper than 5 levels",
            id="depth",
        ),
    ],
)
def test_document_limits_give_a_pt001_error(
    run_line: RunLine, repo: Path, setting: str, text: str, message: str
) -> None:
    path = write(repo, "f.policytest.yaml", text)
    assert run_line(["validate", path]).exit_code == 0  # fine by default
    result = run_line(["validate", "--format", "json", "--limit", setting, path])
    assert result.exit_code == 1, result
    findings = json.loads(result.stdout)["findings"]
    assert any(f["rule"] == "PT001" and message in f["message"] for f in findings), findings
    run = run_line(["run", "--format", "json", "--limit", setting, path])
    assert run.exit_code == 1 and message in run.stdout


@pytest.mark.parametrize(
    ("setting", "text", "at", "message"),
    [
        pytest.param(
            "cluster-nodes=3",
            fixture(nodes=5),
            ("name: node-3", 0),
            "the cluster has 5 nodes, more than the limit of 3",
            id="cluster-nodes",
        ),
        pytest.param(
            "pods=10",
            fixture(nodes=2, pods="    pods: [{requests: {cpu: 1m}, count: 6}]\n"),
            ("count: 6", 1),
            "add up to more than the limit of 10",
            id="pods-bound",
        ),
        pytest.param(
            "pods=10",
            fixture(
                cases="- name: many\n  pods:\n  - {requests: {cpu: 1m}}\n"
                "  - {requests: {cpu: 1m}, count: 10}\n  expect: {pending: 0}\n"
            ),
            ("count: 10", 0),
            "add up to more than the limit of 10",
            id="pods-incoming",
        ),
        pytest.param(
            "node-scores=100",
            fixture(
                nodes=2,
                cases="- name: ok\n  pods: [{requests: {cpu: 1m}, count: 50}]\n"
                "  expect: {pending: 0}\n"
                "- name: too many\n  pods: [{requests: {cpu: 1m}, count: 1}]\n"
                "  expect: {pending: 0}\n",
            ),
            ("name: too many", 0),
            "case `too many` brings the node scores",
            id="node-scores",
        ),
    ],
)
def test_fixture_limits_give_a_pt003_error_at_the_line_that_crosses_them(
    run_line: RunLine, repo: Path, setting: str, text: str, at: tuple[str, int], message: str
) -> None:
    marker, occurrence = at
    line = [n for n, text_line in enumerate(text.splitlines(), 1) if marker in text_line][
        occurrence
    ]
    path = write(repo, "f.policytest.yaml", text)
    assert run_line(["run", path]).exit_code == 0  # fine by default
    result = run_line(["run", "--format", "json", "--limit", setting, path])
    assert result.exit_code == 1, result
    results = json.loads(result.stdout)["results"]
    assert all(r["status"] == "error" for r in results)
    assert message in results[0]["message"]
    assert f"f.policytest.yaml:{line}:" in results[0]["message"]
    assert "not run (raise it with --limit" in results[0]["message"]


def test_a_count_of_a_billion_is_refused_before_anything_is_built(repo: Path) -> None:
    path = write(
        repo,
        "f.policytest.yaml",
        fixture(pods="    pods: [{requests: {cpu: 1m}, count: 1000000000}]\n"),
    )
    (result,) = run_file(str(path), CheckOptions(), str(repo))
    assert result.status == "error"
    assert "add up to more than the limit of 300,000" in result.message


def test_pods_brought_in_by_merge_keys_count_too(repo: Path) -> None:
    """A merge key cannot smuggle pods past the limit: counting uses the decoded fixture."""
    text = fixture(nodes=1).replace(
        "  - name: node-0\n",
        "  - <<: {pods: [{requests: {cpu: 1m}, count: 400000}]}\n    name: node-0\n",
    )
    (result,) = run_file(str(write(repo, "f.policytest.yaml", text)), CheckOptions(), str(repo))
    assert result.status == "error" and "more than the limit of 300,000" in result.message


# --- the alias budget ---------------------------------------------------------------------


def test_alias_bomb_is_refused_as_it_is_read() -> None:
    source = read_bytes("bomb.yaml", alias_bomb(), DEFAULT_LIMITS)
    (problem,) = source.problems
    assert not source.documents
    assert (problem.rule, problem.line, problem.column) == ("PT001", 7, 5)
    assert "reaches too many nodes through aliases (an alias bomb?)" in problem.message


def test_alias_bomb_stops_at_the_alias_budget_not_the_node_budget() -> None:
    (root,) = bigload.compose_all(alias_bomb().decode(), 200, NodeCounter(1_000))
    budget = Budget.of(DEFAULT_LIMITS)
    with pytest.raises(DecodeLimit, match="through aliases"):
        decode(root, alias_bomb().decode(), budget=budget)
    spent = DEFAULT_LIMITS.max_nodes - budget.remaining
    assert spent <= 2 * DEFAULT_LIMITS.max_alias_nodes  # far short of the 1,000,000 budget


def test_anchors_used_as_templates_stay_well_inside_the_alias_budget() -> None:
    """A 2,000-node cluster sharing one anchored allocatable map: 14,000 alias nodes."""
    nodes = "".join(f"- {{name: n{i}, allocatable: *a}}\n" for i in range(2000))
    text = f"t: &a {{cpu: '8', memory: 16Gi, pods: '110'}}\nnodes:\n{nodes}"
    (document,) = read_bytes("t.yaml", text.encode(), DEFAULT_LIMITS).documents
    budget = Budget.of(DEFAULT_LIMITS)
    value = decode(document.root, document.text, budget=budget)
    assert len(value["nodes"]) == 2000
    assert DEFAULT_LIMITS.max_alias_nodes - budget.aliased == 2000 * 7


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "fixtures").glob("*.yaml")))
def test_bundled_fixtures_charge_nothing_to_the_alias_budget(name: str) -> None:
    """No walker visits a collection twice without an alias (the budget's precondition)."""
    limits = dataclasses.replace(DEFAULT_LIMITS, max_alias_nodes=1)
    results = run_file(str(ROOT / "fixtures" / name), CheckOptions(limits=limits), str(ROOT))
    assert results and all(result.status == "passed" for result in results)


# --- hostile inputs in a real process, memory measured -------------------------------------


# Runs policytest as its own child and reports that child's peak RSS and wall time. The
# extra process matters: a child forked straight from this (large) pytest process would
# count the parent's pages in its ru_maxrss; one forked from a fresh, small interpreter
# does not.
LAUNCHER = """
import os, subprocess, sys, time
started = time.perf_counter()
child = subprocess.Popen(sys.argv[1:], stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(child.pid, 0)
elapsed = time.perf_counter() - started
sys.stderr.write(f"{usage.ru_maxrss} {elapsed} {usage.ru_utime + usage.ru_stime}\\n")
sys.exit(os.waitstatus_to_exitcode(status))
"""


@dataclasses.dataclass(frozen=True)
class Measured:
    exit_code: int
    stdout: str
    peak_mb: float
    seconds: float
    cpu_seconds: float
    """User and system time of the process and every child it waited for."""


def measure(argv: list[str], stdin: int | None = None) -> Measured:
    """Run ``python -m policytest argv`` in a fresh process; its peak RSS and time."""
    return measure_command([sys.executable, "-m", "policytest", *argv], stdin)


def measure_command(
    command: list[str], stdin: int | None = None, cwd: str | None = None
) -> Measured:
    done = subprocess.run(
        [sys.executable, "-c", LAUNCHER, *command],
        cwd=cwd,
        stdin=stdin if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        check=False,
    )
    peak_kb, seconds, cpu = done.stderr.decode().split()
    return Measured(
        done.returncode, done.stdout.decode(), int(peak_kb) / 1024, float(seconds), float(cpu)
    )


def peak_mb(argv: list[str], stdin: int | None = None) -> tuple[int, str, float]:
    measured = measure(argv, stdin)
    return measured.exit_code, measured.stdout, measured.peak_mb


BIG_PARENT = """
import json, sys
from tests.read.test_limits import measure_command
ballast = bytearray(300 * 1024 * 1024)  # this process is big; the child must not be
small = measure_command([sys.executable, "-c", "pass"])
big = measure_command([sys.executable, "-c", "x = bytearray(250 * 1024 * 1024)"])
print(json.dumps([small.peak_mb, big.peak_mb, len(ballast)]))
"""


def test_the_memory_measurement_sees_the_child_and_only_the_child() -> None:
    """Measured from a process made big (in a process of its own: the ballast raised
    this worker's peak by 300 MB for the rest of the suite)."""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", BIG_PARENT], cwd=root, capture_output=True, text=True, check=True
    )
    small, big, _ = json.loads(done.stdout)
    assert small < 100 < 250 < big < 350


HOSTILE = {
    "alias-bomb": alias_bomb(),
    "deep-flow-10000": b"kind: PolicyTest\nx: " + b"[" * 10_000 + b"]" * 10_000 + b"\n",
    "deep-block-10000": b"kind: PolicyTest\nx:\n" + b"- " * 10_000 + b"x\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_document_is_rejected_in_a_small_process(repo: Path, name: str) -> None:
    path = write(repo, f"{name}.policytest.yaml", HOSTILE[name])
    for command in (["validate", "--format", "json"], ["run", "--format", "json"]):
        code, out, peak = peak_mb([*command, str(path)])
        assert code == 1, out
        assert "error" in out and ("nests" in out or "aliases" in out), out
        assert peak < MEMORY_LIMIT_MB, f"{name}: {peak:.0f} MB"


def test_a_gigabyte_on_stdin_is_rejected_after_reading_the_limit() -> None:
    """``head`` writes a gigabyte; policytest reads file-bytes + 1 bytes, refuses, and exits
    (``head`` then dies of SIGPIPE), so the gigabyte is never buffered."""
    producer = subprocess.Popen(
        ["head", "-c", str(1 << 30), "/dev/zero"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert producer.stdout is not None
    try:
        code, out, peak = peak_mb(
            ["validate", "--format", "json", "-"], stdin=producer.stdout.fileno()
        )
    finally:
        producer.stdout.close()
        producer.kill()
        producer.wait()
    (finding,) = json.loads(out)["findings"]
    assert "file is larger than 16,777,216 bytes" in finding["message"]
    assert code == 1 and finding["severity"] == "error"  # stdin was asked for: not skippable
    assert peak < MEMORY_LIMIT_MB, f"{peak:.0f} MB"


def test_a_count_of_a_billion_stays_small_in_a_real_process(repo: Path) -> None:
    path = write(
        repo,
        "f.policytest.yaml",
        fixture(
            cases="- name: billion\n  pods: [{requests: {cpu: 1m}, count: 1000000000}]\n"
            "  expect: {pending: 0}\n"
        ),
    )
    code, out, peak = peak_mb(["run", "--format", "json", str(path)])
    assert code == 1 and "more than the limit of 300,000" in out
    assert peak < MEMORY_LIMIT_MB, f"{peak:.0f} MB"


# --- yaml-nodes is counted while composing ---------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("- a\n" * 100, id="libyaml"),
        pytest.param("\ufeff" + "- a\n" * 100, id="pure-composer"),  # libyaml cannot take a BOM
        pytest.param("- !x a\n" * 100, id="tagged"),
        pytest.param("---\n- a\n" * 50, id="documents"),
    ],
)
def test_composing_stops_past_yaml_nodes(text: str) -> None:
    limits = Limits(max_nodes=50)
    (finding,) = read_bytes("f.yaml", text.encode(), limits).problems
    assert finding.rule == "PT001"
    assert finding.message.startswith("file has too many nodes (more than 50 YAML nodes)")
    assert "--limit yaml-nodes=N" in finding.message


def test_a_file_at_yaml_nodes_is_composed() -> None:
    source = read_bytes("f.yaml", ("- a\n" * 49).encode(), Limits(max_nodes=50))  # 1 + 49
    assert not source.problems and len(source.documents) == 1


def test_a_big_flat_file_is_refused_before_its_memory_is_spent(repo: Path) -> None:
    """4 MiB of ``- a`` is a million nodes: composed whole, about 480 MB."""
    path = write(repo, "flat.yaml", "- a\n" * (1 << 20))
    measured = measure(["validate", "--format", "json", "--limit", "yaml-nodes=10000", str(path)])
    (finding,) = json.loads(measured.stdout)["findings"]
    assert "more than 10,000 YAML nodes" in finding["message"]
    # ~100 MB is the interpreter, the 4 MiB text and 10,000 nodes; composed whole, ~480 MB
    assert measured.peak_mb < 150, f"{measured.peak_mb:.0f} MB"
