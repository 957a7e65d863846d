"""What a session reads of the conf: the actions in order, each tier's plugin entries with
their flags, and the arguments the session's plugins take (overcommit's factor), with the
release whose session code runs them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = ["EVICTING_ACTIONS", "PluginPlan", "SessionPlan"]

EVICTING_ACTIONS: Final = {
    "preempt": "evicts running tasks of lower-priority jobs (or of the same job) in the "
    "job's queue to make room for a pending job",
    "reclaim": "evicts running tasks of queues that hold more than their deserved share "
    "to make room for pending jobs of queues below theirs",
    "gangpreempt": "evicts whole lower-priority gangs to make room for a pending gang",
    "gangreclaim": "evicts whole gangs of queues above their deserved share to make room "
    "for a pending gang of a queue below its share",
    "shuffle": "evicts running tasks that the plugins' victim functions select (the "
    "rescheduling plugin's strategies), for them to be placed again",
}
"""Actions that evict running pods (``pkg/scheduler/actions``: each calls
``Statement.Evict`` or ``Session.Evict``), and what each does: not simulated (reported,
never skipped silently)."""
SIMULATED_ACTIONS: Final = ("enqueue", "allocate", "backfill")
SESSION_PLUGINS: Final = frozenset(
    {
        "priority",
        "gang",
        "drf",
        "proportion",
        "overcommit",
        "conformance",
        "predicates",
        "nodeorder",
        "binpack",
        "resource-strategy-fit",
    }
)
"""Plugins whose part in a session is simulated (the scorers' plugins included)."""
CAPACITY_SINCE: Final = (1, 13)
"""The first release whose capacity plugin (queues not hierarchical) is simulated."""
UNSIMULATED_SESSION_PLUGINS: Final = {
    "capacity": "hierarchical queues (enableHierarchy), and before v1.13 its queue order, "
    "queue capacity and enqueue by capacity",
    "sla": "job order and enqueue by waiting time",
    "tdm": "revocable nodes",
    "task-topology": "task order and node order by task affinity",
    "numa-aware": "NUMA placement",
    "usage": "node usage",
    "cdp": "cooldown protection",
    "rescheduling": "rescheduling",
    "extender": "an external scheduler extender",
    "resourcequota": "ResourceQuotas",
    "deviceshare": "shared devices",
    "network-topology-aware": "HyperNodes",
    "pdb": "PodDisruptionBudgets",
    "nodegroup": "node groups",
}
"""Plugins that take part in a session in ways not simulated, and what they decide."""
CUSTOM_PLUGIN: Final = (
    "a plugin of the scheduler's own build: whatever it decides in a session "
    "(job, task or queue order, enqueue, node order) is not simulated"
)
HIERARCHICAL_DRF: Final = "queue order by hierarchical dominant shares (enableHierarchy)"


@dataclass(frozen=True)
class PluginPlan:
    """One plugin entry of a tier: its name and effective flags."""

    name: str
    flags: Mapping[str, bool | None]
    arguments: Mapping[str, Any] | None = None

    def enabled(self, flag: str) -> bool:
        """``framework.isEnabled``: an unset flag counts as on (defaulting made most true)."""
        value = self.flags.get(flag)
        return value is None or bool(value)


@dataclass(frozen=True)
class SessionPlan:
    """The conf as ``Scheduler.runOnce`` runs it, and the release that runs it."""

    actions: tuple[str, ...]
    tiers: tuple[tuple[PluginPlan, ...], ...]
    version: tuple[int, int]
    plugins: frozenset[str] = field(default_factory=frozenset)
    """Every plugin name the conf registers (entries of unknown plugins are skipped)."""

    def has(self, plugin: str) -> bool:
        return plugin in self.plugins

    @property
    def simulates_capacity(self) -> bool:
        """Whether the capacity plugin's part is simulated: registered, from v1.13, its
        queues not hierarchical (no entry of it has ``enableHierarchy``)."""
        return (
            self.has("capacity")
            and self.version >= CAPACITY_SINCE
            and not self._hierarchical("capacity")
        )

    def _hierarchical(self, plugin: str) -> bool:
        return any(
            p.name == plugin and p.flags.get("enableHierarchy") for t in self.tiers for p in t
        )

    @property
    def unsimulated_plugins(self) -> tuple[str, ...]:
        """``plugin: what it decides`` for each registered plugin whose part is not
        simulated: Volcano's own, a plugin of the scheduler's build (``--plugins-dir``),
        and drf's hierarchical queue order (``enableHierarchy``)."""
        named = [
            f"{name}: {UNSIMULATED_SESSION_PLUGINS.get(name, CUSTOM_PLUGIN)}"
            for name in sorted(self.plugins)
            if name not in SESSION_PLUGINS and (name != "capacity" or not self.simulates_capacity)
        ]
        if self._hierarchical("drf"):
            named.append(f"drf: {HIERARCHICAL_DRF}")
        return tuple(named)
