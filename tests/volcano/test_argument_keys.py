"""The per-release model of the argument keys Volcano's plugins and actions read.

The table must equal, release by release, the reads extracted from every tag's plugin and
action sources (``tests/data/volcano/argument-reads.txt``); the plugins with rules of their
own must accept exactly the table's keys; and every release where an owner's keys change
has a conf that one release reads and the other ignores.
"""

from __future__ import annotations

import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from policytest.core.releases import Version
from policytest.volcano import argument_keys, versions
from policytest.volcano.argument_keys import modelled, reads, rows
from policytest.volcano.arguments import ACTIONS_CHECKED, TABLE_CHECKED
from policytest.volcano.binpack_args import KNOWN_KEYS as BINPACK_KEYS
from policytest.volcano.plugin_checks import DEVICESHARE_FLAGS
from tests.conftest import of_rule
from tests.volcano.helpers import DATA, Check

READS = DATA / "argument-reads.txt"
OWN_RULES = {"binpack", "nodeorder", "deviceshare", "resource-strategy-fit"}
Owner = tuple[Version, str, str]  # release, plugin or action, name


def _extracted() -> dict[Owner, set[tuple[str, str]]]:
    found: dict[Owner, set[tuple[str, str]]] = defaultdict(set)
    for line in READS.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        tag, of, owner, key, kind = line.split()
        major, minor = tag.split(".")[:2]
        keys = found[(int(major), int(minor)), of, owner]  # an owner reading nothing: empty
        if key != argument_keys.NOTHING:
            keys.add((key, kind))
    return found


EXTRACTED = _extracted()


@pytest.mark.parametrize(
    "owner", sorted(EXTRACTED), ids=[f"{r[0]}.{r[1]}-{o}" for r, _, o in sorted(EXTRACTED)]
)
def test_the_table_is_what_each_tag_reads(owner: Owner) -> None:
    release, of, name = owner
    assert modelled(name, release, of)
    assert {(row.key, row.type) for row in reads(name, release, of)} == EXTRACTED[owner]


def test_every_release_plugin_and_action_of_the_sources_was_compared() -> None:
    assert {release for release, _, _ in EXTRACTED} == {(1, minor) for minor in range(9, 17)}
    assert {(row.of, row.owner) for row in rows()} == {(of, o) for _, of, o in EXTRACTED}


def test_every_modelled_owner_exists_where_it_is_read() -> None:
    for row in rows():
        table = versions.PLUGINS if row.of == "plugin" else versions.ACTIONS
        since, until = table[row.owner]
        assert since <= row.since and row.until <= max(until, (99, 0)), row


def test_checked_owners_are_the_modelled_ones_without_rules_of_their_own() -> None:
    plugins = {row.owner for row in rows() if row.of == "plugin"}
    assert set(TABLE_CHECKED) == plugins - OWN_RULES
    assert set(ACTIONS_CHECKED) == {row.owner for row in rows() if row.of == "action"}


def test_binpack_rules_accept_the_tables_keys() -> None:
    table = {row.key for row in reads("binpack", (1, 15))}
    assert table == {*BINPACK_KEYS, "binpack.resources.<name>"}


def test_deviceshare_rules_read_the_tables_flags_as_flags() -> None:
    kinds = {row.key: row.type for row in rows() if row.owner == "deviceshare"}
    assert {k for k, kind in kinds.items() if kind == "bool"} == set(DEVICESHARE_FLAGS)


@pytest.mark.parametrize(
    ("key", "version", "read"),
    [
        ("deviceshare.KnownGeometriesCMName", "1.11", False),
        ("deviceshare.KnownGeometriesCMName", "1.12", True),
        ("deviceshare.AscendHAMiVNPUEnable", "1.13", False),
        ("deviceshare.AscendHAMiVNPUEnable", "1.14", True),
    ],
)
def test_deviceshare_keys_per_release(
    check_text: Check, key: str, version: str, read: bool
) -> None:
    value = "true" if key.endswith("Enable") else "mig-geometries"
    found = of_rule(check_text(conf("deviceshare", f"{key}: {value}"), version), "VD004")
    assert (found == []) is read, found
    if not read:
        assert "and later): it is ignored" in found[0].message


def test_a_key_is_found_with_the_name_it_fills_in() -> None:
    found = {(row.key, name) for row, name in argument_keys.readers("predicate.resources.gpu.cpu")}
    assert found == {("predicate.resources.<name>.cpu", "gpu")}
    assert argument_keys.readers("predicate.resources..cpu") == ()


