"""``did you mean``: the closest known name for a misspelt one (difflib, then case),
and the v1 replacement of plugins from older API versions."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from policytest.kube.registry import PLUGINS, RETIRED_PLUGINS


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """``"; did you mean `X`?"`` for the closest choice, or ``""``."""
    options = sorted(choices)
    close = difflib.get_close_matches(name, options, n=1, cutoff=0.6)
    if not close:
        close = [option for option in options if option.lower() == name.lower()]
    return f"; did you mean `{close[0]}`?" if close else ""


def plugin_hint(name: str) -> str:
    """What to use instead of a plugin name kube-scheduler does not know."""
    replacement = RETIRED_PLUGINS.get(name)
    if replacement is not None:
        return f"; {name} no longer exists in v1: use {replacement}"
    return did_you_mean(name, PLUGINS)
