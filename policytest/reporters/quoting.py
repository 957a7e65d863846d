"""Quoting what comes from input, one function per kind of output.

Everything a report shows from the files it read (YAML keys and values in messages,
node and case names, paths, ConfigMap names) may have been written by someone hostile:
fixtures and configs arrive in pull requests, and the reports end up in a terminal, a CI
log that reads workflow commands, a pull-request comment, XML and SARIF files. Each
output kind has one function here, and reporters pass every input-derived value through
it:

- :func:`text` for terminals, logs and the pytest report: no control character reaches
  the output (ESC, line breaks, ``U+2028``...; each is shown as an escape such as
  ``\\n``), so a value can neither add a line nor start a workflow command.
- :func:`github_data` / :func:`github_property` for GitHub Actions workflow commands.
- :func:`markdown_code` / :func:`markdown_text` for GitHub-flavoured Markdown: every
  character Markdown or HTML could read as syntax where it stands is an HTML entity, so a
  value shows as text only (no heading, link, image, table cell or ``@mention``), and
  long values are cut; the others (``.``, ``:``, ``(``) stay readable.
- :func:`mermaid` for a label in a Mermaid chart of a Markdown comment: a short run of
  letters, digits and a few punctuation characters inside double quotes, nothing else.
- :func:`xml` for XML attributes and text (characters XML 1.0 cannot hold are escaped).
- :func:`sarif` for SARIF's JSON strings (no lone surrogates from non-UTF-8 file names),
  and :func:`json_document` for every JSON output, every string of it so quoted.

This module depends on nothing but the standard library, so every reporter can use it.
"""

from __future__ import annotations

import re
from functools import lru_cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ELLIPSIS = "…"
MARKDOWN_NAME_LIMIT = 120
"""Characters of one value a Markdown report shows before cutting it."""
MARKDOWN_TEXT_LIMIT = 1_000
"""Characters of one message a Markdown report shows before cutting it."""
TEXT_LIMIT = 2_000
"""Characters of one value a text report shows before cutting it."""

_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_WORD_JOINER = "\u2060"


