"""A YAML syntax error says what is wrong in words and points at the mistake (issue 37):
the bracket or quote that is never closed, not the line after it where the parser gave up;
for a small text (the small reader declines it), a large one (libyaml declines it) and
inside a ConfigMap's value."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import RunLine

CASES = [
    pytest.param(
        "a: {b: 1\nc: 2\n",
        (1, 4),
        "this `{` starts a mapping that is never closed: a `}` (or a `,` between its items) "
        "is missing before LINE(2), column 2",
        id="unclosed-brace",
    ),
    pytest.param(
        "actions: [allocate\n",
        (1, 10),
        "this `[` starts a list that is never closed",
        id="unclosed-bracket-at-the-end",
    ),
    pytest.param(
        "a: [1, 2}\n",
        (1, 4),
        "this `[` starts a list that `}` at LINE(1), column 9 closes: close it with `]`",
        id="wrong-closer",
    ),
    pytest.param(
        'a: "abc\nb: 1\n',
        (1, 4),
        'this `"` starts a quoted text that is never closed',
        id="unclosed-quote",
    ),
    pytest.param("a: b: c\n", (1, 5), "a `: ` inside a value that is not quoted", id="colon"),
    pytest.param(
        "a:\n  b: 1\n c: 2\n",
        (3, 2),
        "this line is not indented as the mapping at line 1 expects",
        id="indentation",
    ),
    pytest.param("a:\n\tb: 1\n", (2, 1), "a tab: YAML indents with spaces only", id="tab"),
    pytest.param("a: *x\n", (1, 4), "`*x` names no anchor", id="alias"),
]

PADDING = "".join(f"k{i}: {'v' * 60}\n" for i in range(2500))
"""Past the small reader's 128 KiB: libyaml reads the text first."""


@pytest.mark.parametrize("padded", [False, True], ids=["small", "large"])
@pytest.mark.parametrize(("text", "where", "said"), CASES)
def test_a_syntax_error_in_words_at_the_mistake(
    run_line: RunLine,
    tmp_path: Path,
    text: str,
    where: tuple[int, int],
    said: str,
    padded: bool,
) -> None:
    conf = tmp_path / "volcano-scheduler.conf"
    conf.write_text(PADDING + text if padded else text)
    offset = PADDING.count("\n") if padded else 0
    line, column = where[0] + offset, where[1]
    said = re.sub(r"LINE\((\d+)\)", lambda m: f"line {int(m.group(1)) + offset}", said)
    result = run_line(["validate", conf])
    assert result.exit_code == 1
    assert f"{conf}:{line}:{column}: VC001 error: invalid YAML: {said}" in result.stdout, result
    assert "while parsing" not in result.stdout and "but got" not in result.stdout


def test_inside_a_configmap_the_mistake_is_placed_in_the_outer_file(
    run_line: RunLine, tmp_path: Path
) -> None:
    configmap = tmp_path / "volcano-scheduler-configmap.yaml"
    configmap.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: volcano-scheduler-configmap}\n"
        'data:\n  volcano-scheduler.conf: |\n    actions: "enqueue, allocate"\n'
        "    tiers:\n    - plugins:\n      - name: binpack\n"
        "        arguments: {binpack.weight: 10\n"
    )
    result = run_line(["validate", configmap])
    assert f"{configmap}:10:20: VC001 error: invalid YAML: this `{{` starts a mapping" in (
        result.stdout
    ), result
