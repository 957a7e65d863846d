"""run, explain, diff and simulate score a config as the scheduler loads it, with one set
of suppressions, through the real entry point (``policytest.cli.main``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import RunLine

# binpack weighting the GPU: gpu-busy wins with GPU weight 8, cpu-busy with 2, and with
# 1 (what Volcano holds for a negative weight).
CONF = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: volcano-scheduler-configmap
data:
  volcano-scheduler.conf: |
    actions: "enqueue, allocate, backfill"
    tiers:
    - plugins:
      - name: predicates
      - name: binpack
        arguments:
          binpack.weight: 10
          binpack.resources: nvidia.com/gpu
          binpack.resources.nvidia.com/gpu: {gpu}
"""
GPU_LINE = 15  # the line of binpack.resources.nvidia.com/gpu in CONF

FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata:
  name: gpu-jobs-pack
scheduler:
  config: ../configs/volcano.yaml
cluster:
  nodes:
  - name: cpu-busy
    allocatable: {{cpu: "64", memory: 256Gi, nvidia.com/gpu: "8", pods: "110"}}
    used: {{cpu: "56", memory: 224Gi, nvidia.com/gpu: "1"}}
  - name: gpu-busy
    allocatable: {{cpu: "64", memory: 256Gi, nvidia.com/gpu: "8", pods: "110"}}
    used: {{cpu: "8", memory: 32Gi, nvidia.com/gpu: "6"}}
cases:
- name: a GPU job
  pod: {{requests: {{cpu: "4", memory: 16Gi, nvidia.com/gpu: "1"}}}}
  expect: {{top: {winner}}}
- name: three GPU jobs
  pods: [{{requests: {{cpu: "4", memory: 16Gi, nvidia.com/gpu: "1"}}, count: 3}}]
  expect: {{pending: 0}}
