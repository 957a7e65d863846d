"""Every suggestion, applied, makes Volcano read the value the user wrote.

Blog-style binpack mistakes (``binpack.cpu.weight``, ``binpack.resources.weight``, a
``.weight`` suffix declared as a resource, misspelt and case-mangled keys, quoted
numbers): for each finding that says ``write `KEY: VALUE```, the test removes the
offending key, writes what the message says, loads the conf again as Volcano would, and
checks that each written key now holds that value in the weights Volcano uses, that the
value is the one the user wrote, and that no error is left.
"""

from __future__ import annotations

import re

import pytest

from policytest.core.findings import Finding, Severity
from policytest.scoring.weights import BinpackWeights
from policytest.volcano.binpack_args import RESOURCES, declared_resources
from policytest.volcano.check import load
from tests.volcano.helpers import OPTIONS, documents

MISTAKES: dict[str, list[str]] = {
    "cpu-weight-suffix": ["binpack.weight: 10", "binpack.cpu.weight: 10"],
    "memory-weight-suffix": ["binpack.memory.weight: 3"],
    "weight-weight": ["binpack.weight.weight: 10"],
    "resources-weight-one-declared": [
        'binpack.resources: "nvidia.com/gpu"',
        "binpack.resources.weight: 4",
    ],
    "declared-weight-suffix": [
        'binpack.resources: "nvidia.com/gpu, nvidia.com/gpu.weight"',
        "binpack.resources.nvidia.com/gpu.weight: 10",
    ],
    "weight-suffix-declared-stem": [
        'binpack.resources: "nvidia.com/gpu"',
        "binpack.resources.nvidia.com/gpu.weight: 10",
    ],
    "weight-suffix-nothing-declared": ["binpack.resources.nvidia.com/gpu.weight: 10"],
    "undeclared": ['binpack.resources: "amd.com/gpu"', "binpack.resources.nvidia.com/gpu: 8"],
    "case": ['binpack.resources: "nvidia.com/gpu"', "binpack.resources.Nvidia.com/gpu: 5"],
    "cpu-as-resource": ['binpack.resources: "nvidia.com/gpu"', "binpack.resources.cpu: 5"],
    "gpu": ["binpack.gpu: 3"],
    "nvidia-gpu": ["binpack.nvidia.com/gpu: 6"],
    "gpu-weight": ['binpack.resources: "nvidia.com/gpu"', "binpack.gpu.weight: 2"],
    "typo-weight": ["binpack.wieght: 10"],
    "typo-cpu": ["binpack.cpus: 2"],
    "typo-declared-resource": [
        'binpack.resources: "nvidia.com/gpu"',
        "binpack.resource.nvidia.com/gpu: 7",
    ],
    "typo-resources": ['binpack.resource: "nvidia.com/gpu"'],
    "quoted": ['binpack.weight: "10"'],
    "quoted-memory": ["binpack.memory: '4'"],
    "list": ["binpack.resources: [nvidia.com/gpu]", "binpack.resources.nvidia.com/gpu: 5"],
}

_SNIPPET = re.compile(r"`(binpack\.[^`:]+): ([^`]+)`")


def conf(lines: list[str]) -> str:
    body = "".join(f"      {line}\n" for line in lines)
    return (
        'actions: "enqueue, allocate, backfill"\n'
        "tiers:\n- plugins:\n  - name: predicates\n  - name: nodeorder\n"
        "    arguments:\n      leastrequested.weight: 0\n"
        f"  - name: binpack\n    arguments:\n{body}"
    )


def findings_and_weights(lines: list[str]) -> tuple[list[Finding], BinpackWeights | None]:
    (document,) = documents(conf(lines))
    model, findings = load(document, OPTIONS)
    return findings, (model.binpack if model is not None else None)


def suggestion(finding: Finding) -> list[tuple[str, str]]:
    """The ``KEY: VALUE`` snippets a message tells the user to write."""
    lowered = finding.message.lower()
    if "write" not in lowered:
        return []
    return _SNIPPET.findall(finding.message[lowered.index("write") :])


def line_of(lines: list[str], finding: Finding) -> int:
    """The index in ``lines`` of the argument the finding is about."""
    return finding.line - 10  # conf(): arguments start on line 10


def apply(lines: list[str], index: int, snippets: list[tuple[str, str]]) -> list[str]:
    written = {line.split(":", 1)[0]: line for line in lines}
    del written[lines[index].split(":", 1)[0]]
    for key, value in snippets:
        written[key] = f"{key}: {value}"
    return list(written.values())


def user_value(line: str) -> int | None:
    text = line.split(":", 1)[1].strip().strip("\"'")
    return int(text) if text.lstrip("-").isdigit() else None


def held(weights: BinpackWeights, key: str) -> int | None:
    if key == "binpack.weight":
        return weights.weight
    if key in ("binpack.cpu", "binpack.memory"):
        return int(getattr(weights, key.removeprefix("binpack.")))
    return weights.resources.get(key.removeprefix("binpack.resources."))


def suggestions() -> list[tuple[str, list[str], Finding]]:
    found = []
    for name, lines in MISTAKES.items():
        findings, _ = findings_and_weights(lines)
        for finding in findings:
            if finding.rule.startswith("VB") and suggestion(finding):
                found.append((name, lines, finding))
    return found


SUGGESTIONS = suggestions()


def test_every_mistake_gets_a_suggestion() -> None:
    assert {name for name, _, _ in SUGGESTIONS} == set(MISTAKES)


@pytest.mark.parametrize(
    ("lines", "finding"),
    [(lines, finding) for _, lines, finding in SUGGESTIONS],
    ids=[f"{name}-{finding.rule}" for name, _, finding in SUGGESTIONS],
)
def test_applied_suggestion_makes_volcano_read_the_value(
    lines: list[str], finding: Finding
) -> None:
    index = line_of(lines, finding)
    snippets = suggestion(finding)
    fixed = apply(lines, index, snippets)
    findings, weights = findings_and_weights(fixed)
    errors = [f for f in findings if f.severity is Severity.ERROR]
    assert errors == [], (fixed, errors)
    assert weights is not None
    wanted = user_value(lines[index])
    for key, value in snippets:
        if key == RESOURCES:
            declared = declared_resources({RESOURCES: value.strip('"')})
            assert declared is not None
            assert set(declared) <= set(weights.resources)
            continue
        assert held(weights, key) == int(value), (fixed, key)
        if wanted is not None:
            assert int(value) == wanted, (finding.message, lines[index])


def test_the_gpu_weight_the_author_wanted_is_not_lost_quietly() -> None:
    """``nvidia.com/gpu.weight`` declared, as earlier advice led users to write."""
    findings, weights = findings_and_weights(MISTAKES["declared-weight-suffix"])
    assert weights is not None and weights.resources["nvidia.com/gpu"] == 1
    errors = [f for f in findings if f.severity is Severity.ERROR]
    assert [f.rule for f in errors] == ["VB013"]
    assert "`nvidia.com/gpu` keeps weight 1" in errors[0].message


@pytest.mark.parametrize(
    ("name", "unwanted"),
    [
        ("cpu-weight-suffix", "did you mean `binpack.weight`"),
        ("resources-weight-one-declared", "resource named `weight``"),
        ("resources-weight-one-declared", '`binpack.resources: "nvidia.com/gpu, weight"`'),
        ("weight-suffix-declared-stem", 'nvidia.com/gpu.weight"`'),
    ],
)
def test_old_advice_is_gone(name: str, unwanted: str) -> None:
    findings, _ = findings_and_weights(MISTAKES[name])
    assert all(unwanted not in finding.message for finding in findings)
