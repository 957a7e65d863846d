"""Structure-aware fuzzing: seed documents, mutations, the targets and their properties.

Shared by ``tests/test_fuzz.py`` (a few seconds in every test run) and
``benchmarks/fuzz_long.py`` (a long run with a time budget).

Seeds are real files: the bundled fixtures and configs, kubectl output and the copies in
``tests/data/fuzz/seeds`` (Volcano confs and KubeSchedulerConfigurations from the oracle
and the corpus). Each seed is composed into a small YAML tree of our own that can hold
what a Python dict cannot: duplicate keys, anchors and aliases, tags, raw scalar text,
and a ConfigMap value that is itself a document. Mutations edit that tree (replace a
value with another YAML type or an odd scalar, delete or duplicate a key, alias one node
from another, merge keys, tags, deep nesting, ConfigMap and List wrappers), the tree is
rendered to text, and text mutations (dropped or re-indented lines, inserted tokens,
truncation, CRLF, a BOM, invalid UTF-8) are applied last.

The targets are the reader, ``validate_paths``, the fixture loader and runner
(``run_file``) and the CLI (``policytest.cli.main``). Their properties: no exception
escapes, the CLI exits only with a documented code (never 3), findings are 1-based,
nothing a YAML tag names is ever executed.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import io
import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Union

from hypothesis import strategies as st

from policytest import validate_paths
from policytest.cli import main
from policytest.core.findings import Finding
from policytest.core.limits import Limits
from policytest.core.options import CheckOptions
from policytest.harness.suite import run_file
from policytest.read.nodes import MappingNode, Node, ScalarNode, SequenceNode
from policytest.read.recognise import expand
from policytest.read.source import ParseFailure, compose_all, read_bytes
from tests.workmeter import WorkMeter

ROOT = Path(__file__).resolve().parent.parent
SEED_DIR = ROOT / "tests" / "data" / "fuzz" / "seeds"
MARKER = "policytest-fuzz-pwned"
"""A file that a YAML tag in the fuzzed input would create if any tag ever ran code."""

OPTIONS = CheckOptions()
EXIT_CODES = frozenset({0, 1})
"""What the CLI may answer for an existing file (2 is for usage errors, 3 is a bug)."""

# --- the tree ---------------------------------------------------------------------------


@dataclass
class Tree:
    """A YAML node with its decorations (anchor, tag)."""

    anchor: str | None = field(default=None, kw_only=True)
    tag: str | None = field(default=None, kw_only=True)


@dataclass
class Scalar(Tree):
    """A scalar; ``style`` is plain, single, double, literal or raw (written as is)."""

    text: str
    style: str = "plain"


@dataclass
class Seq(Tree):
    items: list[Yaml]
    flow: bool = False


@dataclass
class Map(Tree):
    items: list[tuple[Yaml, Yaml]]
    flow: bool = False


@dataclass
class Alias(Tree):
    name: str


@dataclass
class Embedded(Tree):
    """A scalar that holds a whole document (a ConfigMap ``data`` value)."""

    document: Yaml


@dataclass
class Deep(Tree):
    """``depth`` nested one-item collections around ``x`` (written without recursion)."""

    depth: int
    as_map: bool
    as_flow: bool


Yaml = Union[Scalar, Seq, Map, Alias, Embedded, Deep]  # noqa: UP007 (a runtime alias, py3.10)


def from_node(node: Node) -> Yaml:
    """Our tree for a composed node (seeds have no aliases)."""
    if isinstance(node, MappingNode):
        items = [(from_node(k), from_node(v)) for k, v in node.value]
        return Map(items, flow=bool(node.flow_style))
    if isinstance(node, SequenceNode):
        return Seq([from_node(item) for item in node.value], flow=bool(node.flow_style))
    assert isinstance(node, ScalarNode)
    text = str(node.value).replace("\a", "")
    if "\n" in text.strip():
        try:
            roots = compose_all(text, Limits())
        except ParseFailure:
            roots = []
        if len(roots) == 1 and isinstance(roots[0], MappingNode):
            return Embedded(from_node(roots[0]))
    style = {None: "plain", "'": "single", '"': "double", "|": "literal", ">": "literal"}
    return Scalar(text, style.get(node.style, "double"))


def load_seed(text: str) -> list[Yaml]:
    return [from_node(root) for root in compose_all(text, Limits())]


# --- rendering ----------------------------------------------------------------------------

_PLAIN = re.compile(r"[^\s\-?:,\[\]{}#&*!|>'\"%@`][^\n]*")
_FLOW_UNSAFE = re.compile(r"[,\[\]{}]")


def _plain_ok(text: str, flow: bool) -> bool:
    if not _PLAIN.fullmatch(text) or text != text.strip() or not text.isprintable():
        return False
    if ": " in text or " #" in text or text.endswith(":"):
        return False
    return not (flow and _FLOW_UNSAFE.search(text))


def _double(text: str) -> str:
    out = []
    for char in json.dumps(text, ensure_ascii=False)[1:-1]:
        out.append(char if char.isprintable() else f"\\u{ord(char):04x}")
    return '"' + "".join(out) + '"'


def _decorations(node: Yaml) -> str:
    parts = [f"&{node.anchor}" if node.anchor else "", node.tag or ""]
    return " ".join(part for part in parts if part)


def _decorate(node: Yaml, text: str) -> str:
    prefix = _decorations(node)
    return f"{prefix} {text}" if prefix and text else prefix or text


def _scalar_text(node: Scalar, flow: bool) -> str:
    if node.style == "raw":
        return node.text
    if node.style == "single" and "\n" not in node.text and node.text.isprintable():
        return "'" + node.text.replace("'", "''") + "'"
    if node.style in ("plain", "literal") and _plain_ok(node.text, flow):
        return node.text
    if node.style == "plain" and node.text == "":
        return ""
    return _double(node.text)


def flow(node: Yaml) -> str:
    """The node on one line."""
    if isinstance(node, Alias):
        return f"*{node.name}"
    if isinstance(node, Deep):
        opening, closing = ("{k: ", "}") if node.as_map else ("[", "]")
        return _decorate(node, opening * node.depth + "x" + closing * node.depth)
    if isinstance(node, Scalar):
        return _decorate(node, _scalar_text(node, flow=True))
    if isinstance(node, Embedded):
        return _decorate(node, _double(render([node.document])))
    if isinstance(node, Seq):
        return _decorate(node, "[" + ", ".join(flow(item) for item in node.items) + "]")
    entries = ", ".join(_flow_entry(key, value) for key, value in node.items)
    return _decorate(node, "{" + entries + "}")


def _flow_entry(key: Yaml, value: Yaml) -> str:
    key_text = flow(key)
    if isinstance(key, (Seq, Map)) or key_text == "":
        key_text = f"? {key_text}"
    return f"{key_text}: {flow(value)}"


def _inline(node: Yaml) -> str | None:
    """The node on the rest of the current line, or ``None`` if it needs a block."""
    if isinstance(node, Alias):
        return flow(node)
    if isinstance(node, Scalar):
        if node.style == "literal" and _literal_ok(node.text):
            return None
        return _decorate(node, _scalar_text(node, flow=False))
    if isinstance(node, Embedded):
        return None
    if isinstance(node, Deep):
        return flow(node) if node.as_flow or node.depth == 0 else None
    if node.flow or not node.items:
        return flow(node)
    return None


def _literal_ok(text: str) -> bool:
    return (
        "\n" in text.rstrip("\n")
        and not text.startswith((" ", "\t", "\n"))
        and all(line.isprintable() for line in text.split("\n"))
    )


def _attach(lead: str, node: Yaml, indent: int) -> list[str]:
    """``lead`` (``key:`` or ``-``) followed by ``node``."""
    inline = _inline(node)
    if inline is not None:
        return [f"{lead} {inline}".rstrip()]
    prefix = _decorations(node)
    head = f"{lead} {prefix}".rstrip()
    if isinstance(node, (Scalar, Embedded)):
        text = node.text if isinstance(node, Scalar) else render([node.document])
        chomp = "-" if not text.endswith("\n") else ("+" if text.endswith("\n\n") else "")
        pad = " " * (indent + 2)
        body = [f"{pad}{line}" if line else "" for line in text.rstrip("\n").split("\n")]
        return [f"{head} |{chomp}", *body]
    if isinstance(node, Deep):
        return [head, *_deep_block(node, indent + 2)]
    return [head, *block(node, indent + 2)]


def _deep_block(node: Deep, indent: int) -> list[str]:
    lines = []
    for level in range(node.depth):
        pad = " " * (indent + 2 * level)
        lines.append(f"{pad}k:" if node.as_map else f"{pad}-")
    lines.append(" " * (indent + 2 * node.depth) + "x")
    return lines


def block(node: Yaml, indent: int = 0) -> list[str]:
    """The lines of a collection in block style at ``indent``."""
    pad = " " * indent
    if isinstance(node, Deep):
        return [pad + flow(node)] if node.as_flow else _deep_block(node, indent)
    inline = _inline(node) if not isinstance(node, (Seq, Map)) or not node.items else None
    if inline is not None or not isinstance(node, (Seq, Map)):
        return [pad + (inline if inline is not None else flow(node))]
    if node.flow:
        return [pad + flow(node)]
    lines: list[str] = []
    if isinstance(node, Seq):
        for item in node.items:
            lines += _attach(f"{pad}-", item, indent)
        return lines
    for key, value in node.items:
        key_text = _inline(key)
        if key_text is None or isinstance(key, (Seq, Map)) or key_text == "":
            lines.append(f"{pad}? {flow(key)}")
            lines += _attach(f"{pad}:", value, indent)
        else:
            lines += _attach(f"{pad}{key_text}:", value, indent)
    return lines


def render(documents: list[Yaml]) -> str:
    """The documents as one YAML stream."""
    parts = []
    for document in documents:
        if isinstance(document, (Seq, Map)) and document.items and not document.flow:
            lines = block(document)
            prefix = _decorations(document)
            parts.append("\n".join([prefix, *lines] if prefix else lines) + "\n")
        else:
            parts.append(flow(document) + "\n")
    return "---\n".join(parts)


# --- mutations ------------------------------------------------------------------------------

Slot = tuple[list[Yaml] | list[tuple[Yaml, Yaml]], int, int]
"""Where a node sits: (a list, index, 0 for the item itself or 0/1 inside a map entry)."""


def slots(documents: list[Yaml]) -> list[Slot]:
    """Every place a node sits, in document order (the index a mutation picks from)."""
    found: list[Slot] = []

    def visit(node: Yaml) -> None:
        if isinstance(node, Seq):
            for index, item in enumerate(node.items):
                found.append((node.items, index, 0))
                visit(item)
        elif isinstance(node, Map):
            for index, (key, value) in enumerate(node.items):
                found.append((node.items, index, 0))
                visit(key)
                found.append((node.items, index, 1))
                visit(value)
        elif isinstance(node, Embedded):
            visit(node.document)

    for index, document in enumerate(documents):
        found.append((documents, index, 0))
        visit(document)
    return found


def _get(slot: Slot) -> Yaml:
    container, index, part = slot
    item = container[index]
    return item[part] if isinstance(item, tuple) else item


def _set(slot: Slot, node: Yaml) -> None:
    container, index, part = slot
    item = container[index]
    if isinstance(item, tuple):
        container[index] = (node, item[1]) if part == 0 else (item[0], node)  # type: ignore[index]
    else:
        container[index] = node  # type: ignore[call-overload]


ODD_SCALARS = [
    "010", "08", "0o17", "0x1F", "0b101", "1e3", "1.5", "1.0", "-1", "0", "-0", "+1", "1_000",
    "~", "null", "Null", "NULL", "", "y", "n", "yes", "No", "on", "OFF", "true", "False",
    ".inf", "-.inf", ".nan", ".5", "2001-12-14", "2001-12-14t21:59:43.10-05:00",
    "9223372036854775807", "9223372036854775808", "18446744073709551616",
    "-9223372036854775809", "1000000000", "1e400", "1e-400", "500m", "1Gi", "1.5Ki", "100Ei",
    "1e18", "-500m", "0.000000001", "1n", "1u", "12E", "NaN", "Infinity", "<<", "=", "-",
    "?", "a: b", "a #b", "'", '"', "{", "}", "[", "]", "*", "&", "!", "%", "@", "`",
    "\\", "\t", "\u00a0", "\u2028", "\ufeff", "\U0001f600", "名前", "nvidia.com/gpu",
    "../../etc/passwd", "/etc/passwd", "/dev/zero", ".", "..", "configs", "a" * 5000, "\x00",
    "cpu,memory,,nvidia.com/gpu,", " binpack ", "Binpack", "enqueue, allocate,",
    "MostAllocated", "LeastAllocated", "RequestedToCapacityRatio", "mostallocated",
]  # fmt: skip
TAGS = [
    "!!str", "!!int", "!!float", "!!bool", "!!null", "!!binary", "!!map", "!!seq",
    "!!timestamp", "!!merge", "!!set", "!!omap", "!!python/object/apply:os.system",
    "!!python/name:os.system", "!!python/object:os.system", "!!python/tuple", "!custom",
    "!", "!<tag:yaml.org,2002:str>", "!<!>",
]  # fmt: skip
KEYS = [
    # fixtures
    "apiVersion", "kind", "metadata", "name", "scheduler", "config", "profile", "volcano",
    "kubeSchedulerConfiguration", "cluster", "nodes", "allocatable", "used", "pods",
    "count", "requests", "limits", "containers", "initContainers", "restartPolicy",
    "overhead", "resources", "spec", "labels", "cases", "pod", "ties", "expect", "ranking",
    "top", "scores", "tolerance", "plugins", "unschedulable", "placements", "nodesUsed",
    "pending", "cpu", "memory", "nvidia.com/gpu",
    # Volcano
    "actions", "tiers", "arguments", "configurations", "enableNodeOrder", "enabledHierarchy",
    "binpack.weight", "binpack.cpu", "binpack.memory", "binpack.resources",
    "binpack.resources.nvidia.com/gpu", "leastrequested.weight", "mostrequested.weight",
    "balancedresource.weight",
    # kube-scheduler
    "profiles", "schedulerName", "pluginConfig", "args", "scoringStrategy", "type", "weight",
    "shape", "utilization", "score", "requestedToCapacityRatio", "score", "enabled",
    "disabled", "multiPoint", "percentageOfNodesToScore", "data", "items", "<<",
]  # fmt: skip


def pwn() -> Yaml:
    """A value that would create the marker file if any YAML tag ever ran code."""
    return Seq([Scalar(f"touch {MARKER}")], tag="!!python/object/apply:os.system")


def scalars() -> st.SearchStrategy[Yaml]:
    return st.one_of(
        st.sampled_from(ODD_SCALARS).map(lambda text: Scalar(text, "raw")),
        st.builds(
            Scalar,
            st.one_of(st.sampled_from(ODD_SCALARS), st.text(max_size=12)),
            st.sampled_from(["plain", "single", "double", "literal"]),
        ),
        st.integers(min_value=-(2**70), max_value=2**70).map(lambda n: Scalar(str(n))),
        st.floats().map(lambda f: Scalar(repr(f))),
        st.builds(pwn),
    )


def values() -> st.SearchStrategy[Yaml]:
    """Any replacement value: odd scalars, small collections, nesting."""
    return st.recursive(
        scalars(),
        lambda inner: st.one_of(
            st.builds(Seq, st.lists(inner, max_size=4), st.booleans()),
            st.builds(
                Map,
                st.lists(st.tuples(st.sampled_from(KEYS).map(Scalar), inner), max_size=4),
                st.booleans(),
            ),
        ),
        max_leaves=8,
    )


def _wrap_configmap(documents: list[Yaml]) -> list[Yaml]:
    return [
        Map(
            [
                (Scalar("apiVersion"), Scalar("v1")),
                (Scalar("kind"), Scalar("ConfigMap")),
                (Scalar("metadata"), Map([(Scalar("name"), Scalar("volcano-scheduler"))])),
                (Scalar("data"), Map([(Scalar("volcano-scheduler.conf"), Embedded(document))])),
            ]
        )
        for document in documents
    ]


def _wrap_list(documents: list[Yaml]) -> list[Yaml]:
    return [
        Map(
            [
                (Scalar("apiVersion"), Scalar("v1")),
                (Scalar("kind"), Scalar("List")),
                (Scalar("items"), Seq(list(documents))),
            ]
        )
    ]


Mutation = Callable[[list[Yaml]], list[Yaml]]
MUTATIONS = [
    "replace", "replace", "replace", "delete", "duplicate", "alias", "merge", "tag", "key",
    "add", "deep", "flow", "configmap", "list", "document", "hoist",
]  # fmt: skip
TEXT_MUTATIONS = ["drop", "duplicate", "indent", "insert", "truncate", "crlf", "bom", "byte"]


@st.composite
def mutation(draw: st.DrawFn) -> Mutation:
    """One edit of a document list (applied in place where possible)."""
    kind = draw(st.sampled_from(MUTATIONS))
    pick = draw(st.integers(min_value=0, max_value=10_000))
    other = draw(st.integers(min_value=0, max_value=10_000))
    value = draw(values()) if kind in ("replace", "add", "duplicate") else Scalar("x")
    key = draw(st.one_of(st.sampled_from(KEYS), st.text(max_size=8)))
    tag = draw(st.sampled_from(TAGS))
    depth = draw(st.sampled_from([3, 50, 150, 199, 200, 201, 400, 2000]))
    as_map, as_flow = draw(st.booleans()), draw(st.booleans())

    def apply(documents: list[Yaml]) -> list[Yaml]:
        if not documents:
            return [value]
        if kind == "configmap":
            return _wrap_configmap(documents)
        if kind == "list":
            return _wrap_list(documents)
        if kind == "document":
            return [*documents, copy.deepcopy(documents[pick % len(documents)])]
        places = slots(documents)
        slot = places[pick % len(places)]
        target = _get(slot)
        container, index, part = slot
        if kind == "replace":
            _set(slot, value)
        elif kind == "deep":
            _set(slot, Deep(depth, as_map, as_flow))
        elif kind == "delete" and len(container) > 1:
            del container[index]
        elif kind == "duplicate":
            item = container[index]
            if isinstance(item, tuple) and part == 1:
                container.insert(index + 1, (copy.deepcopy(item[0]), value))  # type: ignore[arg-type]
            else:
                container.insert(index + 1, copy.deepcopy(item))  # type: ignore[arg-type]
        elif kind in ("alias", "merge"):
            source = _get(places[other % len(places)])
            if isinstance(source, Alias):
                return documents
            source.anchor = source.anchor or f"a{other}"
            if kind == "alias":
                _set(slot, Alias(source.anchor))
            elif isinstance(target, Map):
                target.items.insert(0, (Scalar("<<"), Alias(source.anchor)))
        elif kind == "tag" and not isinstance(target, Alias):
            target.tag = tag
        elif kind == "key" and isinstance(container[index], tuple):
            _set((container, index, 0), Scalar(key))
        elif kind == "add" and isinstance(target, Map):
            target.items.insert(other % (len(target.items) + 1), (Scalar(key), value))
        elif kind == "flow" and isinstance(target, (Seq, Map)):
            target.flow = not target.flow
        elif kind == "hoist" and isinstance(container[index], tuple):
            # `key: value` becomes `<<: {key: value}` (or `<<: [{key: value}]`): same data
            entry = Map([container[index]])  # type: ignore[list-item]
            merged: Yaml = Seq([entry]) if as_flow else entry
            container[index] = (Scalar("<<"), merged)  # type: ignore[call-overload]
        return documents

    return apply


TEXT_TOKENS = [
    "\t", " ", ":", "- ", "&x ", "*x", "!!binary ", "#", "'", '"', "[", "{", "}", "]", "|",
    ">", "---\n", "...\n", "%YAML 1.1\n", "? ", "\x00", "\ufeff", "é", "\r", "<<: *x\n",
]  # fmt: skip


@st.composite
def text_mutation(draw: st.DrawFn) -> Callable[[bytes], bytes]:
    kind = draw(st.sampled_from(TEXT_MUTATIONS))
    where = draw(st.integers(min_value=0, max_value=100_000))
    token = draw(st.sampled_from(TEXT_TOKENS)).encode()
    byte = draw(st.integers(min_value=0, max_value=255))

    def apply(data: bytes) -> bytes:
        lines = data.split(b"\n")
        index = where % len(lines)
        if kind == "drop":
            del lines[index]
        elif kind == "duplicate":
            lines.insert(index, lines[index])
        elif kind == "indent":
            lines[index] = b"  " + lines[index]
        elif kind == "insert":
            cut = where % (len(lines[index]) + 1)
            lines[index] = lines[index][:cut] + token + lines[index][cut:]
        elif kind == "truncate":
            return data[: where % (len(data) + 1)]
        elif kind == "crlf":
            return data.replace(b"\n", b"\r\n")
        elif kind == "bom":
            return b"\xef\xbb\xbf" + data
        else:
            at = where % (len(data) + 1)
            return data[:at] + bytes([byte]) + data[at + 1 :]
        return b"\n".join(lines)

    return apply


# --- seeds ------------------------------------------------------------------------------------


def _seed_paths() -> list[Path]:
    bundled = sorted((ROOT / "fixtures").glob("*.policytest.yaml"))
    configs = sorted((ROOT / "fixtures" / "configs").glob("*.yaml"))
    kubectl = sorted((ROOT / "tests" / "data" / "kubectl").glob("*.*"))
    copied = sorted(SEED_DIR.iterdir())
    return [p for p in [*bundled, *configs, *kubectl, *copied] if p.suffix != ".md"]


def _parses(text: str) -> bool:
    try:
        compose_all(text, Limits())
    except ParseFailure:
        return False
    return True


ALL_SEED_TEXTS = {path.name: path.read_text() for path in _seed_paths()}
SEED_TEXTS = {name: text for name, text in ALL_SEED_TEXTS.items() if _parses(text)}
"""Seeds that are YAML (the rest are only mutated as text)."""
BROKEN_SEEDS = sorted(set(ALL_SEED_TEXTS) - set(SEED_TEXTS))
FIXTURE_SEEDS = sorted(name for name in SEED_TEXTS if name.endswith(".policytest.yaml"))
CONFIG_SEEDS = sorted(name for name in SEED_TEXTS if name not in FIXTURE_SEEDS)
SCHEDULER_CONFIGS = [
    name
    for name in CONFIG_SEEDS
    if "KubeSchedulerConfiguration" in SEED_TEXTS[name] or "tiers" in SEED_TEXTS[name]
]


@functools.cache
def _seed_tree(name: str) -> list[Yaml]:
    return load_seed(SEED_TEXTS[name])


def seed_documents(name: str) -> list[Yaml]:
    """A fresh copy of a seed's tree (mutations edit it in place)."""
    return copy.deepcopy(_seed_tree(name))


