"""A loaded Volcano conf as an executable scheduler (the scorers wired as the session does)."""

from __future__ import annotations

from policytest.core.releases import volcano_release
from policytest.scoring.plugins.nodeorder import nodeorder_profile
from policytest.scoring.protocol import NotSimulated
from policytest.scoring.schedulers import (
    NodeOrderEntry,
    VolcanoPredicates,
    VolcanoScheduler,
)
from policytest.scoring.session_plan import EVICTING_ACTIONS
from policytest.scoring.weights import BinpackWeights, NodeOrderWeights, ResourceStrategyFitArgs
from policytest.volcano.arguments import get_int
from policytest.volcano.conf import VolcanoConf
from policytest.volcano.corrections import volcano_corrections
from policytest.volcano.plugin_checks import DEVICESHARE, TOPOLOGY, WEIGHT
from policytest.volcano.predicates_args import (
    NODE_AFFINITY,
    NODE_PORTS,
    POD_AFFINITY,
    POD_TOPOLOGY_SPREAD,
    PREDICATES,
    TAINT_TOLERATION,
    predicate_flags,
)
from policytest.volcano.versions import release as release_tables

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policytest.scoring.session_plan import SessionPlan


def volcano_scheduler(conf: VolcanoConf) -> VolcanoScheduler:
    """Every node-order call Volcano makes, with the weights each call uses, the
    resource-strategy-fit proportional filter if one runs, and the release's accounting."""
    entries = []
    for call in conf.node_order_calls:
        if isinstance(call.weights, BinpackWeights):
            entries.append(NodeOrderEntry("binpack", binpack=call.weights))
        elif isinstance(call.weights, NodeOrderWeights):
            entries.append(NodeOrderEntry("nodeorder", nodeorder=call.weights))
        elif isinstance(call.weights, ResourceStrategyFitArgs):
            entries.append(NodeOrderEntry("resource-strategy-fit", rsf=call.weights))
    release = volcano_release(conf.release)
    predicates = volcano_predicates(conf)
    weights = [entry.nodeorder for entry in entries if entry.nodeorder is not None]
    normalised_affinity = release.version >= NODE_AFFINITY_NORMALISED
    return VolcanoScheduler(
        tuple(entries),
        not_modelled=_device_scores(conf),
        not_simulated=evicting_actions(conf.actions),
        corrections=volcano_corrections(conf),
        balanced_formula=release.balanced_allocation,
        overhead_first=release.overhead_first,
        proportional=conf.proportional,
        predicates=predicates,
        nodeorder_batch=normalised_affinity,
        session=session_plan(conf, release.version),
        profile=nodeorder_profile(
            weights,
            node_ports=predicates is not None and predicates.node_ports,
            pod_affinity=predicates is not None and predicates.pod_affinity,
            pod_topology_spread=predicates is not None and predicates.pod_topology_spread,
            image_volumes=release.image_volume_locality,
            raw_node_affinity=not normalised_affinity,
        ),
    )


def session_plan(conf: VolcanoConf, version: tuple[int, int]) -> SessionPlan:
    """The conf's actions and its tiers' registered plugin entries, as a session runs them."""
    from policytest.scoring.session_plan import PluginPlan, SessionPlan

    tiers = tuple(
        tuple(
            PluginPlan(entry.name, entry.flags, entry.arguments)
            for entry in tier.plugins
            if entry.registered
        )
        for tier in conf.tiers
    )
    names = frozenset(plugin.name for tier in tiers for plugin in tier)
    return SessionPlan(conf.actions, tiers, version, names)


NODE_AFFINITY_NORMALISED = (1, 15)
"""From 1.15 nodeorder scores its resource plugins and NodeAffinity in its batch
function (after PreScore; NodeAffinity normalised over the candidates); before, per
node, NodeAffinity as its raw sum of matched preferred weights (``NodeOrderFn``
calls its Score without PreScore, and the plugin falls back to the pod's terms).
"""


def evicting_actions(actions: tuple[str, ...]) -> tuple[NotSimulated, ...]:
    """The conf's actions that evict, in the order the session runs them (each once)."""
    return tuple(
        NotSimulated(name, "action", EVICTING_ACTIONS[name])
        for name in dict.fromkeys(actions)
        if name in EVICTING_ACTIONS
    )


def _device_scores(conf: VolcanoConf) -> tuple[str, ...]:
    """Node scores from devices and HyperNodes, which fixture clusters do not describe:
    deviceshare with a positive ``deviceshare.ScheduleWeight`` and network-topology-aware
    (every node scores alike without vGPU devices or HyperNodes)."""
    names: list[str] = []
    for entry in conf.plugins:
        if not entry.registered or not entry.enabled("enableNodeOrder") or entry.name in names:
            continue
        if entry.name == DEVICESHARE:
            weight = get_int(entry.arguments, WEIGHT, string_arguments=False).value
            if weight is not None and weight > 0:
                names.append(DEVICESHARE)
        elif entry.name == TOPOLOGY:
            names.append(TOPOLOGY)
    return tuple(names)


def volcano_predicates(conf: VolcanoConf) -> VolcanoPredicates | None:
    """The ``predicates`` plugin's node filters as the conf sets them up (``None``: no
    entry of the plugin has ``enablePredicate``). Each entry opens the plugin and
    registers its predicate function again, so the last entry's arguments win; the flags
    are read with ``Arguments.GetBool`` as the release reads them (a string only from
    1.15; anything it cannot read keeps the default, true)."""
    entries = [e for e in conf.entries(PREDICATES) if e.registered]
    if not any(entry.enabled("enablePredicate") for entry in entries):
        return None
    arguments = entries[-1].arguments or {}
    release = release_tables(conf.release)
    return VolcanoPredicates(*predicate_flags(arguments, release, FILTER_FLAGS))


FILTER_FLAGS = (NODE_AFFINITY, TAINT_TOLERATION, NODE_PORTS, POD_AFFINITY, POD_TOPOLOGY_SPREAD)
"""The flags of the filters policytest runs, in ``VolcanoPredicates``' field order."""
