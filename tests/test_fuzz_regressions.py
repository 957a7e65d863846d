"""Inputs the fuzzer found that once broke policytest, kept as plain regression tests.

Each test names the failure it pins. ``docs/robustness.md`` lists them with the long run
that found them.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from policytest.core.limits import Limits
from policytest.read.goyaml import decode
from policytest.read.source import child, read_bytes
from tests.conftest import RunLine


def test_a_redefined_anchor_is_accepted_without_a_warning() -> None:
    """ruamel.yaml warned (ReusedAnchorWarning); under ``-W error``, as in a pytest run
    with ``filterwarnings = error``, the warning was an exception. yaml.v2 lets the
    later anchor win."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        source = read_bytes("f.yaml", b"a: &x 1\nb: &x 2\nc: *x\n", Limits())
    (document,) = source.documents
    assert decode(document.root, document.text) == {"a": 1, "b": 2, "c": 2}
    c = child(document.root, "c")
    assert c is not None and c.value == "2"


def test_a_fixture_with_a_redefined_anchor_runs(run_line: RunLine, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    fixture = tmp_path / "f.policytest.yaml"
    fixture.write_text(
        "apiVersion: policytest/v1\nkind: PolicyTest\n"
        "scheduler:\n  volcano: &a\n    tiers:\n    - plugins:\n      - &a {name: binpack}\n"
        "cluster:\n  nodes:\n  - {name: n, allocatable: {cpu: '1', pods: '1'}}\n"
        "cases:\n- name: c\n  pod: {requests: {cpu: 1m}}\n  expect: {ranking: [n]}\n"
    )
    result = run_line(["run", fixture])
    assert result.exit_code in (0, 1), result
    assert "internal error" not in result.stderr


MERGED = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {name: merged}
scheduler:
  <<: {volcano: {actions: "enqueue, allocate", tiers: [{plugins: [{name: binpack}]}]}}
<<: {cases: [{name: c, pod: {requests: {cpu: 1m}}, expect: {ranking: [node-a]}}]}
cluster:
  <<: {nodes: [{name: node-a, allocatable: {cpu: "1", pods: "1"}}]}
"""


def test_merge_keys_that_bring_in_scheduler_nodes_and_cases(
    run_line: RunLine, tmp_path: Path
) -> None:
    """The loader zipped decoded nodes and cases with source nodes found without following
    merge keys (ValueError) and asserted on a merged inline config: exit 3."""
    (tmp_path / ".git").mkdir()
    fixture = tmp_path / "f.policytest.yaml"
    fixture.write_text(MERGED)
    result = run_line(["run", fixture])
    assert result.exit_code == 0, result
    assert "PASS c" in result.stdout
    fixture.write_text(MERGED.replace("ranking: [node-a]", "ranking: [node-b]"))
    result = run_line(["run", fixture])
    assert result.exit_code == 1 and "node-b" in result.stdout, result


def test_a_deeply_nested_case_name_in_an_unloadable_fixture(
    run_line: RunLine, tmp_path: Path
) -> None:
    """Found by the third long run. A fixture that fails to decode (here: a mapping as a
    key) is reported under its case names; a name that was a 400-deep mapping was turned
    into text with repr(), which recursed past Python's limit: exit 3."""
    (tmp_path / ".git").mkdir()
    deep = "".join("  " * (level + 2) + "k:\n" for level in range(400)) + " " * 804 + "x\n"
    fixture = tmp_path / "f.policytest.yaml"
    fixture.write_text(
        "? {}\n: 1\napiVersion: policytest/v1\nkind: PolicyTest\n"
        "scheduler: {volcano: {}}\ncluster: {nodes: [{name: a, allocatable: {cpu: '1'}}]}\n"
        f"cases:\n- name:\n{deep}  pod: {{}}\n  expect: {{}}\n"
    )
    result = run_line(["run", "--format", "json", fixture])
    assert result.exit_code == 1, result
    (case,) = json.loads(result.stdout)["results"]
    # the composer now refuses the 400-deep name itself (the depth limit is counted as
    # libyaml composes), so the whole fixture is the error, said in one line
    assert case["status"] == "error" and case["case"] == "(fixture)"
    assert "nests deeper than 200 levels" in case["message"]


def test_a_conf_that_is_one_scalar_of_the_wrong_tag_is_vc001(
    run_line: RunLine, tmp_path: Path
) -> None:
    """``!!int abc`` as the whole conf: the check for an empty conf decoded it and raised
    (an internal error); yaml.v2 fails to decode it, so Volcano rejects the conf."""
    conf = tmp_path / "volcano-scheduler.conf"
    conf.write_text("!!int abc\n")
    result = run_line(["validate", conf])
    assert result.exit_code == 1, result
    assert "VC001" in result.stdout and "cannot decode !!str `abc` as a !!int" in result.stdout
