"""Cluster snapshots: ``kubectl get nodes,pods,services,replicasets,statefulsets,
replicationcontrollers,namespaces -A -o json|yaml`` as a fixture's cluster.

Reading streams: JSON is decoded one object at a time (a ``List``'s ``items`` one by
one, several top-level documents one after another), so a dump of 50,000 pods never
sits in memory as one tree; YAML goes through the package's libyaml reader. Each Node
and Pod is reduced on the spot to what scheduling reads:

- a node: its name, ``status.allocatable``, labels, taints, ``spec.unschedulable`` and
  ``status.images`` (names and sizes);
- a pod bound to a node (``spec.nodeName`` set, phase not Succeeded/Failed, as the
  scheduler's cache counts them): the requests of its containers, init containers and
  sidecars, its overhead and pod-level requests, what the node filters and the topology
  plugins read (namespace, labels, owners, tolerations, ``nodeSelector``, node and pod
  (anti-)affinity, spread constraints, images, host ports), and what decides whether a
  repack may move it (:mod:`policytest.harness.repack`): its ``hostPath`` and
  persistent volume claim volumes, and the annotations that mark a mirror pod or name a
  Volcano PodGroup (a pod Volcano schedules, naming a PodGroup or Volcano as its
  scheduler, keeps its name, creation time and UID too: a repack places it again
  through Volcano's sessions, which order jobs and tasks by them). Identical pods of a
  node are kept once with a ``count``, and
  ``order`` lists each one's place in creation order (``creationTimestamp``, then
  namespace and name; pods without a timestamp after all others), so a repack places
  them again in the order they were created;
- a pending pod (no ``spec.nodeName``, phase Pending): the same but the volumes, plus
  the fields policytest does not simulate (so a fixture that replays it says so);
- Services, ReplicaSets, ReplicationControllers and StatefulSets (name, namespace,
  selector) and Namespaces (name, labels): PodTopologySpread's default constraints and
  pod affinity's ``namespaceSelector`` read them;
- PersistentVolumeClaims (name, namespace, the volume bound) and PersistentVolumes
  (name, whether the volume is ``local`` or ``hostPath``, its required node affinity):
  a repack leaves a pod on a local volume where it is, and keeps a pod on another
  volume on the nodes that volume can reach.

The result, :class:`Snapshot`, is also the compact file ``policytest snapshot`` writes
(``kind: ClusterSnapshot``), which reads back through the same code.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO, Any, Final

from policytest.core.errors import PolicytestError
from policytest.core.limits import Limits
from policytest.scoring.quantity import QuantityError, parse_quantity
from policytest.scoring.specs import ORDER_KEY
from policytest.scoring.weights import TYPE_ANNOTATION, WEIGHT_ANNOTATION

__all__ = [
    "COMPACT_KIND",
    "DEFAULT_QUEUE",
    "MIRROR_ANNOTATION",
    "ORDER_KEY",
    "VOLUME_OBJECT_KEYS",
    "Snapshot",
    "SnapshotError",
    "anonymize",
    "compact_json",
    "read_snapshot",
    "read_snapshot_stream",
    "short_form",
]

COMPACT_KIND: Final = "ClusterSnapshot"
COMPACT_API_VERSION: Final = "policytest/v1"
_DONE_PHASES: Final = frozenset({"Succeeded", "Failed"})
_CHUNK: Final = 1 << 20
_LIST_KEYS: Final = ("items",)
# PodSpec fields the node filters and the topology plugins read (a pending pod's, and a
# bound pod's, which a repack places again).
_FILTER_FIELDS: Final = ("tolerations", "nodeSelector", "topologySpreadConstraints")
# PodSpec fields policytest does not simulate, kept for pending pods so a fixture that
# replays them reports them (PT003) instead of passing silently.
_UNSIMULATED_FIELDS: Final = ("schedulingGates", "resourceClaims")
# kind -> the compact snapshot's key (the fixture's cluster key) for workload objects.
_OBJECT_KEYS: Final = {
    "Service": "services",
    "ReplicaSet": "replicaSets",
    "ReplicationController": "replicationControllers",
    "StatefulSet": "statefulSets",
    "Namespace": "namespaces",
}
_SCHEDULING_KINDS: Final = frozenset({"PriorityClass", "Queue", "PodGroup"})
"""Kinds kept in the fixture's short form (:func:`short_form`)."""
DEFAULT_QUEUE: Final = "default"
"""The queue of a PodGroup that names none (and the one Volcano makes at start-up)."""
_POD_SCHEDULING: Final = ("priority", "priorityClassName", "schedulerName")
"""PodSpec fields the Volcano session (job and task order) and PrioritySort read."""
_GROUP_ANNOTATIONS: Final = (
    "scheduling.k8s.io/group-name",
    "volcano.sh/task-spec",
    "volcano.sh/task-index",
    "volcano.sh/task-priority",
    "volcano.sh/job-name",
    "scheduling.volcano.sh/queue-name",
)
"""The annotations that put a pod in a PodGroup and give its task role and priority (and
the queue of the PodGroup made for a pod naming none)."""
# kind -> the compact snapshot's key for the volumes a repack reads (not fixture keys).
VOLUME_OBJECT_KEYS: Final = {
    "PersistentVolumeClaim": "persistentVolumeClaims",
    "PersistentVolume": "persistentVolumes",
}
MIRROR_ANNOTATION: Final = "kubernetes.io/config.mirror"
"""The kubelet's mark on the mirror pod of a static pod (the pod is the node's own)."""
_BOUND_ANNOTATIONS: Final = frozenset({MIRROR_ANNOTATION, TYPE_ANNOTATION, WEIGHT_ANNOTATION})
"""The annotations a bound pod keeps beside its group's: a repack reads the first,
resource-strategy-fit scores a pod placed again by the others. Others (a CNI's pod IP, a
restart time) differ from pod to pod and would keep identical pods from being counted
once."""
_POD_AFFINITY: Final = ("podAffinity", "podAntiAffinity")
_SCHEDULING_KEYS: Final = ("priorityClasses", "queues", "podGroups")
"""The compact snapshot's keys for the scheduling objects (the fixture's cluster keys)."""
_NEUTRAL_VOLUME_KEYS: Final = frozenset(
    {"name", "emptyDir", "configMap", "secret", "downwardAPI", "projected", "hostPath"}
)
_IMAGE_VOLUME_KEYS: Final = frozenset({"name", "image"})
"""An image volume only adds to ImageLocality's score (1.36), which is simulated."""
_REQUIRED_AFFINITY: Final = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED_AFFINITY: Final = "preferredDuringSchedulingIgnoredDuringExecution"


