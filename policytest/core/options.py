"""Options that change what the checks conclude (not how findings are shown)."""

from __future__ import annotations

from dataclasses import dataclass, field

from policytest.core.limits import DEFAULT_LIMITS, Limits

NEWEST_VOLCANO = "1.16"
NEWEST_KUBERNETES = "1.35"


@dataclass(frozen=True)
class CheckOptions:
    """Which scheduler releases to judge a config against, the input limits, and the root
    that fixtures' configs must stay inside."""

    volcano_version: str = NEWEST_VOLCANO
    kubernetes_version: str = NEWEST_KUBERNETES
    limits: Limits = field(default_factory=Limits)
    root: str | None = None
    """Where fixtures' configs must live (``None``: each fixture's git repository root)."""


DEFAULT_OPTIONS = CheckOptions(limits=DEFAULT_LIMITS)
