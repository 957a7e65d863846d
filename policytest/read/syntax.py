"""A YAML syntax error in words, at the mistake.

Every reader (the small block reader, libyaml, the pure composer) leaves a text it cannot
read to the pure composer, whose errors speak the parser's language (``expected ',' or
'}', but got ':'`` ``while parsing a flow mapping``) and are placed where the parser gave
up, often the line after the mistake: an unclosed ``{`` is reported where the next key
starts. This module says what is wrong in words and points at where it is: the opening
bracket or quote that is never closed, the ``:`` that needs quoting, the line whose
indentation does not match. What it does not recognise keeps the parser's words.
"""

from __future__ import annotations

import re

from policytest.read.nodes import line_column

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

_CLOSER = {"[": "]", "{": "}"}
_KIND = {"[": "list", "{": "mapping"}
_EXPECTED = re.compile(r"expected ',' or '([\]}])', but got '(.*)'")
_FLOW_TOKENS = r"""[\[\]{}\n#]|"(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*'"""
"""The tokens that open and close flow collections, and what hides them: quoted text
and comments (compiled when first needed, by a deep text or a syntax error)."""


def explained(exc: Any, text: str) -> tuple[str, int, int] | None:
    """``(message, line, column)`` (0-based) for a ruamel.yaml ``MarkedYAMLError`` on
    ``text``, or ``None`` to keep the parser's own words and place."""
    problem = str(getattr(exc, "problem", "") or "")
    context = str(getattr(exc, "context", "") or "")
    at, opened = getattr(exc, "problem_mark", None), getattr(exc, "context_mark", None)
    if at is None:
        return None
    where = f"line {at.line + 1}, column {at.column + 1}"
    if context.startswith("while parsing a flow") or "'<stream end>'" in problem:
        opener = _unclosed_opener(text, at.index)
        if opener is None:
            return None
        line, column = line_column(text, opener)
        bracket = text[opener]
        wrong = _EXPECTED.match(problem)
        if wrong and wrong.group(2) in "]}" and wrong.group(2) != _CLOSER[bracket]:
            return (
                f"this `{bracket}` starts a {_KIND[bracket]} that `{wrong.group(2)}` at {where} "
                f"closes: close it with `{_CLOSER[bracket]}`",
                line,
                column,
            )
        return (
            f"this `{bracket}` starts a {_KIND[bracket]} that is never closed: a "
            f"`{_CLOSER[bracket]}` (or a `,` between its items) is missing before {where}",
            line,
            column,
        )
    if context == "while scanning a quoted scalar" and opened is not None:
        quote = text[opened.index] if opened.index < len(text) else '"'
        return (
            f"this `{quote}` starts a quoted text that is never closed: a closing `{quote}` is "
            f"missing before {where}",
            opened.line,
            opened.column,
        )
    if problem == "mapping values are not allowed here":
        return (
            'a `: ` inside a value that is not quoted: quote the value (`key: "a: b"`), or '
            "if this is a key, fix the indentation of its line",
            at.line,
            at.column,
        )
    if context == "while parsing a block mapping" and problem.startswith("expected <block end>"):
        above = f"line {opened.line + 1}" if opened is not None else "the lines above"
        found = "a list item (`-`)" if problem.endswith("'-'") else "this line"
        return (
            f"{found} is not indented as the mapping at {above} expects: indent it as the "
            "keys it belongs with",
            at.line,
            at.column,
        )
    if "'\\t' that cannot start any token" in problem:
        return ("a tab: YAML indents with spaces only", at.line, at.column)
    alias = re.fullmatch(r"found undefined alias '(.*)'", problem)
    if alias:
        name = alias.group(1)
        return (
            f"`*{name}` names no anchor: write `&{name}` on a value above it",
            at.line,
            at.column,
        )
    return None


def flow_brackets(text: str, end: int | None = None) -> Iterator[re.Match[str]]:
    """The flow brackets (``[ ] { }``) of ``text`` before ``end`` that are YAML syntax:
    those inside quoted text and comments are skipped."""
    in_comment = False
    for match in re.compile(_FLOW_TOKENS).finditer(text, 0, len(text) if end is None else end):
        token = match.group()
        if token == "\n":
            in_comment = False
        elif in_comment or token[0] in "\"'":
            continue
        elif token == "#":
            in_comment = True
        else:
            yield match


def _unclosed_opener(text: str, end: int) -> int | None:
    """The index of the innermost ``[`` or ``{`` still open at ``end`` (quoted text and
    comments skipped), else ``None``."""
    stack: list[int] = []
    for match in flow_brackets(text, end):
        if match.group() in "[{":
            stack.append(match.start())
        elif stack:
            stack.pop()
    return stack[-1] if stack else None
