"""Start-up validation of the process-wide settings (KS027-KS029).

Mirrors ``ValidateKubeSchedulerConfiguration`` for everything outside the profiles,
after v1 defaulting: parallelism 16, backoff 1s/10s, leader election on with 15s/10s/2s
and the ``leases`` lock, client burst 100.
"""

from __future__ import annotations

from collections.abc import Iterator

from policytest.kube import rules
from policytest.kube.framework import Path, Problem
from policytest.kube.names import parse_duration, qualified_name_errors
from policytest.kube.values import flag, integer, items, mapping, text
from policytest.scoring.names import is_extended_resource_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_REFUSES = "kube-scheduler refuses to start"
_LEASE_DEFAULTS = (("leaseDuration", 15), ("renewDeadline", 10), ("retryPeriod", 2))


def percentage_problem(value: Any, path: Path) -> Iterator[Problem]:
    """``validatePercentageOfNodesToScore``: 0..100 when set."""
    number = integer(value)
    if number is not None and not 0 <= number <= 100:
        yield Problem(
            rules.KS027_PERCENTAGE,
            path,
            f"percentageOfNodesToScore {number} is outside "
            f"0..100: {_REFUSES}; use 0 for the adaptive default",
        )


def settings_problems(config: dict[str, Any]) -> Iterator[Problem]:
    """Everything ``ValidateKubeSchedulerConfiguration`` checks outside the profiles."""
    parallelism = integer(config.get("parallelism"))
    if parallelism is not None and parallelism <= 0:
        yield Problem(
            rules.KS028_SETTINGS,
            ("parallelism",),
            f"parallelism {parallelism} must be above 0: {_REFUSES}; remove it for the default 16",
        )
    yield from percentage_problem(
        config.get("percentageOfNodesToScore"), ("percentageOfNodesToScore",)
    )
    initial = integer(config.get("podInitialBackoffSeconds"))
    maximum = integer(config.get("podMaxBackoffSeconds"))
    effective_initial = 1 if initial is None else initial
    effective_max = 10 if maximum is None else maximum
    if effective_initial <= 0:
        yield Problem(
            rules.KS028_SETTINGS,
            ("podInitialBackoffSeconds",),
            f"podInitialBackoffSeconds {effective_initial} must be above 0: {_REFUSES}",
        )
    if effective_max < effective_initial:
        where = "podMaxBackoffSeconds" if maximum is not None else "podInitialBackoffSeconds"
        yield Problem(
            rules.KS028_SETTINGS,
            (where,),
            f"podMaxBackoffSeconds ({effective_max}"
            f"{', the default' if maximum is None else ''}) is below "
            f"podInitialBackoffSeconds ({effective_initial}): {_REFUSES}; raise "
            "podMaxBackoffSeconds",
        )
    burst = integer(mapping(config.get("clientConnection")).get("burst"))
    if burst is not None and burst < 0:
        yield Problem(
            rules.KS028_SETTINGS,
            ("clientConnection", "burst"),
            f"clientConnection.burst {burst} is negative: {_REFUSES}",
        )
    yield from _leader_election(mapping(config.get("leaderElection")))
    yield from _extenders(items(config.get("extenders")))


def _leader_election(election: dict[str, Any]) -> Iterator[Problem]:
    if not flag(election.get("leaderElect"), True):
        return
    base: Path = ("leaderElection",)
    lock = text(election.get("resourceLock")) or "leases"
    if lock != "leases":
        yield Problem(
            rules.KS028_SETTINGS,
            (*base, "resourceLock"),
            f'resourceLock "{lock}" is not "leases": {_REFUSES}; use leases (or remove the field)',
        )
    seconds: dict[str, int] = {}
    for key, default in _LEASE_DEFAULTS:
        parsed = parse_duration(text(election.get(key), "0")) or 0
        seconds[key] = parsed if parsed != 0 else default * 1_000_000_000
        if seconds[key] <= 0:
            yield Problem(
                rules.KS028_SETTINGS,
                (*base, key),
                f"leaderElection.{key} must be above zero: {_REFUSES}",
            )
    if seconds["leaseDuration"] <= seconds["renewDeadline"]:
        where = "leaseDuration" if "leaseDuration" in election else "renewDeadline"
        yield Problem(
            rules.KS028_SETTINGS,
            (*base, where),
            "leaderElection.leaseDuration must be "
            f"greater than renewDeadline (defaults 15s and 10s): {_REFUSES}",
        )


def _extenders(extenders: list[Any]) -> Iterator[Problem]:
    binders = 0
    managed: set[str] = set()
    for index, entry in enumerate(extenders):
        extender = mapping(entry)
        path: Path = ("extenders", index)
        weight = integer(extender.get("weight")) or 0
        if text(extender.get("prioritizeVerb")) and weight <= 0:
            yield Problem(
                rules.KS029_EXTENDERS,
                (*path, "weight"),
                f"an extender with a "
                f"prioritizeVerb needs a positive weight (not {weight}): {_REFUSES}",
            )
        if text(extender.get("bindVerb")):
            binders += 1
        for position, resource in enumerate(items(extender.get("managedResources"))):
            name = text(mapping(resource).get("name"))
            where: Path = (*path, "managedResources", position, "name")
            reasons = qualified_name_errors(name)
            if not reasons and not is_extended_resource_name(name):
                reasons = ["is not an extended resource name (e.g. example.com/foo)"]
            if name in managed:
                reasons.append("is managed twice")
            managed.add(name)
            for reason in reasons:
                yield Problem(
                    rules.KS029_EXTENDERS, where, f"managed resource `{name}` {reason}: {_REFUSES}"
                )
    if binders > 1:
        yield Problem(
            rules.KS029_EXTENDERS,
            ("extenders",),
            f"{binders} extenders implement bind, only one may: {_REFUSES}",
            key=True,
        )
