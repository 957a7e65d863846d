"""The small-file reader builds libyaml's very tree for every text it accepts.

Differential: every YAML text of the repository and its corpora, and generated documents
(random trees rendered in random styles, then mutated line by line), composed by both
:mod:`policytest.read.blockyaml` and :func:`policytest.read.bigload.compose_all`; whenever
the small reader accepts, libyaml must accept too, with equal shapes and as many nodes
counted. A reader that declines everything would pass that, so the common texts must
also be accepted.
"""

from __future__ import annotations

import gzip
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policytest.core.limits import NodeCounter, TooManyNodes
from policytest.read import bigload, blockyaml, source
from tests.read.shapes import shape

pytestmark = pytest.mark.skipif(not bigload.available(), reason="ruamel.yaml.clib not installed")

REPOSITORY = Path(__file__).parent.parent.parent
DATA = REPOSITORY / "tests" / "data"
DEPTH = 200


def agrees(text: str, max_depth: int = DEPTH) -> bool:
    """Whether the small reader accepts ``text``; when it does, libyaml composes the same
    trees (every class, tag, value, style and mark) with as many nodes counted."""
    ours = NodeCounter(1 << 30)
    roots = blockyaml.compose_all(text, max_depth, ours)
    if roots is None:
        return False
    theirs = NodeCounter(1 << 30)
    expected = bigload.compose_all(text, max_depth, theirs)
    assert expected is not None, f"libyaml refuses what the small reader accepts: {text!r}"
    assert [shape(root) for root in roots] == [shape(root) for root in expected], repr(text)
    assert [root.start_mark.name for root in roots] == [root.start_mark.name for root in expected]
    assert ours.left == theirs.left, repr(text)
    return True


# --- every text at hand ----------------------------------------------------------------


