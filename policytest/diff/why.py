"""Why a case changes when its release does: the release facts that differ.

A case judged as ``kube-scheduler 1.35`` on one side and ``kube-scheduler 1.36`` on the
other changes for a reason the release table states (``policytest.core.releases``): a
plugin's formula, a default plugin, a validation. :func:`release_facts` lists what differs
between two releases, each fact with the score plugins it moves; :func:`reasons` keeps
the facts a case's own score changes point at; :func:`refusals` gives, for a case that
errors on one side only, the findings with which that release refuses the config.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from policytest.core.releases import (
    KubeRelease,
    UnsupportedRelease,
    VolcanoRelease,
    kube_release,
    volcano_release,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policytest.core.releases import BalancedFormula

__all__ = ["ReleaseFact", "moved_plugins", "reasons", "refusals", "release_facts"]

_FORMULA: Mapping[BalancedFormula, str] = {
    "with-pod": "scores the node's balance with the pod, (1 - std) x 100",
    "balance-change": "scores how the pod changes the node's balance, "
    "50 + (50 + S(with pod) - S(without pod)) / 2 (kubernetes PR #135573)",
}


@dataclass(frozen=True)
class ReleaseFact:
    """One thing two releases do differently; ``plugins``: the score plugins whose
    scores it changes (empty: it changes what the scheduler accepts or reads)."""

    text: str
    plugins: frozenset[str] = frozenset()


@cache
def release_facts(before: str, after: str) -> tuple[ReleaseFact, ...]:
    """What differs between two release labels (``kube-scheduler 1.35``,
    ``Volcano 1.16``); nothing for labels of different schedulers or unknown ones."""
    old_name, _, old_version = before.partition(" ")
    new_name, _, new_version = after.partition(" ")
    if old_name != new_name or old_version == new_version:
        return ()
    try:
        if old_name == "kube-scheduler":
            return tuple(_kube_facts(kube_release(old_version), kube_release(new_version)))
        if old_name == "Volcano":
            return tuple(_volcano_facts(volcano_release(old_version), volcano_release(new_version)))
    except UnsupportedRelease:
        return ()
    return ()


def _kube_facts(old: KubeRelease, new: KubeRelease) -> Iterable[ReleaseFact]:
    if old.balanced_allocation != new.balanced_allocation:
        yield ReleaseFact(
            f"NodeResourcesBalancedAllocation's formula: {old.name} "
            f"{_FORMULA[old.balanced_allocation]}; {new.name} {_FORMULA[new.balanced_allocation]}",
            frozenset({"NodeResourcesBalancedAllocation"}),
        )
    if old.pod_level_resources != new.pod_level_resources:
        state = "on" if new.pod_level_resources else "off"
        yield ReleaseFact(
            f"PodLevelResources is {state} in {new.name}: a pod's pod-level requests "
            f"{'count' if new.pod_level_resources else 'do not count'} in the Fit filter and "
            "BalancedAllocation",
            frozenset({"NodeResourcesBalancedAllocation", "NodeResourcesFit"}),
        )
    if old.dra_scores != new.dra_scores:
        yield ReleaseFact(
            f"DynamicResources is a default score plugin (weight 2, 0 for pods without "
            f"claims) from 1.35: {'yes' if new.dra_scores else 'no'} in {new.name}",
            frozenset({"DynamicResources"}),
        )
    added = sorted(new.default_plugins - old.default_plugins)
    removed = sorted(old.default_plugins - new.default_plugins)
    if added or removed:
        change = ", ".join([*(f"+{n}" for n in added), *(f"-{n}" for n in removed)])
        yield ReleaseFact(f"default plugins in {new.name}: {change}")
    if old.plugin_sets != new.plugin_sets:
        gained = [s for s in new.plugin_sets if s not in old.plugin_sets]
        lost = [s for s in old.plugin_sets if s not in new.plugin_sets]
        change = ", ".join([*(f"+{s}" for s in gained), *(f"-{s}" for s in lost)])
        yield ReleaseFact(f"the plugin sets {new.name}'s API decodes: {change}")
    if old.dra_args != new.dra_args or old.dra_binding_timeout_gate != new.dra_binding_timeout_gate:
        yield ReleaseFact(
            f"DynamicResourcesArgs: {_dra(old)} in {old.name}; {_dra(new)} in {new.name}"
        )
    if old.strict_ratio_block != new.strict_ratio_block:
        yield ReleaseFact(
            f"a `requestedToCapacityRatio` block beside another strategy type: "
            f"{'refused' if new.strict_ratio_block else 'ignored'} in {new.name}, "
            f"{'refused' if old.strict_ratio_block else 'ignored'} in {old.name}"
        )


def _dra(row: KubeRelease) -> str:
    if row.dra_args is None:
        return "no such args kind (never read)"
    fields = ", ".join(row.dra_args)
    if "bindingTimeout" in row.dra_args:
        gate = "at least 1s" if row.dra_binding_timeout_gate else "forbidden"
        return f"{fields} (bindingTimeout {gate})"
    return fields


def _volcano_facts(old: VolcanoRelease, new: VolcanoRelease) -> Iterable[ReleaseFact]:
    from policytest.volcano.versions import Release

    if old.balanced_allocation != new.balanced_allocation:
        yield ReleaseFact(
            f"nodeorder's balancedresource is its Kubernetes library's BalancedAllocation: "
            f"Volcano {old.name} (Kubernetes {old.kubernetes}) "
            f"{_FORMULA[old.balanced_allocation]}; Volcano {new.name} (Kubernetes "
            f"{new.kubernetes}) {_FORMULA[new.balanced_allocation]}",
            frozenset({"nodeorder"}),
        )
    if old.overhead_first != new.overhead_first:
        yield ReleaseFact(
            f"a pod's overhead is added {'before' if new.overhead_first else 'after'} the "
            f"maximum with its init containers in Volcano {new.name} "
            f"({'before' if old.overhead_first else 'after'} in {old.name})",
            frozenset({"binpack", "nodeorder", "resource-strategy-fit"}),
        )
    if old.unknown_action_rejects != new.unknown_action_rejects:
        handled = "rejects the conf" if new.unknown_action_rejects else "is logged and dropped"
        yield ReleaseFact(f"an unknown action {handled} in Volcano {new.name}")
    for kind, was, now in (
        ("actions", Release(old.version).actions, Release(new.version).actions),
        ("plugins", Release(old.version).plugins, Release(new.version).plugins),
    ):
        if was != now:
            change = ", ".join(
                [*(f"+{n}" for n in sorted(now - was)), *(f"-{n}" for n in sorted(was - now))]
            )
            yield ReleaseFact(f"the {kind} Volcano {new.name} registers: {change}")
    if old.getbool_parses_strings != new.getbool_parses_strings:
        yield ReleaseFact(
            f"string plugin flags are {'parsed' if new.getbool_parses_strings else 'ignored'} "
            f"in Volcano {new.name}"
        )
    if old.hypernode_binpack != new.hypernode_binpack:
        yield ReleaseFact(
            f"network-topology-aware {'reads' if new.hypernode_binpack else 'ignores'} "
            f"hypernode.binpack.* in Volcano {new.name}"
        )


def reasons(before: str, after: str, moved: Iterable[str]) -> tuple[str, ...]:
    """The facts that explain one case run on both sides: those of the plugins whose
    scores ``moved``."""
    moved = frozenset(moved)
    return tuple(f.text for f in release_facts(before, after) if f.plugins & moved)


def refusals(message: str) -> tuple[str, ...]:
    """Why a case errors on one side only: the findings its error lists (a validation
    of that release that refuses the config), else its first line."""
    lines = [line for line in message.splitlines() if line.strip()]
    return tuple(lines[1:] or lines)


def moved_plugins(pairs: Sequence[tuple[Mapping[str, float], Mapping[str, float]]]) -> set[str]:
    """The plugins whose score differs on some node (or that score on one side only)."""
    return {
        plugin
        for old, new in pairs
        for plugin in {*old, *new}
        if old.get(plugin) != new.get(plugin)
    }
