"""No input makes the kube-scheduler checks raise: mutated oracle documents, random
values at random places, odd YAML. Each must give findings, never a traceback."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policytest.core.options import DEFAULT_OPTIONS
from policytest.kube.check import load
from policytest.read.goyaml import decode
from tests.kube.helpers import documents, findings_for, oracle_cases

TEXTS = [case["yaml"] for case in oracle_cases()]
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["NodeResourcesFit", "RequestedToCapacityRatio", "*", "15s", "", "cpu"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


def _load(text: str) -> Any:
    """A document as yaml.v2 reads it (duplicate keys: the last wins)."""
    docs, problems = documents(text)
    return None if problems else decode(docs[0].root, docs[0].text)


ORACLE_VALUES = [value for value in map(_load, TEXTS) if isinstance(value, dict)]


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    places = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            places += _places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            places += _places(item, (*path, index))
    return places


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = json.loads(json.dumps(value))
    target = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = new
    return copy


def _as_yaml(value: Any) -> str:
    """JSON is YAML; NaN/Inf are written the YAML way."""

    def fix(item: Any) -> Any:
        if isinstance(item, float) and (math.isnan(item) or math.isinf(item)):
            return "@@" + (".nan" if math.isnan(item) else ".inf" if item > 0 else "-.inf")
        if isinstance(item, dict):
            return {k: fix(v) for k, v in item.items()}
        if isinstance(item, list):
            return [fix(v) for v in item]
        return item

    text = json.dumps(fix(value))
    for word in (".nan", ".inf", "-.inf"):
        text = text.replace(f'"@@{word}"', word)
    return text


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), new=VALUES)
def test_mutated_oracle_documents_never_raise(data: st.DataObject, new: Any) -> None:
    original = data.draw(st.sampled_from(ORACLE_VALUES))
    place = data.draw(st.sampled_from(_places(original)))
    text = _as_yaml(_replace(original, place, new))
    findings_for(text)
    for document in documents(text)[0]:
        config, found = load(document, DEFAULT_OPTIONS)
        assert (config is None) == any(f.severity.value == "error" for f in found)


@settings(max_examples=60)
@given(data=st.data(), cut=st.integers(min_value=0, max_value=400), junk=st.text(max_size=6))
def test_damaged_texts_never_raise(data: st.DataObject, cut: int, junk: str) -> None:
    text = data.draw(st.sampled_from(TEXTS))
    findings_for(text[:cut] + junk + text[cut:])


def test_yaml_oddities() -> None:
    header = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    for body in (
        "base: &b {parallelism: 4}\n<<: *b\nparallelism: 8\n",
        "? [a, b]\n: 1\n",
        "profiles:\n- 1: x\n  null: y\n  true: z\n  18446744073709551615: w\n",
        "parallelism: !!int x\n",
        "parallelism: .nan\n",
        "profiles: [~, {schedulerName: ~}]\n",
        "leaderElection: {leaseDuration: ~, renewDeadline: 1h}\n",
        "extenders: [{httpTimeout: 5, tlsConfig: {certData: '!!'}}]\n",
    ):
        found = findings_for(header + body)
        assert any(f.severity.value == "error" for f in found), body


def _nested_merges(levels: int) -> str:
    """Each level merges the one before twice: ``2 ** levels`` keys through merge keys."""
    lines = ["a0: &a0 {k: 1}"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} {{<<: [*a{level - 1}, *a{level - 1}]}}")
    return (
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        + "\n".join(lines)
        + "\n"
    )


def test_nested_merges_of_aliases_stay_cheap() -> None:
    """Forty levels are refused as the file is read (the expansion is counted, never
    walked); twelve, within the alias budget, get kube-scheduler's verdict on merges."""
    found = findings_for(_nested_merges(40))
    assert [(f.rule, "through aliases" in f.message) for f in found] == [("PT001", True)]
    assert "KS004" in {f.rule for f in findings_for(_nested_merges(12))}
