"""What every check of one plugin entry's arguments starts from: the document, the entry,
its arguments (empty when Go's map is nil) and where each key and value is written."""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Generic, Protocol, TypeVar

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

    Entry = TypeVar("Entry", bound=WithArguments)
else:

    class Generic:
        """``typing.Generic`` for the type checker only: at run time ``EntryCheck[X]`` is
        ``EntryCheck`` itself (the project's one generic class on the hook's path)."""

        def __class_getitem__(cls, _: object) -> type:
            return cls


def written_order(entry: WithArguments) -> list[str]:
    """The entry's argument keys in the order they are written (findings follow it)."""
    nodes = entry.argument_nodes
    return sorted(entry.arguments or {}, key=lambda k: nodes[k][0].start_mark.index)


class EntryCheck(Generic["Entry"]):
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