class SnapshotError(PolicytestError):
    """Input that is not a cluster snapshot (one line, with the file and where)."""


@dataclass
class Counts:
    """What a snapshot kept and dropped, for the command's report."""

    nodes: int = 0
    bound_pods: int = 0
    pending_pods: int = 0
    completed_pods: int = 0
    """Succeeded or Failed: the scheduler's cache no longer counts them."""
    other_pods: int = 0
    """Neither bound nor Pending (e.g. phase Unknown without a node)."""
    orphan_pods: int = 0
    """Bound to a node the snapshot does not have."""
    workload_objects: int = 0
    """Services, ReplicaSets, ReplicationControllers, StatefulSets and Namespaces."""
    scheduling_objects: int = 0
    """PriorityClasses, Volcano Queues and PodGroups."""
    other_objects: int = 0
    """Objects of other kinds (never an error when some are Nodes)."""
    unsimulated_pending: int = 0
    """Pending pods using a feature policytest does not simulate (pod affinity, ...)."""

    def as_dict(self) -> dict[str, int]:
        return {
            "nodes": self.nodes,
            "boundPods": self.bound_pods,
            "pendingPods": self.pending_pods,
            "droppedCompletedPods": self.completed_pods,
            "droppedOtherPods": self.other_pods,
            "droppedPodsOnUnknownNodes": self.orphan_pods,
            "workloadObjects": self.workload_objects,
            "schedulingObjects": self.scheduling_objects,
            "droppedOtherObjects": self.other_objects,
            "pendingPodsWithUnsimulatedFeatures": self.unsimulated_pending,
        }


@dataclass
class Snapshot:
    """A cluster as scheduling sees it: nodes (fixture node form, bound pods grouped
    with ``count``), pending pods (``v1.Pod`` form: metadata, spec) and the workload
    objects and namespaces (fixture cluster form, by the fixture's key)."""

    nodes: list[dict[str, Any]] = field(default_factory=list)
    pending: list[dict[str, Any]] = field(default_factory=list)
    counts: Counts = field(default_factory=Counts)
    objects: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "apiVersion": COMPACT_API_VERSION,
            "kind": COMPACT_KIND,
            "nodes": self.nodes,
            "pending": self.pending,
            **self.objects,
        }


# --- reading ---------------------------------------------------------------------------------


def read_snapshot(
    path: str,
    progress: Callable[[int], None] | None = None,
    limits: Limits | None = None,
    max_pods: int | None = None,
) -> Snapshot:
    """Read a kubectl dump or a compact snapshot file (``-``: standard input).

    The one error boundary of a snapshot: whatever it holds (a field of the wrong type,
    nesting past the limits, an alias bomb), the result is a snapshot or a
    :class:`SnapshotError` naming the file, never another exception. ``limits`` bound a
    YAML snapshot as any other input file (``None``: only the alias limit, for
    ``policytest snapshot`` itself); ``max_pods`` bounds the pods kept, bound and
    pending (``policytest snapshot``: the ``pods`` limit, which is also the most a fixture
    may hold), so that the memory a dump takes is bounded whatever it holds."""
    import sys

    shown = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            return read_snapshot_stream(sys.stdin.buffer, shown, progress, limits, max_pods)
        with open(path, "rb") as handle:
            return read_snapshot_stream(handle, shown, progress, limits, max_pods)
    except OSError as error:
        raise SnapshotError(f"{shown}: cannot read: {error.strerror or error}") from None
    except SnapshotError:
        raise
    except RecursionError:
        raise SnapshotError(f"{shown}: nests too deeply to be a cluster snapshot") from None
    except PolicytestError as error:  # a limit of the YAML reader
        raise SnapshotError(f"{shown}: {error}") from None
    except (TypeError, ValueError, AttributeError, KeyError) as error:
        raise SnapshotError(
            f"{shown}: not a cluster snapshot: a field has a value of the wrong kind "
            f"({type(error).__name__}: {error}); expected the output of `kubectl get "
            "nodes,pods -A -o json` or a file written by `policytest snapshot`"
        ) from None


def read_snapshot_stream(
    stream: IO[bytes],
    shown: str,
    progress: Callable[[int], None] | None = None,
    limits: Limits | None = None,
    max_pods: int | None = None,
) -> Snapshot:
    """A snapshot from a byte stream (JSON streamed object by object, or YAML)."""
    reader = _TextChunks(stream, shown, progress)
    first = reader.peek_char()
    objects = _json_objects(reader) if first in ("{", "[") else _yaml_objects(reader, limits)
    return _build(objects, shown, max_pods)


class _TextChunks:
    """UTF-8 text read in chunks, with the count of bytes read for progress."""

    def __init__(
        self, stream: IO[bytes], shown: str, progress: Callable[[int], None] | None
    ) -> None:
        import codecs

        self.stream = stream
        self.shown = shown
        self.progress = progress
        self.decoder = codecs.getincrementaldecoder("utf-8-sig")()
        self.bytes_read = 0
        self.buffer = ""
        self.eof = False

    def more(self, size: int = 0) -> bool:
        """Append the next ``size`` bytes (at least a chunk) to ``buffer``; False at the
        end of the stream."""
        if self.eof:
            return False
        data = self.stream.read(max(size, _CHUNK))
        self.bytes_read += len(data)
        if self.progress is not None:
            self.progress(self.bytes_read)
        try:
            text = self.decoder.decode(data, final=not data)
        except UnicodeDecodeError:
            raise SnapshotError(f"{self.shown}: not UTF-8 text; kubectl writes UTF-8") from None
        if not data:
            self.eof = True
        self.buffer += text
        return bool(data) or bool(text)

    def peek_char(self) -> str:
        while True:
            stripped = self.buffer.lstrip()
            if stripped:
                return stripped[0]
            self.buffer = ""
            if not self.more():
                raise SnapshotError(f"{self.shown}: empty input; expected kubectl's Nodes and Pods")

    def rest(self) -> str:
        while self.more():
            pass
        text, self.buffer = self.buffer, ""
        return text


