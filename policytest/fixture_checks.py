"""What a schema-valid fixture may still hold that makes its result untrue.

Two things, both reported as PT003 at the offending key or value, by ``validate`` and
``run`` alike:

- scheduling features the reference scorers do not simulate (pod affinity, topology
  spread, volumes, host ports...; node selectors, node affinity, taints, tolerations
  and cordoned nodes are simulated by the node filters). The
  real scheduler would filter or score nodes by them; ignoring them silently would
  make a case pass that the scheduler would not reproduce.
- quantities Kubernetes would not accept: the API server rejects such a pod or node,
  so there is nothing to schedule.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from ruamel.yaml.nodes import Node

from policytest.cluster import ClusterSpecError, pods_from_dict
from policytest.findings import Finding
from policytest.fixture import (
    FIXTURE_ERROR,
    Case,
    Fixture,
    NodeSpec,
    bound_pod_entries,
    incoming_pod_entries,
    merged_child,
)
from policytest.quantity import QuantityError, parse_quantity
from policytest.scoring.fast import shape_key
from policytest.source import lookup, sequence_items

Path = tuple[str | int, ...]

# PodSpec field -> (the plugins that read it, what the scheduler does with it). The node
# filters (``nodeSelector``, ``tolerations``, required node affinity) are simulated; of
# ``affinity`` only pod (anti-)affinity is not.
_POD_FEATURES: Final[Mapping[str, tuple[str, str]]] = {
    "affinity": (
        "InterPodAffinity",
        "filters and scores nodes by the pods already on them",
    ),
    "topologySpreadConstraints": (
        "PodTopologySpread",
        "filters and scores nodes to spread matching pods across topology domains",
    ),
    "nodeName": ("NodeName", "binds the pod to that node without scoring any"),
    "schedulingGates": ("SchedulingGates", "does not schedule the pod until the gates go"),
    "resourceClaims": ("DynamicResources", "filters nodes by the devices the claims need"),
}
_AFFINITY_PLUGINS: Final = {
    "podAffinity": "InterPodAffinity",
    "podAntiAffinity": "InterPodAffinity",
}
# Volume sources that are local to the node and never filter or score one.
_NEUTRAL_VOLUME_KEYS: Final = frozenset(
    {"name", "emptyDir", "configMap", "secret", "downwardAPI", "projected", "hostPath"}
)
_VOLUME_PLUGINS: Final = "VolumeBinding, VolumeRestrictions, VolumeZone and NodeVolumeLimits"

_RESOURCE_LIST_KEYS: Final = frozenset({"requests", "limits", "overhead"})
_NODE_RESOURCE_KEYS: Final = ("allocatable", "used")


def cluster_problems(fixture: Fixture) -> list[Finding]:
    """Problems in the cluster (nodes and their bound pods): every case inherits them."""
    findings: list[Finding] = []
    clean: set[object] = set()  # pod shapes already checked and found clean
    for spec in fixture.nodes:
        findings.extend(_node_problems(fixture, spec))
        for entry, node in bound_pod_entries(fixture, spec):
            shape = shape_key(entry)
            if shape not in clean:
                problems = list(_pod_problems(fixture, entry, node))
                findings.extend(problems)
                if not problems:
                    clean.add(shape)
    return findings


def case_problems(fixture: Fixture, case: Case) -> list[Finding]:
    """Problems in one case's incoming pods."""
    return [
        finding
        for entry, node in incoming_pod_entries(fixture, case)
        for finding in _pod_problems(fixture, entry, node)
    ]


def _node_problems(fixture: Fixture, spec: NodeSpec) -> Iterator[Finding]:
    for key in _NODE_RESOURCE_KEYS:
        yield from _bad_quantities(fixture, spec.spec.get(key), spec.node, (key,))


def _pod_problems(fixture: Fixture, entry: object, node: Node) -> Iterator[Finding]:
    if not isinstance(entry, Mapping):
        return
    prefix: Path = ()
    body: Mapping[str, Any] = entry
    if isinstance(entry.get("spec"), Mapping):
        prefix, body = ("spec",), entry["spec"]
    for key, (plugins, effect) in _POD_FEATURES.items():
        value = body.get(key)
        if key == "affinity" and isinstance(value, Mapping):
            for part in _AFFINITY_PLUGINS:
                if _set(value.get(part)):
                    path = (*prefix, key, part)
                    where = f"{key}.{part}"
                    yield _unsimulated(fixture, node, path, where, plugins, effect, "pod")
        elif _set(value):
            yield _unsimulated(fixture, node, (*prefix, key), key, plugins, effect, "pod")
    yield from _volume_problems(fixture, body.get("volumes"), node, (*prefix, "volumes"))
    yield from _host_port_problems(fixture, body, node, prefix)
    quantities = [
        finding
        for path, value in _resource_lists(body, prefix)
        for finding in _bad_quantities(fixture, value, node, path)
    ]
    yield from quantities or _shape_problems(fixture, entry, node)


