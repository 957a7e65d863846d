"""Every output keeps its structure whatever the names in the input (property tests).

Names, keys, paths and messages come from pull requests. Each report is rendered twice:
once with plain names, once with names drawn by hypothesis (control characters, ESC,
line breaks of every kind, Markdown and HTML syntax, ``@mentions``, backticks, workflow
commands, bytes that were not UTF-8, very long strings); the structure must not move:

- text and GitHub output: the same number of lines, none starting a workflow command
  that the reporter did not write;
- Markdown: rendered by a CommonMark renderer with GFM tables (markdown-it-py), the same
  headings, tables, rows and ``<details>`` blocks, no link, image, emphasis or HTML that
  the reporter did not write, no raw ``@mention``, and each name shown as text;
- JUnit: well-formed XML; SARIF: valid against the SARIF 2.1.0 schema;
- HTML (run, diff): the same elements and attributes, and no control or bidirectional
  character on the page (opened in a browser in ``tests/browser/``).
"""

from __future__ import annotations

import gzip
import html
import json
import re
import unicodedata
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from functools import cache
from html.parser import HTMLParser
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from policytest.check.validate import ValidationReport
from policytest.core.findings import Finding, Severity
from policytest.diff.effective import Setting
from policytest.diff.model import ConfigDiff, DiffReport, NotRun, SettingChange, compare_fixture
from policytest.harness.runner import CaseResult, message_lines, rank
from policytest.harness.suite import RunReport
from policytest.reporters import quoting, render_diff, render_run, render_validation
from policytest.reporters.diff.markdown import COMMENT_LIMIT
from policytest.scoring.protocol import NodeScore
from tests.conftest import DATA

markdown_it = pytest.importorskip("markdown_it")

NASTY = [
    "\n::error file=README.md,line=1::forged",
    "\n::add-mask::abc",
    "  ::warning::x",
    "\u3000::notice::x",
    "##[error]x",
    "\x1b[31mred\x1b[0m\x1b]0;title\x07",
    "a\rb\x0bc\x0cd\x1ce\x85f\u2028g\u2029h",
    "\u202egnp.exe",
    "\udcff\udc80not-utf8",
    "![k](https://evil.example/k.png)",
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "\n\n## All clear: no changes\n\n",
    "@octocat and @org/team #1234",
    "x | y | z",
    "`` ` ``` code",
    "**bold** _em_ ~~strike~~ $x^2$",
    "[link](javascript:alert(1)) <https://evil.example> www.evil.example a@evil.example",
    "&amp; &#64; &lt;b&gt;",
    "</details></summary><details open>",
    "<!-- comment",
    "- item\n1. item\n> quote\n    code\n---\n===",
    "\\",
    "1. item",
    "12) item",
    "_em_ __strong__ snake_case_name_",
    ":+1: :tada:",
    "&copy &#x41; &lt",
    "http://evil.example/x ftp://evil.example WWW.evil.example",
    "a" * 3_000,
]
names = st.one_of(
    st.sampled_from(NASTY),
    st.text(min_size=1, max_size=40),
    st.text(
        alphabet=st.sampled_from(list("\n\r\x1b\x00\x85\u2028`*_[]()!<>&|~#@:.$\\ -=a1")),
        min_size=1,
        max_size=30,
    ),
)
PROPERTY = settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])


# --- the quoting functions themselves ---------------------------------------------------


def _one_line(shown: str) -> bool:
    """No control, format, private, unassigned or line/paragraph separator character."""
    return not any(
        unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") for char in shown
    )


@PROPERTY
@given(value=names)
def test_text_is_one_printable_line_that_starts_no_command(value: str) -> None:
    shown = quoting.text(value)
    assert _one_line(shown)  # no control, format or line-break character at all
    assert not shown.lstrip().startswith(("::", "##["))
    assert len(shown) <= quoting.TEXT_LIMIT + 40


@PROPERTY
@given(value=names)
def test_github_values_stay_on_their_line(value: str) -> None:
    for shown in (quoting.github_data(value), quoting.github_property(value)):
        assert _one_line(shown)
    assert not {":", ","} & set(quoting.github_property(value))


