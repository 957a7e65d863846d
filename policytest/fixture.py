"""Fixture files (``*.policytest.yaml``): a small cluster, incoming pods, expectations.

The fixture is decoded once into frozen dataclasses. Pods stay in the plain form the
user wrote (the cluster model parses their quantities), and every case remembers its
source node, so a failure or an error can point at the case's line.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from policytest.findings import Finding, Severity
from policytest.goyaml import is_merge_key
from policytest.limits import Limits
from policytest.rules import rule
from policytest.source import Document, sequence_items

FIXTURE_ERROR = rule(
    "PT003",
    Severity.ERROR,
    "fixture cannot be run",
    """
    A fixture refers to something that does not exist or cannot be used: a config file
    that is missing, outside the repository, or holds no scheduler config; a profile the
    config does not have; an expectation naming a node the cluster does not have; a
    quantity Kubernetes would not accept; a scheduling feature policytest does not simulate
    (a pod's ``nodeSelector``, ``affinity``, ``tolerations``, ``topologySpreadConstraints``,
    ``nodeName``, ``schedulingGates``, ``resourceClaims``, a persistent volume or a
    ``hostPort``; a node's ``labels``, ``taints`` or ``unschedulable``), since the
    scheduler would filter or score nodes by it; more nodes, pods or node scores than the input
    limits allow (``--limit cluster-nodes=N``, ``pods=N``, ``node-scores=N``; see
    docs/robustness.md). The case errors instead of passing.

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
    """Build the model from a schema-valid decoded fixture (its ``value``); the first
    problem with it instead, if any (see :func:`build_fixture_all`)."""
    fixture, problems = build_fixture_all(document, value)
    return problems[0] if problems else fixture


def build_fixture_all(
    document: Document,
    value: Mapping[str, Any],
    skip_nodes: frozenset[int] = frozenset(),
    skip_cases: frozenset[int] = frozenset(),
) -> tuple[Fixture, list[Finding]]:
    """Build the model from a decoded fixture, and every problem of names in it: nodes
    and cases listed twice, expectations naming nodes not in the cluster.

    ``skip_nodes`` / ``skip_cases``: indices of items left out of the model (items the
    schema refuses, so that the rest can still be checked in the same pass).
    """
    root, text = document.root, document.text
    scheduler_node = merged_child(root, "scheduler", text) or root
    scheduler = value["scheduler"]
    inline = merged_child(scheduler_node, "volcano", text) or merged_child(
        scheduler_node, "kubeSchedulerConfiguration", text
    )
    ref = SchedulerRef(scheduler.get("config"), inline, scheduler.get("profile"), scheduler_node)
    cluster_node = merged_child(root, "cluster", text) or root
    node_nodes = _paired(value["cluster"]["nodes"], merged_child(cluster_node, "nodes", text), root)
    nodes = tuple(
        NodeSpec(spec["name"], spec, node)
        for index, (spec, node) in enumerate(node_nodes)
        if index not in skip_nodes
    )
    case_nodes = _paired(value["cases"], merged_child(root, "cases", text), root)
    cases = tuple(
        _case(spec, node)
        for index, (spec, node) in enumerate(case_nodes)
        if index not in skip_cases
    )
    known = {spec.name for spec in nodes}
    problems = [
        FIXTURE_ERROR.at(document, repeated.node, f"node `{repeated.name}` is listed twice")
        for repeated in _repeated_all(nodes)
    ]
    problems += [
        FIXTURE_ERROR.at(
            document,
            repeated.node,
            f"case `{repeated.name}` is listed twice: a case's name identifies it in "
            "reports, pytest item ids, `diff` and `--update`; give each case its own name",
        )
        for repeated in _repeated_all(cases)
    ]
    for case in cases:
        for unknown in sorted(case.expect.node_names() - known):
            problems.append(
                FIXTURE_ERROR.at(
                    document,
                    case.node,
                    f"case `{case.name}` expects node `{unknown}`, which is not in the cluster "
                    f"(nodes: {', '.join(sorted(known))})",
                )
            )
    metadata = value.get("metadata")
    name = str((metadata if isinstance(metadata, Mapping) else {}).get("name") or document.path)
    return Fixture(document, name, ref, nodes, cases), problems


class _Named(Protocol):
    @property
    def name(self) -> str: ...


_N = TypeVar("_N", bound=_Named)


def _repeated_all(items: Sequence[_N]) -> list[_N]:
    """Every item whose name an earlier item already has."""
    seen: set[str] = set()
    repeated = []
    for item in items:
        if item.name in seen:
            repeated.append(item)
        seen.add(item.name)
    return repeated


def merged_child(node: Node | None, key: str, text: str, depth: int = 0) -> Node | None:
    """The value node that yaml.v2 ends up with for ``key``, merge keys (``<<``) followed:
    later pairs win, a merged list's first map wins (as :func:`policytest.goyaml.decode`)."""
    if not isinstance(node, MappingNode) or depth > MAX_MERGE_DEPTH:
        return None
    found = None
    for key_node, value_node in node.value:
        if is_merge_key(key_node, text):
            sources = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
            for source in reversed(sources):
                found = merged_child(source, key, text, depth + 1) or found
        elif isinstance(key_node, ScalarNode) and key_node.value == key:
            found = value_node
    return found


MAX_MERGE_DEPTH = 50


def _paired(values: Sequence[Any], node: Node | None, fallback: Node) -> list[tuple[Any, Node]]:
    """Decoded items with their source nodes; ``fallback`` where the source has no item
    of its own (a list brought in by a merge key or an alias the walk cannot match)."""
    items = sequence_items(node)
    if len(items) != len(values):
        items = ()
    return [(item, items[index] if items else fallback) for index, item in enumerate(values)]


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


def size_problem(fixture: Fixture, limits: Limits) -> Finding | None:
    """The first fixture limit the fixture exceeds (cluster nodes, pods after ``count``,
    node scores), before anything is built: a ``count: 1000000000`` costs nothing here.
    """
    document, nodes = fixture.document, fixture.nodes
    if len(nodes) > limits.max_cluster_nodes:
        return FIXTURE_ERROR.at(
            document,
            nodes[limits.max_cluster_nodes].node,
            f"the cluster has {len(nodes):,} nodes, more than the limit of "
            f"{limits.max_cluster_nodes:,}; not run (raise it with --limit cluster-nodes=N)",
        )
    pods = sum(1 for spec in nodes if spec.spec.get("used") is not None)
    for entry, node in _pod_entries(fixture):
        pods += _count(entry)
        if pods > limits.max_pods:
            return FIXTURE_ERROR.at(
                document,
                merged_child(node, "count", fixture.document.text) or node,
                f"the fixture's pods (bound and incoming, after `count`) add up to more than "
                f"the limit of {limits.max_pods:,}; not run (raise it with --limit pods=N)",
            )
    scores = 0
    for case in fixture.cases:
        incoming = sum(_count(entry) for entry in case.pods) if case.sequence else 1
        scores += incoming * len(nodes)
        if scores > limits.max_node_scores:
            return FIXTURE_ERROR.at(
                document,
                case.node,
                f"case `{case.name}` brings the node scores the fixture computes (incoming pods "
                f"times nodes, over all cases) beyond the limit of {limits.max_node_scores:,}; "
                "not run (raise it with --limit node-scores=N)",
            )
    return None


def _pod_entries(fixture: Fixture) -> Iterator[tuple[Any, Node]]:
    """Every pod entry (bound, then incoming) with its source node."""
    for spec in fixture.nodes:
        yield from bound_pod_entries(fixture, spec)
    for case in fixture.cases:
        yield from incoming_pod_entries(fixture, case)


def bound_pod_entries(fixture: Fixture, spec: NodeSpec) -> list[tuple[Any, Node]]:
    """The pod entries listed under one node's ``pods``, with their source nodes."""
    pods = spec.spec.get("pods")
    if not isinstance(pods, list):
        return []
    return _paired(pods, merged_child(spec.node, "pods", fixture.document.text), spec.node)


def incoming_pod_entries(fixture: Fixture, case: Case) -> list[tuple[Any, Node]]:
    """A case's incoming pod entries (``pod`` or ``pods``), with their source nodes."""
    text = fixture.document.text
    if case.sequence:
        return _paired(case.pods, merged_child(case.node, "pods", text), case.node)
    return [(case.pods[0], merged_child(case.node, "pod", text) or case.node)]


def _count(entry: object) -> int:
    """How many pods an entry stands for (a malformed count is the cluster model's to report)."""
    count = entry.get("count", 1) if isinstance(entry, Mapping) else 1
    return count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 1
