"""``did you mean``: the one way every check suggests the name a misspelt one means.

A suggestion must be one the user can apply: the same name up to case and separators
(``node-resources-fit`` -> ``NodeResourcesFit``) first, then the closest spelling by
:mod:`difflib`, compared as written and then case-folded. Callers pass only names the
scheduler really reads, so an applied suggestion is always read.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

CUTOFF = 0.6
"""difflib's similarity below which no suggestion is made."""


def _folded(name: str) -> str:
    return name.lower().replace("-", "").replace("_", "").replace(" ", "")


def closest(name: str, choices: Iterable[str], *, cutoff: float = CUTOFF) -> str | None:
    """The choice ``name`` most likely means, or ``None`` when none is close enough."""
    options = sorted(set(choices))
    folded = _folded(name)
    for option in options:
        if _folded(option) == folded:
            return option
    close = difflib.get_close_matches(name, options, n=1, cutoff=cutoff)
    if close:
        return close[0]
    by_fold = {option.lower(): option for option in options}
    close = difflib.get_close_matches(name.lower(), list(by_fold), n=1, cutoff=cutoff)
    return by_fold[close[0]] if close else None


def did_you_mean(name: str, choices: Iterable[str], *, cutoff: float = CUTOFF) -> str:
    """``"; did you mean `X`?"`` for the closest choice, or ``""``."""
    found = closest(name, choices, cutoff=cutoff)
    return f"; did you mean `{found}`?" if found else ""
