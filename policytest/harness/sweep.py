"""Sweeps: a config's weights and strategies varied over a grid, no file per variant.

``--vary KEY=V1,V2,...`` (repeatable: the grid is every combination, the first axis
varying slowest) names a place in the config and the values it takes there, each written
as YAML writes a scalar (``10``, ``"10"``, ``MostAllocated``). KEY is:

- for a Volcano conf, a plugin argument as the conf writes it: ``binpack.weight``,
  ``binpack.cpu``, ``binpack.resources``, ``binpack.resources.nvidia.com/gpu`` (binpack
  reads every ``binpack.*`` key), ``leastrequested.weight``, ``mostrequested.weight`` and
  nodeorder's other ``<score>.weight`` keys (nodeorder reads those), or
  ``PLUGIN:ARGUMENT`` for any plugin (``resource-strategy-fit:resourceStrategyFitWeight``).
  The plugin must be in the conf; its argument is set, or added.
- for a KubeSchedulerConfiguration (its first profile, or ``--profile``):
  ``PLUGIN.weight`` (the plugin's score weight: its ``plugins.score.enabled`` entry, set
  or added) or ``PLUGIN.FIELD.FIELD...`` (a field of its ``pluginConfig`` args, set or
  added: ``NodeResourcesFit.scoringStrategy.type``, ``PodTopologySpread.defaultingType``);
  a list of named entries takes the name as a field (``NodeResourcesFit.scoringStrategy.
  resources.cpu`` is the ``weight`` of the entry named ``cpu``).

A variant is the config edited as its YAML document would be (a ConfigMap's embedded conf
on its own), then read, checked and loaded by the one path every config takes: each
variant has the findings a file of it would have. A variant the scheduler refuses stops the
sweep before anything runs; one it silently corrects (Volcano ignoring a quoted weight)
runs, but is not a candidate for the best.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from policytest.core.errors import PolicytestError
from policytest.core.findings import Finding, Severity
from policytest.core.options import CheckOptions
from policytest.read.recognise import Kind

__all__ = ["Axis", "SweepError", "Variant", "axis", "grid", "variants_of"]

_NODEORDER_KEYS: Final = frozenset(
    {
        "leastrequested.weight",
        "mostrequested.weight",
        "balancedresource.weight",
        "nodeaffinity.weight",
        "podaffinity.weight",
        "tainttoleration.weight",
        "imagelocality.weight",
        "podtopologyspread.weight",
        "selectorspread.weight",
        "volumebinding.weight",
    }
)
MAX_VARIANTS: Final = 1024
"""The most variants one sweep makes (a grid grows as the product of its axes)."""


class SweepError(PolicytestError):
    """A sweep that cannot be made: a key the config has no place for, a grid too big,
    a variant the scheduler refuses (the message names the variant)."""


@dataclass(frozen=True)
class Axis:
    """One ``--vary``: a place in the config and the values it takes there."""

    key: str
    values: tuple[str, ...]


def axis(text: str) -> Axis:
    """``KEY=V1,V2`` (values comma-separated, each as YAML writes a scalar)."""
    key, equals, values = text.partition("=")
    parts = tuple(value.strip() for value in values.split(","))
    if not equals or not key.strip() or not all(parts):
        raise SweepError(f"--vary {text!r}: expected KEY=VALUE[,VALUE...]")
    return Axis(key.strip(), parts)


def grid(axes: Sequence[Axis]) -> list[tuple[tuple[str, str], ...]]:
    """Every combination of the axes' values, the first axis varying slowest."""
    size = math.prod(len(a.values) for a in axes)
    if size > MAX_VARIANTS:
        raise SweepError(f"the grid makes {size:,} variants, more than {MAX_VARIANTS:,}")
    keys = [a.key for a in axes]
    return [
        tuple(zip(keys, values, strict=True))
        for values in itertools.product(*(a.values for a in axes))
    ]


@dataclass(frozen=True)
class Variant:
    """One point of the grid: its values, its config as text, and that config as the
    scheduler loads it (with its shown findings and the corrections it would make)."""

    params: tuple[tuple[str, str], ...]
    text: str
    scheduler: Any
    findings: tuple[Finding, ...]

    @property
    def name(self) -> str:
        """``binpack.weight=10 binpack.cpu=2``."""
        return " ".join(f"{key}={value}" for key, value in self.params)

    @property
    def candidate(self) -> bool:
        """The scheduler runs it as written: it corrects nothing silently, and nothing
        about it is an error (an error the scheduler does not refuse is a value it
        ignores or changes)."""
        return not self.scheduler.corrections and not any(
            finding.severity is Severity.ERROR for finding in self.findings
        )


class _Raw(str):
    """A value written into the variant as it was given (a YAML scalar's text)."""


def variants_of(
    path: str, axes: Sequence[Axis], profile: str | None, options: CheckOptions
) -> list[Variant]:
    """Every variant of the config at ``path``, loaded; :class:`SweepError` for a key
    with no place in the config or a variant the scheduler refuses (named)."""
    from policytest.check.configs import SCHEDULER_KINDS, read_as_scheduler
    from policytest.check.suppress import visible
    from policytest.harness.suite import refusal
    from policytest.read.recognise import expand
    from policytest.read.source import decoded, read_file

    source = read_as_scheduler(read_file(path, options.limits, options.root), options)
    found = [
        (embedded, kind)
        for document in source.documents
        for embedded, kind in expand(document, options.limits)
        if kind in SCHEDULER_KINDS
    ]
    if not found:
        raise SweepError(f"{path}: no Volcano conf or KubeSchedulerConfiguration to vary")
    document, kind = found[0]
    base = decoded(document, options.limits)
    if not isinstance(base, dict):
        raise SweepError(f"{path}: the config is not a mapping")
    made = []
    for params in grid(axes):
        edited = json.loads(json.dumps(base, default=str))  # a deep copy of plain values
        for key, value in params:
            _set(edited, kind, key, _Raw(value), profile)
        text = _yaml(edited) + "\n"
        name = " ".join(f"{key}={value}" for key, value in params)
        shown = f"{path} [{name}]"
        scheduler, findings = _loaded(shown, text, profile, options)
        if scheduler is None:
            errors = [f for f in findings if f.severity is Severity.ERROR]
            described = "; ".join(f"{f.rule} {f.message}" for f in errors)
            raise SweepError(f"variant {name}: {refusal(errors)}: {described}")
        made.append(Variant(params, text, scheduler, tuple(visible(findings, options))))
    return made


