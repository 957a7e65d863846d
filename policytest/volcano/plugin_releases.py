"""Per-release facts about resource-strategy-fit, deviceshare and network-topology-aware.

One small table, meant to be folded into the central release table: each entry is the
first Volcano release with the behaviour (``(major, minor)``), read against
``CheckOptions.volcano_version`` through :func:`policytest.volcano.versions.release`.
Facts pinned from the upstream sources of v1.13.3, v1.14.4, v1.15.1 and
v1.16.0-alpha.1:

- ``resource-strategy-fit`` exists from 1.13 (the plugin code is identical up to
  1.16.0-alpha.1: only the import of ``MaxNodeScore`` moves);
- ``GetPodResourceRequest`` adds the pod overhead after taking the max with the init
  containers from 1.15 (before: to the containers' sum, before the max);
- ``Arguments.GetBool`` parses a string with ``strconv.ParseBool`` from 1.15 (before: a
  string is ignored with a warning), which changes deviceshare's flags and
  network-topology-aware's ``hypernode.binpack.normal-pod.enable``;
- network-topology-aware reads the ``hypernode.binpack.*`` arguments from 1.14.
"""

from __future__ import annotations

from typing import Final

from policytest.volcano.versions import Version

RSF_SINCE: Final[Version] = (1, 13)
OVERHEAD_AFTER_INIT_SINCE: Final[Version] = (1, 15)
GETBOOL_PARSES_STRINGS_SINCE: Final[Version] = (1, 15)
HYPERNODE_BINPACK_SINCE: Final[Version] = (1, 14)


def overhead_first(version: Version) -> bool:
    """Does this release add the pod overhead before the init-container max?"""
    return version < OVERHEAD_AFTER_INIT_SINCE


def getbool_parses_strings(version: Version) -> bool:
    return version >= GETBOOL_PARSES_STRINGS_SINCE


def hypernode_binpack(version: Version) -> bool:
    return version >= HYPERNODE_BINPACK_SINCE
