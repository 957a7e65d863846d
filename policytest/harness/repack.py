"""Repack: the pods a snapshot has bound, placed again under a config.

A case ``pods: {fromSnapshot: bound}`` answers "how many nodes would this config need
for what runs today?". Every bound pod that could move is taken off its node, and the
pods are placed again one by one (under a Volcano conf, through its sessions, job by
job: :mod:`policytest.harness.sessions`), in the order they were created (the snapshot's
``order``: ``creationTimestamp``, then namespace and name, pods without a timestamp
last; pods with no recorded order, such as pods written in the fixture, follow node by
node). What cannot move stays where it is and counts as load:

- DaemonSet pods: one per node whatever the config;
- static pods, seen as their mirror pods (annotation ``kubernetes.io/config.mirror``,
  or owned by the Node): the node's own;
- pods on the node's own disk: a ``hostPath`` volume, or a claim bound to a ``local``
  or ``hostPath`` persistent volume;
- pods with a claim the snapshot cannot follow to its volume (no such
  PersistentVolumeClaim or PersistentVolume in it): where the volume can go is unknown;
- pods the case keeps (``keep:`` selectors, below).

A pod whose claims are bound to volumes with node affinity (a zonal disk) moves only to
the nodes those volumes reach: their node selector terms are added to its own required
node affinity (ANDed, as the VolumeBinding filter checks both); its volumes are then
not looked at again (how many volumes a node can attach, NodeVolumeLimits, is not
simulated).

A node is *in use* when it holds a pod other than a DaemonSet pod: a node left with
only DaemonSet pods can be removed (they go with it), so it is free. Nodes in use
before count today's placement; after, the nodes that received a pod and those that
hold a pod that stayed.

``keep:`` lists selectors; a pod is kept when it matches one of them, and it matches
one when it matches every field the selector gives: ``namespace``, ``labelSelector``
(a ``metav1.LabelSelector``), ``owner: {kind, name}`` (the pod's controller, or its
first owner; ``kind: Deployment`` matches the pods of the Deployment's ReplicaSets,
named ``<deployment>-<pod-template-hash>``; ``name`` may be left out).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from policytest.core.errors import PolicytestError
from policytest.harness.model import NodeSpec, RepackStart
from policytest.scoring.accounting import kube_node_info
from policytest.scoring.cluster import Node, Pod
from policytest.scoring.quantity import QuantityError
from policytest.scoring.selectors import Selector, SelectorError, compile_selector, label_map
from policytest.scoring.snapshot import MIRROR_ANNOTATION
from policytest.scoring.specs import (
    ORDER_KEY,
    ClusterSpecError,
    pod_shape_key,
    pods_of_entry,
    resource_list_from_dict,
)
from policytest.scoring.workload import OwnerReference
from policytest.scoring.workload_specs import WorkloadSpecError, label_selector

__all__ = [
    "KEPT_REASONS",
    "RepackError",
    "RepackStart",
    "is_daemon_pod",
    "keep_rules",
    "owner_of",
    "plan",
]

DAEMON_SET: Final = "DaemonSet pods"
STATIC: Final = "static and mirror pods"
LOCAL_VOLUME: Final = "pods on the node's own disk (hostPath, local persistent volumes)"
UNKNOWN_VOLUME: Final = "pods whose persistent volume the snapshot does not hold"
KEPT_BY_CASE: Final = "pods the case keeps"
KEPT_REASONS: Final = (DAEMON_SET, STATIC, LOCAL_VOLUME, UNKNOWN_VOLUME, KEPT_BY_CASE)
"""Why a pod stays where it is, in the order a pod is tested (the first that holds)."""

_POD_TEMPLATE_HASH: Final = "pod-template-hash"
_REQUIRED: Final = "requiredDuringSchedulingIgnoredDuringExecution"
_SHOWN_NOTES: Final = 5
"""Nodes named in a note before the rest are counted."""


class RepackError(PolicytestError):
    """A repack that cannot be planned (a ``keep`` selector or an ``order`` that does not
    parse, a snapshot with no bound pods); the message says where."""


@dataclass(frozen=True)
class KeepRule:
    """One ``keep:`` selector, compiled: a pod matches when it matches every field set."""

    namespace: str | None = None
    selector: Selector | None = None
    owner_kind: str | None = None
    owner_name: str | None = None

    def matches(self, pod: Pod) -> bool:
        workload = pod.workload
        if self.namespace is not None and workload.namespace != self.namespace:
            return False
        if self.selector is not None and not self.selector.matches(label_map(workload.labels)):
            return False
        if self.owner_kind is None:
            return True
        owner = owner_of(pod)
        if owner is None:
            return False
        if self.owner_kind == "Deployment" and owner.kind == "ReplicaSet":
            labels = dict(workload.labels)
            if _POD_TEMPLATE_HASH not in labels:
                return False
            deployment = owner.name.removesuffix(f"-{labels[_POD_TEMPLATE_HASH]}")
            return self.owner_name is None or deployment == self.owner_name
        return owner.kind == self.owner_kind and self.owner_name in (None, owner.name)


def keep_rules(items: Sequence[Mapping[str, Any]]) -> tuple[KeepRule, ...]:
    """The case's ``keep:`` selectors (already schema-checked); :class:`RepackError` for a
    label selector the API server would refuse."""
    rules = []
    for index, item in enumerate(items):
        where = f"keep[{index}]"
        selector = None
        if item.get("labelSelector") is not None:
            try:
                parsed = label_selector(item["labelSelector"], f"{where}.labelSelector")
                selector = compile_selector(parsed)
            except (WorkloadSpecError, SelectorError) as error:
                raise RepackError(f"{where}.labelSelector: {error}") from None
        owner = item.get("owner") or {}
        kind, name = owner.get("kind"), owner.get("name")
        rules.append(KeepRule(item.get("namespace"), selector, kind, name))
    return tuple(rules)


@dataclass(frozen=True)
class _Verdict:
    """What becomes of one bound pod entry: the reason it stays (``None``: it moves), and
    the entry it moves as."""

    pod: Pod
    reason: str | None
    moved: Mapping[str, Any] | None


def plan(
    nodes: Sequence[NodeSpec],
    volumes: Mapping[str, Sequence[Mapping[str, Any]]],
    rules: Sequence[KeepRule],
    dropped: int = 0,
) -> RepackStart:
    """Split the cluster's bound pods into those that stay and those placed again.

    ``volumes``: the snapshot's ``persistentVolumeClaims`` and ``persistentVolumes``;
    ``dropped``: the pods the snapshot left out as bound to nodes it does not have.
    """
    claims = _claims(volumes)
    verdicts: dict[object, _Verdict] = {}
    emptied: list[NodeSpec] = []
    ranked: list[tuple[int, Mapping[str, Any]]] = []
    unranked: list[Mapping[str, Any]] = []
    kept = dict.fromkeys(KEPT_REASONS, 0)
    in_use: list[str] = []
    anchored: set[str] = set()
    over: list[str] = []
    total = 0
    for spec in nodes:
        staying: list[Any] = []
        pods: list[Pod] = []
        busy = False
        for index, entry in enumerate(_entries(spec)):
            where = f"node `{spec.name}` pods[{index}]"
            key = pod_shape_key(entry)
            verdict = verdicts.get(key)
            if verdict is None:
                verdict = verdicts[key] = _judge(entry, claims, rules, where)
            count = _count(entry)
            total += count
            pods.extend([verdict.pod] * count)
            daemon = verdict.reason == DAEMON_SET
            busy = busy or not daemon
            if verdict.reason is not None:
                staying.append(entry)
                kept[verdict.reason] += count
                if not daemon:
                    anchored.add(spec.name)
                continue
            assert verdict.moved is not None
            places = _places(entry, count, where)
            if places is None:
                unranked.extend([verdict.moved] * count)
            else:
                ranked.extend((place, verdict.moved) for place in places)
        if busy:
            in_use.append(spec.name)
        excess = _excess(spec, pods)
        if excess:
            over.append(f"`{spec.name}` ({excess})")
        emptied.append(_emptied(spec, staying))
    if not total:
        raise RepackError(
            "the snapshot has no bound pods (pods with spec.nodeName, not Succeeded or "
            "Failed): nothing to repack"
        )
    ranked.sort(key=lambda item: item[0])
    moved = (*(entry for _, entry in ranked), *unranked)
    return RepackStart(
        nodes=tuple(emptied),
        pods=moved,
        kept=tuple((reason, count) for reason, count in kept.items() if count),
        in_use_before=tuple(in_use),
        anchored=frozenset(anchored),
        notes=tuple(_notes(len(ranked), len(unranked), over, dropped)),
    )


def is_daemon_pod(pod: Pod) -> bool:
    """A DaemonSet's pod: it runs on every node it may, and goes with its node."""
    owner = owner_of(pod)
    return owner is not None and owner.kind == "DaemonSet"