def _shape_problems(fixture: Fixture, entry: Mapping[str, Any], node: Node) -> Iterator[Finding]:
    """A pod the cluster model cannot read (``requests: 5``, a string for ``containers``),
    at the offending value: the scheduler would never see such a pod."""
    try:
        pods_from_dict(entry, default_requests_from_limits=True, where=_POD)
    except ClusterSpecError as error:
        where, _, reason = str(error).partition(": ")
        shown = where.removeprefix(f"{_POD}.")
        yield FIXTURE_ERROR.at(
            fixture.document,
            _locate(fixture, node, _parsed_path(where), key=False),
            f"pod `{shown}`: {reason}; the API server would reject this pod",
        )
    except QuantityError:
        pass  # a quantity is reported where it stands


_POD: Final = "pod"
_PATH_STEP: Final = re.compile(r"\.?([^.\[\]]+)|\[(\d+)\]")


def _parsed_path(where: str) -> Path:
    """``pod.spec.containers[0].resources`` as a path below the pod entry."""
    steps: list[str | int] = [
        int(index) if index else key for key, index in _PATH_STEP.findall(where)
    ]
    return tuple(steps[1:] if steps[:1] == [_POD] else steps)


def _volume_problems(
    fixture: Fixture, volumes: object, node: Node, path: Path
) -> Iterator[Finding]:
    """Volumes that bind, attach or count against a node (PVCs, ephemeral, CSI, cloud
    disks); config maps, secrets and empty dirs do not matter to scheduling."""
    if not isinstance(volumes, list):
        return
    for index, volume in enumerate(volumes):
        if not isinstance(volume, Mapping):
            continue
        source = next((key for key in volume if key not in _NEUTRAL_VOLUME_KEYS), None)
        if source is not None:
            yield _unsimulated(
                fixture,
                node,
                (*path, index, source),
                f"volumes[{index}].{source}",
                _VOLUME_PLUGINS,
                "binds, attaches and counts volumes per node, and filters nodes by them",
                "pod",
            )


def _host_port_problems(
    fixture: Fixture, body: Mapping[str, Any], node: Node, prefix: Path
) -> Iterator[Finding]:
    """Container ports with a ``hostPort``: NodePorts keeps two such pods apart."""
    for group in ("containers", "initContainers"):
        for index, container in _items(body.get(group)):
            for port_index, port in _items(container.get("ports")):
                if port.get("hostPort"):
                    path = (*prefix, group, index, "ports", port_index, "hostPort")
                    where = f"{group}[{index}].ports[{port_index}].hostPort"
                    effect = "filters out the nodes where another pod holds the host port"
                    yield _unsimulated(fixture, node, path, where, "NodePorts", effect, "pod")


def _items(value: object) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """The mapping items of a list, with their indexes (anything else is skipped)."""
    if isinstance(value, list):
        yield from ((i, item) for i, item in enumerate(value) if isinstance(item, Mapping))


def _unsimulated(
    fixture: Fixture,
    node: Node,
    path: Path,
    where: str,
    plugins: str,
    effect: str,
    owner: str,
) -> Finding:
    noun = "plugins" if " and " in plugins else "plugin"
    return FIXTURE_ERROR.at(
        fixture.document,
        _locate(fixture, node, path, key=True),
        f"{owner} `{where}` is for the scheduler's {plugins} {noun}, which policytest does "
        f"not simulate: the scheduler {effect}, so this result would not match it. "
        f"Remove `{where}`; to model its effect, leave out the nodes it would filter out",
    )


def _resource_lists(value: object, path: Path) -> Iterator[tuple[Path, object]]:
    """Every ``requests`` / ``limits`` / ``overhead`` mapping in a pod, at any depth
    (shorthand, containers, init containers, pod-level resources); not in metadata."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if key in _RESOURCE_LIST_KEYS and isinstance(item, Mapping):
                yield (*path, key), item
            elif key != "metadata":
                yield from _resource_lists(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _resource_lists(item, (*path, index))


def _bad_quantities(
    fixture: Fixture, resources: object, node: Node, path: Path
) -> Iterator[Finding]:
    """A finding at each quantity of a resource list that Kubernetes would reject."""
    if not isinstance(resources, Mapping):
        return
    for name, text in resources.items():
        try:
            parse_quantity(text)
        except QuantityError as error:
            yield FIXTURE_ERROR.at(
                fixture.document,
                _locate(fixture, node, (*path, name), key=False),
                f"`{name}: {json.dumps(text) if isinstance(text, str) else error.text}` "
                "is not a quantity Kubernetes accepts "
                f"({error.reason}); the API server would reject it. Write it like 2, 500m "
                "or 4Gi",
            )


def _locate(fixture: Fixture, node: Node, path: Sequence[str | int], *, key: bool) -> Node:
    """The source node at ``path`` below ``node`` (its key node when ``key``); the
    deepest node reached when the path leaves the source (a merge or an alias)."""
    text = fixture.document.text
    current = node
    for depth, step in enumerate(path):
        last = depth == len(path) - 1
        if isinstance(step, int):
            items = sequence_items(current)
            if step >= len(items):
                return current
            current = items[step]
            continue
        pair = lookup(current, step) if last and key else None
        if pair is not None:
            return pair[0]
        found = merged_child(current, str(step), text)
        if found is None:
            return current
        current = found
    return current


def _set(value: object) -> bool:
    """Whether a field holds anything (``tolerations: []`` and ``labels: {}`` do not)."""
    return value not in (None, False, "") and value != [] and value != {}