def test_the_table_is_parsed_once_and_only_when_asked() -> None:
    fresh = "import policytest.volcano.argument_keys as a; assert a.rows.cache_info().currsize == 0"
    subprocess.run([sys.executable, "-c", fresh], check=True)  # importing parses nothing
    rows.cache_clear()
    assert rows() is rows()
    assert rows.cache_info().hits == 1


def test_an_owner_is_modelled_only_where_the_sources_say_what_it_reads() -> None:
    assert modelled("overcommit", (1, 16)) and modelled("drf", (1, 15))
    assert not modelled("reservation", (1, 15)) and not modelled("gangpreempt", (1, 14), "action")
    assert reads("drf", (1, 15)) == () and modelled("enqueue", (1, 15), "action")


HEAD = 'actions: "enqueue, allocate, backfill"\ntiers:\n- plugins:\n'


def conf(plugin: str, *arguments: str) -> str:
    body = "".join(f"      {line}\n" for line in arguments)
    return HEAD + f"  - name: {plugin}\n    arguments:\n" + body


def configuration(action: str, *arguments: str) -> str:
    body = "".join(f"    {line}\n" for line in arguments)
    return HEAD + f"  - name: gang\nconfigurations:\n- name: {action}\n  arguments:\n" + body


def unread(check_text: Check, text: str, version: str) -> list[str]:
    return [f.message for f in of_rule(check_text(text, version), "VC012")]


# (plugin, argument, last release that reads it or None, first release that reads it)
CHANGES = [
    ("predicates", "predicate.ProportionalEnable: true", "1.12", "1.13"),
    ("predicates", 'predicate.resources: "nvidia.com/gpu"', "1.12", "1.13"),
    ("predicates", "predicate.DynamicResourceAllocationEnable: true", "1.14", "1.15"),
    ("predicates", "predicate.VolumeBindingEnable: false", "1.12", "1.11"),
    ("predicates", "volumebinding.weight: 2", "1.12", "1.11"),
    ("predicates", "dynamicresources.filterTimeoutSeconds: 10", "1.14", "1.13"),
    ("capacity", "ancestorReclaimLevel: 2", "1.15", "1.14"),
    ("nodegroup", "strict: false", "1.13", "1.12"),
    ("nodegroup", "enablePreferredOrder: true", "1.15", "1.14"),
    ("extender", "extender.allocateFuncVerb: allocate", "1.13", "1.12"),
    ("extender", "extender.managedResources: [nvidia.com/gpu]", "1.13", "1.12"),
    ("extender", "extender.jobEnqueuedVerb: enqueued", "1.16", "1.15"),
    ("network-topology-aware", "hypernode.gradient.evict.max-hypernodes: 2", "1.15", "1.14"),
    ("usage", "thresholds: {cpu: 80}", "1.15", "1.16"),
    ("usage", "estimator: {request_ratio: 0.7}", "1.16", "1.15"),
]
"""Every plugin key whose releases differ (network-topology-aware's HyperNode keys have
VT003)."""

ACTION_CHANGES = [
    ("allocate", "predicateErrorCacheEnable: false", "1.10", "1.9"),
    ("backfill", "predicateErrorCacheEnable: false", "1.10", "1.9"),
    ("preempt", "predicateErrorCacheEnable: false", "1.10", "1.9"),
    ("reclaim", "predicateErrorCacheEnable: false", "1.14", "1.13"),
    ("preempt", "enableTopologyAwarePreemption: true", "1.13", "1.12"),
    ("preempt", "minCandidateNodesPercentage: 10", "1.13", "1.12"),
    ("preempt", "maxCandidateNodesAbsolute: 100", "1.13", "1.12"),
]
"""Every action key whose releases differ (gangpreempt and gangreclaim exist from 1.15,
with all their keys)."""


@pytest.mark.parametrize(
    ("of", "owner", "argument", "reads_in", "ignored_in"),
    [("plugin", *change) for change in CHANGES]
    + [("action", *change) for change in ACTION_CHANGES],
)
def test_a_key_is_read_exactly_in_the_releases_that_read_it(
    check_text: Check, of: str, owner: str, argument: str, reads_in: str, ignored_in: str
) -> None:
    text = conf(owner, argument) if of == "plugin" else configuration(owner, argument)
    assert unread(check_text, text, reads_in) == []
    (message,) = unread(check_text, text, ignored_in)
    who = owner if of == "plugin" else f"the {owner} action"
    assert message.startswith(
        f"{who} does not read `{argument.split(':')[0]}` in Volcano {ignored_in}"
    )