def owner_of(pod: Pod) -> OwnerReference | None:
    """The pod's controller, else its first owner (a fixture may leave out ``controller``)."""
    owners = pod.workload.owners
    return pod.workload.controller or (owners[0] if owners else None)


def _entries(spec: NodeSpec) -> list[Any]:
    """A node's bound pod entries; its ``used`` shorthand is one pod that requests it."""
    entries = list(spec.spec.get("pods") or ())
    if spec.spec.get("used") is not None:
        entries.insert(0, {"requests": spec.spec["used"]})
    return entries


def _emptied(spec: NodeSpec, staying: list[Any]) -> NodeSpec:
    node = {key: value for key, value in spec.spec.items() if key not in ("pods", "used")}
    if staying:
        node["pods"] = staying
    return NodeSpec(spec.name, node, spec.node)


def _count(entry: object) -> int:
    count = entry.get("count", 1) if isinstance(entry, Mapping) else 1
    return count if isinstance(count, int) and not isinstance(count, bool) else 1


def _places(entry: object, count: int, where: str) -> list[int] | None:
    """The entry's places in creation order (``None``: it records none)."""
    if not isinstance(entry, Mapping) or ORDER_KEY not in entry:
        return None
    places = entry[ORDER_KEY]
    if (
        not isinstance(places, list)
        or len(places) != count
        or not all(isinstance(p, int) and not isinstance(p, bool) for p in places)
    ):
        raise RepackError(
            f"{where}: `{ORDER_KEY}` must list one place in creation order (an integer) "
            f"for each of its {count} pods"
        )
    return places


