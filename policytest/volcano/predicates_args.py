"""predicates' filter flags as ``New`` reads them.

``plugins/predicates/predicates.go`` switches each kube-scheduler filter it wraps on or
off with a ``predicate.<Filter>Enable`` flag read by ``Arguments.GetBool`` over the
default true: a value it cannot read keeps the default (VC013 says so, from the key
table of :mod:`policytest.volcano.argument_keys`). A flag switches the filter only:
nodeorder still scores with the same plugin (``PodTopologySpreadEnable: false`` keeps
spreading's score).
"""

from __future__ import annotations

from collections.abc import Mapping

from policytest.volcano.arguments import get_bool

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

    from policytest.volcano.versions import Release

__all__ = ["PREDICATES", "predicate_flags"]

PREDICATES: Final = "predicates"
NODE_AFFINITY: Final = "predicate.NodeAffinityEnable"
NODE_PORTS: Final = "predicate.NodePortsEnable"
TAINT_TOLERATION: Final = "predicate.TaintTolerationEnable"
POD_AFFINITY: Final = "predicate.PodAffinityEnable"
POD_TOPOLOGY_SPREAD: Final = "predicate.PodTopologySpreadEnable"


def predicate_flags(
    arguments: Mapping[str, Any], release: Release, keys: tuple[str, ...]
) -> tuple[bool, ...]:
    """Each flag of ``keys`` as ``New`` leaves it (unread values keep the default true)."""
    parse = release.getbool_parses_strings
    values = (get_bool(arguments, key, parse_strings=parse).value for key in keys)
    return tuple(True if value is None else value for value in values)
