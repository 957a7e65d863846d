"""The oracle: kube-scheduler v1.35's own verdicts on 192 configurations (judged with
``--kubernetes-version 1.35``; the default is the newest release).

For every document policytest reports at least one error exactly when the real
kube-scheduler refused it, and for every error message the real scheduler printed there
is an error finding inside the node that message names. For accepted configurations the
model's defaulted Fit / BalancedAllocation args and effective score plugins equal what
the real scheduler built.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from policytest.check.configs import check_config, read_as_scheduler
from policytest.core.limits import DEFAULT_LIMITS
from policytest.core.options import CheckOptions
from policytest.kube.check import load
from policytest.kube.model import Profile
from policytest.read.recognise import expand
from policytest.read.source import Document, read_bytes
from tests.kube.helpers import (
    Span,
    documents,
    errors,
    findings_for,
    inside,
    nodes,
    oracle_cases,
    parse_path,
    scalar_text,
    span,
    spans,
)

OPTIONS = CheckOptions(kubernetes_version="1.35", limits=DEFAULT_LIMITS)
CHUNK = 24
CHUNKS = range(0, len(oracle_cases()), CHUNK)
_PROFILE = re.compile(r"creating profile for scheduler name ([^:]*): ")
_PLUGIN = re.compile(r'initializing plugin "([^"]+)": ')
_ARGS = re.compile(r"decoding \.profiles\[(\d+)\]\.pluginConfig\[(\d+)\]: ")


def chunk(start: int, accepted: bool | None = None) -> list[dict[str, Any]]:
    """The cases of one chunk (only the accepted or rejected ones, if asked)."""
    cases = oracle_cases()[start : start + CHUNK]
    return [case for case in cases if accepted is None or case["accepted"] is accepted]


@pytest.mark.parametrize("start", CHUNKS, ids=lambda s: f"cases-{s:03d}")
def test_verdicts_match_kube_scheduler(start: int) -> None:
    wrong = []
    for case in chunk(start):
        found = errors(findings_for(case["yaml"], OPTIONS))
        if bool(found) == case["accepted"]:
            shown = [f"{f.line}:{f.column} {f.rule} {f.message}" for f in found]
            wrong.append(f"{case['id']} ({case['label']}): accepted={case['accepted']} {shown}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("start", CHUNKS, ids=lambda s: f"cases-{s:03d}")
def test_findings_point_at_the_node_kube_scheduler_names(start: int) -> None:
    missing = []
    for case in chunk(start, accepted=False):
        found = errors(findings_for(case["yaml"], OPTIONS))
        docs, problems = documents(case["yaml"])
        if problems:  # YAML syntax: reported by the reader (PT001), not located here
            assert found, case["id"]
            continue
        for message in _messages(case):
            where = _expected(message, docs[0])
            if where is not None and not any(inside(f, s) for f in found for s in where):
                shown = [f"{f.line}:{f.column} {f.rule}" for f in found]
                missing.append(f"{case['id']}: {message!r} expected in {where}, got {shown}")
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("start", CHUNKS, ids=lambda s: f"cases-{s:03d}")
def test_model_matches_the_profiles_kube_scheduler_built(start: int) -> None:
    different = []
    for case in chunk(start, accepted=True):
        docs, _ = documents(case["yaml"])
        config, _ = load(docs[0], OPTIONS)
        assert config is not None, case["id"]
        ours = [_as_oracle(profile) for profile in config.profiles]
        if ours != case["profiles"]:
            different.append(f"{case['id']}:\n  ours   {ours}\n  oracle {case['profiles']}")
    assert not different, "\n".join(different)


def test_the_oracle_covers_every_stage() -> None:
    stages = {case["stage"] for case in oracle_cases()}
    assert stages == {"decode", "validate", "instantiate", "ok"}
    assert sum(case["accepted"] for case in oracle_cases()) == 77


def _as_oracle(profile: Profile) -> dict[str, Any]:
    """A model profile in the oracle's JSON shape."""
    fit = profile.fit_args
    assert fit is not None
    strategy: dict[str, Any] = {
        "type": fit.strategy,
        "resources": [{"name": n, "weight": w} for n, w in fit.resources],
    }
    if fit.shape:
        shape = [{"utilization": u, "score": s} for u, s in fit.shape]
        strategy["requestedToCapacityRatio"] = {"shape": shape}
    fit_args: dict[str, Any] = {"scoringStrategy": strategy}
    if profile.fit_ignored_resources:
        fit_args["ignoredResources"] = list(profile.fit_ignored_resources)
    if profile.fit_ignored_resource_groups:
        fit_args["ignoredResourceGroups"] = list(profile.fit_ignored_resource_groups)
    return {
        "NodeResourcesBalancedAllocationArgs": {
            "resources": [{"name": n, "weight": w} for n, w in profile.balanced_args.resources]
        },
        "NodeResourcesFitArgs": fit_args,
        "schedulerName": profile.scheduler_name,
        "scorePlugins": [{"name": n, "weight": w} for n, w in profile.score_plugins],
    }


# --- which node does an upstream error message name? ---------------------------------


def _messages(case: dict[str, Any]) -> list[str]:
    """The real scheduler's errors, one per message (``plugin "X": [a, b]`` split)."""
    result: list[str] = []
    for message in case["errors"]:
        plugin = _PLUGIN.search(message)
        if plugin and message[plugin.end() :].startswith("[") and message.endswith("]"):
            head, body = message[: plugin.end()], message[plugin.end() + 1 : -1]
            parts = re.split(r", (?=scoringStrategy|ignoredResource)", body)
            result.extend(head + part for part in parts)
        else:
            result.append(message)
    return result