def test_enqueues_overcommit_factor_belongs_to_the_overcommit_plugin(check_text: Check) -> None:
    (message,) = unread(check_text, configuration("enqueue", "overcommit-factor: 1.2"), "1.15")
    assert "the enqueue action does not read `overcommit-factor`" in message
    assert "it is overcommit's argument: set it on the `overcommit` plugin's entry" in message


def test_action_options_from_a_tutorial_point_to_what_is_read(check_text: Check) -> None:
    text = (
        'actions: "enqueue, allocate, preempt, reclaim, backfill"\n'
        "tiers:\n- plugins:\n  - name: gang\n"
        "configurations:\n"
        '- name: enqueue\n  arguments:\n    "overcommit-factor": "2.0"\n'
        '- name: reclaim\n  arguments:\n    "reclaim.factor": "0.5"\n'
    )
    enqueue, reclaim = unread(check_text, text, "1.15")
    assert "it is overcommit's argument" in enqueue
    assert "the reclaim action reads only `predicateErrorCacheEnable`: use it" in reclaim
    (nothing,) = unread(check_text, text.replace("reclaim.factor", "x"), "1.13")[1:]
    assert "the reclaim action reads no argument at all in Volcano 1.13" in nothing


def test_a_preempt_option_no_release_reads_gets_the_real_one(check_text: Check) -> None:
    text = configuration("preempt", "enableTopologyAwarePreempt: true")
    (message,) = unread(check_text, text, "1.15")
    assert "did you mean `enableTopologyAwarePreemption`?" in message


def test_an_action_key_on_the_wrong_action_says_which_reads_it(check_text: Check) -> None:
    (message,) = unread(check_text, configuration("enqueue", "maxDomains: 2"), "1.15")
    assert "it is the gangpreempt action's argument" in message
    assert "`configurations` entry named `gangpreempt`" in message


def test_only_the_first_configuration_of_an_action_is_read(check_text: Check) -> None:
    text = configuration("preempt", "predicateErrorCacheEnable: false") + (
        "- name: preempt\n  arguments:\n    anything: 1\n"
    )
    assert unread(check_text, text, "1.15") == []


def test_an_action_value_of_the_wrong_type_is_ignored(check_text: Check) -> None:
    text = configuration("preempt", "minCandidateNodesPercentage: 10%")
    (finding,) = of_rule(check_text(text, "1.15"), "VC013")
    assert "the preempt action reads it as int" in finding.message
    assert "write an integer" in finding.message


@pytest.mark.parametrize("plugin", ["drf", "gang", "proportion", "priority", "conformance"])
def test_a_plugin_that_reads_nothing_says_so(check_text: Check, plugin: str) -> None:
    (message,) = unread(check_text, conf(plugin, "enableHierarchy: true"), "1.15")
    assert f"{plugin} reads no argument at all in Volcano 1.15" in message


def test_tdm_reads_any_key_with_its_prefix_and_nothing_is_guessed(check_text: Check) -> None:
    read = conf("tdm", 'tdm.revocable-zone.rz1: "10:00-21:00"', "tdm.evict.period: 1m")
    assert unread(check_text, read, "1.15") == []
    (message,) = unread(check_text, conf("tdm", 'tdm.revocable_zone.rz1: "10:00"'), "1.15")
    assert "tdm reads any key containing `tdm.revocable-zone.`" in message
    assert "did you mean" not in message


def test_network_topology_awares_own_keys_are_left_to_its_rules(check_text: Check) -> None:
    text = conf("network-topology-aware", "hypernode.binpack.cpu: 2", "weigth: 2")
    found = check_text(text, "1.13")
    assert [f.message for f in of_rule(found, "VT003")] != []
    (message,) = unread(check_text, text, "1.13")
    assert "did you mean `weight`?" in message


def test_rescheduling_thresholds_at_the_top_say_where_they_are_read(check_text: Check) -> None:
    text = conf("rescheduling", "thresholds: {cpu: 20}", "strategies: [{name: lowNodeUtilization}]")
    (message,) = unread(check_text, text, "1.15")
    assert "rescheduling does not read `thresholds`" in message
    assert "read only inside an item of `strategies`, under its `params`" in message


def test_a_table_checked_plugin_keeps_its_whole_values_unjudged(check_text: Check) -> None:
    text = conf("rescheduling", "interval: 5m", "strategies: [{name: lowNodeUtilization}]")
    found = check_text(text, "1.15")
    assert of_rule(found, "VC012") == of_rule(found, "VC013") == []


