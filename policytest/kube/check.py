"""Entry points: check a KubeSchedulerConfiguration or a legacy Policy, or load the model.

``check`` gives the findings the CLI prints; ``load`` also returns the model the runner
scores with (``None`` exactly when kube-scheduler would refuse to start);
``check_policy`` reports the legacy Policy API with its v1 equivalent.
"""

from __future__ import annotations

from policytest.core.findings import Finding, Severity
from policytest.core.limits import Limits
from policytest.core.options import CheckOptions, kube_release
from policytest.core.records import replace
from policytest.core.releases import KubeRelease, Version, show
from policytest.core.suggest import did_you_mean
from policytest.kube import rules
from policytest.kube.builds import DISTRIBUTIONS, SCHEDULER_PLUGINS, options_registry
from policytest.kube.decode import at_path, decode_document
from policytest.kube.framework import Problem
from policytest.kube.model import KubeSchedulerConfig
from policytest.kube.registry import (
    API_GROUP,
    API_VERSIONS,
    CURRENT_API_VERSION,
    KIND,
    POLICY_REMOVED,
    RETIRED_PLUGINS,
    served_api_version,
)
from policytest.kube.release_facts import field_findings
from policytest.kube.semantics import Analysis, analyse, profile_costs
from policytest.read.goyaml import DecodeError, decode, scalar_value
from policytest.read.nodes import MappingNode, ScalarNode
from policytest.read.source import PT001_UNREADABLE, Document, ParseFailure, child

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["check", "check_policy", "load", "load_failure", "load_policy"]


def load_failure(problem: Finding) -> Finding:
    """A KubeSchedulerConfiguration file that is not YAML (``problem`` is the reader's
    finding): kube-scheduler cannot decode its ``--config`` and refuses to start."""
    return replace(
        problem,
        rule=rules.KS006_NOT_A_CONFIG.id,
        severity=Severity.ERROR,
        message=f"{problem.message}; kube-scheduler cannot read its --config and refuses to start",
    )


def check(document: Document, options: CheckOptions) -> list[Finding]:
    """Every finding for a ``KubeSchedulerConfiguration`` document (any apiVersion)."""
    return load(document, options)[1]


def load(
    document: Document, options: CheckOptions
) -> tuple[KubeSchedulerConfig | None, list[Finding]]:
    """The model kube-scheduler would run with (``None`` if it would not start) and the
    findings."""
    findings, proceed = _header(document, options)
    api_version = _string(document, "apiVersion") or CURRENT_API_VERSION
    if not proceed:
        return None, _sorted(findings)
    decoded = decode_document(document, options)
    findings.extend(decoded.findings)
    release = kube_release(options)
    findings.extend(field_findings(document, decoded.value, release))
    config = None
    too_many = _too_many_profiles(document, decoded.value, release, options.limits)
    if too_many is not None:
        findings.append(too_many)
    elif decoded.usable:
        analysis = analyse(decoded.value, api_version, options_registry(options), release)
        analysis = _as_known_build(decoded.value, api_version, analysis, options) or analysis
        config = analysis.config
        findings.extend(
            p.rule.at(document, at_path(document, p.path, key=p.key), p.message, p.severity)
            for p in analysis.problems
        )
    if any(finding.severity is Severity.ERROR for finding in findings):
        config = None
    return config, _sorted(findings)


_NAMED = (rules.KS020_UNKNOWN_PLUGIN, rules.KS041_UNKNOWN_PLUGIN_CONFIG)
_AT_POINTS = (rules.KS021_WRONG_EXTENSION_POINT, rules.KS024_QUEUE_SORT_BIND)
"""What the extension points of a build's plugins decide."""


