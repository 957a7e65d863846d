"""``did you mean``: the one way every check suggests the name a misspelt one means.

A suggestion must be one the user can apply: the same name up to case and separators
(``node-resources-fit`` -> ``NodeResourcesFit``) first, then the closest spelling by
:mod:`difflib`, compared as written and then case-folded. Callers pass only names the
scheduler really reads, so an applied suggestion is always read.

A spelling is offered only when it is plausible as a slip of the keyboard: at most about
one edit in four characters away (ignoring case), so ``Coscheduling`` (an out-of-tree
plugin) is not offered ``GangScheduling``.
"""

from __future__ import annotations

from collections.abc import Iterable

CUTOFF = 0.6
"""difflib's similarity below which no suggestion is made."""


def _folded(name: str) -> str:
    return name.lower().replace("-", "").replace("_", "").replace(" ", "")


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
    """Is ``candidate`` close enough to ``name`` to be what was meant (a slip)?"""
    a, b = name.lower(), candidate.lower()
    return a == b or edit_distance(a, b) <= max(1, min(len(a), len(b)) // 4)


def closest(
    name: str, choices: Iterable[str], *, cutoff: float = CUTOFF, slips_only: bool = True
) -> str | None:
    """The choice ``name`` most likely means, or ``None`` when none is close enough
    (``slips_only``: and :func:`plausible` as a slip; recognising a near-miss kind turns
    it off)."""
    options = sorted(set(choices))
    folded = _folded(name)
    for option in options:
        if _folded(option) == folded:
            return option
    import difflib  # only once a name is misspelt: not on the path of a clean config

    close = [
        option
        for option in difflib.get_close_matches(name, options, n=3, cutoff=cutoff)
        if not slips_only or plausible(name, option)
    ]
    if close:
        return close[0]
    by_fold = {option.lower(): option for option in options}
    folded_close = [
        by_fold[option]
        for option in difflib.get_close_matches(name.lower(), list(by_fold), n=3, cutoff=cutoff)
        if not slips_only or plausible(name, by_fold[option])
    ]
    return folded_close[0] if folded_close else None


def did_you_mean(name: str, choices: Iterable[str], *, cutoff: float = CUTOFF) -> str:
    """``"; did you mean `X`?"`` for the closest choice, or ``""``."""
    found = closest(name, choices, cutoff=cutoff)
    return f"; did you mean `{found}`?" if found else ""


PART_OF_MINIMUM = 6
"""The shortest name taken for a part of a longer one (``Fit`` is no such part)."""


def part_of(name: str, choices: Iterable[str]) -> list[str]:
    """The choices ``name`` is a truncation of (``BalancedAllocation`` of
    ``NodeResourcesBalancedAllocation``), up to case and separators: no slip of the
    keyboard, but no other name either. A longer name that contains a choice
    (``MyNodeResourcesFit``) is somebody's own, not a truncation."""
    folded = _folded(name)
    if len(folded) < PART_OF_MINIMUM:
        return []
    return sorted(
        option for option in set(choices) if folded in _folded(option) and _folded(option) != folded
    )