def _loaded(
    shown: str, text: str, profile: str | None, options: CheckOptions
) -> tuple[Any, list[Finding]]:
    """The variant read, checked and loaded as a file holding ``text`` would be."""
    from policytest.harness.load import source_scheduler
    from policytest.kube.scheduler import UnknownProfile
    from policytest.read.source import read_bytes

    try:
        return source_scheduler(read_bytes(shown, text.encode(), options.limits), profile, options)
    except UnknownProfile as unknown:
        raise SweepError(str(unknown)) from None


def _set(config: dict[str, Any], kind: Kind, key: str, value: _Raw, profile: str | None) -> None:
    if kind is Kind.VOLCANO:
        _set_volcano(config, key, value)
    else:
        _set_kube(config, key, value, profile)


def _set_volcano(conf: dict[str, Any], key: str, value: _Raw) -> None:
    plugin, colon, argument = key.partition(":")
    if not colon:
        argument = key
        plugin = (
            "binpack"
            if key.startswith("binpack.")
            else "nodeorder"
            if key in _NODEORDER_KEYS
            else ""
        )
        if not plugin:
            raise SweepError(
                f"--vary {key}: not a binpack or nodeorder argument; name the plugin "
                "as PLUGIN:ARGUMENT"
            )
    entries = [
        entry
        for tier in conf.get("tiers") or ()
        if isinstance(tier, dict)
        for entry in tier.get("plugins") or ()
        if isinstance(entry, dict) and entry.get("name") == plugin
    ]
    if not entries:
        raise SweepError(f"--vary {key}: the conf has no `{plugin}` plugin to vary")
    for entry in entries:
        arguments = entry.get("arguments")
        if not isinstance(arguments, dict):
            arguments = entry["arguments"] = {}
        arguments[argument] = value


def _set_kube(config: dict[str, Any], key: str, value: _Raw, profile: str | None) -> None:
    plugin, dot, path = key.partition(".")
    if not dot or not path:
        raise SweepError(f"--vary {key}: expected PLUGIN.weight or PLUGIN.FIELD[.FIELD...]")
    profiles = [p for p in config.get("profiles") or () if isinstance(p, dict)]
    if not profiles:
        profiles = config["profiles"] = [{"schedulerName": "default-scheduler"}]
    chosen = next(
        (
            p
            for p in profiles
            if profile is None or p.get("schedulerName", "default-scheduler") == profile
        ),
        None,
    )
    if chosen is None:
        raise SweepError(f"--vary {key}: the config has no profile `{profile}`")
    if path == "weight":
        plugins = _child(chosen, "plugins")
        score = _child(plugins, "score")
        enabled = score.get("enabled")
        if not isinstance(enabled, list):
            enabled = score["enabled"] = []
        entry = next((e for e in enabled if isinstance(e, dict) and e.get("name") == plugin), None)
        if entry is None:
            enabled.append(entry := {"name": plugin})
        entry["weight"] = value
        return
    configs = chosen.get("pluginConfig")
    if not isinstance(configs, list):
        configs = chosen["pluginConfig"] = []
    entry = next((e for e in configs if isinstance(e, dict) and e.get("name") == plugin), None)
    if entry is None:
        configs.append(entry := {"name": plugin, "args": {}})
    target = _child(entry, "args")
    *fields, last = path.split(".")
    for field_name in fields:
        current = target.get(field_name)
        if current is None and field_name == "resources":  # a list of named resources
            current = target[field_name] = []
        if isinstance(current, list):
            named = next(
                (e for e in current if isinstance(e, dict) and e.get("name") == last), None
            )
            if named is None:
                current.append(named := {"name": last})
            named["weight"] = value
            return
        target = _child(target, field_name)
    target[last] = value


def _child(mapping: dict[str, Any], key: str) -> dict[str, Any]:
    value = mapping.get(key)
    if not isinstance(value, dict):
        value = mapping[key] = {}
    return value


def _yaml(value: object) -> str:
    """``value`` as YAML flow text: JSON for what was read (strings quoted, so read back
    as they were), a varied value as written."""
    if isinstance(value, _Raw):
        return str(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_yaml(str(k))}: {_yaml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_yaml(item) for item in value) + "]"
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if math.isnan(value) else ".inf" if value > 0 else "-.inf"
    return json.dumps(value)


def best(variants: Sequence[Variant], reports: Sequence[Any]) -> Variant | None:
    """The candidate that needs the fewest nodes in use, then leaves the fewest pods
    pending (the first in the grid when they tie); ``reports``: one workload's, in the
    case's own order, labelled with the variants' names."""
    by_label = {report.label: report for report in reports if report.order is None}
    ranked = [
        (by_label[v.name].nodes_in_use, by_label[v.name].pending, index, v)
        for index, v in enumerate(variants)
        if v.candidate and v.name in by_label
    ]
    return min(ranked, key=lambda item: item[:3])[3] if ranked else None