def _as_known_build(
    config: dict[str, Any], api_version: str, analysis: Analysis, options: CheckOptions
) -> Analysis | None:
    """``analysis`` with the extension points checked as a scheduler-plugins build,
    when every plugin the config names that upstream lacks is one of that build's and
    the settings declare no build.

    Such a config is written for that build, and a plugin of it at the wrong extension
    point (``TopologicalSort``, a queue sort only, under ``preFilter``) is refused by
    every scheduler-plugins build: judged upstream it is only "does not exist". Its
    plugins stay KS020 (upstream kube-scheduler refuses them), each saying whose it is
    and how to declare the build; a misplaced one is KS021 instead, saying it was judged
    as that build.
    """
    if options.kube_distribution is not None or options.kube_plugins:
        return None
    unknown = [
        problem
        for problem in analysis.problems
        if problem.rule in _NAMED
        and problem.path[-1:] == ("name",)
        and _value_at(config, problem.path) not in RETIRED_PLUGINS  # in-tree, if no more
    ]
    origin, build = DISTRIBUTIONS[SCHEDULER_PLUGINS]
    if not unknown or not {_value_at(config, p.path) for p in unknown} <= set(build):
        return None
    known = options_registry(replace(options, kube_distribution=SCHEDULER_PLUGINS))
    again = analyse(config, api_version, known, kube_release(options))
    judged = f"checked as {origin}, the build of every plugin this config names that upstream lacks"
    found = [p for p in again.problems if p.rule in _AT_POINTS]
    placed = {p.path for p in found}
    problems = [
        _whose(problem, origin) if problem in unknown else problem
        for problem in analysis.problems
        if problem.path not in placed
    ]
    problems += [replace(p, message=f"{p.message} ({judged})") for p in found]
    return replace(analysis, problems=tuple(problems))


def _whose(problem: Problem, origin: str) -> Problem:
    """An unknown-plugin problem that names the build it is of."""
    head, _, _ = problem.message.partition("; if your scheduler is a custom build")
    return replace(
        problem,
        message=(
            f"{head}; it is a plugin of {origin}, as is every plugin this config names that "
            "upstream lacks, so its extension points are checked as that build's: if your "
            "scheduler is a custom build with them, declare `kubeScheduler.distribution: "
            "scheduler-plugins` in the project settings file .policytest.yaml"
        ),
    )


def _value_at(config: Any, path: tuple[object, ...]) -> object:
    """The decoded value at ``path`` (``None`` where it leads nowhere)."""
    for step in path:
        if isinstance(config, dict) and isinstance(step, str):
            config = config.get(step)
        elif isinstance(config, list) and isinstance(step, int) and 0 <= step < len(config):
            config = config[step]
        else:
            return None
    return config


def _too_many_profiles(
    document: Document, config: Any, release: KubeRelease, limits: Limits
) -> Finding | None:
    """A PT001 finding at the first profile past ``profile-plugins`` (or past what the
    invocation has left of ``total-profile-plugins``), before any profile is built;
    ``None`` (and the work charged) when the config is within both."""
    if not isinstance(config, dict):
        return None
    left = limits.left("profile-plugins")
    cost = 0
    for index, profile_cost in profile_costs(config, release):
        cost += profile_cost
        if cost > limits.max_profile_plugins:
            message = (
                f"the profiles up to this one are built with more than "
                f"{limits.max_profile_plugins:,} plugins (plugins times extension points); "
                "not checked (raise the limit with --limit profile-plugins=N)"
            )
        elif left is not None and cost > left:
            message = limits.refuse("profile-plugins", "profile plugins", "not checked")
        else:
            continue
        return PT001_UNREADABLE.at(document, at_path(document, ("profiles", index)), message)
    limits.charge("profile-plugins", cost)
    return None


def load_policy(document: Document, options: CheckOptions) -> tuple[None, list[Finding]]:
    """The legacy Policy API never runs (there is nothing to score): only findings."""
    return None, check_policy(document, options)


def check_policy(document: Document, options: CheckOptions) -> list[Finding]:
    """The legacy ``Policy`` API: removed in 1.23; shows the equivalent v1 config."""
    try:
        policy: Any = decode(document.root, document.text, limits=options.limits)
    except DecodeError:
        policy = {}
    target = _target(options)
    from policytest.kube.policy import translate  # only a legacy Policy needs it

    translation = translate(policy, served_api_version(target))
    removed = target >= POLICY_REMOVED
    status = (
        f"was removed in Kubernetes {show(POLICY_REMOVED)}: kube-scheduler "
        f"{show(target)} cannot read it (there is no --policy-config-file any more)"
        if removed
        else f"is deprecated and is removed in Kubernetes {show(POLICY_REMOVED)}"
    )
    notes = "".join(f"; note: {note}" for note in translation.notes)
    message = (  # one line, as every finding: the equivalent config in JSON (valid YAML)
        f"the legacy scheduler Policy API (predicates/priorities) {status}; the equivalent "
        f"KubeSchedulerConfiguration (pass it with --config) is {translation.flow}{notes}"
    )
    where = child(document.root, "kind") or document.root
    severity = None if removed else Severity.WARNING
    return [rules.KS002_LEGACY_POLICY.at(document, where, message, severity)]


