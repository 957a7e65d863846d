"""The typed model of ``volcano-scheduler.conf``, built the way Volcano builds it.

``UnmarshalSchedulerConf`` decodes the YAML (see :mod:`policytest.volcano.decode`),
applies ``ApplyPluginConfDefaults`` (every unset flag becomes true, except
``enableHierarchy`` and ``enabledClusterOrder``), refuses a tier with hierarchical
``drf`` next to ``proportion``, and splits ``actions`` on commas, trimming each name
with Go's ``strings.TrimSpace`` and refusing the first unknown one. At every session
each plugin entry is opened in order; node-order functions are kept per plugin name
(the last registration wins) and called once per entry whose ``enableNodeOrder`` is
true. The model records all of it, so the scorer can replay exactly those calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from policytest.core.records import record
from policytest.read.nodes import Node
from policytest.scoring.weights import (
    RSF,
    BinpackWeights,
    NodeOrderWeights,
    ResourceStrategyFitArgs,
)
from policytest.volcano.binpack_args import BINPACK, binpack_weights
from policytest.volcano.decode import FLAGS, UNSET_FLAGS, RawConf, RawMap, RawPlugin
from policytest.volcano.entry import PluginEntry, Weights
from policytest.volcano.gotext import trim_space
from policytest.volcano.nodeorder_args import NODEORDER, nodeorder_weights
from policytest.volcano.versions import Release

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _frozen(mapping: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    return None if mapping is None else MappingProxyType(dict(mapping))


@record(frozen=True)
class Tier:
    """One tier: its plugin entries in order."""

    plugins: tuple[PluginEntry, ...]
    node: Node


@record(frozen=True)
class Configuration:
    """One ``configurations`` entry: arguments for the action called ``name``."""

    name: str
    arguments: Mapping[str, Any] | None
    node: Node
    name_node: Node | None
    argument_nodes: Mapping[str, tuple[Node, Node]]


@record(frozen=True)
class NodeOrderCall:
    """One node-order call per scheduling decision: ``caller`` is the entry whose
    ``enableNodeOrder`` makes the call, ``source`` the entry whose weights it uses."""

    plugin: str
    caller: PluginEntry
    source: PluginEntry
    weights: Weights


@record(frozen=True)
class VolcanoConf:
    """``volcano-scheduler.conf`` as the scheduler holds it after loading.

    ``node_order_calls`` lists, in Volcano's order, every binpack and nodeorder
    node-order call made for each (task, node) pair: a plugin listed twice is called
    twice. ``binpack`` / ``nodeorder`` are the weights those calls use, ``None`` when
    the plugin makes no call (absent, ``binpack.weight: 0``, ``enableNodeOrder: false``).
    """

    actions: tuple[str, ...]
    tiers: tuple[Tier, ...]
    configurations: tuple[Configuration, ...]
    metrics: Mapping[str, str] | None
    release: str
    node_order_calls: tuple[NodeOrderCall, ...] = ()
    binpack: BinpackWeights | None = None
    nodeorder: NodeOrderWeights | None = None

    @property
    def plugins(self) -> tuple[PluginEntry, ...]:
        """Every plugin entry of every tier, in order."""
        return tuple(entry for tier in self.tiers for entry in tier.plugins)

    def entries(self, name: str) -> tuple[PluginEntry, ...]:
        """The entries of the plugin called ``name``."""
        return tuple(entry for entry in self.plugins if entry.name == name)

    def calls(self, plugin: str) -> tuple[NodeOrderCall, ...]:
        """The node-order calls of one plugin (``binpack`` or ``nodeorder``)."""
        return tuple(call for call in self.node_order_calls if call.plugin == plugin)

    @property
    def proportional(self) -> ResourceStrategyFitArgs | None:
        """The resource-strategy-fit arguments whose proportional filter runs: the last
        entry to register it (the registration per plugin name that wins), when some
        entry of the plugin has ``enablePredicate`` on."""
        entries = [e for e in self.entries(RSF) if e.registered]
        source = None
        for entry in entries:
            weights = entry.weights
            if isinstance(weights, ResourceStrategyFitArgs) and weights.proportional is not None:
                source = weights
        if source is None or not any(e.enabled("enablePredicate") for e in entries):
            return None
        return source

    @property
    def binpack_calls(self) -> int:
        return len(self.calls(BINPACK))

    @property
    def nodeorder_calls(self) -> int:
        return len(self.calls(NODEORDER))


@record(frozen=True)
class ActionName:
    """One comma-separated item of ``actions``: as written and as looked up."""

    written: str
    name: str
    offset: int


def split_actions(actions: str) -> tuple[ActionName, ...]:
    """``strings.Split(actions, ",")`` then ``strings.TrimSpace`` on each item."""
    items: list[ActionName] = []
    offset = 0
    for written in actions.split(","):
        items.append(ActionName(written, trim_space(written), offset))
        offset += len(written) + 1
    return tuple(items)


def drf_conflicts(conf: VolcanoConf) -> tuple[Tier, ...]:
    """Tiers with hierarchical ``drf`` and ``proportion``: Volcano rejects the file."""
    return tuple(
        tier
        for tier in conf.tiers
        if any(p.name == "proportion" for p in tier.plugins)
        and any(p.name == "drf" and p.flags.get("enableHierarchy") for p in tier.plugins)
    )


def _effective_flags(raw: RawPlugin) -> dict[str, bool | None]:
    flags: dict[str, bool | None] = {}
    for flag in FLAGS:
        value = raw.flags.get(flag)
        flags[flag] = value if value is not None or flag in UNSET_FLAGS else True
    return flags


def _entry(
    raw: RawPlugin, tier: int, index: int, release: Release, custom: frozenset[str]
) -> PluginEntry:
    arguments = raw.arguments.values if raw.arguments is not None else None
    weights: Weights | None = None
    if raw.name == BINPACK:
        weights = binpack_weights(arguments, string_arguments=release.string_arguments)
    elif raw.name == NODEORDER:
        weights = nodeorder_weights(arguments, string_arguments=release.string_arguments)
    elif raw.name == RSF:  # its decoders load only for a conf that has the plugin
        from policytest.volcano.rsf_args import rsf_args

        weights = rsf_args(arguments)
    return PluginEntry(
        name=raw.name,
        tier=tier,
        index=index,
        node=raw.node,
        name_node=raw.name_node,
        flags=MappingProxyType(_effective_flags(raw)),
        flag_nodes=MappingProxyType(dict(raw.flag_nodes)),
        arguments=_frozen(arguments),
        argument_nodes=MappingProxyType(dict(raw.arguments.nodes if raw.arguments else {})),
        arguments_node=raw.arguments_node,
        registered=raw.name in release.plugins or raw.name in custom,
        weights=weights,
    )


def _node_order_calls(entries: tuple[PluginEntry, ...]) -> tuple[NodeOrderCall, ...]:
    """Replay session opening: each entry registers (binpack only with a non-zero
    weight), the last registration per name wins, each enabled entry calls it."""
    registered: dict[str, PluginEntry] = {}
    for entry in entries:
        if not entry.registered or entry.weights is None:
            continue
        if isinstance(entry.weights, BinpackWeights) and entry.weights.weight == 0:
            continue
        if isinstance(entry.weights, ResourceStrategyFitArgs) and (
            entry.weights.fatal is not None or not entry.weights.registers_node_order
        ):
            continue
        registered[entry.name] = entry
    calls: list[NodeOrderCall] = []
    for entry in entries:
        source = registered.get(entry.name)
        if source is not None and source.weights is not None and entry.enabled("enableNodeOrder"):
            calls.append(NodeOrderCall(entry.name, entry, source, source.weights))
    return tuple(calls)


def build(raw: RawConf, release: Release, custom: frozenset[str] = frozenset()) -> VolcanoConf:
    """The model of a decoded conf (also for a rejected one: its parts still inform);
    ``custom``: plugins the scheduler loads with ``--plugins-dir`` (project settings)."""
    tiers: list[Tier] = []
    for tier_index, raw_tier in enumerate(raw.tiers or ()):
        entries = tuple(
            _entry(raw_plugin, tier_index, index, release, custom)
            for index, raw_plugin in enumerate(raw_tier.plugins or ())
        )
        tiers.append(Tier(entries, raw_tier.node))
    configurations = tuple(
        Configuration(
            c.name,
            _frozen(_values(c.arguments)),
            c.node,
            c.name_node,
            MappingProxyType(dict(c.arguments.nodes if c.arguments else {})),
        )
        for c in raw.configurations or ()
    )
    # Only actions the release has run (an unknown one rejects the conf, or is dropped).
    actions = tuple(i.name for i in split_actions(raw.actions) if i.name in release.actions)
    all_entries = tuple(entry for tier in tiers for entry in tier.plugins)
    calls = _node_order_calls(all_entries)
    binpack = next((c.weights for c in calls if isinstance(c.weights, BinpackWeights)), None)
    nodeorder = next((c.weights for c in calls if isinstance(c.weights, NodeOrderWeights)), None)
    return VolcanoConf(
        actions=actions,
        tiers=tuple(tiers),
        configurations=configurations,
        metrics=_frozen(_values(raw.metrics)),
        release=release.name,
        node_order_calls=calls,
        binpack=binpack,
        nodeorder=nodeorder,
    )


def _values(raw: RawMap | None) -> dict[str, Any] | None:
    return None if raw is None else raw.values


__all__ = [
    "ActionName",
    "Configuration",
    "NodeOrderCall",
    "PluginEntry",
    "Tier",
    "VolcanoConf",
    "build",
    "drf_conflicts",
    "split_actions",
]
