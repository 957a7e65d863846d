"""Kubernetes name and duration syntax, as ``apimachinery`` validates and parses it.

kube-scheduler checks resource names (``ignoredResources``, extender resources), label
keys (node selectors, topology keys) and Go durations with these exact rules; the
messages are upstream's so users can match them to kube-scheduler's log.
"""

from __future__ import annotations

import re

from policytest.scoring.names import is_dns1123_subdomain, is_name_part

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

_NAME_MESSAGE: Final = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character"
)


def qualified_name_errors(value: str) -> list[str]:
    """``validation.IsQualifiedName``: ``[prefix/]name``; empty when valid."""
    parts = value.split("/")
    errors: list[str] = []
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errors.append("prefix part must be non-empty")
        elif len(prefix) > 253 or not is_dns1123_subdomain(prefix):
            errors.append("prefix part must be a lowercase RFC 1123 subdomain (e.g. 'example.com')")
    else:
        return [
            f"a qualified name {_NAME_MESSAGE}, with an optional DNS subdomain prefix "
            "and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errors.append("name part must be non-empty")
    elif len(name) > 63:
        errors.append("name part must be no more than 63 characters")
    if name and not is_name_part(name):
        errors.append(f"name part {_NAME_MESSAGE} (e.g. 'MyName', or 'my.name', or '123-abc')")
    return errors


def label_value_errors(value: str) -> list[str]:
    """``validation.IsValidLabelValue``; empty when valid."""
    errors = []
    if len(value) > 63:
        errors.append("must be no more than 63 characters")
    if value and not is_name_part(value):
        errors.append(f"a valid label value must be an empty string or {_NAME_MESSAGE}")
    return errors


_DURATION_UNITS: Final = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "μs": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}
_DURATION_PART: Final = r"([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)"
"""Compiled (and cached by ``re``) for the first duration: few configs have one."""


def parse_duration(text: str) -> int | None:
    """Go's ``time.ParseDuration`` in nanoseconds (``None``: not a duration)."""
    body = text
    sign = -1 if body.startswith("-") else 1
    body = body.lstrip("+-") if body[:1] in "+-" else body
    if body == "0":
        return 0
    if not body:
        return None
    total = 0
    position = 0
    part = re.compile(_DURATION_PART)
    while position < len(body):
        match = part.match(body, position)
        if match is None or match.group(1) in ("", "."):
            return None
        whole, _, fraction = match.group(1).partition(".")
        unit = _DURATION_UNITS[match.group(2)]
        total += int(whole or "0") * unit
        if fraction:
            total += int(fraction) * unit // 10 ** len(fraction)
        position = match.end()
    return sign * total
