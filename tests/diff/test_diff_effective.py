"""Effective settings as the schedulers hold them, and the pure comparisons of the diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from policytest.core.findings import Finding, Severity
from policytest.core.options import CheckOptions
from policytest.diff.effective import ConfigView, Setting, config_views
from policytest.diff.model import compare_findings, compare_settings, compare_views


def settings(tmp_path: Path, text: str) -> dict[str, Setting]:
    path = tmp_path / "config.yaml"
    path.write_text(text)
    [view] = config_views(str(path), CheckOptions())
    return {setting.key: setting for setting in view.settings}


def volcano(arguments: str, *, extra: str = "") -> str:
    body = "".join(f"      {line}\n" for line in arguments.strip().splitlines())
    return (
        'actions: "enqueue, allocate"\n'
        "tiers:\n"
        "- plugins:\n"
        "  - name: binpack\n" + extra + ("    arguments:\n" + body if body.strip() else "")
    )


@pytest.mark.parametrize(
    "arguments, key, value, written",
    [
        pytest.param("binpack.cpu: -5", "binpack.cpu", "1", "-5", id="negative-reset-to-1"),
        pytest.param('binpack.weight: "10"', "binpack.weight", "1", '"10"', id="quoted-ignored"),
        pytest.param("binpack.memory: 1.5", "binpack.memory", "1", "1.5", id="float-ignored"),
        pytest.param("binpack.weight: -2", "binpack.weight", "-2", None, id="negative-weight-kept"),
        pytest.param("binpack.weight: 010", "binpack.weight", "8", "010", id="yaml-v2-octal"),
        pytest.param("binpack.weight: 0x0A", "binpack.weight", "10", "0x0A", id="yaml-v2-hex"),
        pytest.param("binpack.weight: 10", "binpack.weight", "10", None, id="plain"),
        pytest.param(
            "binpack.resources: [nvidia.com/gpu]",
            "binpack.resources",
            "(none)",
            '["nvidia.com/gpu"]',
            id="list-is-empty",
        ),
        pytest.param(
            "binpack.resources: nvidia.com/gpu\nbinpack.resources.nvidia.com/gpu: -3",
            "binpack.resources.nvidia.com/gpu",
            "1",
            "-3",
            id="resource-weight-reset",
        ),
    ],
)
def test_volcano_binpack_as_held(
    tmp_path: Path, arguments: str, key: str, value: str, written: str | None
) -> None:
    held = settings(tmp_path, volcano(arguments))
    assert held[key] == Setting(key, value, written)


@pytest.mark.parametrize(
    "text, expected",
    [
        pytest.param(volcano("binpack.weight: 0"), "off: binpack.weight is 0", id="weight-0"),
        pytest.param(
            volcano("binpack.weight: 3", extra="    enableNodeOrder: false\n"),
            "off: enableNodeOrder is false",
            id="node-order-disabled",
        ),
        pytest.param(
            'actions: "allocate"\ntiers:\n- plugins:\n  - name: binpack\n  - name: binpack\n',
            "on, scored 2 times per node",
            id="listed-twice",
        ),
        pytest.param(
            'actions: "allocate"\ntiers:\n- plugins:\n  - name: gang\n',
            "off: not in any tier",
            id="absent",
        ),
    ],
)
def test_volcano_binpack_switch(tmp_path: Path, text: str, expected: str) -> None:
    assert settings(tmp_path, text)["binpack"].value.startswith(expected)


def test_volcano_rejected_file(tmp_path: Path) -> None:
    held = settings(tmp_path, volcano("binpack.weight: 10").replace("allocate", "alocate"))
    assert held == {
        "status": Setting(
            "status",
            "rejected: Volcano cannot load this file and keeps its previous configuration",
        )
    }


def test_volcano_nodeorder_and_unknown_plugins(tmp_path: Path) -> None:
    held = settings(
        tmp_path,
        'actions: "allocate"\ntiers:\n- plugins:\n  - name: nodeorder\n    arguments:\n'
        "      leastrequested.weight: 0\n  - name: binpak\n",
    )
    assert held["nodeorder.leastrequested.weight"] == Setting(
        "nodeorder.leastrequested.weight", "0"
    )
    assert held["tier 1 plugins"].value == "nodeorder, binpak (unknown to Volcano: skipped)"
    assert held["binpack"].value == "off: not in any tier"


KUBE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: packer
  plugins:
    score:
      enabled:
      - name: NodeResourcesFit
        weight: 5
      - name: NodeResourcesBalancedAllocation
        weight: 0
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: RequestedToCapacityRatio
        resources:
        - name: cpu
          weight: 0
        requestedToCapacityRatio:
          shape:
          - {utilization: 0, score: 0}
          - {utilization: 100, score: 10}
- schedulerName: spreader
"""


