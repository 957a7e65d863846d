"""One plugin entry of a Volcano conf tier, as the session holds it.

The argument readers (binpack, nodeorder, ...) and the conf model share it.
"""

from __future__ import annotations

from collections.abc import Mapping

from policytest.core.records import record
from policytest.read.nodes import Node
from policytest.scoring.weights import BinpackWeights, NodeOrderWeights, ResourceStrategyFitArgs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

Weights = BinpackWeights | NodeOrderWeights | ResourceStrategyFitArgs


@record(frozen=True)
class PluginEntry:
    """One entry of a tier's ``plugins`` list, after Volcano's defaulting.

    ``flags`` holds every flag's effective value (``None``: unset, for the two flags that
    have no default). ``arguments`` is ``None`` when Go's map is nil (absent or null);
    its values are typed as yaml.v2 typed them (all strings up to Volcano 1.5).
    ``weights`` is what ``calculateWeight`` makes of the arguments for binpack and
    nodeorder entries. The nodes are kept for positions.
    """

    name: str
    tier: int
    index: int
    node: Node
    name_node: Node | None
    flags: Mapping[str, bool | None]
    flag_nodes: Mapping[str, Node]
    arguments: Mapping[str, Any] | None
    argument_nodes: Mapping[str, tuple[Node, Node]]
    arguments_node: Node | None
    registered: bool
    weights: Weights | None = None

    def enabled(self, flag: str) -> bool:
        """Is the function behind ``flag`` on for this entry?"""
        return bool(self.flags.get(flag))

    @property
    def anchor(self) -> Node:
        """Where findings about the entry as a whole point: its ``name`` value."""
        return self.name_node if self.name_node is not None else self.node