"""


def project(root: Path, gpu: str, winner: str = "cpu-busy", *, git: bool = True) -> Path:
    """A project with configs/volcano.yaml and fixtures/gpu.policytest.yaml."""
    (root / "configs").mkdir(parents=True, exist_ok=True)
    (root / "fixtures").mkdir(exist_ok=True)
    if git:
        (root / ".git").mkdir(exist_ok=True)
    (root / "configs" / "volcano.yaml").write_text(CONF.format(gpu=gpu))
    fixture = root / "fixtures" / "gpu.policytest.yaml"
    fixture.write_text(FIXTURE.format(winner=winner))
    return fixture


@pytest.fixture
def negative(tmp_path: Path) -> Path:
    """The conf writes the GPU weight -2 (Volcano uses 1); the fixture expects what
    Volcano does with that."""
    return project(tmp_path, "-2")


# --- 1. scored as loaded -----------------------------------------------------------------


def test_run_scores_as_loaded_and_still_fails_on_the_error_finding(
    run_line: RunLine, negative: Path
) -> None:
    result = run_line(["run", negative])
    assert result.exit_code == 1, result  # VB002 is an error: the run fails
    assert "PASS a GPU job" in result.stdout and "PASS three GPU jobs" in result.stdout
    # the config's findings once, not once per case
    assert result.stdout.count("VB002") == 1, result
    assert f"configs/volcano.yaml:{GPU_LINE}:" in result.stdout
    assert result.stdout.rstrip().endswith(
        "Cases: 2 passed, 0 failed; judged as Volcano 1.15; config findings: 1 error (an error "
        "fails the run, as it fails validate)"
    )


def test_run_json_has_the_findings_in_each_result(run_line: RunLine, negative: Path) -> None:
    result = run_line(["run", "--format", "json", negative])
    assert result.exit_code == 1, result
    results = json.loads(result.stdout)["results"]
    assert [r["status"] for r in results] == ["passed", "passed"]
    for one in results:
        assert [f["rule"] for f in one["findings"]] == ["VB002"]
        assert one["corrections"] == [
            "binpack.resources.nvidia.com/gpu: written -2, Volcano uses 1"
        ]
    assert results[0]["ranking"] == [["cpu-busy"], ["gpu-busy"]]


def test_github_and_junit_report_the_config_findings_once(
    run_line: RunLine, negative: Path
) -> None:
    github = run_line(["run", "--format", "github", negative])
    assert github.exit_code == 1
    annotations = [line for line in github.stdout.splitlines() if line.startswith("::error")]
    assert len(annotations) == 1 and "title=VB002::" in annotations[0], github
    junit = run_line(["run", "--format", "junit", negative])
    assert junit.exit_code == 1
    assert '<testsuite name="configs" tests="1" failures="1" errors="0">' in junit.stdout
    assert junit.stdout.count("VB002") == 1, junit


def test_a_config_the_scheduler_refuses_makes_the_cases_error(
    run_line: RunLine, tmp_path: Path
) -> None:
    fixture = project(tmp_path, "8")
    conf = tmp_path / "configs" / "volcano.yaml"
    conf.write_text(conf.read_text().replace("enqueue, allocate", "enqueue, alocate"))
    result = run_line(["run", "--format", "json", fixture])
    assert result.exit_code == 1
    results = json.loads(result.stdout)["results"]
    assert {r["status"] for r in results} == {"error"}
    assert results[0]["message"].startswith(
        "Volcano rejects this conf and keeps running its previous one:\n"
    )  # then one line per finding
    assert "VC003" in results[0]["message"] or "alocate" in results[0]["message"]


def test_a_kube_config_that_does_not_start_makes_the_cases_error(
    run_line: RunLine, tmp_path: Path
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "kube.yaml").write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\n"
        "kind: KubeSchedulerConfiguration\n"
        "profiles:\n"
        "- schedulerName: default-scheduler\n"
        "  pluginConfig:\n"
        "  - name: NodeResourcesFit\n"
        "    args: {scoringStrategy: {type: MostAllocate}}\n"
    )
    fixture = tmp_path / "k.policytest.yaml"
    fixture.write_text(
        FIXTURE.format(winner="cpu-busy").replace("../configs/volcano.yaml", "kube.yaml")
    )
    result = run_line(["run", fixture])
    assert result.exit_code == 1
    config = str(tmp_path / "kube.yaml")
    assert (  # each case says why, and where the findings are listed (once per config)
        "      kube-scheduler refuses this config and does not start: its findings are "
        f"listed once, under `config {config}`\n"
    ) in result.stdout
    assert "\n      " + config + ":7:" in result.stdout  # one line each
    assert "PASS" not in result.stdout


def test_explain_shows_the_ranking_and_each_correction(run_line: RunLine, tmp_path: Path) -> None:
    fixture = project(tmp_path, "-2")
    conf = tmp_path / "configs" / "volcano.yaml"
    conf.write_text(
        conf.read_text().replace(
            "binpack.weight: 10\n",
            "binpack.weight: 10\n          binpack.cpu: -1\n"
            '          binpack.memory: "3"\n          binpack.resources.example.com/fpga: 5\n',
        )
    )
    result = run_line(["explain", fixture, "--case", "a GPU job"])
    assert result.exit_code == 0, result  # a report: it wrote what it was asked for
    failing = run_line(["explain", fixture, "--case", "a GPU job", "--fail-on", "failure"])
    assert failing.exit_code == 1  # error findings fail it as they fail run
    assert "As the scheduler loads the config (scored this way):" in result.stdout
    for line in (
        "binpack.cpu: written -1, Volcano uses 1",
        'binpack.memory: written "3", Volcano uses 1',
        "binpack.resources.nvidia.com/gpu: written -2, Volcano uses 1",
        "binpack.resources.example.com/fpga: written 5, Volcano ignores it "
        "(example.com/fpga is not listed in binpack.resources)",
    ):
        assert f"    {line}\n" in result.stdout, result
    assert "Scores for the pod, best first: [cpu-busy, gpu-busy]" in result.stdout
    assert "config: " in result.stdout and "VB002" in result.stdout


def test_diff_shows_the_new_winner_despite_a_negative_weight(
    run_line: RunLine, tmp_path: Path
) -> None:
    """A change raising the GPU weight 2 -> 8 that also sets binpack.cpu: -1 (held as 1)
    still shows what it does: gpu-busy becomes the winner."""
    fixture = project(tmp_path, "2", winner="gpu-busy")
    old = tmp_path / "configs" / "volcano.yaml"
    new = tmp_path / "configs" / "volcano-new.yaml"
    new.write_text(
        CONF.format(gpu="8").replace(
            "binpack.weight: 10\n", "binpack.weight: 10\n          binpack.cpu: -1\n"
        )
    )
    result = run_line(["diff", old, new, "--fixtures", fixture.parent, "--all"])
    assert result.exit_code == 1, result  # an error finding is introduced
    assert "new winner gpu-busy (was cpu-busy)" in result.stdout, result
    assert "-> error" not in result.stdout  # scored on both sides, no case errors
    assert "VB002 error" in result.stdout
    markdown = run_line(
        ["diff", old, new, "--fixtures", fixture.parent, "--all", "--format", "markdown"]
    )
    assert "new winner gpu-busy" in markdown.stdout and "**VB002** error" in markdown.stdout
    data = json.loads(
        run_line(
            ["diff", old, new, "--fixtures", fixture.parent, "--all", "--format", "json"]
        ).stdout
    )
    assert data["summary"]["newWinners"] >= 1, data["summary"]


def test_simulate_runs_a_config_with_error_findings(run_line: RunLine, negative: Path) -> None:
    result = run_line(["simulate", negative, "--case", "three GPU jobs", "--format", "json"])
    assert result.exit_code == 0, result
    (report,) = json.loads(result.stdout)["reports"]
    # GPU weight 1: two jobs fill cpu-busy's CPU (so it is full), the third goes to gpu-busy
    assert report["pending"] == 0 and report["nodesUsed"] == 2 and report["fullNodes"] == 1
    assert "VB002" in result.stderr


# --- 2. one set of suppressions ----------------------------------------------------------


@pytest.mark.parametrize("command", ["run", "explain"])
def test_ignore_flag_applies_to_run_and_explain(
    run_line: RunLine, negative: Path, command: str
) -> None:
    result = run_line([command, "--ignore", "VB002", negative])
    assert result.exit_code == 0, result
    assert "VB002" not in result.stdout


def test_select_flag_applies_to_run(run_line: RunLine, negative: Path) -> None:
    assert run_line(["run", "--select", "KS", negative]).exit_code == 0
    assert run_line(["run", "--select", "VB", negative]).exit_code == 1


def test_a_suppression_comment_applies_to_every_command(run_line: RunLine, tmp_path: Path) -> None:
    fixture = project(tmp_path, "-2  # policytest: ignore[VB002]")
    config = tmp_path / "configs" / "volcano.yaml"
    for argv in (["validate", config], ["run", fixture], ["explain", fixture]):
        result = run_line(argv)
        assert result.exit_code == 0, result
        assert "VB002" not in result.stdout, result
    simulated = run_line(["simulate", fixture, "--format", "json"])
    assert simulated.exit_code == 0 and "VB002" not in simulated.stderr


def test_suppression_never_makes_a_refused_config_run(run_line: RunLine, tmp_path: Path) -> None:
    fixture = project(tmp_path, "8")
    conf = tmp_path / "configs" / "volcano.yaml"
    conf.write_text(conf.read_text().replace("enqueue, allocate", "enqueue, alocate"))
    result = run_line(["run", "--ignore", "VC", fixture])
    assert result.exit_code == 1
    assert "Volcano rejects this conf" in result.stdout


def test_diff_findings_follow_the_suppressions(run_line: RunLine, tmp_path: Path) -> None:
    fixture = project(tmp_path, "2", winner="gpu-busy")
    old = tmp_path / "configs" / "volcano.yaml"
    new = tmp_path / "configs" / "volcano-new.yaml"
    new.write_text(CONF.format(gpu="-2"))
    argv = ["diff", old, new, "--fixtures", fixture.parent, "--ignore", "VB002"]
    result = run_line(argv)
    assert result.exit_code == 0, result
    assert "VB002" not in result.stdout


# --- 3. outside a git checkout ------------------------------------------------------------


def test_without_git_the_root_is_the_working_directory(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project(tmp_path, "8", winner="gpu-busy", git=False)
    monkeypatch.chdir(tmp_path)
    result = run_line(["run", "fixtures"])
    assert result.exit_code == 0, result
    monkeypatch.chdir(tmp_path / "fixtures")  # now ../configs is outside the root
    refused = run_line(["run", "."])
    assert refused.exit_code == 1
    assert "is outside the root" in refused.stdout
    assert "(the working directory, as no `.git` was found above the fixture)" in refused.stdout
    assert "--root (pytest: --policytest-root)" in refused.stdout
    widened = run_line(["run", ".", "--root", str(tmp_path)])
    assert widened.exit_code == 0, widened


# --- 4. dead ends ---------------------------------------------------------------------------


def test_run_with_no_cases_fails_and_says_what_it_looked_for(
    run_line: RunLine, tmp_path: Path
) -> None:
    (tmp_path / "misc").mkdir()
    (tmp_path / "kube.yaml").write_text("kind: KubeSchedulerConfiguration\n")
    for path in (tmp_path / "misc", tmp_path / "kube.yaml"):
        result = run_line(["run", path])
        assert result.exit_code == 1, result
        assert result.stdout.startswith(f"No fixture cases found in {path}"), result
    assert run_line(["run", "--format", "json", tmp_path / "misc"]).exit_code == 1


def test_run_without_a_fixtures_directory_is_a_failure_not_a_usage_error(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_line(["run"])
    assert result.exit_code == 1, result
    assert "there is no fixtures/ directory here" in result.stderr
    assert "`args: [DIR]`" in result.stderr
    assert run_line(["run", "nowhere"]).exit_code == 2  # a path the user typed


def test_every_problem_of_a_fixture_in_one_pass(run_line: RunLine, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    fixture = tmp_path / "six.policytest.yaml"
    fixture.write_text(
        "apiVersion: policytest/v1\n"
        "kind: PolicyTest\n"
        "scheduler: {config: missing.yaml}\n"
        "cluster:\n"
        "  nodes:\n"
        '  - allocatable: {cpu: "8", pods: "110"}\n'  # 6: no name
        "  - name: b\n"
        '    allocatable: {cpu: "8x", pods: "110"}\n'  # 8: a bad quantity
        "cases:\n"
        "- name: one\n"  # 10
        '  pod: {requests: {cpu: "1"}}\n'
        "  expect: {ranking: [zzz]}\n"
        "- name: one\n"  # 13: listed twice, expects an unknown node
        '  pod: {requests: {cpu: "1"}}\n'
        "  expect: {top: yyy}\n"
    )
    result = run_line(["validate", "--format", "json", fixture])
    found = {
        (f["line"], f["rule"], f["message"].split(":")[0])
        for f in json.loads(result.stdout)["findings"]
    }
    messages = " | ".join(f["message"] for f in json.loads(result.stdout)["findings"])
    assert (6, "PT002", "required key `name` is missing in `cluster.nodes[0]`") in found
    assert '`cpu: "8x"` is not a quantity' in messages
    assert "case `one` expects node `zzz`" in messages
    assert "case `one` expects node `yyy`" in messages
    assert "case `one` is listed twice" in messages
    assert "config `missing.yaml` does not exist" in messages


def test_explain_unknown_case_lists_the_names(run_line: RunLine, negative: Path) -> None:
    result = run_line(["explain", negative, "--case", "three GPU job"])
    assert result.exit_code == 2
    assert "did you mean `three GPU jobs`?" in result.stderr
    assert "Its cases: 'a GPU job', 'three GPU jobs'" in result.stderr


def test_unknown_flag_prints_the_subcommands_usage(run_line: RunLine, negative: Path) -> None:
    result = run_line(["validate", "--foo", negative])
    assert result.exit_code == 2
    assert result.stderr.startswith("usage: policytest validate ")
    assert "policytest validate: error: unrecognized arguments: --foo" in result.stderr


FINDING_LINE = re.compile(r"^[^:\s][^:]*:\d+:\d+: [A-Z]{2}\d{3} (error|warning|info): .+$")


def test_every_text_finding_is_one_line(run_line: RunLine, tmp_path: Path) -> None:
    """KS002's message holds the equivalent config: still one line."""
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        "kind: Policy\napiVersion: v1\npriorities:\n- name: MostRequestedPriority\n  weight: 2\n"
    )
    result = run_line(["validate", policy])
    *findings, summary = result.stdout.splitlines()
    assert findings and all(FINDING_LINE.match(line) for line in findings), result
    assert "KS002" in findings[0] and summary == "Found 1 error, 0 warnings in 1 file."


