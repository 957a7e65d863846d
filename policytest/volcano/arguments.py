"""``framework.Arguments.GetInt``: how a plugin reads an integer argument.

Since 1.6 the value must already be a Go ``int`` after yaml.v2 decoding (``10``, ``0x0A``,
``010`` = 8); anything else (``"10"``, ``1.5``, ``true``, null, beyond int64) is logged
and ignored. Up to 1.5 arguments were strings parsed with ``strconv.Atoi`` (``"10"`` and
``10`` both work, ``010`` is 10, ``0x0A`` is ignored).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from policytest.core.records import record
from policytest.read.goyaml import Uint64, go_type
from policytest.volcano.gotext import atoi

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TABLE_CHECKED = (
    *("capacity", "cdp", "conformance", "drf", "extender", "gang", "nodegroup", "numa-aware"),
    *("overcommit", "pdb", "predicates", "priority", "proportion", "rescheduling"),
    *("resourcequota", "sla", "task-topology", "tdm", "usage", "network-topology-aware"),
)
"""The plugins whose argument keys only the per-release table judges (VC012, VC013, in
:mod:`policytest.volcano.argument_checks`): every modelled plugin without rules of its own
(binpack, nodeorder, deviceshare, resource-strategy-fit), and network-topology-aware's keys
that VT001-VT003 leave alone (:data:`OWN_KEYS`). The table
is loaded for a conf that gives one of them, or an action, arguments; never otherwise."""

OWN_KEYS = {"network-topology-aware": ("weight", "hypernode.binpack.")}
"""Keys (a key, or a prefix ending in ``.``) a table-checked plugin's own rules judge."""

ACTIONS_CHECKED = (
    *("allocate", "backfill", "enqueue", "gangpreempt", "gangreclaim", "preempt"),
    *("reclaim", "shuffle"),
)
"""The actions whose ``configurations`` arguments the table judges."""


_PLAIN_DECIMAL = re.compile(r"[-+]?(0|[1-9][0-9]*)")


@record(frozen=True)
class IntRead:
    """What ``GetInt`` did with one key: ``value`` is ``None`` when the key is absent or
    the value was ignored (``ignored`` then says why)."""

    value: int | None
    ignored: str | None = None


def get_int(arguments: Mapping[str, Any] | None, key: str, *, string_arguments: bool) -> IntRead:
    """Read ``key`` as Volcano's ``GetInt`` does."""
    if arguments is None or key not in arguments:
        return IntRead(None)
    value = arguments[key]
    if string_arguments:
        text = value if isinstance(value, str) else ""
        if text == "":
            return IntRead(None)
        number = atoi(text)
        if number is None:
            return IntRead(None, f"`{text}` is not a base-10 integer (strconv.Atoi)")
        return IntRead(number)
    if isinstance(value, int) and not isinstance(value, (bool, Uint64)):
        return IntRead(value)
    return IntRead(None, describe(value))


def describe(value: Any) -> str:
    """Why a decoded value is not a Go ``int``, in the user's terms."""
    if value is None:
        return "the value is null (empty)"
    if isinstance(value, bool):
        return f"`{str(value).lower()}` is a boolean to yaml.v2"
    if isinstance(value, Uint64):
        return f"{value} does not fit in a Go int (beyond int64)"
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return f"`{value}` is a float"
        if value.is_integer():
            return f"{value!r} is a float to yaml.v2, not an integer"
        return f"{value!r} is a float"
    if isinstance(value, str):
        if _PLAIN_DECIMAL.fullmatch(value.strip()):
            return f'"{value}" is a string (quoted), not an integer'
        return f'"{value}" is a string'
    return f"a {go_type(value)} is not an integer"


def surprising_int(text: str, value: int) -> str | None:
    """How yaml.v2 read an integer literal that other YAML tools read differently, else
    ``None``: ``010`` is octal 8 (10 in YAML 1.2), ``0o17``, ``0b101`` and ``1_000`` are
    numbers to yaml.v2 but text to some YAML tools."""
    if _PLAIN_DECIMAL.fullmatch(text):
        return None
    digits = text.lstrip("+-")
    if len(digits) > 1 and digits[0] == "0" and digits[1].isdigit():
        return f"`{text}` is octal to Volcano's YAML parser (Go yaml.v2): it reads {value}"
    if "_" in text or digits[:2].lower() in ("0o", "0b"):
        return (
            f"`{text}` is {value} to Volcano's YAML parser (Go yaml.v2) but text to other "
            "YAML tools"
        )
    return None


_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")


@record(frozen=True)
class BoolRead:
    """What ``Arguments.GetBool`` did: ``value`` None when absent or ignored."""

    value: bool | None
    ignored: str | None = None


def get_bool(arguments: Mapping[str, Any], key: str, *, parse_strings: bool) -> BoolRead:
    """``GetBool``: a bool; from 1.15 also a string ``strconv.ParseBool`` accepts."""
    if key not in arguments:
        return BoolRead(None)
    value = arguments[key]
    if isinstance(value, bool):
        return BoolRead(value)
    if isinstance(value, str) and parse_strings:
        if value in _TRUE:
            return BoolRead(True)
        if value in _FALSE:
            return BoolRead(False)
        return BoolRead(None, f'"{value}" is not a boolean to strconv.ParseBool')
    if isinstance(value, str):
        return BoolRead(None, f'"{value}" is a string (quoted); this release reads only booleans')
    return BoolRead(None, describe(value))
