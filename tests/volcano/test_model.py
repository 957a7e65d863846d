"""The model the scorer consumes: weights exactly as Volcano computes them, node-order
calls, defaults, releases, and positions after the scheduler's ``strings.TrimSpace``."""

from __future__ import annotations

import pytest

from policytest.core.options import CheckOptions
from policytest.core.releases import UnsupportedRelease
from policytest.read.source import Document
from policytest.scoring.weights import BinpackWeights, NodeOrderWeights
from policytest.volcano.binpack_args import binpack_weights
from policytest.volcano.check import as_scheduler_reads, check, load
from policytest.volcano.conf import VolcanoConf
from policytest.volcano.gotext import atoi, trim_space
from policytest.volcano.nodeorder_args import nodeorder_weights
from policytest.volcano.versions import VersionError, parse_version, release
from tests.volcano.helpers import OPTIONS, documents
from tests.volcano.test_rules import HEAD, binpack, configmap


def loaded(text: str, version: str | None = None) -> VolcanoConf:
    options = OPTIONS if version is None else CheckOptions(volcano_version=version)
    conf, findings = load(documents(text)[0], options)
    assert conf is not None, findings
    return conf


def test_volcanos_own_argument_test() -> None:
    """binpack_test.go ``TestArguments``: a negative resource weight becomes 1."""
    arguments = {
        "binpack.weight": 10,
        "binpack.cpu": 5,
        "binpack.memory": 2,
        "binpack.resources": "nvidia.com/gpu, example.com/foo",
        "binpack.resources.nvidia.com/gpu": 7,
        "binpack.resources.example.com/foo": -3,
    }
    expected = {"nvidia.com/gpu": 7, "example.com/foo": 1, "cpu": 5, "memory": 2}
    assert binpack_weights(arguments) == BinpackWeights(10, 5, 2, expected)
    conf = loaded(binpack(*(f"{key}: {value}" for key, value in arguments.items())))
    assert conf.binpack == BinpackWeights(10, 5, 2, expected)


def test_cpu_and_memory_weights_are_always_in_the_resource_map() -> None:
    weights = BinpackWeights(cpu=5, resources={"cpu": 9, "nvidia.com/gpu": 2})
    assert dict(weights.resources) == {"cpu": 5, "memory": 1, "nvidia.com/gpu": 2}
    assert hash(weights) == hash(BinpackWeights(cpu=5, resources={"nvidia.com/gpu": 2}))


def test_binpack_defaults_and_string_arguments_of_old_releases() -> None:
    assert binpack_weights(None) == BinpackWeights()
    old = {"binpack.weight": "10", "binpack.cpu": "010", "binpack.memory": "0x0A"}
    assert binpack_weights(old, string_arguments=True) == BinpackWeights(10, 10, 1)
    assert binpack_weights(old) == BinpackWeights()
    # Every judged release (1.9+) reads integers; 1.5's string arguments are not judged.
    assert loaded(binpack('binpack.weight: "10"'), "1.9").binpack == BinpackWeights()


def test_nodeorder_weights_are_read_without_clamping() -> None:
    assert nodeorder_weights(None) == NodeOrderWeights()
    arguments = {"leastrequested.weight": -2, "podtopologyspread.weight": "5", "x": 1}
    assert nodeorder_weights(arguments) == NodeOrderWeights(leastrequested=-2)
    assert loaded(binpack("binpack.weight: 10")).nodeorder == NodeOrderWeights()


def test_plugins_that_make_no_call_have_no_weights() -> None:
    conf = loaded(HEAD)
    assert (conf.binpack, conf.nodeorder, conf.node_order_calls) == (None, None, ())
    off = loaded(binpack("binpack.weight: 0"))
    assert off.binpack is None and off.binpack_calls == 0 and off.nodeorder_calls == 1
    disabled = loaded(binpack("binpack.weight: 10", flags="    enableNodeOrder: false\n"))
    assert disabled.binpack is None


@pytest.mark.parametrize(
    ("first", "second", "calls", "weight"),
    [
        ("binpack.weight: 2", "binpack.weight: 7", 2, 7),
        ("binpack.weight: 2", "binpack.weight: 0", 2, 2),
        ("binpack.weight: 0", "binpack.weight: 4", 2, 4),
    ],
)
def test_duplicate_entries_each_call_the_last_registered_weights(
    first: str, second: str, calls: int, weight: int
) -> None:
    text = binpack(first) + f"  - name: binpack\n    arguments:\n      {second}\n"
    conf = loaded(text)
    assert conf.binpack_calls == calls
    assert {call.weights for call in conf.calls("binpack")} == {BinpackWeights(weight=weight)}
    assert [call.caller for call in conf.calls("binpack")] == list(conf.entries("binpack"))


def test_a_disabled_last_entry_still_lends_its_weights() -> None:
    text = binpack("binpack.weight: 2") + (
        "  - name: binpack\n    enableNodeOrder: false\n    arguments:\n      binpack.weight: 9\n"
    )
    conf = loaded(text)
    assert conf.binpack_calls == 1 and conf.binpack == BinpackWeights(weight=9)