def _judge(
    entry: object,
    claims: Mapping[tuple[str, str], Mapping[str, Any] | None],
    rules: Sequence[KeepRule],
    where: str,
) -> _Verdict:
    """Whether one bound pod entry stays (and why) or moves (and as what)."""
    try:
        (pod,) = pods_of_entry(
            {**entry, "count": 1} if isinstance(entry, Mapping) else entry, where
        )
    except (ClusterSpecError, QuantityError) as error:
        raise RepackError(str(error)) from None
    if is_daemon_pod(pod):
        return _Verdict(pod, DAEMON_SET, None)
    owner = owner_of(pod)
    if dict(pod.annotations).get(MIRROR_ANNOTATION) is not None or (
        owner is not None and owner.kind == "Node"
    ):
        return _Verdict(pod, STATIC, None)
    assert isinstance(entry, Mapping)
    spec = entry["spec"] if isinstance(entry.get("spec"), Mapping) else entry
    reach: list[list[Mapping[str, Any]]] = []
    for volume in spec.get("volumes") or ():
        if not isinstance(volume, Mapping):
            continue
        if volume.get("hostPath") is not None:
            return _Verdict(pod, LOCAL_VOLUME, None)
        claim = _claim_name(volume)
        if claim is None:
            continue
        bound = claims.get((pod.workload.namespace, claim))
        if bound is None:
            return _Verdict(pod, UNKNOWN_VOLUME, None)
        if bound.get("local") or bound.get("hostPath"):
            return _Verdict(pod, LOCAL_VOLUME, None)
        terms = _mapping(bound.get("nodeAffinity")).get("nodeSelectorTerms")
        if isinstance(terms, list) and terms:
            reach.append(terms)
    if any(rule.matches(pod) for rule in rules):
        return _Verdict(pod, KEPT_BY_CASE, None)
    return _Verdict(pod, None, _moved(entry, reach))


def _claim_name(volume: Mapping[str, Any]) -> str | None:
    claim = _mapping(volume.get("persistentVolumeClaim")).get("claimName")
    return claim if isinstance(claim, str) else None


def _claims(
    volumes: Mapping[str, Sequence[Mapping[str, Any]]],
) -> dict[tuple[str, str], Mapping[str, Any] | None]:
    """(namespace, claim) -> the persistent volume bound to it (``None``: unbound, or a
    volume the snapshot does not hold)."""
    persistent = {
        item.get("name"): item
        for item in volumes.get("persistentVolumes", ())
        if isinstance(item, Mapping)
    }
    return {
        (str(item.get("namespace") or "default"), str(item.get("name"))): persistent.get(
            item.get("volumeName")
        )
        for item in volumes.get("persistentVolumeClaims", ())
        if isinstance(item, Mapping)
    }


