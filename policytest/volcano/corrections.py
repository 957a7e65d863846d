"""What Volcano holds where a conf writes something else: its silent corrections.

A conf Volcano loads is scored as loaded: a negative resource weight is reset to 1, a
quoted or fractional weight is skipped (the default kept), the weight of a resource not
listed in ``binpack.resources`` is ignored. ``explain`` and ``run`` show each as one line
(``binpack.cpu: written -1, Volcano uses 1``); ``diff`` shows the same written values
next to the settings held (:func:`written_weight` is shared with it).
"""

from __future__ import annotations

import json

from policytest.read.nodes import ScalarNode
from policytest.scoring.weights import BinpackWeights, NodeOrderWeights
from policytest.volcano.binpack_args import BINPACK
from policytest.volcano.nodeorder_args import KEYS, NODEORDER

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policytest.volcano.conf import VolcanoConf
    from policytest.volcano.entry import PluginEntry

_RESOURCE_WEIGHT = "binpack.resources."


def volcano_corrections(conf: VolcanoConf) -> tuple[str, ...]:
    """One line per weight of the binpack and nodeorder calls that Volcano holds
    differently from how the conf writes it, and per weight it ignores; one line when
    ``binpack.weight: 0`` switches binpack off."""
    lines: list[str] = []
    binpack = conf.binpack
    calls = conf.calls(BINPACK)
    switched_off = [
        entry
        for entry in conf.entries(BINPACK)
        if entry.registered
        and isinstance(entry.weights, BinpackWeights)
        and entry.weights.weight == 0
    ]
    if not calls and switched_off:
        lines.append(
            "binpack.weight: written 0, so Volcano does not register binpack's score: "
            "binpack is off and scores nothing"
        )
    if calls and isinstance(binpack, BinpackWeights):
        source = calls[0].source
        held = {"binpack.weight": binpack.weight, "binpack.cpu": binpack.cpu}
        held["binpack.memory"] = binpack.memory
        held.update(
            (f"{_RESOURCE_WEIGHT}{name}", weight)
            for name, weight in binpack.resources.items()
            if name not in ("cpu", "memory")
        )
        lines += _differences(source, held)
        for key, value in (source.arguments or {}).items():
            name = key[len(_RESOURCE_WEIGHT) :]
            if key.startswith(_RESOURCE_WEIGHT) and name and name not in binpack.resources:
                lines.append(
                    f"{key}: written {shown_value(value)}, Volcano ignores it ({name} is not "
                    "listed in binpack.resources)"
                )
    nodeorder = conf.nodeorder
    calls = conf.calls(NODEORDER)
    if calls and isinstance(nodeorder, NodeOrderWeights):
        held = {key: getattr(nodeorder, name) for key, name in KEYS.items()}
        lines += (f"nodeorder {line}" for line in _differences(calls[0].source, held))
    return tuple(lines)


def _differences(entry: PluginEntry, held: dict[str, int]) -> list[str]:
    return [
        f"{key}: written {written}, Volcano uses {value}"
        for key, value in held.items()
        if (written := written_weight(entry, key, value)) is not None
    ]


def written_weight(entry: PluginEntry, key: str, effective: int) -> str | None:
    """How the conf writes the weight ``key`` of ``entry``, when that reads differently
    from the ``effective`` weight Volcano holds (``None`` when unwritten or the same)."""
    arguments = entry.arguments or {}
    if key not in arguments:
        return None
    written = _source_text(entry, key)
    if written is None:
        written = shown_value(arguments[key])
    return None if written == str(effective) else written


def _source_text(entry: PluginEntry, key: str) -> str | None:
    """The value's token as written (``010``, ``"10"``, ``1e3``), for a scalar."""
    nodes = entry.argument_nodes.get(key)
    if nodes is None or not isinstance(nodes[1], ScalarNode):
        return None
    node = nodes[1]
    quote = node.style if node.style in ("'", '"') else ""
    return f"{quote}{node.value}{quote}"


def shown_value(value: object) -> str:
    """A written YAML value as a reader would write it (strings quoted)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(shown_value(item) for item in value) + "]"
    return str(value)
