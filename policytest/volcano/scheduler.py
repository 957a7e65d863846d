"""A loaded Volcano conf as an executable scheduler (the scorers wired as the session does)."""

from __future__ import annotations

from policytest.scoring.schedulers import VOLCANO_NOT_MODELLED, NodeOrderEntry, VolcanoScheduler
from policytest.scoring.weights import BinpackWeights, NodeOrderWeights
from policytest.volcano.conf import VolcanoConf
from policytest.volcano.corrections import volcano_corrections


def volcano_scheduler(conf: VolcanoConf) -> VolcanoScheduler:
    """Every node-order call Volcano makes, with the weights each call uses."""
    entries = []
    for call in conf.node_order_calls:
        if isinstance(call.weights, BinpackWeights):
            entries.append(NodeOrderEntry("binpack", binpack=call.weights))
        elif isinstance(call.weights, NodeOrderWeights):
            entries.append(NodeOrderEntry("nodeorder", nodeorder=call.weights))
    runs_nodeorder = any(entry.plugin == "nodeorder" for entry in entries)
    return VolcanoScheduler(
        tuple(entries),
        not_modelled=VOLCANO_NOT_MODELLED if runs_nodeorder else (),
        corrections=volcano_corrections(conf),
    )