def _moved(entry: Mapping[str, Any], reach: list[list[Mapping[str, Any]]]) -> Mapping[str, Any]:
    """The entry as one incoming pod: without ``count``, ``order`` and its volumes, and
    restricted to the nodes its volumes reach (their terms ANDed with its own)."""
    moved = {key: value for key, value in entry.items() if key not in ("count", ORDER_KEY)}
    in_spec = isinstance(moved.get("spec"), Mapping)
    spec = dict(moved["spec"]) if in_spec else moved
    spec.pop("volumes", None)
    if reach:
        affinity = dict(_mapping(spec.get("affinity")))
        node_affinity = dict(_mapping(affinity.get("nodeAffinity")))
        own = _mapping(node_affinity.get(_REQUIRED)).get("nodeSelectorTerms")
        terms: list[Mapping[str, Any]] = own if isinstance(own, list) else [{}]
        for volume_terms in reach:
            terms = [_and(mine, theirs) for mine, theirs in itertools.product(terms, volume_terms)]
        node_affinity[_REQUIRED] = {"nodeSelectorTerms": terms}
        affinity["nodeAffinity"] = node_affinity
        spec["affinity"] = affinity
    if in_spec:
        moved["spec"] = spec
    return moved


def _and(first: Mapping[str, Any], second: Mapping[str, Any]) -> dict[str, Any]:
    """A node selector term that holds where both hold."""
    joined: dict[str, Any] = {}
    for key in ("matchExpressions", "matchFields"):
        both = [*(first.get(key) or ()), *(second.get(key) or ())]
        if both:
            joined[key] = both
    return joined


def _excess(spec: NodeSpec, pods: Sequence[Pod]) -> str:
    """What the node's bound pods request beyond its allocatable (as the kubelet admits
    pods: their actual requests, and their number against ``pods``), "" when nothing."""
    try:
        allocatable = resource_list_from_dict(spec.spec.get("allocatable"), spec.name)
    except (ClusterSpecError, ValueError):
        return ""  # reported with the fixture's own problems
    info = kube_node_info(Node(spec.name, allocatable, tuple(pods)))
    over = [
        f"{name} {_amount(name, info.requested[name])} of "
        f"{_amount(name, info.allocatable.get(name, 0))}"
        for name in info.requested
        if info.requested[name] > info.allocatable.get(name, 0)
    ]
    if info.pod_count > info.allowed_pod_number:
        over.append(f"{info.pod_count:,} pods of {info.allowed_pod_number:,}")
    return ", ".join(over)


def _amount(name: str, value: int) -> str:
    """A kube-scheduler amount as people read it (cpu in cores, memory in GiB)."""
    if name == "cpu":
        return f"{value / 1000:,.3g}"
    if name in ("memory", "ephemeral-storage"):
        return f"{value / (1 << 30):,.1f}Gi"
    return f"{value:,}"


def _notes(ranked: int, unranked: int, over: list[str], dropped: int) -> Iterator[str]:
    if unranked and not ranked:
        yield (
            "no pod records when it was created (a snapshot written by an older "
            "`policytest snapshot`, or pods written in the fixture): pods are placed "
            "node by node, as listed"
        )
    elif unranked:
        records = "1 pod records" if unranked == 1 else f"{unranked:,} pods record"
        yield (
            f"{records} no creation order (written in the fixture, or by an older "
            "`policytest snapshot`): placed after the others, node by node"
        )
    if over:
        named = ", ".join(over[:_SHOWN_NOTES])
        more = f" and {len(over) - _SHOWN_NOTES:,} more" if len(over) > _SHOWN_NOTES else ""
        held = "1 node holds" if len(over) == 1 else f"{len(over):,} nodes hold"
        yield (
            f"{held} pods requesting more than their allocatable: {named}"
            f"{more}; the kubelet admits no such pod, so the snapshot was taken mid-change "
            "or does not come from a running cluster (repacked as it is)"
        )
    if dropped:
        pods = "1 pod bound to a node" if dropped == 1 else f"{dropped:,} pods bound to nodes"
        yield (
            f"{pods} the snapshot does not have left out (their nodes are gone, or were not "
            "in the dump)"
        )


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


@dataclass(frozen=True)
class RepackOutcome:
    """How many nodes a repack needs, against today's placement."""

    in_use_before: int
    in_use: int
    """Nodes in use afterwards: those that received a pod, and those a kept pod that is
    not a DaemonSet pod holds."""
    moved: int
    kept: tuple[tuple[str, int], ...]
    notes: tuple[str, ...]

    @property
    def freed(self) -> int:
        """Nodes in use today minus nodes in use afterwards (negative: the config needs
        more nodes than today's placement)."""
        return self.in_use_before - self.in_use


def in_use_after(start: RepackStart, placements: Mapping[str, int]) -> set[str]:
    """The nodes in use after a repack placed its pods as ``placements`` says."""
    return {*start.anchored, *(name for name, count in placements.items() if count)}


def outcome(start: RepackStart, placements: Mapping[str, int]) -> RepackOutcome:
    return RepackOutcome(
        in_use_before=len(start.in_use_before),
        in_use=len(in_use_after(start, placements)),
        moved=len(start.pods),
        kept=start.kept,
        notes=start.notes,
    )
