"""The reader: composing only, positions, and every kind of unreadable input."""

from __future__ import annotations

import time

import pytest

from policytest.core.limits import Limits
from policytest.read.positions import Position
from policytest.read.source import PT001_UNREADABLE, child, read_bytes, read_file, scalar

LIMITS = Limits()


def only_problem(data: bytes, limits: Limits = LIMITS) -> tuple[int, int, str]:
    source = read_bytes("f.yaml", data, limits)
    assert not source.documents
    (problem,) = source.problems
    assert problem.rule == PT001_UNREADABLE.id
    return problem.line, problem.column, problem.message


def test_multi_document_stream_keeps_indexes_and_positions() -> None:
    text = b"# Source: chart/a.yaml\na: 1\n---\n# Source: chart/b.yaml\nb:\n  c: 2\n"
    source = read_bytes("f.yaml", text, LIMITS)
    assert [d.index for d in source.documents] == [0, 1]
    c = child(child(source.documents[1].root, "b"), "c")
    assert c is not None and source.documents[1].position(c) == Position(6, 6)


def test_empty_documents_are_dropped() -> None:
    assert read_bytes("f.yaml", b"", LIMITS).documents == ()
    assert len(read_bytes("f.yaml", b"---\n---\na: 1\n", LIMITS).documents) == 1


def test_json_is_read_with_positions() -> None:
    source = read_bytes("f.json", b'{\n  "kind": "ConfigMap",\n  "data": {}\n}\n', LIMITS)
    kind = child(source.documents[0].root, "kind")
    assert scalar(kind) == "ConfigMap"
    assert kind is not None and source.documents[0].position(kind) == Position(2, 11)


def test_yaml_syntax_error_points_at_the_problem() -> None:
    """At the `[` that is never closed, not at line 3 where the parser gave up."""
    line, _, message = only_problem(b"a: 1\nb: [1, 2\nc: 3\n")
    assert message.startswith("invalid YAML: this `[` starts a list that is never closed")
    assert line == 2


def test_bad_indentation_is_reported_at_its_line() -> None:
    line, _, _ = only_problem(b"tiers:\n- plugins:\n  - name: a\n   arguments: {}\n")
    assert line == 4


def test_python_object_tag_constructs_nothing() -> None:
    source = read_bytes("f.yaml", b"a: !!python/object/apply:os.system ['false']\n", LIMITS)
    node = child(source.documents[0].root, "a")
    assert node is not None and "python/object" in str(node.tag)


def test_non_utf8_names_the_byte_and_its_position() -> None:
    line, column, message = only_problem(b"a: 1\nb: caf\xe9\n")
    assert (line, column) == (2, 7)
    assert "0xe9" in message


def test_non_utf8_after_a_byte_order_mark_names_the_byte_and_its_position() -> None:
    """Counted from after the BOM, as a YAML syntax error's position is."""
    line, column, message = only_problem(b"\xef\xbb\xbfa: caf\xe9\n")
    assert (line, column) == (1, 7)
    assert only_problem(b"\xef\xbb\xbfa: [1\n")[:2] == only_problem(b"a: [1\n")[:2]
    assert "0xe9" in message


def test_one_byte_order_mark_is_dropped() -> None:
    source = read_bytes("f.yaml", b"\xef\xbb\xbfa: 1\n", LIMITS)
    assert scalar(child(source.documents[0].root, "a")) == "1"
    assert source.documents[0].text == "a: 1\n"


def test_binary_file() -> None:
    assert "binary" in only_problem(b"\x7fELF\x00\x00\x01")[2]


def test_file_over_the_size_limit_is_refused_unread() -> None:
    *_, message = only_problem(b"a: 1\n" * 100, Limits(max_file_bytes=64))
    assert "larger than 64 bytes" in message


def test_deep_nesting_is_refused_quickly() -> None:
    started = time.perf_counter()
    _, _, message = only_problem(b"[" * 10_000 + b"]" * 10_000)
    assert "nests deeper than 200 levels" in message
    assert time.perf_counter() - started < 30  # generous: a hang would be the failure


def test_too_many_documents() -> None:
    assert "more than 3 documents" in only_problem(b"a: 1\n---\n" * 5, Limits(max_documents=3))[2]


def test_disallowed_character_reports_its_position() -> None:
    line, _, message = only_problem(b"a: 1\nb: x\x07y\n")
    assert line == 2 and message.startswith("invalid YAML")


@pytest.mark.parametrize("name", ["missing.yaml"])
def test_missing_file_is_a_problem_not_a_crash(tmp_path: pytest.TempPathFactory, name: str) -> None:
    source = read_file(str(tmp_path / name), LIMITS)  # type: ignore[operator]
    assert source.problems and "cannot read file" in source.problems[0].message


@pytest.mark.parametrize(
    "text",
    [
        "".join(" " * depth + f"k{depth}:\n" for depth in range(3000)),
        "- " * 100_000 + "a\n",  # libyaml recursed in C past its stack: a segfault
    ],
)
def test_deep_block_nesting_is_refused_at_the_depth_limit(text: str) -> None:
    assert "nests deeper than 200 levels" in only_problem(text.encode())[2]


def test_brackets_in_quotes_and_comments_do_not_count_as_nesting() -> None:
    text = 'a: "' + "[" * 300 + '"\n# ' + "{" * 300 + "\nb: '" + "[" * 300 + "'\n"
    assert read_bytes("f.yaml", text.encode(), LIMITS).documents
