"""Reading: bytes -> YAML node trees that remember where every node came from.

Only a *composer* runs here: it builds a node graph with source marks and constructs no
Python objects, so no tag can ever instantiate anything. Aliases stay shared nodes
(never expanded here); whoever walks a tree bounds the walk. Three composers build the
same tree (but for the tags of untagged plain scalars, which the pure composer resolves
itself and the others mark :data:`~policytest.read.nodes.PLAIN`: the decoder reads
either), and the first that accepts a text composes it: for a text up to
:data:`SMALL_TEXT`, the small reader of plain block YAML (:mod:`policytest.read.blockyaml`,
which imports no ruamel.yaml, so a hook run on a small config does not pay for it); then
libyaml (:mod:`policytest.read.bigload`); then ruamel.yaml's pure composer, whose errors
are the ones reported. The small reader declines whatever is outside its subset (anchors,
tags, escapes, tabs, multi-line scalars and flow collections, every syntax error).

A ConfigMap value that holds the real config is parsed as its own document whose
positions are mapped back into the outer file (see :mod:`policytest.read.positions`).
"""

from __future__ import annotations

import io
import os
import re
import sys
from collections.abc import Iterable, Iterator

from policytest.core.errors import PolicytestError
from policytest.core.findings import Finding, Severity
from policytest.core.limits import Limits, NodeCounter, TooDeep, TooManyNodes
from policytest.core.records import record, replace
from policytest.core.rules import rule
from policytest.read.nodes import (
    NULL,
    STR,
    MappingNode,
    Mark,
    Node,
    ScalarNode,
    SequenceNode,
    line_column,
)
from policytest.read.paths import Refused, read_regular
from policytest.read.positions import IDENTITY, Position
from policytest.read.syntax import flow_brackets

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from policytest.read.positions import PositionMap

PT001_UNREADABLE = rule(
    "PT001",
    Severity.ERROR,
    "file cannot be read as YAML or JSON",
    """
    The file is not valid YAML or JSON (a syntax error, a binary file, a non-UTF-8
    encoding, beyond the size, depth, alias, document-count or profile limits, or past
    the budget of the whole run: see docs/robustness.md). Neither
    scheduler can load it; fix the syntax at the reported line and column.

    Failing::

        actions: "enqueue, allocate"
        tiers:
        - plugins:
          - name: binpack
           arguments: {binpack.weight: 10}

    Passing::

        actions: "enqueue, allocate"
        tiers:
        - plugins:
          - name: binpack
            arguments: {binpack.weight: 10}
    """,
)
INVALID_YAML = "invalid YAML"
"""How a reader finding about YAML syntax begins (as opposed to a limit or encoding)."""

STDIN = "-"
STDIN_NAME = "<stdin>"
"""How standard input is named in findings."""


@record(frozen=True)
class Embedding:
    """Where an embedded document sits: a ConfigMap ``data`` value.

    ``ignored`` holds the roots of any further YAML documents in the same string: the
    schedulers read only the first one.
    """

    configmap: str
    key: str
    ignored: tuple[Node, ...] = ()
    namespace: str = ""
    """The ConfigMap's ``metadata.namespace`` (``""`` when it has none)."""

    @property
    def described(self) -> str:
        """``ConfigMap X, key Y``; ``values key Y`` for a chart's values that the chart
        writes into its ConfigMap (no ConfigMap name of its own)."""
        if not self.configmap:
            return f"values key {self.key}"
        return f"ConfigMap {self.configmap}, key {self.key}"