def _json_objects(reader: _TextChunks) -> Iterator[Mapping[str, Any]]:
    """Every Kubernetes object of a JSON stream: the items of each List (streamed), and
    single objects; several top-level documents may follow one another."""
    decoder = json.JSONDecoder()
    scanner = _JsonScanner(reader, decoder)
    while scanner.skip_space():
        if scanner.peek() == "[":
            scanner.expect("[")
            yield from _json_array(scanner)
            continue
        scanner.expect("{")
        head: dict[str, Any] = {}
        streamed = False
        first = True
        while True:
            scanner.skip_space()
            if scanner.peek() == "}":
                scanner.expect("}")
                break
            if not first:
                scanner.expect(",")
                scanner.skip_space()
            first = False
            key = scanner.value()
            scanner.skip_space()
            scanner.expect(":")
            scanner.skip_space()
            if key in _LIST_KEYS and scanner.peek() == "[":
                scanner.expect("[")
                streamed = True
                yield from _json_array(scanner)
            elif scanner.peek() == "[":  # a compact snapshot's nodes: decoded one by one
                scanner.expect("[")
                head[str(key)] = list(_json_values(scanner))
            else:
                head[str(key)] = scanner.value()
        if not streamed:
            yield head


def _json_array(scanner: _JsonScanner) -> Iterator[Mapping[str, Any]]:
    for item in _json_values(scanner):
        if not isinstance(item, Mapping):
            raise scanner.error("expected an object in the list")
        yield item


def _json_values(scanner: _JsonScanner) -> Iterator[Any]:
    """The values of a list whose ``[`` was read, one by one: a value is decoded again
    from its start when the text read so far ends inside it, so a 22 MB list decoded
    whole was decoded several times over."""
    first = True
    while True:
        scanner.skip_space()
        if scanner.peek() == "]":
            scanner.expect("]")
            return
        if not first:
            scanner.expect(",")
            scanner.skip_space()
        first = False
        yield scanner.value()