def test_proportional_keys_say_what_replaced_them(check_text: Check) -> None:
    (message,) = unread(
        check_text, conf("predicates", "predicate.ProportionalEnable: true"), "1.15"
    )
    assert "predicates reads it in Volcano 1.9 to 1.12 only" in message
    assert "resource-strategy-fit's `proportional` argument does this now" in message


@pytest.mark.parametrize("version", ["1.9", "1.12", "1.15", "1.16"])
def test_predicate_vgpu_is_deviceshares_key(check_text: Check, version: str) -> None:
    (message,) = unread(check_text, conf("predicates", "predicate.VGPUEnable: true"), version)
    assert "deviceshare reads `deviceshare.VGPUEnable`" in message
    assert "`deviceshare` plugin's entry" in message


@pytest.mark.parametrize("key", ["cpu-overcommit-ratio", "mem-overcommit-ratio"])
def test_overcommit_ratios_point_to_the_one_factor(check_text: Check, key: str) -> None:
    (message,) = unread(check_text, conf("overcommit", f"{key}: 2.0"), "1.15")
    assert f"overcommit does not read `{key}`" in message
    assert "overcommit reads only `overcommit-factor`" in message


def test_overcommit_in_1_16_reads_the_same_factor(check_text: Check) -> None:
    (message,) = unread(check_text, conf("overcommit", "cpu-overcommit-ratio: 2.0"), "1.16")
    assert "overcommit reads only `overcommit-factor`" in message


def test_a_key_of_another_plugin_says_whose_it_is(check_text: Check) -> None:
    (message,) = unread(check_text, conf("predicates", "binpack.weight: 10"), "1.15")
    assert "it is binpack's argument" in message


def test_a_slip_gets_the_real_key(check_text: Check) -> None:
    (message,) = unread(
        check_text, conf("predicates", "predicate.NodeAfinityEnable: false"), "1.15"
    )
    assert "did you mean `predicate.NodeAffinityEnable`?" in message


def test_a_per_resource_key_is_read_only_for_listed_resources(check_text: Check) -> None:
    listed = conf(
        "predicates",
        'predicate.resources: "nvidia.com/gpu"',
        "predicate.resources.nvidia.com/gpu.cpu: 4",
        "predicate.resources.amd.com/gpu.memory: 8",
    )
    (finding,) = of_rule(check_text(listed, "1.12"), "VC012")
    assert (finding.line, finding.column) == (8, 7)
    assert "read only for a resource listed in `predicate.resources`" in finding.message
    assert "`amd.com/gpu` is not listed" in finding.message


@pytest.mark.parametrize(
    ("argument", "version", "ignored"),
    [
        ('predicate.CacheEnable: "true"', "1.14", True),  # GetBool parses strings from 1.15
        ('predicate.CacheEnable: "true"', "1.15", False),
        ("predicate.resources.gpu.cpu: 2", "1.12", False),  # an int is a float to GetFloat64
        ("predicate.resources.gpu.cpu: true", "1.12", True),
        ("overcommit-factor: 2", "1.15", False),
    ],
)
def test_value_types_as_each_release_reads_them(
    check_text: Check, argument: str, version: str, ignored: bool
) -> None:
    plugin = "overcommit" if argument.startswith("overcommit") else "predicates"
    extra = ('predicate.resources: "gpu"',) if "resources.gpu" in argument else ()
    found = of_rule(check_text(conf(plugin, *extra, argument), version), "VC013")
    assert bool(found) is ignored, found


LOADED = (
    "import sys\n"
    "from policytest.cli import main\n"
    "try:\n"
    "    main(['validate', sys.argv[1]])\n"
    "except SystemExit:\n"
    "    pass\n"
    "print('policytest.volcano.argument_keys' in sys.modules, file=sys.stderr)\n"
)


@pytest.mark.parametrize(
    ("text", "loaded"),
    [
        (HEAD + "  - name: gang\n  - name: binpack\n    arguments: {binpack.weight: 2}\n", False),
        (HEAD + "  - name: drf\n", False),
        (conf("drf", "enableHierarchy: true"), True),
        (configuration("preempt", "predicateErrorCacheEnable: false"), True),
    ],
)
def test_the_hook_path_loads_the_table_only_for_arguments_it_judges(
    tmp_path: Path, text: str, loaded: bool
) -> None:
    path = tmp_path / "volcano-scheduler.conf"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", LOADED, str(path)], capture_output=True, text=True, check=True
    )
    assert done.stderr.strip().splitlines()[-1] == str(loaded)