@record(frozen=True)
class Document:
    """One YAML document (or one embedded config) with its source positions."""

    path: str
    index: int
    root: Node
    text: str
    positions: PositionMap = IDENTITY
    embedding: Embedding | None = None
    unparsed: ParseFailure | None = None
    """Why ``text`` is not YAML, for a config that is evidently a scheduler's anyway (a
    ConfigMap value under a scheduler key): ``root`` is then an empty placeholder and the
    checker reports the failure as the scheduler's own error."""

    def position(self, node: Node, *, end: bool = False) -> Position:
        """1-based position of ``node`` in the file the user edits."""
        mark = node.end_mark if end else node.start_mark
        return self.positions.map(mark.line, mark.column)

    def embedded(
        self,
        root: Node,
        text: str,
        positions: PositionMap,
        embedding: Embedding,
        unparsed: ParseFailure | None = None,
    ) -> Document:
        """A document parsed from a string inside this one."""
        return Document(self.path, self.index, root, text, positions, embedding, unparsed)

    def item(self, root: Node) -> Document:
        """A sub-tree of this document treated as a document (``kind: List`` items)."""
        return Document(self.path, self.index, root, self.text, self.positions, self.embedding)


@record(frozen=True)
class SourceFile:
    """Everything read from one path: its documents, or the reason it has none."""

    path: str
    documents: tuple[Document, ...] = ()
    problems: tuple[Finding, ...] = ()
    head: str = ""
    """The first bytes of the file as text (lossy), to tell whose file a broken one is."""
    text: str | None = None
    """The decoded text of a file that is text but not YAML, for scheduler-specific reads."""
    unreadable: bool = False
    """The file could not be opened or read at all (permission denied, dangling symlink)."""
    refused: bool = False
    """The path rule refused the file (see :mod:`policytest.read.paths`): it resolves outside
    the repository root, or it is not a regular file. Always reported, never skipped."""
    spent: bool = False
    """The invocation's budget (a ``total-*`` limit) ran out before this file was read:
    always reported, never skipped, as it may well be a config."""


