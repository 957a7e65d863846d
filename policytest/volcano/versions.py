"""Which actions and plugins each Volcano release registers, and how it reads arguments.

A conf that is right for one release can be rejected by another (an action that does not
exist there) or silently lose a plugin (an unknown plugin is skipped). Release history
pinned here: ``elect``/``reserve`` and the ``reservation`` plugin were removed in 1.6,
up to 1.5 plugin arguments were ``map[string]string`` read with ``strconv.Atoi``. From 1.9
(the oldest release judged) every row is checked against the ``RegisterPluginBuilder`` /
``RegisterAction`` calls of each tag's ``plugins/factory.go`` and ``actions/factory.go``:
v1.9.1 registers ``capacity`` and ``nodegroup``, ``network-topology-aware`` first appears
in v1.12.4, ``resource-strategy-fit`` in v1.13.3, ``gangpreempt``/``gangreclaim`` in
v1.15.1. Rows older than 1.9 only matter for the history a message gives. Which releases
are judged at all, and their other differences, are the rows of
:mod:`policytest.core.releases`.
"""

from __future__ import annotations

from policytest.core.records import record
from policytest.core.releases import (
    DEFAULT_VOLCANO,
    UnsupportedRelease,
    Version,
    VolcanoRelease,
    parse_release,
    show,
    volcano_release,
)


class VersionError(UnsupportedRelease):
    """``--volcano-version`` is not a release number such as ``1.15``."""


def parse_version(text: str) -> Version:
    """``1.16``, ``v1.16.0`` or ``1.16.0-alpha`` -> ``(1, 16)``; raise :class:`VersionError`."""
    version = parse_release(text)
    if version is None:
        raise VersionError(f"not a Volcano release: {text!r} (expected e.g. {DEFAULT_VOLCANO})")
    return version


OLDEST: Version = (1, 0)

# name -> (first release with it, first release without it)
_FOREVER: Version = (99, 0)
ACTIONS: dict[str, tuple[Version, Version]] = {
    "enqueue": (OLDEST, _FOREVER),
    "allocate": (OLDEST, _FOREVER),
    "backfill": (OLDEST, _FOREVER),
    "preempt": (OLDEST, _FOREVER),
    "reclaim": (OLDEST, _FOREVER),
    "elect": ((1, 1), (1, 6)),
    "reserve": ((1, 1), (1, 6)),
    "shuffle": ((1, 6), _FOREVER),
    "gangpreempt": ((1, 15), _FOREVER),
    "gangreclaim": ((1, 15), _FOREVER),
}
PLUGINS: dict[str, tuple[Version, Version]] = {
    "priority": (OLDEST, _FOREVER),
    "gang": (OLDEST, _FOREVER),
    "conformance": (OLDEST, _FOREVER),
    "drf": (OLDEST, _FOREVER),
    "predicates": (OLDEST, _FOREVER),
    "proportion": (OLDEST, _FOREVER),
    "nodeorder": (OLDEST, _FOREVER),
    "binpack": (OLDEST, _FOREVER),
    "overcommit": ((1, 1), _FOREVER),
    "tdm": ((1, 1), _FOREVER),
    "reservation": ((1, 1), (1, 6)),
    "sla": ((1, 2), _FOREVER),
    "task-topology": ((1, 2), _FOREVER),
    "extender": ((1, 2), _FOREVER),
    "numa-aware": ((1, 4), _FOREVER),
    "rescheduling": ((1, 6), _FOREVER),
    "usage": ((1, 6), _FOREVER),
    "resourcequota": ((1, 6), _FOREVER),
    "cdp": ((1, 8), _FOREVER),
    "pdb": ((1, 8), _FOREVER),
    "deviceshare": ((1, 8), _FOREVER),
    "nodegroup": ((1, 9), _FOREVER),
    "capacity": ((1, 9), _FOREVER),
    "network-topology-aware": ((1, 12), _FOREVER),
    "resource-strategy-fit": ((1, 13), _FOREVER),
}
STRING_ARGUMENTS_UNTIL: Version = (1, 6)
"""Releases before this one declared ``arguments`` as ``map[string]string``."""


@record(frozen=True)
class Release:
    """The tables of one Volcano release, and its row of ``policytest.core.releases``."""

    version: Version
    row: VolcanoRelease | None = None

    @property
    def name(self) -> str:
        return show(self.version)

    @property
    def actions(self) -> frozenset[str]:
        return _available(ACTIONS, self.version)

    @property
    def plugins(self) -> frozenset[str]:
        return _available(PLUGINS, self.version)

    @property
    def getbool_parses_strings(self) -> bool:
        """``Arguments.GetBool`` parses strings (from 1.15)."""
        return self.row.getbool_parses_strings if self.row else True

    @property
    def hypernode_binpack(self) -> bool:
        """network-topology-aware reads ``hypernode.binpack.*`` (from 1.14)."""
        return self.row.hypernode_binpack if self.row else True

    @property
    def unknown_action_rejects(self) -> bool:
        """An unknown action rejects the conf (v1.12 and v1.13 only log it)."""
        return self.row.unknown_action_rejects if self.row else True

    @property
    def string_arguments(self) -> bool:
        """Arguments were ``map[string]string`` and integers were read with ``Atoi``."""
        return self.version < STRING_ARGUMENTS_UNTIL

    def action_history(self, name: str) -> str | None:
        """Why a real action is missing from this release (``"removed in 1.6"``)."""
        return _history(ACTIONS, name, self.version)

    def plugin_history(self, name: str) -> str | None:
        """Why a real plugin is missing from this release (``"added in 1.9"``)."""
        return _history(PLUGINS, name, self.version)


def _available(table: dict[str, tuple[Version, Version]], version: Version) -> frozenset[str]:
    return frozenset(name for name, (since, until) in table.items() if since <= version < until)


def _history(table: dict[str, tuple[Version, Version]], name: str, version: Version) -> str | None:
    if name not in table:
        return None
    since, until = table[name]
    if version < since:
        return f"added in Volcano {show(since)}"
    if version >= until:
        return f"removed in Volcano {show(until)}"
    return None


def release(text: str) -> Release:
    """The tables for ``CheckOptions.volcano_version``; raise ``UnsupportedRelease`` for a
    release policytest does not judge."""
    row = volcano_release(text)
    return Release(row.version, row)