def test_escapes_are_visible() -> None:
    assert quoting.text("a\nb\x1b[1m\u2028\udcff") == "a\\nb\\x1b[1m\\u2028\\xff"
    assert quoting.text("::error::x") == "\\x3a:error::x"
    assert quoting.text(":") == "\\x3a"
    assert quoting.text("plain name-1.yaml") == "plain name-1.yaml"
    assert quoting.text("x" * 3000).endswith("… (3000 characters)")


@pytest.mark.parametrize(
    "value",
    [
        "fixtures/kube.policytest.yaml: one pod (1.36)",
        "kubernetesVersion 1.34 -> 1.36; scores: node-a 414 -> 480 (+66)",
        "gpu_node_1 {busy: 3, empty: 3}, 50% = 'ok'?",
        ".policytest.yaml",  # the settings file, named in every settings change
        "(absent)",  # a setting a change adds
        ": x",
        "/etc/kubernetes/config.yaml",
    ],
)
def test_markdown_leaves_what_is_not_syntax_as_it_is(value: str) -> None:
    """A comment reads in a CI log and on any forge: only syntax is an entity."""
    assert quoting.markdown_text(value) == value
    assert quoting.markdown_code(value) == f"<code>{value}</code>"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("http://evil.example", "http&#58;//evil.example"),  # no autolink
        ("see www.evil.example", "see www&#46;evil.example"),
        ("a@evil.example", "a&#64;\u2060evil.example"),
        ("#12 and a#b", "&#35;\u206012 and a#b"),  # no issue link; a block's `#` at the start
        (":+1: x:y", "&#58;+1: x:y"),  # no emoji
        ("1. first", "1&#46; first"),  # no ordered list where the value starts a line
        ("_a_ b_c", "&#95;a&#95; b_c"),  # emphasis, not a name's underscore
        ("R&D &amp; & co", "R&#38;D &#38;amp; & co"),  # no character reference
        ("# x", "&#35;\u2060 x"),  # no heading where the value starts a line
        ("> x", "&#62; x"),  # no block quote
        ("- x", "&#45; x"),  # no list item
        ("+ x", "&#43; x"),
        ("===", "&#61;=="),  # no setext underline
    ],
)
def test_markdown_quotes_syntax_where_it_stands(value: str, shown: str) -> None:
    assert quoting.markdown_text(value) == shown


# --- text and GitHub output gain no line ------------------------------------------------


def _lines(output: str) -> list[str]:
    return output.split("\n")


def _no_foreign_command(output: str, own: tuple[str, ...] = ()) -> None:
    for line in _lines(output):
        stripped = line.lstrip()
        if stripped.startswith(("::", "##[")):
            assert stripped.startswith(own), line


def _validation(name: str) -> ValidationReport:
    findings = (
        Finding(f"{name}.yaml", 3, 5, "VB002", Severity.ERROR, f"`{name}` is negative"),
        Finding("ok.yaml", 1, 1, "PT001", Severity.WARNING, f"cannot read {name}"),
    )
    return ValidationReport(findings, ("a.yaml", "ok.yaml"), ())


@PROPERTY
@given(name=names)
@pytest.mark.parametrize("format_", ["text", "github"])
def test_validate_output_gains_no_line(format_: str, name: str) -> None:
    plain = render_validation(format_, _validation("name"), color=False)
    shown = render_validation(format_, _validation(name), color=False)
    assert len(_lines(shown)) == len(_lines(plain))
    _no_foreign_command(shown, ("::error file=", "::warning file="))
    shown.encode("utf-8")  # printable on any UTF-8 stream, also for non-UTF-8 names


def _nodes(names: tuple[str, str, str], flip: bool = False) -> tuple[NodeScore, ...]:
    a, b, c = names
    return (
        NodeScore(a, True, None, 1.0 if flip else 3.0, {"binpack": 1.0}),
        NodeScore(b, True, None, 2.0, {"binpack": 2.0}),
        NodeScore(c, False, f"{c} does not fit"),
    )


