"""What the HTML pages show, as plain values the templates and the script read.

Nothing here renders: a case becomes a node table (the JSON the script draws, one row
per node, names already quoted for display), histograms of utilisation before and
after, the kube-scheduler style availability line and the filtered nodes by reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from policytest.harness.runner import format_score, table_digits
from policytest.reporters.html.page import PALETTE, shown
from policytest.reporters.run.availability import ReasonGroup, availability, reason_groups
from policytest.scoring.protocol import NodeScore, NotSimulated

Utilisation = Mapping[str, Mapping[str, tuple[int, int]]]
Ranking = Sequence[Sequence[str]]
BUCKETS = 10
"""Utilisation histograms: 0-10 %, 10-20 %, ... 90-100 % (a full node is in the last)."""


def resource_names(*utilisations: Utilisation) -> list[str]:
    """Every resource some pod requests on some node: cpu, memory, then the rest by name
    (a resource nothing requests, such as unused ephemeral storage, would be noise)."""
    names = {
        resource
        for usage in utilisations
        for node in usage.values()
        for resource, (used, _) in node.items()
        if used > 0
    }
    return sorted(names, key=lambda name: (name != "cpu", name != "memory", name))


def _fraction(usage: Utilisation, node: str, resource: str) -> float | None:
    used, allocatable = usage.get(node, {}).get(resource, (0, 0))
    return round(used / allocatable, 4) if allocatable else None


def ranks(ranking: Ranking) -> dict[str, int]:
    """Rank per node, 1 the best, tied nodes sharing the rank of the first of them."""
    result: dict[str, int] = {}
    for group in ranking:
        position = len(result) + 1
        result.update((name, position) for name in group)
    return result


def pods_placed(placements: Mapping[str, int] | None, ranking: Ranking) -> Mapping[str, int]:
    """The pods each node received: a sequence's placements, or the single pod on the
    best node (the first of a tie)."""
    if placements is not None:
        return placements
    return {ranking[0][0]: 1} if ranking else {}


def node_table(
    nodes: Sequence[NodeScore],
    ranking: Ranking,
    before: Utilisation,
    after: Utilisation,
    placed: Mapping[str, int] | None,
) -> dict[str, Any]:
    """The data of one node table: plugins and their colours, resources, and one entry
    per node (best first, filtered nodes last)."""
    plugins = sorted({plugin for node in nodes for plugin in node.plugins})
    resources = resource_names(before, after)
    rank_of = ranks(ranking)
    common = common_parts(nodes, plugins)
    digits = table_digits(nodes)
    scale = max(
        (
            sum(
                max(0.0, node.plugins.get(p, 0.0)) - base
                for p, base in zip(plugins, common, strict=True)
            )
            for node in nodes
            if node.feasible
        ),
        default=0,
    )
    ordered = sorted(nodes, key=lambda node: rank_of.get(node.name, len(nodes) + 1))
    return {
        "plugins": [shown(plugin) for plugin in plugins],
        "colours": [PALETTE[index % len(PALETTE)] for index in range(len(plugins))],
        "resources": [shown(resource) for resource in resources],
        "scale": scale,
        "digits": digits,
        "common": common,
        "commonTotal": sum(common),
        "commonShown": format_score(sum(common), digits),
        "placed": placed is not None,
        "nodes": [
            {
                "n": shown(node.name),
                "r": rank_of.get(node.name) if node.feasible else None,
                "t": node.total,
                "p": [node.plugins.get(plugin) for plugin in plugins],
                "why": None if node.feasible else shown(node.reason or "filtered"),
                "b": [_fraction(before, node.name, resource) for resource in resources],
                "a": [_fraction(after, node.name, resource) for resource in resources],
                "k": (placed or {}).get(node.name, 0),
            }
            for node in ordered
        ],
    }


def common_parts(nodes: Sequence[NodeScore], plugins: Sequence[str]) -> list[float]:
    """Per plugin, what every feasible node scores alike: the least positive part any of
    them has (TaintToleration's 300 on every node, nodeorder's constant terms). The bars
    draw it once, greyed, and the differences between nodes in colour, so the packing
    signal is not a sliver beside a constant (none with fewer than two nodes to compare)."""
    feasible = [node for node in nodes if node.feasible]
    if len(feasible) < 2:
        return [0.0 for _ in plugins]
    return [min(max(0.0, node.plugins.get(plugin, 0.0)) for node in feasible) for plugin in plugins]


@dataclass(frozen=True)
class Histogram:
    """How many nodes sit in each utilisation bucket of one resource, per series."""

    resource: str
    series: tuple[tuple[str, tuple[int, ...]], ...]

    @property
    def tallest(self) -> int:
        return max((count for _, counts in self.series for count in counts), default=0)


def histograms(
    resources: Iterable[str], series: Sequence[tuple[str, Utilisation]]
) -> list[Histogram]:
    """Per resource, the nodes per utilisation bucket in each labelled utilisation."""
    return [
        Histogram(
            shown(resource),
            tuple((label, _buckets(usage, resource)) for label, usage in series),
        )
        for resource in resources
    ]


def _buckets(usage: Utilisation, resource: str) -> tuple[int, ...]:
    counts = [0] * BUCKETS
    for node in usage.values():
        used, allocatable = node.get(resource, (0, 0))
        if allocatable > 0:
            counts[min(BUCKETS - 1, max(0, int(used * BUCKETS / allocatable)))] += 1
    return tuple(counts)


@dataclass(frozen=True)
class Filtered:
    """The filtered nodes of a case: the kube-scheduler line, and the nodes by reason."""

    line: str
    groups: tuple[ReasonGroup, ...]


def filtered(nodes: Sequence[NodeScore]) -> Filtered | None:
    if all(node.feasible for node in nodes):
        return None
    return Filtered(shown(availability(nodes)), tuple(reason_groups(nodes)))


def not_simulated(items: Iterable[NotSimulated]) -> list[tuple[str, str, str]]:
    """Each item as the page's ``not_simulated`` macro shows it: name, kind, effect."""
    return [(shown(item.name), shown(item.kind), shown(item.effect)) for item in items]
