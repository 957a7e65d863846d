"""The whole of a composed tree as comparable data: every node's class, tag, value,
style, flow style and both marks, with aliases told apart from copies."""

from __future__ import annotations

from typing import Any


def shape(root: Any) -> list[tuple[Any, ...]]:
    """A preorder description of ``root``; a node seen before is ``("alias", n)``, ``n``
    its place in the walk, so shared nodes and equal copies differ. Works on our nodes
    and on ruamel.yaml's alike (it reads attributes only)."""
    seen: dict[int, int] = {}
    rows: list[tuple[Any, ...]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            rows.append(("alias", seen[id(node)]))
            continue
        seen[id(node)] = len(rows)
        start, end = node.start_mark, node.end_mark
        marks = (start.index, start.line, start.column, end.index, end.line, end.column)
        kind = type(node).__name__
        if kind == "ScalarNode":
            rows.append((kind, str(node.tag), node.value, node.style, *marks))
            continue
        rows.append((kind, str(node.tag), len(node.value), node.flow_style, *marks))
        children = (
            [part for pair in node.value for part in pair] if kind == "MappingNode" else node.value
        )
        stack.extend(reversed(children))
    return rows