def test_yaml_errors_name_the_token_not_a_python_tuple(run_line: RunLine, tmp_path: Path) -> None:
    broken = tmp_path / "broken.policytest.yaml"
    broken.write_text('"policytest/v1"\nkind: PolicyTest\n')  # a scalar, then a mapping
    result = run_line(["validate", broken])
    assert "but found '<block mapping start>'" in result.stdout, result
    assert "('" not in result.stdout


def test_counts_agree_with_their_nouns(run_line: RunLine, tmp_path: Path) -> None:
    fixture = project(tmp_path, "8", winner="gpu-busy")
    (tmp_path / "fixtures" / "bad.policytest.yaml").write_text("apiVersion: policytest/v1\n")
    result = run_line(["run", tmp_path / "fixtures"])
    assert result.stdout.rstrip().endswith(
        "Cases: 2 passed, 0 failed, 1 error; judged as Volcano 1.15"
    ), result
    simulated = run_line(["simulate", fixture, "--case", "a GPU job"])
    assert "(1 pod, 2 nodes)" in simulated.stdout
    explained = run_line(["explain", fixture, "--case", "three GPU jobs"])
    assert "Sequence: 3 pods;" in explained.stdout


# --- 5. explain's arithmetic adds up ------------------------------------------------------

KUBE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      enabled:
      - {name: NodeResourcesFit, weight: 2}
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 3}, {name: memory, weight: 1}]
"""
KUBE_FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
scheduler: {config: kube.yaml}
cluster:
  nodes:
  - name: a
    allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
    used: {cpu: 1500m, memory: 3Gi}
  - name: b
    allocatable: {cpu: "8", memory: 8Gi, pods: "110"}
    used: {cpu: "1", memory: 5Gi}
cases:
- name: one pod
  pod: {requests: {cpu: 250m, memory: 1Gi}}
  expect: {}
"""
PRODUCT = re.compile(r"score (\d+) x weight (\d+) = (\d+)$")
SUM = re.compile(r"= \(([\d + ]+)\) / \(([\d + ]+)\) = (\d+) / (\d+) = (\d+) \(int64")
PLUGIN = re.compile(r"x plugin weight (\d+) = (\d+) \(NodeResourcesFit's contribution")


