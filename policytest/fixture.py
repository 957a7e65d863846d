"""Fixture files (``*.policytest.yaml``): a small cluster, incoming pods, expectations.

The fixture is decoded once into frozen dataclasses. Pods stay in the plain form the
user wrote (the cluster model parses their quantities), and every case remembers its
source node, so a failure or an error can point at the case's line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml.nodes import Node

from policytest.findings import Finding, Severity
from policytest.rules import rule
from policytest.source import Document, child, sequence_items

FIXTURE_ERROR = rule(
    "PT003",
    Severity.ERROR,
    "fixture cannot be run",
    """
    A fixture refers to something that does not exist or cannot be used: a config file
    that is missing, outside the repository, or holds no scheduler config; a profile the
    config does not have; an expectation naming a node the cluster does not have; a
    quantity Kubernetes would not accept. The case errors instead of passing.

    Failing::

        scheduler:
          config: configs/missing.yaml
        cluster:
          nodes:
          - name: node-a
            allocatable: {cpu: "8"}
        cases:
        - name: one pod
          pod: {requests: {cpu: "1"}}
          expect: {ranking: [node-b]}

    Passing::

        scheduler:
          config: configs/volcano-scheduler-configmap.yaml
        cluster:
          nodes:
          - name: node-a
            allocatable: {cpu: "8"}
        cases:
        - name: one pod
          pod: {requests: {cpu: "1"}}
          expect: {ranking: [node-a]}
    """,
)

RankingSpec = tuple[tuple[str, ...], ...]
"""Expected ranking, best first; each group is a set of nodes tied on score."""


@dataclass(frozen=True)
class Expectation:
    """What a case asserts; ``None`` means "not asserted"."""

    ranking: RankingSpec | None = None
    top: str | None = None
    scores: Mapping[str, float] = field(default_factory=dict)
    tolerance: float | None = None
    plugins: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    unschedulable: tuple[str, ...] | None = None
    placements: Mapping[str, int] | None = None
    nodes_used: int | None = None
    pending: int | None = None

    @property
    def is_sequence_outcome(self) -> bool:
        return any(v is not None for v in (self.placements, self.nodes_used, self.pending))

    def node_names(self) -> set[str]:
        """Every node name the expectation mentions (checked against the cluster)."""
        names = {name for group in self.ranking or () for name in group}
        names |= set(self.scores) | set(self.plugins) | set(self.unschedulable or ())
        names |= set(self.placements or ())
        if self.top:
            names.add(self.top)
        return names


@dataclass(frozen=True)
class Case:
    """One incoming pod (``pod``) or a sequence placed one by one (``pods``)."""

    name: str
    pods: tuple[Mapping[str, Any], ...]
    sequence: bool
    expect: Expectation
    ties_allowed: bool
    node: Node


@dataclass(frozen=True)
class NodeSpec:
    """A cluster node as written (plain form; the cluster model parses it)."""

    name: str
    spec: Mapping[str, Any]
    node: Node


@dataclass(frozen=True)
class SchedulerRef:
    """Where the scheduler config comes from: a path, or a node inline in the fixture."""

    config_path: str | None
    config_node: Node | None
    profile: str | None
    node: Node


@dataclass(frozen=True)
class Fixture:
    """A decoded fixture file."""

    document: Document
    name: str
    scheduler: SchedulerRef
    nodes: tuple[NodeSpec, ...]
    cases: tuple[Case, ...]


def build_fixture(document: Document, value: Mapping[str, Any]) -> Fixture | Finding:
    """Build the model from a schema-valid decoded fixture (its ``value``)."""
    root = document.root
    scheduler_node = child(root, "scheduler") or root
    scheduler = value["scheduler"]
    inline = child(scheduler_node, "volcano") or child(scheduler_node, "kubeSchedulerConfiguration")
    ref = SchedulerRef(scheduler.get("config"), inline, scheduler.get("profile"), scheduler_node)
    node_nodes = sequence_items(child(child(root, "cluster") or root, "nodes"))
    nodes = tuple(
        NodeSpec(spec["name"], spec, node)
        for spec, node in zip(value["cluster"]["nodes"], node_nodes, strict=True)
    )
    case_nodes = sequence_items(child(root, "cases"))
    cases = tuple(_case(spec, node) for spec, node in zip(value["cases"], case_nodes, strict=True))
    known = {spec.name for spec in nodes}
    if len(known) != len(nodes):
        duplicate = next(n for n in nodes if sum(m.name == n.name for m in nodes) > 1)
        return FIXTURE_ERROR.at(
            document, duplicate.node, f"node `{duplicate.name}` is listed twice"
        )
    for case in cases:
        unknown = sorted(case.expect.node_names() - known)
        if unknown:
            return FIXTURE_ERROR.at(
                document,
                case.node,
                f"case `{case.name}` expects node `{unknown[0]}`, which is not in the cluster "
                f"(nodes: {', '.join(sorted(known))})",
            )
    name = str((value.get("metadata") or {}).get("name") or document.path)
    return Fixture(document, name, ref, nodes, cases)


def _case(spec: Mapping[str, Any], node: Node) -> Case:
    sequence = "pods" in spec
    pods = tuple(spec["pods"]) if sequence else (spec["pod"],)
    expect = spec["expect"]
    return Case(
        name=spec["name"],
        pods=pods,
        sequence=sequence,
        expect=Expectation(
            ranking=_ranking(expect.get("ranking")),
            top=expect.get("top"),
            scores=dict(expect.get("scores") or {}),
            tolerance=expect.get("tolerance"),
            plugins={n: dict(p) for n, p in (expect.get("plugins") or {}).items()},
            unschedulable=tuple(expect["unschedulable"]) if "unschedulable" in expect else None,
            placements=dict(expect["placements"]) if "placements" in expect else None,
            nodes_used=expect.get("nodesUsed"),
            pending=expect.get("pending"),
        ),
        ties_allowed=spec.get("ties") == "allow",
        node=node,
    )


def _ranking(spec: Sequence[Any] | None) -> RankingSpec | None:
    if spec is None:
        return None
    return tuple(tuple(item) if isinstance(item, list) else (item,) for item in spec)
