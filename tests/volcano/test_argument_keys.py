"""The per-release model of the argument keys Volcano's plugins read.

The table's ``upstream`` rows must equal, release by release, the reads extracted from
every tag's plugin sources (``tests/data/volcano/argument-reads.txt``); the plugins with
rules of their own must accept exactly the table's keys; and every release where a
plugin's keys change has a conf that one release reads and the other ignores.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

from policytest.core.releases import Version
from policytest.volcano import argument_keys, versions
from policytest.volcano.argument_keys import modelled, reads, rows
from policytest.volcano.arguments import TABLE_CHECKED
from policytest.volcano.binpack_args import KNOWN_KEYS as BINPACK_KEYS
from policytest.volcano.plugin_checks import DEVICESHARE_FLAGS
from tests.conftest import of_rule
from tests.volcano.helpers import DATA, Check

READS = DATA / "argument-reads.txt"
OWN_RULES = {"binpack", "nodeorder", "deviceshare", "resource-strategy-fit"}


def _extracted() -> dict[tuple[Version, str], set[tuple[str, str]]]:
    found: dict[tuple[Version, str], set[tuple[str, str]]] = defaultdict(set)
    for line in READS.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        tag, plugin, key, kind = line.split()
        major, minor = tag.split(".")[:2]
        found[(int(major), int(minor)), plugin].add((key, kind))
    return found


EXTRACTED = _extracted()


@pytest.mark.parametrize(
    ("release", "plugin"),
    sorted(EXTRACTED),
    ids=[f"{r[0]}.{r[1]}-{p}" for r, p in sorted(EXTRACTED)],
)
def test_the_table_is_what_each_tag_reads(release: Version, plugin: str) -> None:
    table = {(row.key, row.type) for row in reads(plugin, release) if row.upstream}
    assert table == EXTRACTED[release, plugin]


def test_every_release_and_plugin_of_the_sources_was_compared() -> None:
    releases = {release for release, _ in EXTRACTED}
    assert releases == {(1, minor) for minor in range(9, 17)}
    upstream = {row.plugin for row in rows() if row.upstream}
    assert upstream == {plugin for _, plugin in EXTRACTED}


def test_transcribed_rows_are_only_for_plugins_without_sources() -> None:
    transcribed = {row.plugin for row in rows() if not row.upstream}
    assert transcribed == {"overcommit"}
    assert not transcribed & {plugin for _, plugin in EXTRACTED}


def test_every_modelled_plugin_is_registered_where_it_is_read() -> None:
    for row in rows():
        since, until = versions.PLUGINS[row.plugin]
        assert since <= row.since and row.until <= max(until, (99, 0)), row


def test_checked_plugins_are_the_modelled_ones_without_rules_of_their_own() -> None:
    plugins = {row.plugin for row in rows()}
    assert set(TABLE_CHECKED) == plugins - OWN_RULES


def test_binpack_rules_accept_the_tables_keys() -> None:
    table = {row.key for row in reads("binpack", (1, 15))}
    assert table == {*BINPACK_KEYS, "binpack.resources.<name>"}


def test_deviceshare_rules_read_the_tables_flags_as_flags() -> None:
    kinds = {row.key: row.type for row in rows() if row.plugin == "deviceshare"}
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
    rows.cache_clear()
    assert rows.cache_info().currsize == 0
    assert rows() is rows()
    assert rows.cache_info().hits == 1


def test_overcommit_is_not_modelled_where_its_keys_are_not_known() -> None:
    assert modelled("overcommit", (1, 15)) and not modelled("overcommit", (1, 16))
    assert not modelled("drf", (1, 15))


HEAD = 'actions: "enqueue, allocate, backfill"\ntiers:\n- plugins:\n'


def conf(plugin: str, *arguments: str) -> str:
    body = "".join(f"      {line}\n" for line in arguments)
    return HEAD + f"  - name: {plugin}\n    arguments:\n" + body


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
]


@pytest.mark.parametrize(("plugin", "argument", "reads_in", "ignored_in"), CHANGES)
def test_a_key_is_read_exactly_in_the_releases_that_read_it(
    check_text: Check, plugin: str, argument: str, reads_in: str, ignored_in: str
) -> None:
    text = conf(plugin, argument)
    assert unread(check_text, text, reads_in) == []
    (message,) = unread(check_text, text, ignored_in)
    assert f"in Volcano {ignored_in}" in message


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


def test_overcommit_in_1_16_is_not_judged(check_text: Check) -> None:
    text = conf("overcommit", "cpu-overcommit-ratio: 2.0")
    assert unread(check_text, text, "1.16") == []


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
