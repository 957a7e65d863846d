"""A first fixture for an existing config: the nodes a user names, one pod, one sequence.

The expectations are left empty on purpose: an empty ``expect`` fails (it would pass
whatever the scheduler did), and ``run --update`` fills it with what the scheduler did,
for the user to review. Every value is written as a JSON string, which YAML reads as
written whatever characters a name holds.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from policytest.core.errors import PolicytestError
from policytest.scoring.quantity import QuantityError, parse_quantity

DEFAULT_POD = "cpu=1,memory=1Gi"
DEFAULT_PODS_ON_NODE = "110"
"""kube-scheduler's default ``maxPods``: a node without ``pods`` fits no pod at all."""


class ScaffoldError(PolicytestError):
    """A node or pod the user named cannot be written (a usage error)."""


@dataclass(frozen=True)
class NodeSketch:
    """A node as named on the command line: its allocatable and what is already used."""

    name: str
    allocatable: Mapping[str, str]
    used: Mapping[str, str]


def resources(text: str, *, on_node: bool = False) -> dict[str, str]:
    """``cpu=8,memory=32Gi`` as a resource list: each name one a pod can request (a node
    has, ``on_node``), each quantity one Kubernetes accepts."""
    from policytest.harness.checks import resource_name_problem

    listed: dict[str, str] = {}
    for item in text.split(","):
        name, equals, quantity = item.partition("=")
        name, quantity = name.strip(), quantity.strip()
        if not equals or not name or not quantity:
            raise ScaffoldError(f"expected RESOURCE=QUANTITY, comma-separated: {text!r}")
        problem = resource_name_problem(name, on_node=on_node)
        if problem is not None:
            raise ScaffoldError(problem)
        try:
            negative = parse_quantity(quantity).nanos < 0
        except QuantityError as error:
            raise ScaffoldError(f"{name}: {error}") from None
        if negative:
            raise ScaffoldError(f"{name}: {quantity} is negative; Kubernetes refuses that")
        listed[name] = quantity
    return listed


def named_resources(text: str) -> tuple[str, dict[str, str]]:
    """``NAME:cpu=8,memory=32Gi`` as the node name and its resources."""
    name, colon, rest = text.partition(":")
    if not colon or not name.strip():
        raise ScaffoldError(f"expected NODE:RESOURCE=QUANTITY,...: {text!r}")
    try:
        return name.strip(), resources(rest, on_node=True)
    except ScaffoldError as error:
        raise ScaffoldError(f"node {name.strip()!r}: {error}") from None


def sketch_nodes(nodes: Sequence[str], used: Sequence[str]) -> list[NodeSketch]:
    """The nodes of ``--node`` with the ``--used`` of each; ``pods`` defaults to 110."""
    allocatable = dict(named_resources(text) for text in nodes)
    if len(allocatable) != len(nodes):
        raise ScaffoldError("a node is named twice in --node")
    in_use = dict(named_resources(text) for text in used)
    for name in in_use:
        if name not in allocatable:
            raise ScaffoldError(f"--used names {name!r}, which no --node names")
    return [
        NodeSketch(
            name, {**given, "pods": given.get("pods", DEFAULT_PODS_ON_NODE)}, in_use.get(name, {})
        )
        for name, given in allocatable.items()
    ]


def fixture_text(
    name: str, config: str, nodes: Sequence[NodeSketch], pod: Mapping[str, str]
) -> str:
    """The fixture, with ``config`` relative to the fixture's directory."""
    lines = [
        "# Written by `policytest init`. The expectations are empty, so the cases fail until",
        "# they say what the scheduler must do: `policytest run --update FILE` records what it",
        "# did; review that before you commit it.",
        "apiVersion: policytest/v1",
        "kind: PolicyTest",
        "metadata:",
        f"  name: {_quoted(name)}",
        "scheduler:",
        f"  config: {_quoted(config)}",
        "cluster:",
        "  nodes:",
    ]
    for node in nodes:
        lines.append(f"  - name: {_quoted(node.name)}")
        lines.append(f"    allocatable: {_flow(node.allocatable)}")
        if node.used:
            lines.append(f"    used: {_flow(node.used)}")
    requests = _flow(pod)
    lines += [
        "cases:",
        "- name: one pod",
        f"  pod: {{requests: {requests}}}",
        "  expect: {}",
        "- name: ten pods one after another",
        f"  pods: [{{requests: {requests}, count: 10}}]",
        "  expect: {}",
    ]
    return "\n".join(lines) + "\n"


def config_reference(config: str, fixture: str) -> str:
    """``config`` as the fixture names it: relative to the fixture's directory."""
    start = os.path.dirname(os.path.abspath(fixture))
    return os.path.relpath(os.path.abspath(config), start).replace(os.sep, "/")


class UnsafeOutput(PolicytestError):
    """The fixture would be written outside the repository through a link."""


def write_new(path: str, text: str, root: str) -> None:
    """Create ``path`` (and its directory); never replace a file that exists, never
    write through a link out of ``root`` (the repository that holds ``path`` as written:
    a committed ``fixtures -> ../elsewhere``), as ``run --update`` never does."""
    from policytest.read.paths import is_inside

    real = os.path.realpath(path)
    if is_inside(os.path.abspath(path), root) and not is_inside(real, root):
        raise UnsafeOutput(
            f"not writing {path}: it resolves to {real}, outside the repository root "
            "through a symbolic link; name a file inside the repository with -o"
        )
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(path, "x", encoding="utf-8") as stream:
        stream.write(text)


def _quoted(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _flow(resources: Mapping[str, str]) -> str:
    return "{" + ", ".join(f"{_quoted(k)}: {_quoted(v)}" for k, v in resources.items()) + "}"