def test_defaults_of_flags_and_actions() -> None:
    conf = loaded(HEAD + "  - name: drf\n    enablePreemptable: false\n")
    predicates, drf = conf.plugins
    assert conf.actions == ("enqueue", "allocate", "backfill")
    assert predicates.flags["enableNodeOrder"] is True
    assert predicates.flags["enableHierarchy"] is None
    assert predicates.flags["enabledClusterOrder"] is None
    assert drf.flags["enablePreemptable"] is False and not drf.enabled("enablePreemptable")
    assert conf.release == "1.15"


def test_a_rejected_file_has_no_model_but_all_its_findings() -> None:
    conf, findings = load(documents(HEAD.replace("backfill", "backfil"))[0], OPTIONS)
    assert conf is None
    assert [f.rule for f in findings] == ["VC002"]


def test_go_trim_space_is_not_python_strip() -> None:
    assert trim_space("\u00a0\u3000 allocate\t\n") == "allocate"
    assert trim_space("\x1fallocate") == "\x1fallocate"
    assert trim_space("\u200ballocate") == "\u200ballocate"
    assert (atoi("+10"), atoi("010"), atoi("0x0A"), atoi("1_0"), atoi(" 1")) == (
        10,
        10,
        None,
        None,
        None,
    )


def test_a_conf_that_parses_only_after_trimming() -> None:
    text = "   " + HEAD.replace("backfill", "backfil")
    document = as_scheduler_reads("volcano-scheduler.conf", text, OPTIONS)
    assert isinstance(document, Document)
    (finding,) = check(document, OPTIONS)
    assert (finding.rule, finding.line, finding.column) == ("VC002", 1, 33)


def test_trimming_can_break_a_conf_and_the_error_points_into_the_file() -> None:
    text = "  " + HEAD.replace("\n", "\n  ") + "\n"
    (document,) = documents(text)
    conf, findings = load(document, OPTIONS)
    assert conf is None
    assert [(f.rule, f.line) for f in findings] == [("VC001", 2)]
    assert "Volcano trims the file" in findings[0].message


def test_leading_blank_lines_in_a_configmap_keep_positions() -> None:
    text = configmap("\n\n" + binpack('binpack.weight: "10"'))
    (finding,) = [f for f in check(documents(text)[0], OPTIONS) if f.rule == "VB001"]
    assert (finding.line, finding.column) == (17, 27)


def test_positions_inside_a_one_line_json_configmap() -> None:
    conf = 'actions: \\"enqueue, allocat\\"\\ntiers: []\\n'
    text = (
        '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "v"},\n'
        f' "data": {{"volcano-scheduler.conf": "{conf}"}}}}\n'
    )
    (finding,) = check(documents(text, "cm.json")[0], OPTIONS)
    assert finding.rule == "VC002"
    assert (finding.line, finding.column) == (2, 2 + text.splitlines()[1].index("allocat") - 1)


def test_release_tables() -> None:
    assert parse_version("v1.16.0-alpha") == (1, 16)
    with pytest.raises(VersionError):
        parse_version("latest")
    assert not release("1.9").string_arguments and "elect" not in release("1.9").actions
    assert "nodegroup" in release("1.9").plugins
    assert "gangpreempt" in release("1.15").actions and "gangpreempt" not in release("1.14").actions
    rsf = "resource-strategy-fit"
    assert rsf in release("1.13").plugins and rsf not in release("1.12").plugins
    for outside in ("9.9", "0.9", "1.8", "1.17", "nonsense"):
        with pytest.raises(UnsupportedRelease, match=r"it judges 1\.9 to 1\.16"):
            release(outside)


@pytest.mark.parametrize(
    ("version", "text", "rule"),
    [
        ("1.12", HEAD + "  - name: resource-strategy-fit\n", "VC004"),
        ("1.14", HEAD.replace("backfill", "gangpreempt"), "VC002"),
    ],
)
def test_older_releases_judge_differently(version: str, text: str, rule: str) -> None:
    assert rule in {
        f.rule for f in check(documents(text)[0], CheckOptions(volcano_version=version))
    }
    assert rule not in {f.rule for f in check(documents(text)[0], OPTIONS)} or rule == "VC001"


def test_elect_and_reserve_are_named_as_removed_in_1_6() -> None:
    text = HEAD.replace("enqueue,", "enqueue, elect, reserve,")
    found = check(documents(text)[0], CheckOptions(volcano_version="1.9"))
    assert [f.rule for f in found] == ["VC002", "VC002"]
    assert all("removed in Volcano 1.6" in f.message for f in found)


def test_a_list_item_is_checked_in_place() -> None:
    text = 'kind: List\nitems:\n- actions: "enqueue, allocat"\n  tiers: []\n'
    (finding,) = check(documents(text)[0], OPTIONS)
    assert (finding.rule, finding.line, finding.column) == ("VC002", 3, 22)
