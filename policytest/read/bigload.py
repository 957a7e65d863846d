"""Reading fast: libyaml composes, a lean walk types the scalars.

ruamel.yaml's pure-Python composer reads about 30 KB/s of cluster dump; a fixture with
tens of thousands of pods would take minutes, and a tree of a thousand small configs
most of the hook's time. ruamel.yaml.clib's ``CParser`` (libyaml)
builds the very same ``ruamel.yaml.nodes`` tree with the same marks, so positions and
every consumer of :class:`~policytest.read.source.Document` stay as they are. Two things
differ and are made equal here: libyaml gives plain scalars the style ``""`` (the pure
composer ``None``), it marks an empty value (``key:`` and nothing) right after the
colon where the pure composer marks the next token, and it cannot tell the
non-specific tag ``!`` from no tag.

:func:`decode` is :func:`policytest.read.goyaml.decode` for such trees, without re-reading
the source for every scalar: when the text holds no ``!`` at all (no tags anywhere),
a plain scalar's value depends on its text alone and is resolved once per distinct
text; merge keys, tags and non-scalar keys go to the reference decoder. It is exact
for trees from either composer.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Final

from ruamel.yaml.error import StreamMark, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from policytest.core.errors import PolicytestError
from policytest.core.limits import Limits, NodeCounter
from policytest.read.goyaml import Budget, resolve_plain, scalar_text
from policytest.read.goyaml import decode as reference_decode

__all__ = ["TooDeep", "available", "compose_all", "decode"]

_PLAIN: Final = "policytest:plain"
"""The tag our resolver gives untagged plain scalars (and ``!``-tagged ones)."""
_STR: Final = "tag:yaml.org,2002:str"
_SEQ: Final = "tag:yaml.org,2002:seq"
_MAP: Final = "tag:yaml.org,2002:map"


def available() -> bool:
    """Whether libyaml (ruamel.yaml.clib) can be used."""
    try:
        import _ruamel_yaml  # type: ignore[import-not-found,unused-ignore]  # noqa: F401
    except ImportError:
        return False
    return True


def compose_all(text: str, max_depth: int, count: NodeCounter) -> list[Node] | None:
    """Every document of ``text`` composed by libyaml, normalised to the pure composer's
    styles; ``None`` when libyaml refuses the text (the pure composer then says why, in
    its own words, or accepts what libyaml does not: the two differ at the edges), and
    when a document nests deeper than ``max_depth``, which no scheduler config does.
    ``count`` is called for every node before it is built (libyaml calls
    ``descend_resolver`` for each one, tagged or not) and raises to stop composing.
    libyaml composes recursively in C: a block nesting 100,000 deep (``- - - ...``)
    would overflow the C stack and kill the process, so the nesting is counted as it
    descends and the text is refused (:class:`TooDeep`) past ``max_depth``."""
    from _ruamel_yaml import CParser  # type: ignore[import-not-found,unused-ignore]

    class _Composer(CParser):  # type: ignore[misc]
        # Resolution is done by goyaml later; keep only what it needs to know.
        depth = 0

        def descend_resolver(self, *_: object) -> None:
            count()
            self.depth += 1
            if self.depth > max_depth:
                raise TooDeep(max_depth)

        def ascend_resolver(self, *_: object) -> None:
            self.depth -= 1

        def resolve(self, kind: type, _value: str, implicit: tuple[bool, bool]) -> str:
            if kind is ScalarNode:
                return _PLAIN if implicit[0] else _STR
            return _SEQ if kind is SequenceNode else _MAP

    if text.startswith("\ufeff"):
        return None  # libyaml drops the BOM and every index would shift by one
    parser = _Composer(text)
    roots: list[Node] = []
    try:
        while parser.check_node():
            root = parser.get_node()
            if not _normalised(root, max_depth, text):
                return None  # the pure composer refuses it too, and says so
            roots.append(root)
    except YAMLError:
        return None
    finally:
        parser.dispose()
    return roots


def _normalised(root: Node, max_depth: int, text: str) -> bool:
    """Give plain scalars style ``None`` and empty values the pure composer's marks (an
    iterative walk); False when the tree nests deeper than ``max_depth``."""
    stack = [(root, 0)]
    seen: set[int] = set()  # collections only: aliases share them (setting a style is idempotent)
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            return False
        if node.__class__ is ScalarNode:
            if node.style == "":
                node.style = None
                if not node.value:
                    node.start_mark = node.end_mark = _next_token(node.start_mark, text)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.__class__ is SequenceNode:
            stack.extend((item, depth + 1) for item in node.value)
        else:
            for key, value in node.value:
                stack.append((key, depth + 1))
                stack.append((value, depth + 1))
    return True


_SKIPPED: Final = re.compile(r"(?:[ \t\r\n]|#[^\n]*)*")


def _next_token(mark: Any, text: str) -> StreamMark:
    """Where the pure composer marks an empty value: at the next token (libyaml marks it
    where the value would have started, right after the colon)."""
    end = _SKIPPED.match(text, mark.index)
    index = end.end() if end is not None else mark.index
    line = mark.line + text.count("\n", mark.index, index)
    column = (
        index - (text.rfind("\n", 0, index) + 1)
        if line != mark.line
        else mark.column + (index - mark.index)
    )
    return StreamMark(mark.name, index, line, column)


class TooDeep(PolicytestError):
    """libyaml was stopped: the text nests deeper than the limit."""


class _Fallback(PolicytestError):
    """Something only the reference decoder handles (tags, merges, odd keys)."""


def decode(node: Node, text: str, limits: Limits) -> Any:
    """``goyaml.decode(node, text, limits=limits)`` for a libyaml-composed tree, faster."""
    if "!" in text:
        return reference_decode(node, text, limits=limits)
    budget = Budget.of(limits)
    try:
        return _decode(node, budget, 0)
    except _Fallback:
        return reference_decode(node, text, limits=limits)


def _decode(node: Node, budget: Budget, depth: int) -> Any:
    budget.spend(node, depth)
    if node.__class__ is ScalarNode:
        return _plain(node.value) if node.style is None else scalar_text(node)
    if node.__class__ is SequenceNode:
        return [_decode(item, budget, depth + 1) for item in node.value]
    if node.__class__ is not MappingNode:
        raise _Fallback
    result: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        if key_node.__class__ is not ScalarNode or (
            key_node.style is None and key_node.value == "<<"
        ):
            raise _Fallback
        key = _decode(key_node, budget, depth + 1)
        result[key] = _decode(value_node, budget, depth + 1)
    return result


@lru_cache(maxsize=1 << 14)
def _plain(text: str) -> Any:
    """An untagged plain scalar's value (cached: cluster dumps repeat a few texts)."""
    return resolve_plain(text)[1]
