"""predicates' arguments: which ``predicate.*`` keys each release reads, and what it
does with a value it cannot read.

``plugins/predicates/predicates.go`` switches each kube-scheduler filter it wraps on or
off with a ``predicate.<Filter>Enable`` flag read by ``Arguments.GetBool`` over a
default (true, except ``CacheEnable``): a value it cannot read is ignored with a log
line and the default stays. The set of flags changed between releases: the
proportional predicate (``predicate.ProportionalEnable``, ``predicate.resources``)
exists up to 1.12, ``VolumeBindingEnable`` from 1.12, and ``DynamicResourceAllocationEnable``
is read from 1.12 to 1.14 only (from 1.15 the DynamicResourceAllocation feature gate
alone decides). A flag switches the filter only: nodeorder still scores with the same
plugin (``PodTopologySpreadEnable: false`` keeps spreading's score).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final

from policytest.core.findings import Finding
from policytest.core.suggest import did_you_mean
from policytest.volcano import plugin_rules as rules
from policytest.volcano.arguments import get_bool
from policytest.volcano.entry_check import EntryCheck

if TYPE_CHECKING:
    from policytest.read.source import Document
    from policytest.volcano.entry import PluginEntry
    from policytest.volcano.versions import Release

__all__ = ["PREDICATES", "predicate_flags", "predicates_findings"]

PREDICATES: Final = "predicates"
PREFIX: Final = "predicate."
NODE_AFFINITY: Final = "predicate.NodeAffinityEnable"
NODE_PORTS: Final = "predicate.NodePortsEnable"
TAINT_TOLERATION: Final = "predicate.TaintTolerationEnable"
POD_AFFINITY: Final = "predicate.PodAffinityEnable"
POD_TOPOLOGY_SPREAD: Final = "predicate.PodTopologySpreadEnable"
CACHE: Final = "predicate.CacheEnable"
DRA: Final = "predicate.DynamicResourceAllocationEnable"
PROPORTIONAL: Final = "predicate.ProportionalEnable"
PROPORTIONAL_RESOURCES: Final = "predicate.resources"

_ALWAYS: Final = (
    NODE_AFFINITY,
    NODE_PORTS,
    TAINT_TOLERATION,
    POD_AFFINITY,
    "predicate.NodeVolumeLimitsEnable",
    "predicate.VolumeZoneEnable",
    POD_TOPOLOGY_SPREAD,
    CACHE,
)
_PROPORTIONAL_UNTIL: Final = (1, 13)
_VOLUME_BINDING_SINCE: Final = (1, 12)
_DRA_READ: Final = ((1, 12), (1, 15))


def flags(release: Release) -> tuple[str, ...]:
    """The ``predicate.*Enable`` flags ``New`` reads in ``release``."""
    version = release.version
    read = list(_ALWAYS)
    if version >= _VOLUME_BINDING_SINCE:
        read.append("predicate.VolumeBindingEnable")
    if _DRA_READ[0] <= version < _DRA_READ[1]:
        read.append(DRA)
    if version < _PROPORTIONAL_UNTIL:
        read.append(PROPORTIONAL)
    return tuple(read)


def predicate_flags(
    arguments: Mapping[str, Any], release: Release, keys: tuple[str, ...]
) -> tuple[bool, ...]:
    """Each flag of ``keys`` as ``New`` leaves it (unread values keep the default true)."""
    parse = release.getbool_parses_strings
    values = (get_bool(arguments, key, parse_strings=parse).value for key in keys)
    return tuple(True if value is None else value for value in values)


def predicates_findings(
    document: Document, entry: PluginEntry, release: Release
) -> Iterator[Finding]:
    """The VP findings of one predicates entry's arguments."""
    return _Predicates(document, entry, release).findings()


class _Predicates(EntryCheck):
    def __init__(self, document: Document, entry: PluginEntry, release: Release) -> None:
        super().__init__(document, entry)
        self.release = release

    def findings(self) -> Iterator[Finding]:
        read = flags(self.release)
        for key in self.ordered():
            if key in read:
                yield from self.flag(key)
            elif not self.proportional(key):
                yield self.unknown(key, read)

    def proportional(self, key: str) -> bool:
        """The proportional predicate's resource keys, read up to 1.12."""
        return self.release.version < _PROPORTIONAL_UNTIL and key.startswith(PROPORTIONAL_RESOURCES)

    def flag(self, key: str) -> Iterator[Finding]:
        value = get_bool(self.arguments, key, parse_strings=self.release.getbool_parses_strings)
        if value.ignored is None:
            return
        default = "false" if key == CACHE else "true"
        yield rules.VP001_PREDICATE_NOT_BOOL.at(
            self.document,
            self.value_node(key),
            f"`{key}`: {value.ignored}; Volcano {self.release.name} ignores it (only a log "
            f"line) and the flag stays {default}; write `true` or `false`",
        )

    def unknown(self, key: str, read: tuple[str, ...]) -> Finding:
        name = self.release.name
        if key == DRA:
            since, until = _DRA_READ
            message = (
                f"`{key}` is not read by Volcano {name} (only 1.{since[1]} to 1.{until[1] - 1} "
                "read it): the DynamicResourceAllocation feature gate alone decides"
            )
        elif key in (PROPORTIONAL, PROPORTIONAL_RESOURCES) or key.startswith(
            PROPORTIONAL_RESOURCES + "."
        ):
            message = (
                f"`{key}` is not read by Volcano {name}: the proportional predicate was "
                "removed in 1.13 (resource-strategy-fit's `proportional` replaces it)"
            )
        elif key == "predicate.VolumeBindingEnable":
            message = f"`{key}` is not read by Volcano {name} (added in 1.12)"
        else:
            message = f"`{key}` is not a predicates argument; Volcano {name} ignores it"
            exact = next((k for k in read if k.lower() == key.lower()), None)
            if exact is not None:
                message += f" (names are case-sensitive): write `{exact}`"
            else:
                message += did_you_mean(key, read) or did_you_mean(PREFIX + key, read)
        return rules.VP002_PREDICATE_UNKNOWN_KEY.at(self.document, self.key_node(key), message)