def _result(case: str, file: str, nodes: tuple[str, str, str], flip: bool = False) -> CaseResult:
    scored = _nodes(nodes, flip)
    return CaseResult(
        file,
        case,
        "failed",
        message_lines([f"expected ranking [{nodes[1]}], got [{nodes[0]}]", f"node `{nodes[2]}`"]),
        nodes=scored,
        ranking=rank(scored),
        placements={nodes[0]: 1, nodes[1]: 2},
        pending=0,
        findings=(Finding(file, 1, 1, "VB002", Severity.WARNING, f"weight of `{case}`"),),
    )


def _run(name: str) -> RunReport:
    trio = (f"{name}-a", f"{name}-b", f"{name}-c")
    passed = CaseResult(f"{name}.policytest.yaml", name, "passed", findings=())
    return RunReport((_result(name, f"{name}.policytest.yaml", trio), passed))


@PROPERTY
@given(name=names)
@pytest.mark.parametrize("format_", ["text", "github"])
def test_run_output_gains_no_line(format_: str, name: str) -> None:
    plain = render_run(format_, _run("name"), color=False)
    shown = render_run(format_, _run(name), color=False)
    assert len(_lines(shown)) == len(_lines(plain))
    # a config finding is annotated once too (run shows configs' findings)
    _no_foreign_command(shown, ("::error file=", "::warning file="))
    shown.encode("utf-8")


def _diff(name: str) -> DiffReport:
    trio = (f"{name}-a", f"{name}-b", f"{name}-c")
    path = f"fixtures/{name}.policytest.yaml"
    fixture = compare_fixture(
        path,
        f"its config changed: {name}.yaml",
        [_result(name, path, trio)],
        [_result(name, path, trio, flip=True)],
    )
    config = ConfigDiff(
        f"deploy/{name}.yaml",
        f"ConfigMap {name}, key volcano-scheduler.conf",
        "Volcano",
        "changed",
        (SettingChange(f"binpack.resources.{name}", Setting("k", "1"), Setting("k", name, name)),),
        (path,),
    )
    finding = Finding(f"deploy/{name}.yaml", 2, 3, "VB002", Severity.ERROR, f"`{name}` bad")
    return DiffReport(
        f"main ({name})",
        name,
        configs=(config,),
        fixtures=(fixture,),
        introduced=(finding,),
        resolved=(finding,),
        skipped=(
            NotRun("nothing they use changed", (f"{name}.policytest.yaml",)),
            NotRun(f"their scheduler is not {name}", (f"{name}-b.policytest.yaml",), named=True),
        ),
    )


@PROPERTY
@given(name=names)
def test_diff_text_gains_no_line(name: str) -> None:
    plain = render_diff("text", _diff("name"), color=False)
    shown = render_diff("text", _diff(name), color=False)
    assert len(_lines(shown)) == len(_lines(plain))
    _no_foreign_command(shown)
    shown.encode("utf-8")


# --- Markdown keeps its structure -------------------------------------------------------


@cache
def _renderer() -> Any:
    return markdown_it.MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def _structure(markdown: str) -> tuple[list[str], list[str]]:
    """Block tokens (headings, tables, rows, cells, HTML blocks) and every inline token
    that is not plain text (links, images, emphasis, code, inline HTML), in order."""
    blocks: list[str] = []
    inline: list[str] = []
    for token in _renderer().parse(markdown):
        if token.type == "inline":
            for child in token.children or []:
                if child.type == "html_inline":
                    inline.append(child.content)
                elif child.type not in ("text", "softbreak"):
                    inline.append(child.type)
        elif token.type == "html_block":
            # tags only; <code> (text only) may come from a message's own `quoted` spans
            tags = re.sub(r">[^<]*<", "><", token.content).strip()
            blocks.append("html_block:" + re.sub(r"</?code>", "", tags))
        else:
            blocks.append(f"{token.type}:{token.tag}")
    return blocks, inline


def _visible_text(markdown: str) -> str:
    rendered = _renderer().render(markdown)
    return html.unescape(re.sub(r"<[^>]+>", "", rendered))


