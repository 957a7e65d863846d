"""Which change moved a case, when several act on it together.

A pull request may edit a config and move ``kubernetesVersion`` in the settings file in
one commit: the two sides of the diff then differ in both, and a new winner may come
from either, or only from both together. Reading the release facts off the plugins whose
scores moved is not enough (the release moves BalancedAllocation's scores whether or
not it moves the winner), so each change is run alone from the base: the head's files
judged as the base is judged, and the base's files judged with one setting of the
head's settings file. Each changed case then keeps, per change, what that change alone
does to it (:class:`~policytest.diff.model.Cause`).

Each run alone costs what the side it copies cost (the base's files cost what the base's
run did, the head's what the head's did), measured on the invocation's budgets as that
run spent them; a run the budgets left cannot pay for is not started, and the cause says
which budget stopped it. Nothing here prints.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from policytest.core.limits import Limits, limit_names
from policytest.diff.model import (
    CaseKey,
    Cause,
    CauseKind,
    FixtureDiff,
    case_keys,
    compare_case,
    keyed_results,
)
from policytest.harness.runner import CaseResult

__all__ = ["Alone", "Cost", "affordable", "attribute", "measured"]

T = TypeVar("T")
Cost = Mapping[str, int]
"""What a run spent of each invocation budget (``node-scores``, ``yaml-nodes``, ...)."""

METERS = tuple(name.removeprefix("total-") for name in limit_names() if name.startswith("total-"))
"""The invocation budgets (``--limit total-<meter>=N``)."""


def measured(limits: Limits, run: Callable[[], T]) -> tuple[T, Cost]:
    """``run()``, and what it spent of each invocation budget (nothing is measured
    without one: a library call has no invocation budget)."""
    before = {meter: limits.left(meter) for meter in METERS}
    result = run()
    cost = {}
    for meter, left in before.items():
        now = limits.left(meter)
        if left is not None and now is not None:
            cost[meter] = left - now
    return result, cost


def affordable(limits: Limits, cost: Cost) -> str:
    """ "" when what the invocation's budgets have left pays for ``cost``; else the
    sentence that says which budget stops the run."""
    for meter, needed in cost.items():
        left = limits.left(meter)
        if left is not None and needed > left:
            return (
                f"not run: the budget total-{meter} has {left:,} left and this run needs "
                f"{needed:,} (raise it with --limit total-{meter}=N)"
            )
    return ""


@dataclass(frozen=True)
class Alone:
    """One change applied alone to the base: its label, its kind, how to run the
    fixture file with it, and what that run will cost."""

    change: str
    kind: CauseKind
    run: Callable[[], Sequence[CaseResult] | None]
    cost: Cost


def attribute(
    fixture: FixtureDiff,
    base: Sequence[CaseResult],
    changes: Sequence[Alone],
    limits: Limits,
) -> FixtureDiff:
    """``fixture`` with each changed case's :class:`Cause`s: every change in ``changes``
    run alone (while the budgets pay for it) and compared with the ``base`` run. With
    fewer than two changes there is nothing to tell apart."""
    changed = [case for case in fixture.cases if case.change == "changed"]
    if len(changes) < 2 or not changed:
        return fixture
    old = keyed_results(base)
    runs: list[tuple[Alone, dict[CaseKey, CaseResult] | None, str]] = []
    for change in changes:
        stopped = affordable(limits, change.cost)
        results = None if stopped else change.run()
        runs.append((change, None if results is None else keyed_results(results), stopped))
    cases = []
    for key, case in zip(case_keys([c.name for c in fixture.cases]), fixture.cases, strict=True):
        if case.change != "changed":
            cases.append(case)
            continue
        causes = tuple(
            Cause(
                change.change,
                change.kind,
                None if alone is None else compare_case(case.name, old.get(key), alone.get(key)),
                stopped,
            )
            for change, alone, stopped in runs
        )
        cases.append(replace(case, causes=causes, why=_release_part(causes, case.why)))
    return replace(fixture, cases=tuple(cases))


def _release_part(causes: Sequence[Cause], why: tuple[str, ...]) -> tuple[str, ...]:
    """The release facts behind what the settings changes alone do to the case (the
    whole case's when none of them ran: a budget stopped them)."""
    ran = [c for c in causes if c.kind == "settings" and c.effect is not None]
    if not ran:
        return why
    return tuple(dict.fromkeys(fact for cause in ran if cause.effect for fact in cause.effect.why))
