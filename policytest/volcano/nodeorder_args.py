"""nodeorder's arguments: its ``calculateWeight`` and the silent surprises in them.

Upstream (``plugins/nodeorder/nodeorder.go``) reads eight ``<score>.weight`` keys with
``GetInt`` over the defaults below and never clamps them: 0 switches a score off, a
negative weight inverts it, anything that is not a Go ``int`` is ignored.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from policytest.core.findings import Finding, Severity
from policytest.core.records import fields
from policytest.core.suggest import closest
from policytest.read.nodes import ScalarNode
from policytest.scoring.weights import NodeOrderWeights
from policytest.volcano import rules
from policytest.volcano.arguments import get_int, surprising_int
from policytest.volcano.entry_check import written_order

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from policytest.read.source import Document
    from policytest.volcano.entry import PluginEntry

NODEORDER = "nodeorder"
KEYS = {f"{item.name}.weight": item.name for item in fields(NodeOrderWeights)}
DEFAULTS = NodeOrderWeights()
VENDOR_KEYS = ("selectorspread.weight", "volumebinding.weight")


def nodeorder_weights(
    arguments: Mapping[str, Any] | None, *, string_arguments: bool = False
) -> NodeOrderWeights:
    """nodeorder's ``calculateWeight``: the defaults overridden by every integer given."""
    values: dict[str, int] = {}
    for key, name in KEYS.items():
        value = get_int(arguments, key, string_arguments=string_arguments).value
        if value is not None:
            values[name] = value
    return NodeOrderWeights(**values)


def _suggestion(key: str) -> str:
    if key in VENDOR_KEYS:
        return " (upstream Volcano has no such score; some vendor builds do)"
    for candidate in (key + ".weight", key.lower(), key.lower() + ".weight"):
        if candidate in KEYS:
            return f"; did you mean `{candidate}`?"
    close = closest(key, KEYS)
    if close:
        return f"; did you mean `{close}`?"
    return f" (it reads {', '.join(KEYS)})"


def nodeorder_findings(
    document: Document, entry: PluginEntry, *, string_arguments: bool = False
) -> list[Finding]:
    """Every VN finding about one nodeorder entry's own arguments and flags."""
    return list(_findings(document, entry, string_arguments))


def _findings(document: Document, entry: PluginEntry, string_arguments: bool) -> Iterator[Finding]:
    arguments = entry.arguments or {}
    nodes = entry.argument_nodes
    for key in written_order(entry):
        key_node, value_node = nodes[key]
        if key not in KEYS:
            yield rules.VN003_NODEORDER_UNKNOWN_KEY.at(
                document,
                key_node,
                f"`{key}` is not a nodeorder argument; Volcano ignores it{_suggestion(key)}",
            )
            continue
        default = getattr(DEFAULTS, KEYS[key])
        read = get_int(arguments, key, string_arguments=string_arguments)
        if read.ignored is not None:
            yield rules.VN001_NODEORDER_NOT_INT.at(
                document,
                value_node,
                f"`{key}`: {read.ignored}; Volcano ignores it (only a log line) and keeps "
                f"the default {default}. Write a plain integer",
            )
            continue
        if read.value is None:
            continue
        if isinstance(value_node, ScalarNode) and not string_arguments:
            surprise = surprising_int(value_node.value, read.value)
            if surprise is not None:
                yield rules.VN001_NODEORDER_NOT_INT.at(
                    document,
                    value_node,
                    f"`{key}`: {surprise}; write {read.value} in plain decimal",
                    Severity.WARNING,
                )
        if read.value < 0:
            yield rules.VN002_NODEORDER_NEGATIVE.at(
                document,
                value_node,
                f"`{key}: {read.value}` is negative: nodeorder does not clamp it, so this "
                "score is inverted (nodes it should prefer score lowest); use 0 to switch "
                "the score off",
            )
    weights = entry.weights if isinstance(entry.weights, NodeOrderWeights) else DEFAULTS
    if weights.leastrequested > 0 and weights.mostrequested > 0:
        where = nodes.get("mostrequested.weight") or nodes.get("leastrequested.weight")
        yield rules.VN004_NODEORDER_FIGHT.at(
            document,
            where[1] if where else entry.anchor,
            f"leastrequested.weight ({weights.leastrequested}) and mostrequested.weight "
            f"({weights.mostrequested}) are both positive: one prefers empty nodes, the "
            "other full ones, and their scores largely cancel; set the one you do not want "
            "to 0",
        )
    flag = entry.flag_nodes.get("enableNodeOrder")
    if flag is not None and not entry.enabled("enableNodeOrder") and arguments:
        yield rules.VN005_NODEORDER_NO_NODE_ORDER.at(
            document,
            flag,
            "`enableNodeOrder: false` on nodeorder: Volcano calls none of its scores, so "
            "its arguments do nothing; remove them or the flag",
        )