def _expected(message: str, document: Document) -> list[Span] | None:
    """Where a finding for ``message`` must be; ``None`` for read-stage syntax errors."""
    if message.startswith("yaml: line"):
        return None
    if "is missing in" in message:
        start = document.position(document.root)
        return [((start.line, start.column), (start.line, start.column))]
    registered = re.match(r'no kind "([^"]+)" is registered', message)
    if registered:
        key = "apiVersion" if registered.group(1) == "KubeSchedulerConfiguration" else "kind"
        return spans(document, [key])
    base = _base(message, document)
    if "panic: runtime error" in message:  # the RequestedToCapacityRatio crash
        return _fit_spans(document, ["scoringStrategy", "type"])
    duplicate = re.search(r'line (\d+): key "([^"]+)" already set', message)
    if duplicate:
        line = int(duplicate.group(1))
        return [((line, 1), (line, 10_000))]
    named = re.search(r'(?:Plugin|plugin) "([^"]+)" (?:does not|already)', message)
    if named:
        return _plugin_spans(document, named.group(1))
    if "could overflow" in message:
        return spans(document, ["profiles", -1, "plugins", "*", "enabled", -1, "weight"])
    body = _PREFIXES.sub("", message)
    field = re.match(r'unknown field "([^"]+)"', body)
    if field:
        return spans(document, [*base, *parse_path(field.group(1))])
    go_field = re.search(r"Go struct field \w+\.(\S+) of type", body)
    if go_field:
        steps = [s for step in parse_path(go_field.group(1)) for s in (step, -1)][:-1]
        return spans(document, [*base, *steps])
    if body.startswith("couldn't get version/kind"):
        return spans(document, base)
    path = body.split(": ", 1)[0]
    path = path.replace("scoringStrategy.shape", "scoringStrategy.requestedToCapacityRatio.shape")
    return spans(document, [*base, *parse_path(path.replace(".Enabled", ".enabled"))])


_PREFIXES = re.compile(
    r"^(initializing profiles: creating profile for scheduler name [^:]*: )?"
    r'(initializing plugin "[^"]+": )?'
    r"((strict decoding error: )?(decoding \.profiles\[\d+\]\.pluginConfig\[\d+\]: )?"
    r"(strict decoding error: )?(decoding args for plugin \w+: )?(strict decoding error: )?)"
)


def _fit_spans(document: Document, path: list[str | int]) -> list[Span]:
    """Spans under the args of every NodeResourcesFit pluginConfig entry."""
    entries = [
        document.item(item) for _, item in nodes(document, ["profiles", -1, "pluginConfig", -1])
    ]
    return [
        found
        for entry in entries
        if [scalar_text(v) for _, v in nodes(entry, ["name"])] == ["NodeResourcesFit"]
        for found in spans(entry, ["args", *path])
    ]


def _base(message: str, document: Document) -> list[str | int]:
    """The args path an instantiate or nested decode error is relative to."""
    args = _ARGS.search(message)
    if args:
        return ["profiles", int(args.group(1)), "pluginConfig", int(args.group(2)), "args"]
    profile = _PROFILE.search(message)
    if not profile:
        return []
    names = [scalar_text(v) for _, v in nodes(document, ["profiles", -1, "schedulerName"])]
    index = names.index(profile.group(1)) if profile.group(1) in names else 0
    plugin = _PLUGIN.search(message)
    if plugin is None:
        return ["profiles", index]
    configs = nodes(document, ["profiles", index, "pluginConfig", -1, "name"])
    position = [scalar_text(v) for _, v in configs].index(plugin.group(1))
    return ["profiles", index, "pluginConfig", position, "args"]


def _plugin_spans(document: Document, name: str) -> list[Span]:
    """The ``name`` entries of every plugin set that name ``name``."""
    found = nodes(document, ["profiles", -1, "plugins", "*", "enabled", -1, "name"])
    return [span(document, k, v) for k, v in found if scalar_text(v) == name]


NOT_OURS = {
    "cfg-0126": "an empty file",
    "cfg-0127": "a comment-only file",
    "cfg-0138": "a KubeProxyConfiguration",
}
"""Cases kube-scheduler rejects that ``validate`` rightly skips as somebody else's file."""


def test_recognition_lets_every_rejected_config_through() -> None:
    """The verdicts again, through recognition as ``validate`` does it: a config
    kube-scheduler rejects must not be skipped as "not ours" (a missing or misspelt kind)."""
    wrong = []
    skipped = set()
    for case in oracle_cases():
        source = read_as_scheduler(
            read_bytes("config.yaml", case["yaml"].encode(), OPTIONS.limits),
            OPTIONS,
        )
        found = list(source.problems)
        recognised = [pair for doc in source.documents for pair in expand(doc, DEFAULT_LIMITS)]
        for document, kind in recognised:
            found += check_config(document, kind, OPTIONS)
        if not recognised and not source.problems:
            skipped.add(case["id"])
        elif bool(errors(found)) == case["accepted"]:
            wrong.append(f"{case['id']} ({case['label']}): accepted={case['accepted']}")
    assert not wrong, "\n".join(wrong)
    assert skipped == set(NOT_OURS)