def test_kube_profiles_as_held(tmp_path: Path) -> None:
    held = settings(tmp_path, KUBE)
    assert held["status"].value == "starts"
    assert held["profiles"].value == "packer, spreader"
    assert held["profile packer: NodeResourcesFit weight"].value == "5"
    assert held["profile packer: NodeResourcesFit scoringStrategy.type"].value == (
        "RequestedToCapacityRatio"
    )
    # weight 0 is held as 1; the diff shows what was written next to it
    resources = held["profile packer: NodeResourcesFit scoringStrategy.resources"]
    assert (resources.value, resources.written) == ("cpu 1", "cpu 0")
    balanced = held["profile packer: NodeResourcesBalancedAllocation weight"]
    assert (balanced.value, balanced.written) == ("1", "0")
    assert held["profile packer: NodeResourcesFit weight"].written is None
    shape = held["profile packer: NodeResourcesFit scoringStrategy.requestedToCapacityRatio.shape"]
    assert shape.value == "0% -> 0, 100% -> 10"
    assert held["profile spreader: NodeResourcesFit scoringStrategy.type"].value == (
        "LeastAllocated"
    )
    assert held["profile spreader: NodeResourcesFit weight"].value == "1"


def test_kube_refused(tmp_path: Path) -> None:
    held = settings(tmp_path, KUBE.replace("RequestedToCapacityRatio", "MostAlocated"))
    assert list(held) == ["status"]
    assert held["status"].value.startswith("refuses to start")


def test_unreadable_file_is_one_view(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("actions: [\n")
    [view] = config_views(str(path), CheckOptions())
    assert view.kind == "unreadable"
    assert view.settings[0].value.startswith("cannot be read: ")


def test_inline_config_of_a_fixture(tmp_path: Path) -> None:
    path = tmp_path / "inline.policytest.yaml"
    path.write_text(
        "apiVersion: policytest/v1\nkind: PolicyTest\nmetadata: {name: inline}\n"
        "scheduler:\n  volcano:\n    actions: allocate\n    tiers:\n    - plugins:\n"
        "      - name: binpack\n        arguments: {binpack.weight: 7}\n"
        "cluster:\n  nodes:\n  - {name: a, allocatable: {cpu: '1'}}\n"
        "cases:\n- {name: c, pod: {requests: {cpu: 100m}}, expect: {top: a}}\n"
    )
    [view] = config_views(str(path), CheckOptions())
    assert view.label == "fixture inline, inline config"
    assert Setting("binpack.weight", "7") in view.settings


def test_compare_settings_order_and_absence() -> None:
    before = [Setting("a", "1"), Setting("b", "2"), Setting("gone", "x")]
    after = [Setting("b", "2", "written"), Setting("a", "1"), Setting("new", "y")]
    assert [(c.key, c.before, c.after) for c in compare_settings(before, after)] == [
        ("b", Setting("b", "2"), Setting("b", "2", "written")),
        ("new", None, Setting("new", "y")),
        ("gone", Setting("gone", "x"), None),
    ]


def test_compare_views_pairs_by_label_then_order() -> None:
    one = ConfigView("ConfigMap a, key conf", "Volcano", (Setting("binpack.weight", "1"),))
    renamed = ConfigView("ConfigMap b, key conf", "Volcano", (Setting("binpack.weight", "2"),))
    [diff] = compare_views("c.yaml", [one], [renamed])
    assert diff.change == "changed"
    assert diff.document == "ConfigMap b, key conf"
    [added] = compare_views("c.yaml", None, [one])
    assert added.change == "added"
    assert added.settings[0].before is None
    [same] = compare_views("c.yaml", [one], [one])
    assert same.change == "unchanged" and same.settings == ()


def finding(
    line: int, message: str = "negative", rule: str = "VB002", path: str = "c.yaml"
) -> Finding:
    return Finding(path, line, 3, rule, Severity.ERROR, message)


def test_findings_match_by_file_rule_and_message_not_line() -> None:
    before = [("c.yaml", finding(4)), ("c.yaml", finding(9, "quoted", "VB001"))]
    after = [("c.yaml", finding(6)), ("c.yaml", finding(12)), ("o.yaml", finding(6, path="o.yaml"))]
    introduced, resolved = compare_findings(before, after)
    # the finding that moved from line 4 is not new; a second one is, and so is another file's
    assert introduced == (finding(12), finding(6, path="o.yaml"))
    assert resolved == (finding(9, "quoted", "VB001"),)
