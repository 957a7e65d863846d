"""Whatever a conf contains, ``check()`` and ``load()`` answer with findings, never a traceback.

Two generators: structures built from the conf's own vocabulary (real and misspelt keys,
every scalar flavour, lists where maps belong, merges, anchors) rendered as YAML, and
textual mutations of real confs from the oracle (lines dropped, duplicated, re-indented,
tokens inserted).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import textwrap

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from policytest.core.findings import Finding
from policytest.read.source import read_bytes
from policytest.volcano.check import as_scheduler_reads, load
from tests.volcano.helpers import DATA, OPTIONS, documents
from tests.volcano.test_rules import configmap

KEYS = [
    "actions",
    "tiers",
    "plugins",
    "name",
    "arguments",
    "configurations",
    "metrics",
    "enableNodeOrder",
    "enabledVictim",
    "enableHierarchy",
    "binpack.weight",
    "binpack.cpu",
    "binpack.memory",
    "binpack.resources",
    "binpack.resources.nvidia.com/gpu",
    "binpack.gpu",
    "leastrequested.weight",
    "mostrequested.weight",
    "tier",
    "<<",
    "1",
]
WORDS = [
    "binpack",
    "nodeorder",
    "drf",
    "proportion",
    "allocate",
    "enqueue, allocate",
    "gangPreempt",
    "nvidia.com/gpu, cpu",
    "numaaware",
    "",
]
SCALARS = st.one_of(
    st.sampled_from(WORDS),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.text(max_size=8),
)
VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.sampled_from(KEYS), children, max_size=5),
    ),
    max_leaves=12,
)
CONFS = st.dictionaries(st.sampled_from(KEYS), VALUES, min_size=1, max_size=5)

TOKENS = [
    "!!int abc",
    "!!float",
    "&a",
    "*a",
    "<<: *a",
    "<<: [1]",
    "~",
    '"',
    "- ",
    ": ",
    "{",
    "[x]",
    "\t",
    "Null",
    "0o17",
    "!!binary x",
    "? [1]\n: 2",
    "...",
    "---",
]

with gzip.open(DATA / "conf_cases.jsonl.gz", "rt") as lines:
    CONF_TEXTS = [json.loads(line)["conf"] for line in lines]


def dump(value: object) -> str:
    stream = io.StringIO()
    yaml = YAML(typ="rt", pure=True)
    yaml.dump(value, stream)
    return stream.getvalue()


def check_all(text: str) -> list[Finding]:
    """Run every document of ``text`` through ``load`` as the pipeline would."""
    source = read_bytes("volcano-scheduler.conf", text.encode(), OPTIONS.limits)
    if source.problems:
        found = as_scheduler_reads("volcano-scheduler.conf", text, OPTIONS)
        if isinstance(found, Finding):
            return [found]
        return load(found, OPTIONS)[1]
    findings: list[Finding] = []
    for document in source.documents:
        for embedded in documents(text) if "ConfigMap" in text else [document]:
            conf, more = load(embedded, OPTIONS)
            assert conf is None or conf.release == "1.15"
            findings += more
    return findings


FUZZ = settings(
    max_examples=int(os.environ.get("POLICYTEST_FUZZ_EXAMPLES", "30")),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@FUZZ
@given(CONFS)
def test_generated_confs_never_raise(conf: dict[str, object]) -> None:
    text = dump(conf)
    for finding in check_all(text):
        assert finding.line >= 1 and finding.column >= 1 and finding.message


@FUZZ
@given(CONFS)
def test_generated_confs_in_a_configmap_never_raise(conf: dict[str, object]) -> None:
    text = configmap(dump(conf))
    if read_bytes("cm.yaml", text.encode(), OPTIONS.limits).problems:
        return
    for document in documents(text):
        load(document, OPTIONS)


@FUZZ
@given(
    st.sampled_from(CONF_TEXTS),
    st.lists(
        st.tuples(
            st.sampled_from(["drop", "duplicate", "indent", "insert"]),
            st.integers(min_value=0, max_value=40),
            st.sampled_from(TOKENS),
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_mutated_real_confs_never_raise(text: str, mutations: list[tuple[str, int, str]]) -> None:
    lines = text.splitlines()
    for action, where, token in mutations:
        if not lines:
            break
        index = where % len(lines)
        if action == "drop":
            del lines[index]
        elif action == "duplicate":
            lines.insert(index, lines[index])
        elif action == "indent":
            lines[index] = "  " + lines[index]
        else:
            cut = where % (len(lines[index]) + 1)
            lines[index] = lines[index][:cut] + token + lines[index][cut:]
    check_all("\n".join(lines) + "\n")


def test_hand_picked_hostile_inputs() -> None:
    hostile = [
        "actions: allocate\ntiers: !!map\n  - x\n",
        "actions: &a allocate\ntiers:\n- plugins: &p\n  - name: binpack\n    arguments: *p\n",
        "actions: allocate\ntiers:\n- plugins:\n  - name: binpack\n    arguments:\n"
        "      <<: &m {binpack.weight: 2}\n      x: *m\n",
        "actions: allocate\ntiers: [[]]\n",
        "actions: allocate\ntiers:\n- {plugins: [[], ~, 1, {name: [1]}, {name: {a: 1}}]}\n",
        "actions: allocate\ntiers:\n- plugins:\n  - name: binpack\n    arguments: {? [1] : 2}\n",
        "actions: allocate\nconfigurations: [1, {name: allocate, arguments: [1]}]\n",
        "actions: allocate\nmetrics: [1]\n",
        textwrap.dedent(
            """\
            actions: allocate
            tiers:
            - plugins:
              - name: binpack
                arguments:
                  binpack.resources: !!binary aGVsbG8=
                  binpack.weight: !!int 0x10
            """
        ),
    ]
    for text in hostile:
        for finding in check_all(text):  # no crash, and every finding is placed and said
            assert finding.line >= 1 and finding.column >= 1 and finding.message, finding
