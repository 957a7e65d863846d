"""``did you mean``: the closest known name for a misspelt one (difflib, then case),
and the v1 replacement of plugins from older API versions. Light to import: the Volcano
checks use it too.

A suggestion is offered only when it is plausible as a slip of the keyboard: at most
about one edit in four characters apart (ignoring case), so ``Coscheduling`` (an
out-of-tree plugin) is not offered ``GangScheduling``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def edit_distance(left: str, right: str) -> int:
    """Optimal string alignment distance (insert, delete, substitute, swap neighbours)."""
    previous2: list[int] = []
    previous = list(range(len(right) + 1))
    for i, a in enumerate(left, 1):
        current = [i] + [0] * len(right)
        for j, b in enumerate(right, 1):
            current[j] = min(
                previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (0 if a == b else 1)
            )
            if i > 1 and j > 1 and a == right[j - 2] and left[i - 2] == b:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]


def plausible(name: str, candidate: str) -> bool:
    """Is ``candidate`` close enough to ``name`` to be what was meant?"""
    a, b = name.lower(), candidate.lower()
    if a == b:
        return True
    return edit_distance(a, b) <= max(1, min(len(a), len(b)) // 4)


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """``"; did you mean `X`?"`` for the closest plausible choice, or ``""``."""
    options = sorted(choices)
    close = difflib.get_close_matches(name, options, n=3, cutoff=0.6)
    close = [option for option in close if plausible(name, option)]
    if not close:
        close = [option for option in options if option.lower() == name.lower()]
    return f"; did you mean `{close[0]}`?" if close else ""


def plugin_hint(name: str, known: Iterable[str] | None = None) -> str:
    """What to use instead of a plugin name kube-scheduler does not know (``known``:
    the build's plugins, default the in-tree ones)."""
    from policytest.kube.registry import PLUGINS, RETIRED_PLUGINS

    replacement = RETIRED_PLUGINS.get(name)
    if replacement is not None:
        return f"; {name} no longer exists in v1: use {replacement}"
    return did_you_mean(name, PLUGINS if known is None else known)