def repository_texts() -> dict[str, str]:
    """Every YAML, JSON and conf file of the repository, the YAML examples of its
    documentation, and the corpora's texts."""
    texts = {}
    for page in [REPOSITORY / "README.md", *sorted((REPOSITORY / "docs").glob("*.md"))]:
        blocks = re.findall(r"```yaml\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)
        for number, block in enumerate(blocks):
            texts[f"{page.relative_to(REPOSITORY)}:{number}"] = block
    for path in sorted(REPOSITORY.rglob("*")):
        parts = path.relative_to(REPOSITORY).parts
        if parts[0].startswith(".") or not path.is_file():
            continue
        if path.suffix in (".yaml", ".yml", ".json", ".conf"):
            texts[str(path.relative_to(REPOSITORY))] = path.read_text(encoding="utf-8")
    for name, key in (
        ("kube/validate_cases.jsonl.gz", "yaml"),
        ("kube/validate_cases_133_134.jsonl.gz", "yaml"),
        ("kube/validate_cases_136.jsonl.gz", "yaml"),
        ("volcano/conf_cases.jsonl.gz", "conf"),
    ):
        with gzip.open(DATA / name, "rt", encoding="utf-8") as handle:
            for number, line in enumerate(handle):
                texts[f"{name}:{number}"] = json.loads(line)[key]
    return texts


TEXTS = repository_texts()


def test_every_repository_text_agrees() -> None:
    accepted = sum(agrees(text) for text in TEXTS.values())
    # the JSON files are flow collections over many lines: left to libyaml
    yaml_texts = sum(not name.endswith(".json") for name in TEXTS)
    assert accepted >= 0.9 * yaml_texts, (accepted, yaml_texts)


REPRESENTATIVE = sorted(
    name
    for name in TEXTS
    if name.startswith(("fixtures/", "tests/data/kubectl/", "tests/data/kube/valid/", "README"))
    and "snapshot" not in name  # fixtures/snapshot-*: flow sequences over several lines
    and not name.endswith((".json", "trailing-space.yaml"))  # "...\n..." strings: libyaml's
)


def test_representative_texts_are_many() -> None:
    assert len(REPRESENTATIVE) >= 25


@pytest.mark.parametrize("name", REPRESENTATIVE)
def test_representative_texts_are_read_here(name: str) -> None:
    assert agrees(TEXTS[name]), name


# --- generated documents ---------------------------------------------------------------

WORDS = (
    "a",
    "cpu",
    "memory",
    "x1",
    "500m",
    "-2",
    "1.5",
    "true",
    "~",
    "nvidia.com/gpu",
    "http://h:80",
    "a b",
    "a#b",
    "a:b",
    "-x",
    "é😀",
    "a'b",
    'a"b',
    "a,b",
    "a]",
    "{{ x }}",
    "binpack.weight",
    "a - b",
    "x.y/z",
    "0",
    "null",
    "-1.5e3",
    "a  b",
)
ODD = (
    "---x",
    "*",
    "&a",
    "!x",
    "%x",
    "@x",
    "?x",
    ":x",
    "a: b",
    "a #b",
    "- a",
    "?",
    "-",
    "x:",
    "[a",
    "{a",
    "|",
    ">",
    "a\\b",
    "",
    ",",
    "`x",
    "...",
)
QUOTABLE = ("a", "", "a b", "it's", 'say "x"', "a: b", "#", " x ", "\\n", "é")


def scalar(rng: random.Random, flow: bool = False) -> str:
    """One scalar, plain, single- or double-quoted."""
    draw = rng.random()
    word = rng.choice(QUOTABLE if draw < 0.3 else ODD if draw < 0.4 else WORDS)
    style = rng.random()
    if style < 0.6 and not (flow and word == ""):
        return word
    if style < 0.8:
        return "'" + word.replace("'", "''") + "'"
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def flow(rng: random.Random, depth: int = 0) -> str:
    """A one-line flow collection."""
    if rng.random() < 0.5:
        items = [
            flow(rng, depth + 1) if depth < 2 and rng.random() < 0.2 else scalar(rng, True)
            for _ in range(rng.randrange(4))
        ]
        return "[" + ", ".join(items) + "]"
    pairs = [
        f"{scalar(rng, True)}: "
        + (flow(rng, depth + 1) if depth < 2 and rng.random() < 0.2 else scalar(rng, True))
        for _ in range(rng.randrange(4))
    ]
    return "{" + ", ".join(pairs) + "}"


def shifted(lines: list[str], columns: int) -> list[str]:
    return [" " * columns + line if line else line for line in lines]


def block_scalar(rng: random.Random, width: int) -> list[str]:
    """A ``|`` or ``>`` header's rest and its lines, relative to the collection holding it."""
    header = rng.choice("|>") + rng.choice(["", "-", "+"])
    if rng.random() < 0.2:
        header += str(rng.randrange(1, 4))
    elif rng.random() < 0.1:
        header = header[0] + str(rng.randrange(1, 4)) + header[1:]
    lines = [header + rng.choice(["", "", " # c", "  "])]
    for _ in range(rng.randrange(5)):
        kind = rng.random()
        if kind < 0.2:
            lines.append(" " * rng.randrange(width + 3))
        elif kind < 0.35:
            lines.append(" " * (width + rng.randrange(1, 3)) + rng.choice(WORDS))
        else:
            lines.append(" " * width + rng.choice((*WORDS, *ODD, "# not a comment")))
    return lines


def node(rng: random.Random, width: int, depth: int) -> list[str]:
    """A block node's lines, relative to its own column (the first line is unindented)."""
    kind = rng.random() if depth < 5 else 1.0
    lines: list[str] = []
    if kind < 0.35:  # a mapping
        for _ in range(rng.randrange(1, 5)):
            lines.extend(pair(rng, scalar(rng), width, depth))
        return lines
    if kind < 0.6:  # a sequence
        for _ in range(rng.randrange(1, 4)):
            inner = rng.choice([2, 2, width + 1, 3])
            body = node(rng, width, depth + 1)
            if rng.random() < 0.2:  # the item on the lines below its -
                lines += ["-", *shifted(body, rng.choice([1, width]))]
            else:
                lines += ["-" + " " * (inner - 1) + body[0], *shifted(body[1:], inner)]
        return lines
    if kind < 0.7:
        return [flow(rng)]
    if kind < 0.8:
        return block_scalar(rng, rng.choice([1, 2, width]))
    return [scalar(rng)]


def pair(rng: random.Random, key: str, width: int, depth: int) -> list[str]:
    """``key: value`` lines relative to the mapping's column."""
    choice = rng.random()
    comment = rng.choice(["", "", "", " # c", "  #c"])
    if choice < 0.3 and depth < 5:
        body = node(rng, width, depth + 1)
        inner = 0 if body[0].startswith("-") and rng.random() < 0.5 else width
        return [f"{key}:{comment}", *shifted(body, inner)]
    if choice < 0.45:
        return [f"{key}:{comment}"]
    if choice < 0.55:
        return [f"{key}: " + flow(rng) + comment]
    if choice < 0.7:
        header, *lines = block_scalar(rng, rng.choice([1, 2, width]))
        return [f"{key}: {header}", *lines]
    if choice < 0.75:  # an embedded ConfigMap config, as `key: |` holds it
        return [f"{key}: |", *shifted(node(rng, width, depth + 2), width)]
    return [f"{key}: {scalar(rng)}{comment}"]


def stream(rng: random.Random) -> str:
    """One or more documents, with comments and blank lines between lines."""
    texts = []
    for number in range(rng.choice([1, 1, 1, 2, 3])):
        width = rng.choice([1, 2, 2, 2, 3, 4])
        lines = node(rng, width, 0)
        marker = rng.random() < 0.3 or number > 0
        texts.append((["--- # d" if rng.random() < 0.2 else "---"] if marker else []) + lines)
        if rng.random() < 0.1:
            texts[-1].append("...")
    lines = [line for text in texts for line in text]
    out = []
    for line in lines:
        if rng.random() < 0.1:
            out.append(rng.choice(["", "  ", "# note", "    # indented note"]))
        out.append(line)
    text = "\n".join(out)
    return text + rng.choice(["\n", "\n", "", "\n\n", "\n  ", "\n# end"])


MUTATIONS = (
    ": ",
    "#",
    " #",
    "-",
    "- ",
    "'",
    '"',
    "\t",
    "[",
    "{",
    "}",
    "]",
    "|",
    ">",
    "&a ",
    "*a",
    "!x ",
    "? ",
    "...",
    "---",
    "%",
    "\\",
    "\r",
    " ",
    "  ",
    ",",
    "\ufeff",
)


def mutated(rng: random.Random, text: str) -> str:
    """``text`` with a few lines deleted, doubled, re-indented or with a character added."""
    lines = text.split("\n")
    for _ in range(rng.randrange(1, 4)):
        if not lines:
            break
        n = rng.randrange(len(lines))
        action = rng.random()
        if action < 0.2:
            del lines[n]
        elif action < 0.35:
            lines.insert(n, lines[n])
        elif action < 0.6:
            shift = rng.choice([-2, -1, 1, 2])
            lines[n] = " " * shift + lines[n] if shift > 0 else lines[n][-shift:]
        else:
            at = rng.randrange(len(lines[n]) + 1)
            lines[n] = lines[n][:at] + rng.choice(MUTATIONS) + lines[n][at:]
    return "\n".join(lines)


@settings(max_examples=1000)
@given(st.randoms(use_true_random=False))
def test_generated_documents_agree(rng: random.Random) -> None:
    text = stream(rng)
    agrees(text)
    agrees(mutated(rng, text))


PIECES = (
    "a",
    "b",
    " ",
    "  ",
    ":",
    ": ",
    "-",
    "- ",
    "#",
    " #",
    "'",
    '"',
    "|",
    ">",
    "[",
    "]",
    "{",
    "}",
    ",",
    "\n",
    "\n  ",
    "\n- ",
    "---",
    "...",
    "+",
    "1",
    "2",
    "?",
    "é",
)


@settings(max_examples=1000)
@given(st.lists(st.sampled_from(PIECES), max_size=24).map("".join))
def test_texts_of_yaml_s_punctuation_agree(text: str) -> None:
    """Short texts of indicators, breaks and spaces: the boundary of the subset, densely."""
    agrees(text)


@settings(max_examples=200)
@given(st.randoms(use_true_random=False), st.integers(1, 6))
def test_depth_limit_declines_where_libyaml_would_stop(rng: random.Random, depth: int) -> None:
    agrees(stream(rng), max_depth=depth)  # accepted only when libyaml's TooDeep is not raised


def test_generated_documents_are_mostly_read_here() -> None:
    rng = random.Random(28)
    assert sum(agrees(stream(rng)) for _ in range(300)) >= 100


# --- named edge cases ------------------------------------------------------------------

CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: volcano-scheduler-configmap  # the scheduler's
data:
  volcano-scheduler.conf: |
    actions: "enqueue, allocate, backfill"
    tiers:
    - plugins:
      - name: priority
      - name: binpack
        arguments:
          binpack.weight: 10

          binpack.cpu: -2
"""

ACCEPTED = {
    "empty": "",
    "comment-only": "# c\n  # d",
    "document-markers": "---\na: 1\n...\n---\nb: 2\n",
    "empty-documents": "---\n--- # c\n---",
    "root-scalar": "text\n",
    "indented-root": "  a: 1\n  b: 2\n",
    "empty-value-at-end": "a:",
    "empty-value-before-comments": "a:   # c\n\n# d\nb: 1\n",
    "indentless-sequence": "a:\n- x\n- y: 1\n  z:\nb: 2\n",
    "compact-nested-sequences": "- - a\n  - b\n- - - c\n",
    "items-below-their-dash": "-\n  a: 1\n-\n  - b\n-\n",
    "trailing-spaces": "a: b   \nc: 'd'  \n",
    "spaces-before-colon": "a   : 1\n'b' : 2\n",
    "quoted-keys": "'a b': 1\n\"c\": 2\n'': 3\n",
    "single-quote-escape": "a: 'it''s'\n",
    "colon-and-hash-inside-plain": "url: http://h:80/#x\nb: a#b\nc: a:b\n",
    "negative-number": "binpack.cpu: -2\n",
    "non-ascii": "é: ü😀\nb: |\n  ñ\n",
    "flow-one-line": "r: {cpu: \"1\", memory: 2Gi}\nl: [a, 'b', [c], {}]\ne: []\n",
    "literal": "a: |\n  x\n\n   y\n  # not a comment\n\n\nb: 1\n",
    "literal-strip": "a: |-\n  x\n\nb: 1\n",
    "literal-keep": "a: |+\n  x\n\n\nb: 1\n",
    "literal-indentation-indicator": "a: |2\n    x\n  y\nb:\n- c: |1-\n    z\n",
    "literal-in-sequence": "- |\n  x\n- key: |+\n    y\n\n",
    "literal-ended-by-comment": "a:\n  b: |\n    x\n\n  # c\n\nc: 2",
    "literal-without-final-newline": "a: |\n  x",
    "literal-header-ends-text": "a: |",
    "literal-root": "--- |\n  x\n--- >-\n  y\n  z\n",
    "folded": "a: >\n  x\n  y\n\n  z\n   w\n  v\n\nb: >+\n  k\n\n",
    "configmap": CONFIGMAP,
    "configmap-value": CONFIGMAP.split("|\n", 1)[1],
    "ends-in-spaces": "a:\n  b:\n    c: 1\n  ",
    "ends-in-comment": "a:\n  b: 1\n# c",
    "empty-item-at-end": "- a\n-",
    "duplicate-keys": "a: 1\na: 2\n",
}
DECLINED = {
    "tab": "a:\tb\n",
    "crlf": "a: 1\r\nb: 2\r\n",
    "bom": "\ufeffa: 1\n",
    "nel": "a: b\x85c\n",
    "anchor-and-alias": "a: &x 1\nb: *x\n",
    "tag": "a: !!str 1\n",
    "directive": "%YAML 1.1\n---\na: 1\n",
    "complex-key": "? a\n: 1\n",
    "multi-line-plain": "a: b\n  c\n",
    "multi-line-quoted": "a: 'b\n  c'\n",
    "multi-line-flow": "a: [1,\n  2]\n",
    "backslash": 'a: "x\\ny"\n',
    "bad-indentation": "a: 1\n b: 2\n",
    "mapping-as-value": "a: b: c\n",
    "text-after-document-end": "a: 1\n...\nb: 2\n",
    "wider-leading-blank-line": "a: |\n    \n  x\n",
    "flow-question-mark": "[a?]\n",
    "flow-empty-entry": "[a, , b]\n",
    "comment-without-space": "a: 'b'#c\n",
    "too-deep-to-recurse": "a:\n" + "".join(" " * n + "a:\n" for n in range(1, 70)),
    # libyaml finds no simple key over 1,024 characters (it refuses these texts)
    "long-block-key": "k" * 1025 + ": v\n",
    "long-flow-key": "a: {" + "k" * 1025 + ": v}\n",
    "long-quoted-flow-key": "- {b: c, '" + "k" * 1030 + "': d}\n",
    "flow-key-far-from-its-colon": "[{k" + " " * 1100 + ": v}]\n",
}


@pytest.mark.parametrize("text", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_accepted_edge_cases(text: str) -> None:
    assert agrees(text)


@pytest.mark.parametrize("text", DECLINED.values(), ids=DECLINED.keys())
def test_declined_edge_cases(text: str) -> None:
    assert blockyaml.compose_all(text, DEPTH, NodeCounter(1000)) is None


@pytest.mark.parametrize("text", [CONFIGMAP, ACCEPTED["folded"], ACCEPTED["flow-one-line"]])
def test_node_budget_runs_out_where_libyaml_s_does(text: str) -> None:
    counter = NodeCounter(1000)
    assert agrees(text)
    blockyaml.compose_all(text, DEPTH, counter)
    nodes = 1000 - counter.left
    blockyaml.compose_all(text, DEPTH, NodeCounter(nodes))
    for compose in (blockyaml.compose_all, bigload.compose_all):
        with pytest.raises(TooManyNodes):
            compose(text, DEPTH, NodeCounter(nodes - 1))


def test_source_tries_the_small_reader_first_and_gives_back_a_decline_s_nodes() -> None:
    counter = NodeCounter(1000)
    with mock.patch.object(bigload, "compose_all", side_effect=AssertionError("libyaml")):
        (root,) = source._composed(CONFIGMAP, DEPTH, counter)
    assert 1000 - counter.left == 13
    declined_late = "a: 1\nb: [c, d]\ne: &x 2\n"  # 8 nodes counted before the anchor
    counter = NodeCounter(1000)
    (root,) = source._composed(declined_late, DEPTH, counter)
    assert 1000 - counter.left == 9
    assert root.value[2][1].value == "2"


def test_source_leaves_big_texts_to_libyaml() -> None:
    text = "a: b\n" * (source.SMALL_TEXT // 5 + 1)
    with mock.patch.object(blockyaml, "compose_all", side_effect=AssertionError("small")):
        (root,) = source._composed(text, DEPTH, NodeCounter(1 << 20))
    assert len(root.value) == source.SMALL_TEXT // 5 + 1


def test_the_small_reader_imports_nothing_of_its_own() -> None:
    """Beyond the node classes and the base exception: no ruamel.yaml, no typing."""
    script = (
        "import sys; import policytest.read.nodes, policytest.core.errors; "
        "before = set(sys.modules); "
        "import policytest.read.blockyaml; print(sorted(set(sys.modules) - before))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.strip() == "['policytest.read.blockyaml']", done.stderr