@st.composite
def mutated(draw: st.DrawFn, names: list[str], max_mutations: int = 4) -> bytes:
    """A seed with tree mutations and then text mutations applied."""
    documents = seed_documents(draw(st.sampled_from(names)))
    for edit in draw(st.lists(mutation(), max_size=max_mutations)):
        documents = edit(documents)
    data = render(documents).encode("utf-8", "surrogatepass")
    for edit in draw(st.lists(text_mutation(), max_size=2)):
        data = edit(data)
    return data


def documents_strategy() -> st.SearchStrategy[bytes]:
    """Any input at all: mutated seeds (mostly) and raw bytes."""
    return st.one_of(
        mutated(FIXTURE_SEEDS + CONFIG_SEEDS),
        mutated(FIXTURE_SEEDS + CONFIG_SEEDS),
        broken_seeds(),
        st.binary(max_size=512),
    )


@st.composite
def broken_seeds(draw: st.DrawFn) -> bytes:
    """A seed that is not YAML (oracle cases that fail to decode), text-mutated."""
    data = ALL_SEED_TEXTS[draw(st.sampled_from(BROKEN_SEEDS))].encode()
    for edit in draw(st.lists(text_mutation(), max_size=3)):
        data = edit(data)
    return data


@st.composite
def fixture_cases(draw: st.DrawFn) -> tuple[bytes, bytes | None]:
    """A fixture and, when it points at ``configs/fuzzed.yaml``, that config.

    Three ways: the fixture itself mutated; a mutated config file behind an intact
    fixture; a mutated config inline in the fixture (``scheduler: {volcano: ...}``).
    """
    name = draw(st.sampled_from(FIXTURE_SEEDS))
    how = draw(st.sampled_from(["fixture", "config", "inline"]))
    if how == "fixture":
        return draw(mutated([name])), None
    config_name = draw(st.sampled_from(SCHEDULER_CONFIGS))
    if how == "config":
        text = re.sub(r"config: \S+", "config: configs/fuzzed.yaml", SEED_TEXTS[name])
        return text.encode(), draw(mutated([config_name], max_mutations=3))
    inner = [_unwrapped(seed_documents(config_name)[0])]
    for edit in draw(st.lists(mutation(), max_size=3)):
        inner = edit(inner)
    key = "kubeSchedulerConfiguration" if "KubeScheduler" in SEED_TEXTS[config_name] else "volcano"
    fixture = seed_documents(name)
    for scheduler in _values(fixture[0], "scheduler"):
        if isinstance(scheduler, Map) and inner:
            scheduler.items = [(Scalar(key), inner[0])]
    return render(fixture).encode("utf-8", "surrogatepass"), None