class ParseFailure(PolicytestError):
    """A text that is not YAML; carries the 0-based mark of the problem (``spent``: the
    invocation's ``total-yaml-nodes`` ran out while composing it; ``limited``: a limit
    stopped it, so nobody may compose it again under a budget of its own)."""

    def __init__(
        self, message: str, line: int, column: int, *, spent: bool = False, limited: bool = False
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.spent = spent
        self.limited = limited or spent


def _read_bytes(path: str, limit: int, root: str | None) -> bytes:
    if path == STDIN:
        return sys.stdin.buffer.read(limit + 1)
    return read_regular(path, limit + 1, root)


def read_file(path: str, limits: Limits, root: str | None = None) -> SourceFile:
    """Read and compose every document of ``path`` (``-`` is standard input).

    This is where every input file is opened, under the one path rule of
    :mod:`policytest.read.paths`: ``path`` must resolve inside ``root`` (default: the
    repository holding it) and be a regular file, else the result is a ``PT001``
    finding and nothing is read.
    """
    shown = STDIN_NAME if path == STDIN else path
    left = limits.left("file-bytes")
    try:
        data = _read_bytes(
            path, min(limits.max_file_bytes, _UNBOUNDED if left is None else left), root
        )
    except Refused as refusal:
        problem = _problem(shown, 1, 1, str(refusal))
        return replace(problem, unreadable=True, refused=True)
    except OSError as exc:
        problem = _problem(shown, 1, 1, f"cannot read file: {exc.strerror or exc}")
        return replace(problem, unreadable=True)
    return read_bytes(shown, data, limits)


HEAD_BYTES = 64 * 1024
_UNBOUNDED = 1 << 62


def read_bytes(path: str, data: bytes, limits: Limits) -> SourceFile:
    """Decode and compose ``data``; every failure becomes a ``PT001`` finding."""
    head = data[:HEAD_BYTES].decode("utf-8", "replace")
    source = _read_bytes_checked(path, data, limits)
    return replace(source, head=head)


def _read_bytes_checked(path: str, data: bytes, limits: Limits) -> SourceFile:
    if len(data) > limits.max_file_bytes:
        return _problem(
            path,
            1,
            1,
            f"file is larger than {limits.max_file_bytes:,} bytes; not read "
            "(raise the limit with --max-file-bytes if it really is a config)",
        )
    left = limits.left("file-bytes")
    if left is not None and len(data) > left:
        problem = _problem(path, 1, 1, limits.refuse("file-bytes", "bytes read"))
        return replace(problem, spent=True)
    limits.charge("file-bytes", len(data))
    if b"\x00" in data[:8192]:
        return _problem(path, 1, 1, "binary file (contains NUL bytes); not YAML or JSON")
    # one byte-order mark is dropped, as "utf-8-sig" drops it; positions count from after
    # it, as the YAML parsers' do (that codec's error offsets were into what follows it,
    # but the bad byte was looked up in the whole data, so the wrong one was named)
    data = data.removeprefix(b"\xef\xbb\xbf")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return _problem(
            path,
            line,
            column,
            f"not UTF-8 text (byte 0x{data[exc.start]:02x}); YAML and JSON must be UTF-8",
        )
    try:
        roots = compose_all(text, limits)
    except ParseFailure as failure:
        unparsed = _problem(path, failure.line + 1, failure.column + 1, failure.message)
        return replace(unparsed, text=text, spent=failure.spent)
    documents = tuple(Document(path, index, root, text) for index, root in enumerate(roots))
    return SourceFile(path, documents)


def compose_all(text: str, limits: Limits, count: NodeCounter | None = None) -> list[Node]:
    """Compose every non-empty document of ``text``; raise :class:`ParseFailure`.
    ``count``: the node budget of the file ``text`` is part of (the values of one
    ConfigMap share it), else ``yaml-nodes`` for ``text`` alone."""
    _refuse_deep_flow(text, limits.max_depth)
    roots: list[Node] = []
    count = count or NodeCounter.of(limits)
    before, aliases = count.left, count.aliases
    try:
        for root in _composed(text, limits.max_depth, count):
            if _is_empty(root):
                continue
            if len(roots) >= limits.max_documents:
                raise ParseFailure(
                    f"more than {limits.max_documents:,} documents in one file; not read",
                    root.start_mark.line,
                    root.start_mark.column,
                )
            roots.append(root)
        if count.aliases > aliases:
            _charge_expansions(roots, limits)
    except TooManyNodes as exc:
        message = (
            limits.refuse("yaml-nodes", "YAML nodes")
            if exc.spent
            else f"file has too many nodes (more than {limits.max_nodes:,} YAML nodes); not read "
            "(raise the limit with --limit yaml-nodes=N if it really is a config)"
        )
        raise ParseFailure(message, 0, 0, spent=exc.spent, limited=True) from exc
    except TooDeep as exc:
        raise ParseFailure(
            f"document nests deeper than {limits.max_depth} levels; not read", 0, 0, limited=True
        ) from exc
    except RecursionError as exc:
        raise ParseFailure(
            "document nests too deeply to be a scheduler config; not read", 0, 0
        ) from exc
    finally:
        limits.charge("yaml-nodes", before - max(count.left, 0))
    return roots


def _charge_expansions(roots: list[Node], limits: Limits) -> None:
    """Refuse a text whose documents expand, through their aliases, beyond what one
    walk may visit (see :func:`policytest.read.goyaml.charge_expansion`)."""
    from policytest.read.goyaml import DecodeLimit, charge_expansion

    for root in roots:
        try:
            charge_expansion(root, limits)
        except DecodeLimit as exc:
            mark = exc.node.start_mark
            raise ParseFailure(str(exc), mark.line, mark.column) from exc


SMALL_TEXT = 128 * 1024
"""The longest text the small-file reader tries first: up to about 200 KB it composes
in less CPU than libyaml does after the import of ruamel.yaml that libyaml needs
(``benchmarks/small_reader.py``); the margin bounds what a late decline wastes."""


def _composed(text: str, max_depth: int, count: NodeCounter) -> Iterable[Node]:
    """The small-file reader for plain block YAML up to :data:`SMALL_TEXT` (see
    :mod:`policytest.read.blockyaml`), then libyaml when installed (see
    :mod:`policytest.read.bigload`), else the pure composer: the first that accepts the
    text composes it, and all build the same tree (see the module docstring for the one
    difference). Each calls ``count`` once per node as
    it builds it (aliases are not new nodes); one that gives up part-way has its nodes
    given back, as the next starts over."""
    left = count.left
    if len(text) <= SMALL_TEXT:
        from policytest.read import blockyaml

        roots = blockyaml.compose_all(text, max_depth, count)
        if roots is not None:
            return roots
        count.left = left
    from policytest.read import bigload

    if bigload.available():
        roots = bigload.compose_all(text, max_depth, count)
        if roots is not None:
            return roots
        count.left = left  # libyaml gave up part-way: the pure composer starts over
    return _pure_composed(text, count)


def adopted(root: Any) -> Node:
    """ruamel.yaml's node tree rooted at ``root`` in our node classes: an iterative copy
    that keeps aliases shared (no depth limit: whoever decodes the tree bounds its walk)."""
    copies: dict[int, Node] = {}
    unfilled: list[tuple[Any, Node]] = []

    def copy(node: Any) -> Node:
        done = copies.get(id(node))
        if done is not None:
            return done
        if node.id == "scalar":
            done = ScalarNode(_tag(node), node.value, node.start_mark, node.end_mark, node.style)
        else:
            kind = SequenceNode if node.id == "sequence" else MappingNode
            done = kind(_tag(node), [], node.start_mark, node.end_mark, node.flow_style)
            unfilled.append((node, done))
        copies[id(node)] = done
        return done

    top = copy(root)
    while unfilled:
        node, done = unfilled.pop()
        if node.id == "sequence":
            done.value = [copy(item) for item in node.value]
        else:
            done.value = [(copy(key), copy(value)) for key, value in node.value]
    return top


def _tag(node: Any) -> str:
    """``node.tag`` without its cost: ruamel.yaml's property %-decodes the tag's text
    character by character on every read, and a tag the resolver gave or written in full
    is its own text unless it holds a ``%``."""
    tag = node.ctag
    suffix = tag.suffix
    if tag.handle is None and isinstance(suffix, str) and "%" not in suffix:
        return suffix
    return str(node.tag)


def _pure_composed(text: str, count: NodeCounter) -> Iterator[Node]:
    """ruamel.yaml's pure composer, its trees copied into ours; its syntax errors become
    :class:`ParseFailure` with its own words and marks (as it composes lazily, a
    document before the error has already been taken)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    yaml = YAML(typ="rt", pure=True)
    yaml.composer.warn_double_anchors = False  # yaml.v2 accepts a redefined anchor: the last wins

    class CountingResolver(yaml.Resolver):  # type: ignore[misc,name-defined]
        """The composer calls ``descend_resolver`` once per node it builds."""

        def descend_resolver(self, parent: Node | None, index: object) -> None:
            count()
            super().descend_resolver(parent, index)

    yaml.Resolver = CountingResolver
    if "*" in text:
        count.aliases += 1  # may hold one: the copy keeps them shared, uncounted
    try:
        for root in yaml.compose_all(io.StringIO(text)):
            yield adopted(root)
    except MarkedYAMLError as exc:
        from policytest.read.syntax import explained

        said = explained(exc, text)
        if said is None:
            mark = exc.problem_mark or exc.context_mark
            line, column = (mark.line, mark.column) if mark is not None else (0, 0)
            said = _yaml_message(exc), line, column
        raise ParseFailure(f"{INVALID_YAML}: {said[0]}", said[1], said[2]) from exc
    except YAMLError as exc:  # ReaderError: a character YAML does not allow
        line, column = _reader_error_position(exc, text)
        raise ParseFailure(f"{INVALID_YAML}: {_first_line(str(exc))}", line, column) from exc


def _refuse_deep_flow(text: str, max_depth: int) -> None:
    """Refuse flow collections nested deeper than ``max_depth`` before parsing.

    The YAML scanner is quadratic in flow depth (a 10,000-deep ``[[[...]]]`` takes
    seconds before it fails), so count brackets first, skipping quoted strings and
    comments. Cheap: only texts with that many opening brackets are scanned at all.
    """
    if text.count("[") + text.count("{") <= max_depth:
        return
    depth = 0
    for match in flow_brackets(text):
        if match.group() in "[{":
            depth += 1
            if depth > max_depth:
                line, column = line_column(text, match.start())
                raise ParseFailure(
                    f"document nests deeper than {max_depth} levels; not read", line, column
                )
        else:
            depth = max(0, depth - 1)


def empty_root() -> Node:
    """The root of an empty document: what yaml.v2 decodes from an empty text (nothing)."""
    mark = Mark("<empty>", 0, 0, 0)
    return ScalarNode(NULL, "", mark, mark)


def _is_empty(root: Node) -> bool:
    """An empty document (``---`` followed by nothing) composes to an empty plain null."""
    return isinstance(root, ScalarNode) and root.value == "" and root.style is None


def _yaml_message(exc: Exception) -> str:
    problem = getattr(exc, "problem", None)
    context = getattr(exc, "context", None)
    if problem and context:
        return _untupled(f"{problem} ({context})")
    return _untupled(str(problem or context or _first_line(str(exc))))


_TUPLE_REPR = r"\(('[^'\n]*'),\)"


def _untupled(message: str) -> str:
    """ruamel.yaml words one error with a Python tuple (``but found ('<block mapping
    start>',)``); a user reads the token: ``but found '<block mapping start>'``."""
    return re.sub(_TUPLE_REPR, r"\1", message)


def _first_line(message: str) -> str:
    return message.strip().splitlines()[0] if message.strip() else "unreadable"


def _reader_error_position(exc: Exception, text: str) -> tuple[int, int]:
    offset = getattr(exc, "position", None)
    if not isinstance(offset, int):
        return 0, 0
    return line_column(text, offset)


def _problem(path: str, line: int, column: int, message: str) -> SourceFile:
    finding = PT001_UNREADABLE.finding(path, line, column, message)
    return SourceFile(path, (), (finding,))


# --- small, bounded accessors over composed nodes -------------------------------------


def mapping_items(node: Node, depth: int = 0) -> Iterator[tuple[Node, Node]]:
    """Key and value nodes of a mapping, in source order, duplicates included; a merge
    key (``<<: {kind: ...}``) is replaced by the pairs it brings in, as yaml.v2 decodes
    it (a list of maps: the first map's pairs win), so a merge key hides no key."""
    if not isinstance(node, MappingNode) or depth > _MAX_MERGES:
        return
    for key_node, value_node in node.value:
        if not _merges(key_node):
            yield key_node, value_node
            continue
        sources = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
        for source in reversed(sources):
            yield from mapping_items(source, depth + 1)


_MAX_MERGES = 8


def _merges(key_node: Node) -> bool:
    """A plain ``<<`` key not tagged as a string: yaml.v2's merge key."""
    return (
        isinstance(key_node, ScalarNode)
        and key_node.value == "<<"
        and key_node.style is None
        and key_node.tag != STR
    )


def lookup(node: Node, key: str) -> tuple[Node, Node] | None:
    """The last ``key: value`` pair of a mapping (yaml.v2 keeps the last duplicate),
    merge keys followed."""
    found = None
    for key_node, value_node in mapping_items(node):
        if isinstance(key_node, ScalarNode) and key_node.value == key:
            found = (key_node, value_node)
    return found


def scalar(node: Node | None) -> str | None:
    """The raw text of a scalar node, else ``None``."""
    return node.value if isinstance(node, ScalarNode) else None


def child(node: Node, key: str) -> Node | None:
    """The value node of ``key`` in a mapping, else ``None``."""
    pair = lookup(node, key)
    return pair[1] if pair else None


def sequence_items(node: Node | None) -> tuple[Node, ...]:
    """Items of a sequence node (empty for anything else)."""
    return tuple(node.value) if isinstance(node, SequenceNode) else ()


def is_yaml_path(path: str) -> bool:
    """Does the name look like a YAML/JSON/conf file worth reading during a walk?"""
    return os.path.splitext(path)[1].lower() in {".yaml", ".yml", ".json", ".conf"}


def decoded(document: Document, limits: Limits) -> object:
    """The document decoded with yaml.v2 typing, or the PT001 finding that says why not."""
    from policytest.read.bigload import decode
    from policytest.read.goyaml import DecodeError

    try:
        return decode(document.root, document.text, limits)
    except DecodeError as error:
        return PT001_UNREADABLE.at(document, error.node, str(error))
