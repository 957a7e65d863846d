"""The topology plugins' work budget through the real command line.

Each of the seven attacks of ``tests/topology_attacks.py`` at a small size: the checks its
case makes are counted in-process first; ``run`` with ``--limit topology-checks`` one
below that count refuses the case (an error naming the limit and how to raise it, exit
1) and with the count itself runs it: every step is charged before it is taken, and the
count is the same on every run. ``diff`` charges both sides to one
``total-topology-checks``; ``simulate`` and the pytest plugin refuse alike.
(``tests/scoring/test_topology_attacks.py`` holds the work of each attack to the size of
its text; docs/robustness.md has the times of the full-size attacks.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from policytest.core.limits import Invocation, Limits
from policytest.core.options import CheckOptions
from policytest.harness.suite import run_file
from tests.conftest import RunLine
from tests.topology_attacks import ATTACKS, Scheduler, write_attack

SIZES = {
    "required-anti-affinity": {"pods": 400, "terms": 20, "nodes": 4},
    "preferred-pod-affinity": {"pods": 600, "terms": 20, "nodes": 3},
    "host-ports": {"pods": 400, "ports": 30, "nodes": 2},
    "spread-constraints": {"constraints": 20, "nodes": 40},
    "many-services": {"services": 200, "replicas": 20, "nodes": 5},
    "preferred-node-affinity": {"terms": 20, "nodes": 100},
    "many-labels": {"pods": 500, "labels": 50, "nodes": 2},
}
BY_NAME = {attack.name: attack for attack in ATTACKS}


def _attack(directory: Path, name: str, scheduler: Scheduler = "kube") -> tuple[Path, int]:
    """The attack's fixture and the checks its case makes (counted in-process)."""
    (directory / ".git").mkdir(parents=True, exist_ok=True)
    path = write_attack(directory, BY_NAME[name], scheduler, **SIZES[name])
    limits = Limits().for_invocation(Invocation())
    (result,) = run_file(str(path), CheckOptions(limits=limits), str(directory))
    assert result.status == "failed", result.message  # ran; it expects nothing
    return path, limits.invocation.spent["topology-checks"]


@pytest.mark.parametrize("scheduler", ["kube", "volcano"])
@pytest.mark.parametrize("name", sorted(SIZES))
def test_a_case_past_topology_checks_is_refused_before_the_step_that_would_pass_it(
    run_line: RunLine, tmp_path: Path, name: str, scheduler: Scheduler
) -> None:
    path, spent = _attack(tmp_path, name, scheduler)
    argv = ["run", "--format", "json", str(path), "--limit"]
    refused = run_line([*argv, f"topology-checks={spent - 1}"])
    assert refused.exit_code == 1, refused
    (result,) = json.loads(refused.stdout)["results"]
    assert result["status"] == "error"
    assert (
        f"PT003 case `{result['case']}`: the topology plugins would make more"
        in (result["message"])
    )
    assert f"more than {spent - 1:,} checks, the limit for one case (" in result["message"]
    assert "(raise it with --limit topology-checks=N)" in result["message"]
    ran = run_line([*argv, f"topology-checks={spent}"])
    (result,) = json.loads(ran.stdout)["results"]
    assert result["status"] == "failed", result["message"]


def test_both_sides_of_a_diff_share_one_topology_budget(run_line: RunLine, tmp_path: Path) -> None:
    path, spent = _attack(tmp_path, "spread-constraints")
    configs = tmp_path / "configs"
    argv = ["diff", configs / "kube.yaml", configs / "kube-head.yaml", "--fixtures", path]
    both = run_line([*argv, "--limit", f"total-topology-checks={2 * spent}"])
    assert both.exit_code == 0, both
    one = run_line([*argv, "--limit", f"total-topology-checks={2 * spent - 1}"])
    assert one.exit_code == 1, one  # a review that could not run all it had to
    assert (
        f"this run has used up its budget of {2 * spent - 1:,} topology plugin checks" in one.stdout
    )
    assert "--limit total-topology-checks=N" in one.stdout


def test_simulate_refuses_a_case_past_topology_checks(run_line: RunLine, tmp_path: Path) -> None:
    path, spent = _attack(tmp_path, "spread-constraints")
    refused = run_line(["simulate", path, "--limit", f"topology-checks={spent // 2}"])
    assert refused.exit_code == 1, refused
    assert (
        f"case `one pod` [fixture]: the topology plugins would make more than {spent // 2:,}"
        in (refused.stderr)
    )
    assert "--limit topology-checks=N" in refused.stderr
    assert run_line(["simulate", path]).exit_code == 0


def test_the_pytest_plugin_refuses_a_case_past_topology_checks(
    pytester: pytest.Pytester,
) -> None:
    path, spent = _attack(pytester.path, "preferred-node-affinity")
    result = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", "--policytest-limit", f"topology-checks={spent - 1}", path.name
    )
    result.assert_outcomes(passed=1, failed=1)  # the config item, the case
    result.stdout.fnmatch_lines(
        [f"*PT003 case `one pod`: the topology plugins would make more than {spent - 1:,} checks*"]
    )