def _values(node: Yaml, key: str) -> Iterator[Yaml]:
    if isinstance(node, Map):
        for item_key, item_value in node.items:
            if isinstance(item_key, Scalar) and item_key.text == key:
                yield item_value


def _unwrapped(document: Yaml) -> Yaml:
    """A ConfigMap's embedded config, else the document."""
    for data in _values(document, "data"):
        if isinstance(data, Map):
            for _, value in data.items:
                if isinstance(value, Embedded):
                    return value.document
    return document


# --- targets and properties ----------------------------------------------------------------


class Workspace:
    """A scratch repository (``.git``, ``fixtures/``, ``fixtures/configs/``) for one process."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / ".git").mkdir(parents=True, exist_ok=True)
        self.fixtures = root / "fixtures"
        shutil.copytree(ROOT / "fixtures", self.fixtures, dirs_exist_ok=True)
        self.marker = root / MARKER

    def write(self, name: str, data: bytes) -> Path:
        path = self.fixtures / name
        path.write_bytes(data)
        return path

    @contextlib.contextmanager
    def inside(self) -> Iterator[None]:
        """Run with the workspace as the working directory (where the marker would land)."""
        previous = os.getcwd()
        os.chdir(self.root)
        try:
            yield
        finally:
            os.chdir(previous)
        assert not self.marker.exists(), "a YAML tag executed code"


FUZZ_WORK = 10_000_000
"""Calls one input may make through a target (the most any of 3,420 inputs made in a
five-minute long run was 348,587, through the CLI): a walk without a budget, as the
search for configs nested in a wrapper once was (387 million nodes for one alias bomb,
a test worker hung for 40 minutes at about 10 GB), fails the example here instead of
hanging the test run."""


def bounded(check: Callable[..., None]) -> Callable[..., None]:
    """``check`` under a :class:`~tests.workmeter.WorkMeter` of :data:`FUZZ_WORK` calls."""

    @functools.wraps(check)
    def metered(*args: object) -> None:
        with WorkMeter(FUZZ_WORK):
            check(*args)

    return metered


def assert_findings_well_formed(findings: tuple[Finding, ...] | list[Finding]) -> None:
    for finding in findings:
        assert finding.line >= 1 and finding.column >= 1, finding
        assert finding.message and finding.rule, finding


@bounded
def check_reader(data: bytes) -> None:
    """Read and recognise: problems are 1-based findings; no exception."""
    source = read_bytes("fuzz.yaml", data, OPTIONS.limits)
    assert_findings_well_formed(source.problems)
    assert not (source.problems and source.documents)
    for document in source.documents:
        for embedded, _ in expand(document, OPTIONS.limits):
            assert embedded.path == "fuzz.yaml"


@bounded
def check_validate(workspace: Workspace, data: bytes) -> None:
    path = workspace.write("fuzz.yaml", data)
    report = validate_paths([str(path)], OPTIONS)
    assert_findings_well_formed(report.findings)


@bounded
def check_run(workspace: Workspace, fixture: bytes, config: bytes | None) -> None:
    if config is not None:
        workspace.write("configs/fuzzed.yaml", config)
    path = workspace.write("fuzz.policytest.yaml", fixture)
    for result in run_file(str(path), OPTIONS, str(workspace.root)):
        assert result.status in ("passed", "failed", "error"), result
        assert result.line >= 1
        assert_findings_well_formed(result.findings)


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``policytest`` in-process; exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@bounded
def check_cli(workspace: Workspace, fixture: bytes, config: bytes | None) -> None:
    """validate, run and explain: a documented exit code, never an internal error."""
    if config is not None:
        workspace.write("configs/fuzzed.yaml", config)
    path = str(workspace.write("fuzz.policytest.yaml", fixture))
    root = str(workspace.root)
    for argv in (
        ["validate", "--format", "json", path],
        ["run", "--format", "json", "--root", root, path],
        ["explain", "--root", root, path],
    ):
        code, out, err = run_cli(argv)
        assert code in EXIT_CODES, f"{argv[0]} exited {code}: {err.strip()}"
        assert "Traceback" not in out + err
        if argv[1] == "--format":
            json.loads(out)