@PROPERTY
@given(name=names)
@example(name="@octocat")
@example(name="#`0")  # a message's `quoted` span then ends after the #: "#<code>0..."
def test_markdown_keeps_headings_tables_and_details(name: str) -> None:
    plain = render_diff("markdown", _diff("name"), color=False)
    shown = render_diff("markdown", _diff(name), color=False)
    assert len(shown.encode("utf-8")) <= COMMENT_LIMIT
    assert "\r" not in shown
    blocks, inline = _structure(shown)
    plain_blocks, plain_inline = _structure(plain)
    assert blocks == plain_blocks
    assert set(inline) <= set(plain_inline)  # nothing the reporter does not write itself
    assert shown.count("<details") == plain.count("<details")
    text = _visible_text(shown)
    assert not re.search(r"@\w", text), "a raw @mention"
    assert not re.search(r"#\d", text), "a raw issue reference"
    # each name is shown, as text: what the quoting made of it is on the page, verbatim
    expected = html.unescape(quoting.markdown_text(name, quoting.MARKDOWN_NAME_LIMIT))
    assert "".join(expected.split()) in "".join(text.split())


class _Elements(HTMLParser):
    """The elements and attribute names of a page, in order (text and data left out)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.seen: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.seen.append(f"<{tag} {' '.join(name for name, _ in attrs)}>")

    def handle_endtag(self, tag: str) -> None:
        self.seen.append(f"</{tag}>")


def _elements(page: str) -> list[str]:
    parser = _Elements()
    parser.feed(page)
    return parser.seen


@PROPERTY
@given(name=names)
def test_html_pages_gain_no_element_and_no_attribute(name: str) -> None:
    for plain, shown in (
        (
            render_run("html", _run("name"), color=False),
            render_run("html", _run(name), color=False),
        ),
        (
            render_diff("html", _diff("name"), color=False),
            render_diff("html", _diff(name), color=False),
        ),
    ):
        assert _elements(shown) == _elements(plain)
        # no control, format (bidirectional) or surrogate character reaches the page
        assert not [c for c in shown if c != "\n" and unicodedata.category(c)[0] == "C"]


def test_a_70000_character_case_name_keeps_every_section() -> None:
    md = render_diff("markdown", _diff("a" * 70_000), color=False)
    assert len(md.encode("utf-8")) <= COMMENT_LIMIT
    assert "| Fixture | Case | What changed |" in md
    assert "<summary>Findings: 1 introduced" in md
    assert "<summary>Config " in md and "<summary>Fixture " in md
    assert re.search(r"… \(700\d\d characters\)", md)  # cut, saying how long it was
    assert "Truncated" not in md


def test_long_lists_are_cut_with_a_count_never_dropped() -> None:
    findings = tuple(
        Finding(f"deploy/{i}.yaml", 1, 1, "VB002", Severity.ERROR, "x" * 400) for i in range(5000)
    )
    md = render_diff("markdown", DiffReport("a", "b", introduced=findings), color=False)
    assert len(md.encode("utf-8")) <= COMMENT_LIMIT
    assert "more findings (see" in md
    assert md.count("<details") == md.count("</details>") == 1


# --- XML and SARIF ----------------------------------------------------------------------


@PROPERTY
@given(name=names)
def test_junit_is_well_formed_xml(name: str) -> None:
    output = render_run("junit", _run(name), color=False)
    tree = ElementTree.fromstring(output.encode("utf-8"))
    cases = [case for case in tree.findall(".//testcase") if case.get("classname") != "configs"]
    assert len(cases) == 2  # beside the configs' own test case
    if _one_line(name) and len(name) < 1000:
        assert cases[0].get("name") == name


@cache
def _sarif_validator() -> Callable[[Any], None]:
    from jsonschema import Draft7Validator

    schema = json.loads(
        gzip.decompress((DATA / "sarif" / "sarif-2.1.0-rtm.5.json.gz").read_bytes())
    )
    validate: Callable[[Any], None] = Draft7Validator(schema).validate
    return validate


@PROPERTY
@given(name=names)
@example(name="\udcff\udc80")
def test_sarif_validates_against_the_schema(name: str) -> None:
    output = render_validation("sarif", _validation(name), color=False)
    output.encode("utf-8")  # a JSON file is UTF-8: no lone surrogate
    sarif = json.loads(output)
    _sarif_validator()(sarif)
    uri = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert uri["artifactLocation"]["uri"].isascii()