def _decoded(decoder: json.JSONDecoder, text: str, at: int) -> tuple[Any, int]:
    """``decoder.raw_decode`` with the garbage collector paused: decoded JSON holds no
    reference cycles, and the young collections that the decoder's many new containers
    trigger took a tenth of the time a 197 MB kubectl dump took to read."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return decoder.raw_decode(text, at)
    finally:
        if paused:
            gc.enable()


class _JsonScanner:
    """Just enough of a JSON tokenizer over :class:`_TextChunks` to walk the outer
    object and list, decoding each value with the C decoder."""

    def __init__(self, reader: _TextChunks, decoder: json.JSONDecoder) -> None:
        self.reader = reader
        self.decoder = decoder
        self.pos = 0
        self.consumed = 0  # characters dropped from the buffer's front

    def _compact(self) -> None:
        """Drop what has been decoded from the front of the buffer."""
        if self.pos:
            self.consumed += self.pos
            self.reader.buffer = self.reader.buffer[self.pos :]
            self.pos = 0

    def _ensure(self, count: int = 1) -> bool:
        while len(self.reader.buffer) - self.pos < count:
            self._compact()
            if not self.reader.more():
                return False
        return True

    def skip_space(self) -> bool:
        while True:
            if not self._ensure():
                return False
            buffer = self.reader.buffer
            while self.pos < len(buffer) and buffer[self.pos] in " \t\r\n":
                self.pos += 1
            if self.pos < len(buffer):
                return True

    def peek(self) -> str:
        if not self._ensure():
            raise self.error("unexpected end of input")
        return self.reader.buffer[self.pos]

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise self.error(f"expected {char!r}")
        self.pos += 1

    def value(self) -> Any:
        """The next JSON value, reading more input while it is incomplete."""
        while True:
            buffer = self.reader.buffer
            try:
                value, end = _decoded(self.decoder, buffer, self.pos)
            except json.JSONDecodeError as error:
                self._compact()
                # a value is decoded again from its start once more text is read: reading
                # as much again as is held keeps a large value (a compact snapshot's nodes)
                # linear in its size, not quadratic
                if self.reader.more(len(self.reader.buffer)):
                    continue
                raise self.error(
                    error.msg, error.pos - len(buffer) + len(self.reader.buffer)
                ) from None
            if end >= len(buffer) and buffer[-1:].isdigit() and not self.reader.eof:
                self._compact()
                self.reader.more()  # a number may go on in the next chunk
                continue
            self.pos = end
            return value

    def error(self, message: str, at: int | None = None) -> SnapshotError:
        """An error at absolute character ``at`` (default: where the scanner is)."""
        at = self.consumed + self.pos if at is None else at
        return SnapshotError(
            f"{self.reader.shown}: not valid JSON at character {at + 1}: {message}"
        )


def _yaml_objects(
    reader: _TextChunks, bounded: Limits | None = None
) -> Iterator[Mapping[str, Any]]:
    """Every object of a YAML stream (multi-document; a List's items), read with the
    package's libyaml reader and typed as yaml.v2 types them (within ``bounded``)."""
    from policytest.read import bigload
    from policytest.read.goyaml import decode as reference_decode
    from policytest.read.source import ParseFailure, compose_all

    text = reader.rest()
    # unbounded in size (``pods`` bounds what is kept), not in what aliases reach: kubectl
    # writes none, and a dump that holds them is charged as any input is
    limits = bounded or Limits(max_nodes=1 << 62, max_documents=1 << 62)
    try:
        roots = compose_all(text, limits)
    except ParseFailure as failure:
        raise SnapshotError(
            f"{reader.shown}:{failure.line + 1}:{failure.column + 1}: {failure.message}"
        ) from None
    for root in roots:
        value = (
            bigload.decode(root, text, limits)
            if bigload.available()
            else reference_decode(root, text, limits=limits)
        )
        if isinstance(value, Mapping) and isinstance(value.get("items"), list):
            yield from (item for item in value["items"] if isinstance(item, Mapping))
        elif isinstance(value, Mapping):
            yield value
        elif isinstance(value, list):
            yield from (item for item in value if isinstance(item, Mapping))
        else:
            line = root.start_mark.line + 1
            raise SnapshotError(f"{reader.shown}:{line}: expected Kubernetes objects")


# --- reducing --------------------------------------------------------------------------------


_Bound = dict[str, dict[str, dict[str, Any]]]
"""Bound pods as they stream in: node name -> the pod's JSON text -> the pod with its
``count``. Identical pods of a node are grouped as they are read, so memory grows with
the distinct pods, not with the dump (a 1,000,000-pod dump took 1.13 GB when every
reduced pod was kept until the end)."""
_Created = list[tuple[tuple[int, float, str, str, int], dict[str, Any]]]
"""Each bound pod's creation key (see :func:`_creation_key`) and the entry counting it."""


def _build(objects: Iterator[Mapping[str, Any]], shown: str, max_pods: int | None) -> Snapshot:
    snapshot = Snapshot()
    counts = snapshot.counts
    bound: _Bound = {}
    created: _Created = []
    for index, obj in enumerate(objects):
        kind = obj.get("kind")
        if kind == COMPACT_KIND:
            return _compact(obj, shown)
        if kind == "Node":
            snapshot.nodes.append(_node(obj, shown, index))
        elif kind == "Pod":
            _pod(obj, shown, index, snapshot, bound, created)
            if max_pods is not None and counts.bound_pods + counts.pending_pods > max_pods:
                raise SnapshotError(
                    f"{shown}: more than {max_pods:,} pods (bound and pending) by object "
                    f"{index + 1}, more than a fixture may hold; not read (raise the limit "
                    "with --limit pods=N)"
                )
        elif isinstance(kind, str) and kind in _OBJECT_KEYS:
            snapshot.objects.setdefault(_OBJECT_KEYS[kind], []).append(_workload_object(obj))
            counts.workload_objects += 1
        elif kind in _SCHEDULING_KINDS:
            key, kept = short_form(obj) or ("", {})
            snapshot.objects.setdefault(key, []).append(kept)
            counts.scheduling_objects += 1
        elif isinstance(kind, str) and kind in VOLUME_OBJECT_KEYS:
            snapshot.objects.setdefault(VOLUME_OBJECT_KEYS[kind], []).append(_volume_object(obj))
            counts.workload_objects += 1
        else:
            counts.other_objects += 1
    if not snapshot.nodes:
        raise SnapshotError(
            f"{shown}: no Nodes found ({counts.other_objects} other "
            f"{'object' if counts.other_objects == 1 else 'objects'}); expected the "
            "output of `kubectl get nodes,pods,services,replicasets,statefulsets,"
            "replicationcontrollers,namespaces -A -o json` (or -o yaml) or a file written "
            "by `policytest snapshot`"
        )
    counts.nodes = len(snapshot.nodes)
    on_nodes: set[int] = set()  # the entries on nodes of the snapshot, by id
    for node in snapshot.nodes:
        groups = bound.pop(node["name"], None)
        if groups:
            node["pods"] = list(groups.values())
            on_nodes.update(map(id, node["pods"]))
    counts.orphan_pods = sum(
        pod.get("count", 1) for groups in bound.values() for pod in groups.values()
    )
    counts.bound_pods -= counts.orphan_pods
    _number_in_creation_order(created, on_nodes)
    return snapshot


def _number_in_creation_order(created: _Created, kept: set[int]) -> None:
    """Give every kept entry its pods' places in creation order (``order``), counting
    from 0 over the pods of the snapshot's nodes: ascending, so the list of an entry
    follows the order its pods were read in only when they were created in that order."""
    created.sort(key=lambda item: item[0])
    place = 0
    for _, entry in created:
        if id(entry) in kept:
            entry.setdefault(ORDER_KEY, []).append(place)
            place += 1


def _creation_key(obj: Mapping[str, Any], index: int) -> tuple[int, float, str, str, int]:
    """Where a pod stands in creation order: by ``creationTimestamp``, then namespace and
    name (kubectl's order), pods without a readable timestamp after all the others;
    ``index`` (its place in the input) only keeps the order total."""
    from datetime import datetime, timezone

    metadata = _mapping(obj.get("metadata"))
    namespace, name = str(metadata.get("namespace") or ""), str(metadata.get("name") or "")
    stamp = metadata.get("creationTimestamp")
    try:
        when = datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
    except ValueError:
        return (1, 0.0, namespace, name, index)
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return (0, when.timestamp(), namespace, name, index)


def _compact(obj: Mapping[str, Any], shown: str) -> Snapshot:
    nodes = obj.get("nodes")
    pending = obj.get("pending") or []
    if not isinstance(nodes, list) or not isinstance(pending, list):
        raise SnapshotError(f"{shown}: a {COMPACT_KIND} needs a list of `nodes`")
    counts = Counts(nodes=len(nodes), pending_pods=len(pending))
    objects: dict[str, list[dict[str, Any]]] = {}
    for key in (*_OBJECT_KEYS.values(), *_SCHEDULING_KEYS, *VOLUME_OBJECT_KEYS.values()):
        items = obj.get(key)
        if items is None:
            continue
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            raise SnapshotError(f"{shown}: `{key}` of a {COMPACT_KIND} must be a list of objects")
        objects[key] = list(items)
        if key in _SCHEDULING_KEYS:
            counts.scheduling_objects += len(items)
        else:
            counts.workload_objects += len(items)
    for node in nodes:
        if not isinstance(node, dict) or not isinstance(node.get("name"), str):
            raise SnapshotError(f"{shown}: every node of a {COMPACT_KIND} needs a `name`")
        for pod in node.get("pods") or ():
            count = pod.get("count", 1) if isinstance(pod, dict) else 1
            counts.bound_pods += count if isinstance(count, int) else 1
    return Snapshot(list(nodes), list(pending), counts, objects)


def _where(shown: str, index: int, obj: Mapping[str, Any]) -> str:
    metadata = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    assert isinstance(metadata, Mapping)
    name = metadata.get("name")
    namespace = metadata.get("namespace")
    named = f"{namespace}/{name}" if namespace else str(name)
    return f"{shown}: {obj.get('kind')} {named} (object {index + 1})"


def _node(obj: Mapping[str, Any], shown: str, index: int) -> dict[str, Any]:
    metadata = _mapping(obj.get("metadata"))
    spec = _mapping(obj.get("spec"))
    status = _mapping(obj.get("status"))
    name = metadata.get("name")
    if not isinstance(name, str) or not name:
        raise SnapshotError(f"{_where(shown, index, obj)}: a Node without metadata.name")
    node: dict[str, Any] = {
        "name": name,
        "allocatable": _quantities(status.get("allocatable"), _where(shown, index, obj)),
    }
    labels = metadata.get("labels")
    if labels:
        node["labels"] = dict(labels)
    taints = spec.get("taints")
    if taints:
        node["taints"] = [
            {key: taint[key] for key in ("key", "value", "effect") if taint.get(key)}
            for taint in taints
            if isinstance(taint, Mapping)
        ]
    if spec.get("unschedulable"):
        node["unschedulable"] = True
    images = [
        {
            "names": [name for name in image.get("names") or () if isinstance(name, str)],
            "sizeBytes": image.get("sizeBytes") or 0,
        }
        for image in status.get("images") or ()
        if isinstance(image, Mapping)
    ]
    if images:
        node["images"] = images
    return node


def _workload_object(obj: Mapping[str, Any]) -> dict[str, Any]:
    """A Service, ReplicaSet, ReplicationController, StatefulSet (name, namespace,
    selector) or Namespace (name, labels), in the fixture's short form."""
    metadata = _mapping(obj.get("metadata"))
    kept: dict[str, Any] = {"name": metadata.get("name")}
    if obj.get("kind") == "Namespace":
        if metadata.get("labels"):
            kept["labels"] = dict(metadata["labels"])
        return kept
    if metadata.get("namespace"):
        kept["namespace"] = metadata["namespace"]
    selector = _mapping(obj.get("spec")).get("selector")
    if selector is not None:
        kept["selector"] = selector
    return kept


def _volume_object(obj: Mapping[str, Any]) -> dict[str, Any]:
    """A PersistentVolumeClaim (name, namespace, the volume bound to it) or a
    PersistentVolume (name, ``local`` or ``hostPath`` when it is one, its required node
    affinity)."""
    metadata = _mapping(obj.get("metadata"))
    spec = _mapping(obj.get("spec"))
    kept: dict[str, Any] = {"name": metadata.get("name")}
    if obj.get("kind") == "PersistentVolumeClaim":
        if metadata.get("namespace"):
            kept["namespace"] = metadata["namespace"]
        if spec.get("volumeName"):
            kept["volumeName"] = spec["volumeName"]
        return kept
    for source in ("local", "hostPath"):
        if spec.get(source) is not None:
            kept[source] = True
    required = _mapping(spec.get("nodeAffinity")).get("required")
    if required is not None:
        kept["nodeAffinity"] = required
    return kept


def short_form(obj: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """A PriorityClass, Queue or PodGroup object as the compact snapshot's short form,
    with its cluster key; ``None`` for another kind."""
    kind = obj.get("kind")
    metadata = _mapping(obj.get("metadata"))
    spec = _mapping(obj.get("spec"))
    status = _mapping(obj.get("status"))
    kept: dict[str, Any] = {"name": metadata.get("name")}
    if kind == "PriorityClass":
        kept["value"] = obj.get("value", 0)
        if obj.get("globalDefault"):
            kept["globalDefault"] = True
        return "priorityClasses", kept
    if kind == "Queue":
        for key in ("weight", "capability", "deserved", "priority"):
            if spec.get(key) is not None:
                kept[key] = spec[key]
        guarantee = _mapping(spec.get("guarantee")).get("resource")
        if guarantee:
            kept["guarantee"] = guarantee
        if status.get("state"):
            kept["state"] = status["state"]
        _tie_breakers(metadata, kept)
        return "queues", kept
    if kind == "PodGroup":
        if metadata.get("namespace"):
            kept["namespace"] = metadata["namespace"]
        for key in ("minMember", "minTaskMember", "minResources", "priorityClassName"):
            if spec.get(key) is not None:
                kept[key] = spec[key]
        # written even when defaulted, so that --anonymize hashes it with the Queue's name
        kept["queue"] = spec.get("queue") or DEFAULT_QUEUE
        if status.get("phase"):
            kept["phase"] = status["phase"]
        _tie_breakers(metadata, kept)
        return "podGroups", kept
    return None


def _tie_breakers(metadata: Mapping[str, Any], kept: dict[str, Any]) -> None:
    """Creation time and UID: the job and queue orders' last tie-breakers."""
    for key in ("creationTimestamp", "uid"):
        if metadata.get(key):
            kept[key] = metadata[key]


def _identity(obj: Mapping[str, Any], *, name: bool) -> dict[str, Any]:
    """What the topology plugins read from a pod's metadata (namespace, labels, owners)
    and what Volcano reads of its group (the group annotations; a pending pod's creation
    time and UID too, the task order's last tie-breakers)."""
    metadata = _mapping(obj.get("metadata"))
    keys = (
        ("name", "namespace", "labels", "creationTimestamp", "uid")
        if name
        else ("namespace", "labels")
    )
    kept = {key: metadata[key] for key in keys if metadata.get(key)}
    annotations = _mapping(metadata.get("annotations"))
    group = {key: annotations[key] for key in _GROUP_ANNOTATIONS if key in annotations}
    if group:
        kept["annotations"] = group
    owners = [
        {key: owner[key] for key in ("apiVersion", "kind", "name", "controller") if key in owner}
        for owner in metadata.get("ownerReferences") or ()
        if isinstance(owner, Mapping)
    ]
    if owners:
        kept["ownerReferences"] = owners
    return kept


def _pod(
    obj: Mapping[str, Any],
    shown: str,
    index: int,
    snapshot: Snapshot,
    bound: _Bound,
    created: _Created,
) -> None:
    counts = snapshot.counts
    spec = _mapping(obj.get("spec"))
    phase = _mapping(obj.get("status")).get("phase")
    node_name = spec.get("nodeName")
    if phase in _DONE_PHASES:
        counts.completed_pods += 1
        return
    where = _where(shown, index, obj)
    if node_name:
        reduced = _schedulable(spec, where)
        volumes = _repack_volumes(obj, spec)
        if volumes:
            reduced["volumes"] = volumes
        identity = _identity(obj, name=_volcanos(obj, spec))
        annotations = {
            key: value
            for key, value in _mapping(_mapping(obj.get("metadata")).get("annotations")).items()
            if key in _BOUND_ANNOTATIONS and isinstance(value, str)
        }
        if annotations:
            identity["annotations"] = {**identity.get("annotations", {}), **annotations}
        entry = _group(
            bound.setdefault(str(node_name), {}),
            {"metadata": identity, "spec": reduced} if identity else reduced,
        )
        created.append((_creation_key(obj, index), entry))
        counts.bound_pods += 1
        return
    if phase not in ("Pending", None):
        counts.other_pods += 1
        return
    pod_spec = _schedulable(spec, where)
    if _unsimulated(spec, pod_spec):
        counts.unsimulated_pending += 1
    snapshot.pending.append({"metadata": _identity(obj, name=True), "spec": pod_spec})
    counts.pending_pods += 1


def _volcanos(obj: Mapping[str, Any], spec: Mapping[str, Any]) -> bool:
    """Whether Volcano schedules the pod (it names a PodGroup, or Volcano as its
    scheduler): a repack places it again through Volcano's sessions, whose job and task
    orders read its name, creation time and UID (so each such pod is its own entry)."""
    annotations = _mapping(_mapping(obj.get("metadata")).get("annotations"))
    return _GROUP_ANNOTATIONS[0] in annotations or spec.get("schedulerName") == "volcano"


def _schedulable(spec: Mapping[str, Any], where: str) -> dict[str, Any]:
    """What scheduling a pod reads of its spec: requests (:func:`_resources`), the node
    filters' and the topology plugins' fields, the containers' images."""
    pod_spec = _resources(spec, where)
    for key in (*_FILTER_FIELDS, *_POD_SCHEDULING):
        if spec.get(key) is not None:
            pod_spec[key] = spec[key]
    affinity = _kept_affinity(spec.get("affinity"))
    if affinity:
        pod_spec["affinity"] = affinity
    for group in ("containers", "initContainers"):
        for source, kept in zip(spec.get(group) or (), pod_spec.get(group) or (), strict=False):
            image = _mapping(source).get("image")
            if isinstance(image, str):
                kept["image"] = image
    return pod_spec


def _repack_volumes(obj: Mapping[str, Any], spec: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A bound pod's volumes that decide whether a repack may move it: ``hostPath``
    (the node's own disk), persistent volume claims, and generic ephemeral volumes as
    the claim Kubernetes makes for them (named ``<pod>-<volume>``)."""
    pod_name = _mapping(obj.get("metadata")).get("name")
    kept: list[dict[str, Any]] = []
    for volume in spec.get("volumes") or ():
        if not isinstance(volume, Mapping):
            continue
        name = volume.get("name")
        if volume.get("hostPath") is not None:
            path = _mapping(volume["hostPath"]).get("path")
            kept.append({"name": name, "hostPath": {"path": path}})
        elif volume.get("persistentVolumeClaim") is not None:
            claim = _mapping(volume["persistentVolumeClaim"]).get("claimName")
            kept.append({"name": name, "persistentVolumeClaim": {"claimName": claim}})
        elif volume.get("ephemeral") is not None:
            claim = f"{pod_name}-{name}"
            kept.append({"name": name, "persistentVolumeClaim": {"claimName": claim}})
    return kept


def _kept_affinity(affinity: object) -> dict[str, Any]:
    """The parts of ``affinity`` a pod keeps: node affinity (required: filtered;
    preferred: scored by NodeAffinity) and pod (anti-)affinity (InterPodAffinity)."""
    kept: dict[str, Any] = {}
    if not isinstance(affinity, Mapping):
        return kept
    node_affinity = _mapping(affinity.get("nodeAffinity"))
    if node_affinity:
        kept["nodeAffinity"] = {
            key: node_affinity[key]
            for key in (_REQUIRED_AFFINITY, _PREFERRED_AFFINITY)
            if node_affinity.get(key) is not None
        }
    for key in ("podAffinity", "podAntiAffinity"):
        if affinity.get(key):
            kept[key] = affinity[key]
    return kept


def _unsimulated(spec: Mapping[str, Any], pod_spec: dict[str, Any]) -> bool:
    """Copy the fields policytest does not simulate into ``pod_spec``; any there?"""
    found = False
    for key in _UNSIMULATED_FIELDS:
        if spec.get(key):
            pod_spec[key] = spec[key]
            found = True
    volumes = [
        volume
        for volume in spec.get("volumes") or ()
        if isinstance(volume, Mapping) and any(k not in _NEUTRAL_VOLUME_KEYS for k in volume)
    ]
    if volumes:
        pod_spec["volumes"] = volumes
        found = found or any(k not in _IMAGE_VOLUME_KEYS for v in volumes for k in v)
    return found


def _resources(spec: Mapping[str, Any], where: str) -> dict[str, Any]:
    """A pod's requests as a PodSpec fragment: containers, init containers (sidecars
    keep ``restartPolicy``), overhead and pod-level requests. Limits are left out: the
    API server has already defaulted requests from them, and no scorer reads them."""
    reduced: dict[str, Any] = {
        "containers": [_container(c, where) for c in spec.get("containers") or ()]
    }
    init = [_container(c, where) for c in spec.get("initContainers") or ()]
    if init:
        reduced["initContainers"] = init
    if spec.get("overhead"):
        reduced["overhead"] = _quantities(spec["overhead"], where)
    pod_requests = _mapping(spec.get("resources")).get("requests")
    if pod_requests:
        reduced["resources"] = {"requests": _quantities(pod_requests, where)}
    return reduced


def _container(container: object, where: str) -> dict[str, Any]:
    """A container's requests, sidecar ``restartPolicy`` and host ports."""
    mapping = _mapping(container)
    reduced: dict[str, Any] = {}
    requests = _mapping(mapping.get("resources")).get("requests")
    if requests:
        reduced["resources"] = {"requests": _quantities(requests, where)}
    if mapping.get("restartPolicy") is not None:
        reduced["restartPolicy"] = mapping["restartPolicy"]
    ports = [
        {key: port[key] for key in ("hostPort", "protocol", "hostIP") if port.get(key)}
        for port in mapping.get("ports") or ()
        if isinstance(port, Mapping) and port.get("hostPort")
    ]
    if ports:
        reduced["ports"] = ports
    return reduced


def _quantities(value: object, where: str) -> dict[str, Any]:
    resources = dict(_mapping(value))
    for name, text in resources.items():
        try:
            parse_quantity(text)
        except QuantityError as error:
            raise SnapshotError(f"{where}: {name}: {error}") from None
    return resources


def _group(groups: dict[str, dict[str, Any]], pod: dict[str, Any]) -> dict[str, Any]:
    """Count ``pod`` in its node's ``groups``: identical pods once, with ``count``, in
    the order they first appear; the entry that counts it."""
    key = json.dumps(pod, sort_keys=True)
    group = groups.get(key)
    if group is None:
        groups[key] = pod
        return pod
    group["count"] = group.get("count", 1) + 1
    return group


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


# --- writing and anonymizing -----------------------------------------------------------------


def compact_json(snapshot: Snapshot) -> str:
    """The compact file: one node or pending pod per line (diffs stay readable)."""
    lines = [
        "{",
        f'"apiVersion": "{COMPACT_API_VERSION}",',
        f'"kind": "{COMPACT_KIND}",',
        '"nodes": [',
    ]
    separators = (",", ":")
    lines += _joined(json.dumps(n, separators=separators) for n in snapshot.nodes)
    lines.append("],")
    lines.append('"pending": [')
    lines += _joined(json.dumps(p, separators=separators) for p in snapshot.pending)
    lines.append("]")
    for key, items in snapshot.objects.items():
        lines[-1] += ","
        lines.append(f'"{key}": [')
        lines += _joined(json.dumps(item, separators=separators) for item in items)
        lines.append("]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _joined(items: Iterator[str]) -> list[str]:
    result = list(items)
    return [item + ("," if index < len(result) - 1 else "") for index, item in enumerate(result)]


def stable_name(prefix: str, name: str) -> str:
    """``node-<12 hex>``: the same name always gives the same hash (unsalted SHA-256). It
    hides names from a casual reader; names that can be guessed (``worker-1``) can be
    found by hashing guesses."""
    return f"{prefix}-{hashlib.sha256(name.encode()).hexdigest()[:12]}"


# What --anonymize keeps. Everything else that is a string is an identifier and is
# hashed, wherever it stands: a field added to the snapshot later is hashed too.
_KEPT_VALUES: Final = frozenset(
    {
        "operator",
        "effect",
        "restartPolicy",
        "whenUnsatisfiable",
        "nodeAffinityPolicy",
        "nodeTaintsPolicy",
        "protocol",
        "kind",
        "apiVersion",
        "type",
        "phase",
        "count",
        "weight",
        "tolerationSeconds",
        "maxSkew",
        "minDomains",
        "containerPort",
        "hostPort",
        "sizeBytes",
        "unschedulable",
        "creationTimestamp",
        "uid",
        "schedulerName",
        "state",
    }
)
"""Fields whose value is Kubernetes vocabulary, a number, a time or a random UID, not a
name (creation times and UIDs order Volcano's jobs and tasks)."""
_NUMBER_ANNOTATIONS: Final = frozenset({"volcano.sh/task-index", "volcano.sh/task-priority"})
"""Annotations whose value is a number Volcano reads: kept."""
_IMAGE_NAMES: Final = frozenset({"image", "names", "reference"})
"""A container's image, a node's image names, an image volume's reference: hashed as
ImageLocality names them, so a tagless name still matches its ``:latest``."""
_RESOURCES: Final = frozenset(
    {
        "allocatable",
        "requests",
        "limits",
        "overhead",
        "used",
        "capacity",
        "capability",
        "minResources",
        "deserved",
        "guarantee",
    }
)
"""Maps of resource names (read by the scorers and the config) to quantities: kept."""
_LABEL_MAPS: Final = frozenset(
    {"labels", "nodeSelector", "matchLabels", "selector", "annotations", "minTaskMember"}
)
"""Maps whose keys are label keys (hashed unless Kubernetes gives them a meaning)."""
_LABEL_KEYS: Final = frozenset({"key", "topologyKey", "matchLabelKeys", "mismatchLabelKeys"})
"""Fields whose value is a label or taint key."""
_SCORED_ANNOTATIONS: Final = frozenset({TYPE_ANNOTATION, WEIGHT_ANNOTATION})
"""resource-strategy-fit's pod annotations: a strategy and resource weights, kept whole."""
_NUMERIC_OPERATORS: Final = frozenset({"Gt", "Lt"})
_NAME_FIELD: Final = "metadata.name"
"""The one field a ``matchFields`` requirement names (its values are node names)."""


def _known_key(key: str) -> bool:
    """A label or taint key Kubernetes gives a meaning (``kubernetes.io/hostname``,
    ``node.kubernetes.io/unschedulable``): kept, so its meaning stays."""
    prefix, slash, _ = key.rpartition("/")
    return bool(slash) and prefix.endswith(("kubernetes.io", "k8s.io", "volcano.sh"))


def anonymize(snapshot: Snapshot) -> Snapshot:
    """Every identifier replaced by a stable hash wherever it appears: node, pod and
    namespace names, label keys and values, taint and toleration keys and values, image,
    volume, claim, gate and port names, in nodes and pending pods alike.

    Each distinct text always becomes the same hash (``node-``, ``pod-`` or ``ns-`` for
    a node, pod or namespace name, ``id-`` for any other), whole: a node name inside a
    longer label value is hidden with it. So selectors still match what they matched
    (``nodeSelector``, affinity ``values``, ``matchFields metadata.name``, tolerations,
    pod-affinity ``namespaces``); an image name is hashed as ImageLocality reads it
    (``nginx`` as ``nginx:latest``). Kept: resource names and quantities, numbers, Kubernetes
    vocabulary (operators, effects), the values of ``Gt``/``Lt`` requirements, and label
    keys under ``kubernetes.io`` and ``k8s.io``, whose meaning the scheduler knows. The
    hash is unsalted: a name that can be guessed can be confirmed.
    """
    prefixes: dict[str, str] = {}
    for pod in snapshot.pending:
        metadata = _mapping(pod.get("metadata"))
        for field_name, prefix in (("namespace", "ns"), ("name", "pod")):
            if isinstance(metadata.get(field_name), str):
                prefixes.setdefault(metadata[field_name], prefix)
    prefixes.update((node["name"], "node") for node in snapshot.nodes)

    def hashed(text: str) -> str:
        return stable_name(prefixes.get(text, "id"), text)

    def pod_name(text: str) -> str:
        """A pod name hashed with the index at its end kept (``job-task-3``): Volcano
        orders a job's tasks by that index."""
        parts = text.split("-")
        if len(parts) >= 3 and parts[-1].isdigit():
            return f"{hashed('-'.join(parts[:-1]))}-{parts[-1]}"
        return hashed(text)

    def walk(data: Any, field_name: str = "") -> Any:
        if isinstance(data, str):
            if field_name in _KEPT_VALUES:
                return data
            if field_name in _IMAGE_NAMES:  # `nginx` and `nginx:latest` are one image
                return hashed(normalized_image(data))
            if field_name in _LABEL_KEYS and (_known_key(data) or data == _NAME_FIELD):
                return data
            return hashed(data)
        if isinstance(data, list):
            return [walk(item, field_name) for item in data]
        if not isinstance(data, Mapping):
            return data  # numbers, booleans, null
        if field_name in _RESOURCES:
            return dict(data)
        if field_name in _LABEL_MAPS:
            return {
                _label_key(str(key), hashed): value
                if (field_name == "annotations" and key in _NUMBER_ANNOTATIONS)
                or key in _SCORED_ANNOTATIONS
                else walk(value)
                for key, value in data.items()
            }
        if data.get("operator") in _NUMERIC_OPERATORS:
            return {
                key: value if key == "values" else walk(value, key) for key, value in data.items()
            }
        return {key: walk(value, key) for key, value in data.items()}

    def named(pods: Any, walked: Any) -> Any:
        """The walked pods, each pod's name hashed as :func:`pod_name` hashes it."""
        for pod, done in zip(pods if isinstance(pods, list) else (), walked or (), strict=False):
            name = _mapping(_mapping(pod).get("metadata")).get("name")
            if isinstance(name, str):
                done["metadata"]["name"] = pod_name(name)
        return walked

    nodes = []
    for node in snapshot.nodes:
        walked = walk(node)
        named(node.get("pods"), walked.get("pods"))
        nodes.append(walked)
    pending = named(snapshot.pending, [walk(pod) for pod in snapshot.pending])
    objects = {
        key: [_walk_object(item, walk) for item in items] for key, items in snapshot.objects.items()
    }
    return Snapshot(nodes, pending, snapshot.counts, objects)


def _label_key(key: str, hashed: Callable[[str], str]) -> str:
    """A label, selector or annotation key, hashed unless Kubernetes or a scorer gives it
    a meaning."""
    return key if _known_key(key) or key in _SCORED_ANNOTATIONS else hashed(key)


def _walk_object(item: Mapping[str, Any], walk: Callable[[Any, str], Any]) -> dict[str, Any]:
    """A workload object or namespace: a ReplicaSet's or StatefulSet's ``selector`` is a
    label selector (its ``matchLabels`` a label map), a Service's a label map."""
    selector = item.get("selector")
    walked: dict[str, Any] = walk({k: v for k, v in item.items() if k != "selector"}, "")
    if isinstance(selector, Mapping) and (
        "matchLabels" in selector or "matchExpressions" in selector
    ):
        walked["selector"] = walk(selector, "labelSelector")
    elif selector is not None:
        walked["selector"] = walk(selector, "selector")
    return walked


def normalized_image(name: str) -> str:
    """ImageLocality's ``normalizedImageName``: ``:latest`` appended when the name has
    no tag (its last ``:`` is not after its last ``/``)."""
    return name if name.rfind(":") > name.rfind("/") else f"{name}:latest"


def is_snapshot_path(path: str) -> bool:
    """Whether ``path`` names an existing file (for the command's usage check)."""
    return path == "-" or os.path.isfile(path)
