"""Strict decoding, the way kube-scheduler reads ``--config``.

kube-scheduler converts YAML to JSON with ``sigs.k8s.io/yaml`` (yaml.v2 typing, strict:
duplicate keys are errors; map keys are stringified, ``.nan`` cannot become JSON) and
then decodes the JSON strictly and case-sensitively into Go types. This module produces
the same JSON value with positions kept, and turns every decoding failure into a
finding; the JSON Schema (``schemas/kubescheduler-config-v1.schema.json``) states the
field names and Go types.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from policytest.core.findings import Finding, Severity
from policytest.core.limits import Limits
from policytest.core.options import CheckOptions, kube_release
from policytest.core.records import record, replace
from policytest.core.releases import KubeRelease
from policytest.kube import rules
from policytest.read.goyaml import DecodeError, Uint64, decode, is_merge_key, scalar_value
from policytest.read.nodes import MappingNode, Node, ScalarNode, SequenceNode
from policytest.read.schema import locate, schema_findings
from policytest.read.source import Document

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SCHEMA_NAME = "kubescheduler-config-v1"
Path = tuple[str | int, ...]
_NOT_JSON = "cannot be converted to JSON"


@record(frozen=True)
class Decoded:
    """The JSON value kube-scheduler decodes, and what went wrong on the way.

    ``usable`` is false when kube-scheduler could not give every field its Go type
    (then ``value`` must not be interpreted); unknown fields and duplicate keys leave
    it usable, so later checks can still report more.
    """

    value: dict[str, Any]
    findings: tuple[Finding, ...]
    usable: bool


def at_path(document: Document, path: Path, *, key: bool = False) -> Node:
    """The node at a decoded path (its value, or its key with ``key``), or the nearest
    enclosing node that exists."""
    key_node, value_node = locate(document, path)
    if key and key_node is not None:
        return key_node
    return value_node or key_node or document.root


def decode_document(document: Document, options: CheckOptions) -> Decoded:
    """Decode ``document`` as kube-scheduler would; see the module docstring."""
    root = document.root
    if not isinstance(root, MappingNode):
        message = (
            "the configuration is not a mapping: kube-scheduler cannot read its apiVersion "
            "and kind and refuses to start; write `apiVersion: kubescheduler.config.k8s.io/v1` "
            "and `kind: KubeSchedulerConfiguration` at the top level"
        )
        return Decoded({}, (rules.KS006_NOT_A_CONFIG.at(document, root, message),), False)
    findings: list[Finding] = list(_merge_collisions(document, options.limits))
    duplicates: list[Finding] = []

    def on_duplicate(mapping: MappingNode, key_node: ScalarNode) -> None:
        duplicates.append(
            rules.KS004_DUPLICATE_KEY.at(
                document,
                key_node,
                f"key `{key_node.value}` is already set in this mapping: kube-scheduler "
                "reads YAML strictly and refuses to start; keep only one of them",
            )
        )

    try:
        raw = decode(root, document.text, limits=options.limits, on_duplicate=on_duplicate)
    except DecodeError as error:
        findings.append(
            rules.KS005_WRONG_TYPE.at(
                document,
                error.node,
                f"{error}; kube-scheduler cannot decode the file and refuses to start",
            )
        )
        return Decoded({}, tuple(sorted(set(findings))), False)
    findings.extend(duplicates)
    problems: list[tuple[Path, str]] = []
    value = _to_json(raw, (), problems)
    for path, message in problems:
        findings.append(rules.KS005_WRONG_TYPE.at(document, at_path(document, path), message))
    if not isinstance(value, dict):  # cannot happen for a mapping root; keeps mypy honest
        value = {}
    taken = {(f.line, f.column) for f in findings}
    findings.extend(
        _strict(finding)
        for finding in schema_findings(
            document, SCHEMA_NAME, _schema_view(value, kube_release(options))
        )
        if (finding.line, finding.column) not in taken
    )
    usable = not any(
        f.rule in (rules.KS005_WRONG_TYPE.id, rules.KS006_NOT_A_CONFIG.id)
        and f.severity is Severity.ERROR
        for f in findings
    )
    return Decoded(value, tuple(sorted(set(findings))), usable)


def _schema_view(config: dict[str, Any], release: KubeRelease) -> dict[str, Any]:
    """``config`` as the schema (the newest API) should see it for ``release``: 1.33
    registers no ``DynamicResourcesArgs``, so the args of a DynamicResources entry are
    accepted as written (decoded as unknown args and never read) and left out here."""
    if release.dra_args is not None:
        return config
    profiles = config.get("profiles")
    if not isinstance(profiles, list):
        return config
    return {**config, "profiles": [_without_dra_args(profile) for profile in profiles]}


def _without_dra_args(profile: Any) -> Any:
    entries = profile.get("pluginConfig") if isinstance(profile, dict) else None
    if not isinstance(entries, list):
        return profile
    kept = [
        {key: value for key, value in entry.items() if key != "args"}
        if isinstance(entry, dict) and entry.get("name") == "DynamicResources"
        else entry
        for entry in entries
    ]
    return {**profile, "pluginConfig": kept}


def _strict(finding: Finding) -> Finding:
    """Say what kube-scheduler does with a schema violation: it decodes strictly."""
    message = finding.message
    if finding.rule == rules.KS003_UNKNOWN_FIELD.id:
        base, hint, name = message.partition("; did you mean ")
        message = (
            f"{base}: kube-scheduler decodes strictly (field names are case-sensitive) and "
            f"refuses to start; {'did you mean ' + name if hint else 'remove or rename it'}"
        )
    else:
        message += ": kube-scheduler cannot decode it and refuses to start"
    return replace(finding, message=message)


def _merge_collisions(document: Document, limits: Limits) -> Iterator[Finding]:
    """Keys written twice into one mapping through merge keys (``<<``).

    kube-scheduler reads YAML with yaml.v2's ``UnmarshalStrict``, which refuses every key
    set twice in a map, including a key a merge already set (in either order) and keys
    shared by two merged maps; ``goyaml.decode`` reports only keys written twice
    explicitly (yaml.v2's non-strict view), so the merge cases are found here. Each node
    is visited once (merged key sets are memoised), so aliases cannot blow this up.
    """
    budget = limits.max_nodes
    seen: set[int] = set()
    merged: dict[int, frozenset[Any]] = {}
    stack: list[Node] = [document.root]
    while stack and budget > 0:
        node = stack.pop()
        budget -= 1
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, MappingNode):
            yield from _collisions_in(document, node, merged)
            stack.extend(value for _, value in node.value)


def _collisions_in(
    document: Document, node: MappingNode, memo: dict[int, frozenset[Any]]
) -> Iterator[Finding]:
    written: set[Any] = set()
    explicit: set[Any] = set()
    for key_node, value_node in node.value:
        if is_merge_key(key_node, document.text):
            sources = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
            keys = [_keys(source, document.text, memo) for source in sources]
            total = sum(len(k) for k in keys)
            union = frozenset().union(*keys)
            if written & union or len(union) < total:
                yield rules.KS004_DUPLICATE_KEY.at(
                    document,
                    key_node,
                    "this merge sets a key that is already set in the mapping: kube-scheduler "
                    "reads YAML strictly (no overriding through `<<`) and refuses to start; "
                    "write the keys out instead of merging",
                )
            written |= union
            continue
        key = _typed_key(key_node, document.text)
        if key is not None and key in written and key not in explicit:
            yield rules.KS004_DUPLICATE_KEY.at(
                document,
                key_node,
                f"key `{key_node.value}` is already set by a merge (`<<`): kube-scheduler reads "
                "YAML strictly and refuses to start; drop the merge or this key",
            )
        written.add(key)
        explicit.add(key)


def _keys(node: Node, text: str, memo: dict[int, frozenset[Any]]) -> frozenset[Any]:
    """The keys a mapping ends up with, its own merges included (memoised per node)."""
    if id(node) in memo:
        return memo[id(node)]
    memo[id(node)] = frozenset()  # a merge cycle contributes nothing
    keys: set[Any] = set()
    if isinstance(node, MappingNode):
        for key_node, value_node in node.value:
            if is_merge_key(key_node, text):
                sources = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
                for source in sources:
                    keys |= _keys(source, text, memo)
            else:
                keys.add(_typed_key(key_node, text))
    memo[id(node)] = frozenset(keys)
    return memo[id(node)]


def _typed_key(node: Node, text: str) -> Any:
    if not isinstance(node, ScalarNode):
        return None
    try:
        key = scalar_value(node, text)
    except DecodeError:
        return None
    return key if _hashable(key) else None


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _to_json(value: Any, path: Path, problems: list[tuple[Path, str]]) -> Any:
    """``sigs.k8s.io/yaml``'s conversion: string keys, JSON numbers, no NaN/Inf.

    An integral float becomes an int, as Go's JSON encoder writes ``2.0`` as ``2``.
    """
    if isinstance(value, dict):
        result: dict[str, Any] = {}
        for key, item in value.items():
            name = _json_key(key)
            if name is None:
                problems.append(
                    (
                        path,
                        f"a mapping key of type {_go_key_type(key)} "
                        f"{_NOT_JSON}: kube-scheduler refuses to start; "
                        "quote the key",
                    )
                )
                continue
            result[name] = _to_json(item, (*path, name), problems)
        return result
    if isinstance(value, list):
        return [_to_json(item, (*path, index), problems) for index, item in enumerate(value)]
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            problems.append(
                (
                    path,
                    f"`{value}` {_NOT_JSON}: kube-scheduler cannot decode the "
                    "file and refuses to start; write a finite number",
                )
            )
            return None
        if value.is_integer() and abs(value) < 1e21:
            return int(value)
    if isinstance(value, Uint64):
        return int(value)
    return value


def _json_key(key: Any) -> str | None:
    """How ``sigs.k8s.io/yaml`` stringifies a yaml.v2 map key (``None``: unsupported)."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, Uint64) or key is None:
        return None
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        if math.isnan(key):
            return ".nan"
        if math.isinf(key):
            return ".inf" if key > 0 else "-.inf"
        return str(int(key)) if key.is_integer() and abs(key) < 1e21 else f"{key:g}"
    return None


def _go_key_type(key: Any) -> str:
    return "uint64" if isinstance(key, Uint64) else "<nil>" if key is None else type(key).__name__