def test_kube_explain_shows_every_step_and_they_add_up(run_line: RunLine, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "kube.yaml").write_text(KUBE)
    fixture = tmp_path / "k.policytest.yaml"
    fixture.write_text(KUBE_FIXTURE)
    result = run_line(["explain", fixture])
    lines = result.stdout.splitlines()
    header = next(line.split() for line in lines if line.split()[:2] == ["rank", "node"])
    column = header.index("NodeResourcesFit")
    table = {
        row.split()[1]: int(row.split()[column])
        for row in lines
        if re.match(r"^\s+\d+\s+[ab]\s", row)  # rank, node, total, ... NodeResourcesFit
    }
    checked = 0
    for index, line in enumerate(lines):
        node = re.match(r"^\s+([ab]) / NodeResourcesFit:$", line)
        if not node:
            continue
        products = [PRODUCT.search(lines[index + k]) for k in (1, 2)]
        assert all(products), result
        total = sum(int(p.group(3)) for p in products if p)
        assert all(int(p.group(1)) * int(p.group(2)) == int(p.group(3)) for p in products if p)
        summed = SUM.search(lines[index + 3])
        weighted = PLUGIN.search(lines[index + 4])
        assert summed and weighted, result
        assert int(summed.group(3)) == total
        assert int(summed.group(4)) == 3 + 1  # the resource weights
        assert int(summed.group(5)) == int(summed.group(3)) // int(summed.group(4))
        assert int(weighted.group(1)) == 2  # the profile weight
        assert int(weighted.group(2)) == int(summed.group(5)) * 2 == table[node.group(1)]
        checked += 1
    assert checked == 2, result


