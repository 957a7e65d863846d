"""Reference definitions the scorers' faster paths are held to in tests."""

from __future__ import annotations

from policytest.scoring.plugins.view import ViewNode
from policytest.scoring.selectors import Selector, label_map


def count_matching(node: ViewNode, selector: Selector, namespace: str) -> int:
    """``countPodsMatchSelector`` on one node's pods (an empty selector counts nothing):
    what ``spread.matching_counts`` answers for every node at once from the view's index."""
    if selector.empty:
        return 0
    return sum(
        1 for p in node.pods if p.namespace == namespace and selector.matches(label_map(p.labels))
    )
