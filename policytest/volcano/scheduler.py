"""A loaded Volcano conf as an executable scheduler (the scorers wired as the session does)."""

from __future__ import annotations

from policytest.core.releases import volcano_release
from policytest.scoring.rsf import ResourceStrategyFitArgs
from policytest.scoring.schedulers import VOLCANO_NOT_MODELLED, NodeOrderEntry, VolcanoScheduler
from policytest.scoring.weights import BinpackWeights, NodeOrderWeights
from policytest.volcano.arguments import get_int
from policytest.volcano.conf import VolcanoConf
from policytest.volcano.corrections import volcano_corrections
from policytest.volcano.plugin_checks import DEVICESHARE, TOPOLOGY, WEIGHT


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
    runs_nodeorder = any(entry.plugin == "nodeorder" for entry in entries)
    release = volcano_release(conf.release)
    return VolcanoScheduler(
        tuple(entries),
        not_modelled=(VOLCANO_NOT_MODELLED if runs_nodeorder else ()) + _device_scores(conf),
        corrections=volcano_corrections(conf),
        balanced_formula=release.balanced_allocation,
        overhead_first=release.overhead_first,
        proportional=conf.proportional,
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
