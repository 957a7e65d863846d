"""What every check of one plugin entry's arguments starts from: the document, the entry,
its arguments (empty when Go's map is nil) and where each key and value is written."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

if TYPE_CHECKING:
    from policytest.read.nodes import Node
    from policytest.read.source import Document


class WithArguments(Protocol):
    """A plugin entry or an action's ``configurations`` entry: a name and its arguments."""

    @property
    def name(self) -> str: ...
    @property
    def arguments(self) -> Mapping[str, Any] | None: ...
    @property
    def argument_nodes(self) -> Mapping[str, tuple[Node, Node]]: ...


def written_order(entry: WithArguments) -> list[str]:
    """The entry's argument keys in the order they are written (findings follow it)."""
    nodes = entry.argument_nodes
    return sorted(entry.arguments or {}, key=lambda k: nodes[k][0].start_mark.index)


Entry = TypeVar("Entry", bound=WithArguments)


class EntryCheck(Generic[Entry]):
    """The base of the checks of one entry's arguments (binpack, resource-strategy-fit,
    deviceshare, network-topology-aware)."""

    def __init__(self, document: Document, entry: Entry) -> None:
        self.document = document
        self.entry = entry
        self.arguments: Mapping[str, Any] = entry.arguments or {}

    def key_node(self, key: str) -> Node:
        return self.entry.argument_nodes[key][0]

    def value_node(self, key: str) -> Node:
        return self.entry.argument_nodes[key][1]

    def ordered(self) -> list[str]:
        return written_order(self.entry)