# --- 6. stranded capacity ---------------------------------------------------------------


def test_a_cpu_only_node_strands_nothing_for_a_gpu_workload(
    run_line: RunLine, tmp_path: Path
) -> None:
    fixture = project(tmp_path, "8", winner="gpu-busy")
    fixture.write_text(
        "apiVersion: policytest/v1\n"
        "kind: PolicyTest\n"
        "scheduler: {config: ../configs/volcano.yaml}\n"
        "cluster:\n"
        "  nodes:\n"
        "  - name: cpu-only\n"
        '    allocatable: {cpu: "32", memory: 64Gi, pods: "110"}\n'
        '    used: {cpu: "2", memory: 2Gi}\n'
        "  - name: gpu\n"
        '    allocatable: {cpu: "16", memory: 64Gi, nvidia.com/gpu: "4", pods: "110"}\n'
        "cases:\n"
        "- name: gpu jobs\n"
        '  pods: [{requests: {cpu: "2", memory: 4Gi, nvidia.com/gpu: "1"}, count: 5}]\n'
        "  expect: {}\n"
    )
    result = run_line(["simulate", fixture, "--format", "json"])
    assert result.exit_code == 0, result
    (report,) = json.loads(result.stdout)["reports"]
    assert report["pending"] == 1 and report["fullNodes"] == 1  # the GPU node, GPUs all used
    stranded = {use["name"]: use["stranded"] for use in report["resources"]}
    # the GPU node's free capacity only: 16 - 4 x 2 cores, 64 - 4 x 4 GiB; the CPU-only
    # node's 30 free cores were never usable by this workload
    assert stranded == {"cpu": 8.0, "memory": 48.0, "nvidia.com/gpu": 0.0}