def _header(document: Document, options: CheckOptions) -> tuple[list[Finding], bool]:
    """``kind`` and ``apiVersion``, as the codec reads them before anything else."""
    root = document.root
    if document.unparsed is not None:
        return [_unparsed(document, document.unparsed)], False
    if not isinstance(root, MappingNode):
        return [], True  # decode_document reports it
    kind = _string(document, "kind")
    kind_node = child(document.root, "kind")
    if not kind:
        message = (
            "`kind` is missing: kube-scheduler fails with \"Object 'Kind' is missing\"; add "
            f"`kind: {KIND}`"
        )
        return [rules.KS006_NOT_A_CONFIG.at(document, kind_node or root, message)], False
    if kind != KIND:
        message = (
            f'kind "{kind}" is not {KIND}: kube-scheduler fails with `no kind "{kind}" is '
            f"registered`{did_you_mean(kind, [KIND])}"
        )
        return [rules.KS006_NOT_A_CONFIG.at(document, kind_node or root, message)], False
    api_version = _string(document, "apiVersion")
    if api_version is None:
        if child(document.root, "apiVersion") is not None:
            return [], True  # not a string: the schema reports the type
        message = (
            "`apiVersion` is missing: kube-scheduler fails with \"Object 'apiVersion' is "
            f'missing"; add `apiVersion: {CURRENT_API_VERSION}`'
        )
        return [rules.KS006_NOT_A_CONFIG.at(document, root, message)], True
    finding = _api_version(document, api_version, _target(options))
    return ([finding] if finding else []), True


def _unparsed(document: Document, failure: ParseFailure) -> Finding:
    """A ConfigMap value that mentions the scheduler's API but is not YAML."""
    where = document.positions.map(failure.line, failure.column)
    return rules.KS006_NOT_A_CONFIG.finding(
        document.path,
        where.line,
        where.column,
        f"{failure.message}: kube-scheduler cannot parse this configuration and refuses to "
        "start; fix the YAML here",
        document.index,
    )


def _api_version(document: Document, api_version: str, target: Version) -> Finding | None:
    node = child(document.root, "apiVersion") or document.root
    group, _, version = api_version.partition("/")
    fix = f"change it to `apiVersion: {CURRENT_API_VERSION}`"
    here = f"kube-scheduler {show(target)}"
    known = API_VERSIONS.get(version) if group == API_GROUP else None
    if known is None:
        what = (
            f"{api_version} is not a version of {API_GROUP}"
            if group == API_GROUP
            else f"{api_version} is not the kube-scheduler configuration group ({API_GROUP})"
        )
        return rules.KS001_API_VERSION.at(
            document,
            node,
            f'apiVersion {what}: {here} fails with `no kind "{KIND}" is '
            f'registered for version "{api_version}"`; {fix}',
        )
    introduced, removed = known
    if target < introduced:
        return rules.KS001_API_VERSION.at(
            document,
            node,
            f"{api_version} is served from Kubernetes "
            f"{show(introduced)}; {here} (--kubernetes-version) does not know it yet",
        )
    if removed is None:
        return None
    if target >= removed:
        return rules.KS001_API_VERSION.at(
            document,
            node,
            f"{api_version} was removed in Kubernetes {show(removed)}: "
            f'{here} fails with `no kind "{KIND}" is registered for version` and refuses to '
            f"start; {fix} (NodeResourcesFit args and plugin weights keep the same fields)",
        )
    return rules.KS001_API_VERSION.at(
        document,
        node,
        f"{api_version} is deprecated and removed in Kubernetes "
        f"{show(removed)}; {here} still reads it, but {fix} before upgrading",
        Severity.WARNING,
    )


def _target(options: CheckOptions) -> Version:
    """The release judged (``UnsupportedRelease`` for one outside the table)."""
    return kube_release(options).version


def _string(document: Document, key: str) -> str | None:
    """A top-level scalar as yaml.v2 types it, if it is a string."""
    node = child(document.root, key)
    if not isinstance(node, ScalarNode):
        return None
    try:
        value = scalar_value(node, document.text)
    except DecodeError:
        return None
    return value if isinstance(value, str) else None


def _sorted(findings: list[Finding]) -> list[Finding]:
    return sorted(set(findings))