@lru_cache(maxsize=4096)
def _escaped_char(char: str) -> str:
    """``char`` itself if it is printable, else a visible escape of it."""
    if char in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[char]
    import unicodedata  # only for a value that is not printable as it is

    code = ord(char)
    category = unicodedata.category(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (os.fsdecode's surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if category in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    return char


def _escape_controls(value: str) -> str:
    if value.isprintable():  # the common case: nothing to escape
        return value
    return "".join(_escaped_char(char) for char in value)


def cut(value: str, limit: int) -> str:
    """``value``, or its first ``limit`` characters and a marker saying how long it was."""
    if len(value) <= limit:
        return value
    return f"{value[:limit]}{ELLIPSIS} ({len(value)} characters)"


def text(value: object, limit: int = TEXT_LIMIT) -> str:
    """``value`` for a terminal or a CI log: one line, printable characters only.

    Control and format characters (ESC, line breaks, ``U+2028``, bidirectional overrides,
    bytes that were not UTF-8) are shown as escapes; a value that could begin a GitHub
    Actions workflow command (``::`` or ``##[``, after spaces, also with the ``:`` a report
    writes after it) has its first character escaped, so no line of the output can become
    one. Long values are cut, with a marker.
    """
    shown = _escape_controls(cut(str(value), limit))
    stripped = shown.lstrip()  # GitHub's runner trims any whitespace before a command
    # a leading `:` too, since a report may write `:` right after a value (`NAME: ...`)
    if stripped.startswith((":", "##")):
        at = len(shown) - len(stripped)
        shown = f"{shown[:at]}\\x{ord(stripped[0]):02x}{stripped[1:]}"
    return shown


def github_data(value: object) -> str:
    """The message of a workflow command (``::error ...::MESSAGE``): percent-encoded line
    breaks (GitHub shows them as line breaks inside the annotation), other control
    characters escaped."""
    shown = cut(str(value), TEXT_LIMIT)
    if not shown.replace("\r", "").replace("\n", "").isprintable():
        shown = "".join(char if char in "\r\n" else _escaped_char(char) for char in shown)
    return shown.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(value: object) -> str:
    """A property of a workflow command (``file=``, ``title=``): also ``:`` and ``,``."""
    return github_data(value).replace(":", "%3A").replace(",", "%2C")


_BLOCK_START = frozenset("#>-+*=_`~|<[")
"""What opens a block where a line starts: a heading (``#``), a quote (``>``), a list
item or a thematic break (``-``, ``+``, ``*``, ``_``), a setext underline (``=``), a
fence (`````, ``~``), a table (``|``), an HTML block (``<``), a link reference
definition (``[``). ``.``, ``:``, ``(`` and the like open none."""
_MARKDOWN_SYNTAX = re.compile(
    r"[\\`*\[\]<|~$@]"  # escapes, code, emphasis, links and images, HTML, table cells,
    # strikethrough, maths, mentions and e-mail autolinks
    r"|&(?=[#0-9A-Za-z])"  # a character reference
    r"|#(?=[0-9]|$)"  # an issue reference (at the end, what follows may be a digit)
    r"|:(?=//|[\w+-]+:)"  # a URL's scheme (an autolink), an emoji shortcode
    r"|(?i:www)\."  # a www. autolink
    r"|_+"  # emphasis, unless inside a word
)
"""What GitHub's Markdown may read as syntax in the middle of a line, and nothing else:
``.``, ``:``, ``(`` and the like stay as they are, so a comment reads in a log and on
any forge."""
_ORDERED_LIST = re.compile(r"[0-9]{1,9}(?=[.)])")


def _entity(text: str) -> str:
    return "".join(f"&#{ord(char)};" for char in text)


def _entities(value: str) -> str:
    """``value`` with each character Markdown or HTML could read as syntax an HTML
    entity (which means the same in a paragraph, a table cell and an HTML block)."""
    start = 0
    head = ""
    number = _ORDERED_LIST.match(value)
    if number:  # `1.` or `1)` opens an ordered list where a line starts
        start = number.end() + 1
        head = number[0] + _entity(value[number.end()])
    elif value[:1] in _BLOCK_START:
        start = 1
        head = _entity(value[0])

    rest = value[start:]

    def quote(match: re.Match[str]) -> str:
        text = match[0]
        if text[0] == "_":
            before = rest[match.start() - 1] if match.start() else ""
            after = rest[match.end()] if match.end() < len(rest) else ""
            inside_a_word = before.isalnum() and after.isalnum()
            return text if inside_a_word else _entity(text)
        if text[0] in "wW":
            return text[:3] + _entity(".")
        return _entity(text)

    return head + _MARKDOWN_SYNTAX.sub(quote, rest)


def markdown_text(value: object, limit: int = MARKDOWN_TEXT_LIMIT) -> str:
    """``value`` as plain text in GitHub-flavoured Markdown, wherever it is put (a
    paragraph, a table cell, inside an HTML block).

    One line (control characters escaped as :func:`text` does); every character Markdown
    or HTML would read as syntax where it stands an HTML entity (a leading character or
    list number that could open a block, too), so nothing is Markdown or
    HTML syntax, and nothing else is (a comment must read in a CI log as well); a word
    joiner after ``@`` and an issue's ``#``, so GitHub links no user, team or issue; cut
    after ``limit`` characters with a marker.
    """
    return _markdown(_unlinked(_escape_controls(cut(str(value), limit))))


def _markdown(value: str) -> str:
    shown = _entities(value)
    return shown.replace("&#64;", "&#64;" + _WORD_JOINER).replace("&#35;", "&#35;" + _WORD_JOINER)


_ISSUE_PREFIX = r"(?i)\b(gh)(-[0-9])"
_HEX_RUN = r"\b[0-9A-Fa-f]{7,40}\b"


def _unlinked(value: str) -> str:
    """No issue reference (``GH-1``) or commit hash (a word of 7 to 40 hex characters) for
    GitHub to link: a word joiner after ``GH`` and every sixth character of such a word."""
    value = re.sub(_ISSUE_PREFIX, lambda match: match[1] + _WORD_JOINER + match[2], value)
    return re.sub(
        _HEX_RUN,
        lambda match: _WORD_JOINER.join(
            match[0][start : start + 6] for start in range(0, len(match[0]), 6)
        ),
        value,
    )


def markdown_code(value: object, limit: int = MARKDOWN_NAME_LIMIT) -> str:
    """``value`` as inline code in GitHub-flavoured Markdown (a name, a path, a key).

    ``<code>`` around the text as :func:`markdown_text` quotes it: GitHub links nothing
    inside code (no mention, issue reference, commit hash or URL), and the entities keep
    Markdown out of it.
    """
    return f"<code>{_markdown(_escape_controls(cut(str(value), limit)))}</code>"


MERMAID_LABEL_LIMIT = 40
"""Characters of one label a Mermaid chart shows before cutting it."""
_MERMAID_KEPT = frozenset(" -_./:+=,()")


def mermaid(value: object, limit: int = MERMAID_LABEL_LIMIT) -> str:
    """``value`` as a double-quoted Mermaid label that can only be text.

    Mermaid reads syntax in almost every punctuation character (``%%{init}%%``
    directives, ``%%`` comments, ``click`` callbacks after a line break, quotes and
    brackets that end a label, ``#quot;`` entities, HTML in labels) and has no escape
    for a double quote inside a string; a fence of backticks would end the Markdown
    code block. So only letters, digits, spaces and ``-_./:+=,()`` are kept; every other
    character (control and bidirectional ones too) becomes ``_``, and long values are
    cut with ``…``. The label names a case for the eye: the comment's tables quote it
    exactly.
    """
    shown = str(value)
    kept = "".join(c if c.isalnum() or c in _MERMAID_KEPT else "_" for c in shown[:limit])
    return f'"{kept}{ELLIPSIS if len(shown) > limit else ""}"'


def xml(value: object) -> str:
    """``value`` for XML 1.0 text or an attribute: characters XML cannot hold (most
    control characters, lone surrogates from non-UTF-8 names) are shown as escapes.
    The XML serialiser still escapes ``<``, ``&`` and quotes."""
    shown = str(value)
    return "".join(
        char
        if char in "\t\n\r"
        or (0x20 <= ord(char) < 0xD800)
        or 0xE000 <= ord(char) <= 0xFFFD
        or ord(char) >= 0x10000
        else _escaped_char(char)
        for char in shown
    )


def sarif(value: object) -> str:
    """``value`` for a SARIF (JSON) string: lone surrogates (bytes of a file name that
    were not UTF-8) are shown as ``\\xNN`` escapes, since JSON files must be UTF-8."""
    shown = str(value)
    if shown.isascii() or not any(0xD800 <= ord(char) <= 0xDFFF for char in shown):
        return shown  # an ASCII text is known as such without a look at its characters
    return "".join(_escaped_char(char) if 0xD800 <= ord(char) <= 0xDFFF else char for char in shown)


def json_document(data: Any) -> str:
    """``data`` as the JSON text of a report (indented, ending in a newline), every string
    in it (keys too) through :func:`sarif`: a JSON reader in a stricter language than
    Python refuses a lone surrogate, and names that were not UTF-8 hold them."""
    import json  # the text reports (the hook's) never need it

    return json.dumps(_no_surrogates(data), indent=2) + "\n"


def _no_surrogates(data: Any) -> Any:
    if isinstance(data, str):
        return sarif(data)
    if isinstance(data, dict):
        return {_no_surrogates(key): _no_surrogates(value) for key, value in data.items()}
    if isinstance(data, (list, tuple)):
        return [_no_surrogates(item) for item in data]
    return data