def test_the_settings_file_suppresses_for_every_command(
    run_line: RunLine, negative: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = negative.parent.parent
    (root / ".policytest.yaml").write_text("ignore: [VB002]\n")
    monkeypatch.chdir(root)
    for argv in (["run", "fixtures"], ["explain", "fixtures/gpu.policytest.yaml"]):
        result = run_line(argv)
        assert result.exit_code == 0, result
        assert "VB002" not in result.stdout
    # a flag overrides the same key of the file: --ignore replaces its ignore
    assert run_line(["run", "fixtures", "--ignore", "KS"]).exit_code == 1


def test_kube_weights_written_0_are_corrections_in_explain(
    run_line: RunLine, tmp_path: Path
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "kube.yaml").write_text(
        KUBE.replace("weight: 2}", "weight: 0}").replace(
            "{name: memory, weight: 1}", "{name: memory, weight: 0}"
        )
    )
    fixture = tmp_path / "k.policytest.yaml"
    fixture.write_text(KUBE_FIXTURE)
    result = run_line(["explain", fixture])
    assert "    NodeResourcesFit weight: written 0, kube-scheduler uses 1\n" in result.stdout, (
        result
    )
    assert (
        "    NodeResourcesFit resource memory weight: written 0, kube-scheduler uses 1\n"
        in result.stdout
    ), result
    assert "x plugin weight 1 = " in result.stdout
