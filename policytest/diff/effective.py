"""Effective scheduler settings, for the config part of ``policytest diff``.

A reviewer of a config change wants to know what the scheduler will hold, not which
characters moved: ``binpack.cpu: -5`` is held as 1, a quoted ``"10"`` leaves the
default 1, ``binpack.weight: 0`` switches the plugin off, and a kube-scheduler profile
scores with its defaulted strategy, resources and weights. Each setting here is read
from the config models that the validators and scorers use (``VolcanoConf``,
``KubeSchedulerConfig``), never from raw YAML; ``written`` keeps what the file says
where the scheduler reads it differently.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from policytest.check.validate import Around, template_checks
from policytest.core.findings import Finding
from policytest.core.limits import ConfigCounter
from policytest.core.options import CheckOptions
from policytest.harness.load import load_fixture
from policytest.read.recognise import Kind, expand
from policytest.read.source import Document, SourceFile, child, read_file
from policytest.scoring.weights import RSF, BinpackWeights, ResourceStrategyFitArgs
from policytest.volcano.binpack_args import BINPACK
from policytest.volcano.corrections import shown_value, written_weight
from policytest.volcano.nodeorder_args import KEYS, NODEORDER

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policytest.check.bundle import Bundle
    from policytest.kube.model import KubeSchedulerConfig
    from policytest.volcano.conf import VolcanoConf
    from policytest.volcano.entry import PluginEntry

VOLCANO = "Volcano"
KUBE = "kube-scheduler"
UNREADABLE = "unreadable"
TEMPLATE = "template"
"""The kind of a file that is a config's template and not YAML (whose scheduler it
holds is not known until it is rendered)."""
STATUS = "status"
FIT = "NodeResourcesFit"
BALANCED = "NodeResourcesBalancedAllocation"


@dataclass(frozen=True)
class Setting:
    """One effective setting: ``value`` as the scheduler holds it, ``written`` as the
    file says it when that differs (``None`` otherwise)."""

    key: str
    value: str
    written: str | None = None


@dataclass(frozen=True)
class ConfigView:
    """One scheduler config inside a file, as the scheduler holds it after loading.

    ``label`` tells documents of one file apart (``""`` for a file that is one config).
    """

    label: str
    kind: str
    settings: tuple[Setting, ...]
    unchecked: str | None = None
    """The text of a config policytest does not check (a template, another scheduler's
    conf, a config of a release outside the table), whose settings are only its status:
    an edit to it is a change to review, never one "the scheduler reads the same"."""


def config_views(
    path: str, options: CheckOptions, bundles: dict[str, Bundle] | None = None
) -> tuple[ConfigView, ...]:
    """Every scheduler config in the file at ``path``: plain, in ConfigMaps or Lists,
    or inline in a fixture. An unreadable file gives one ``unreadable`` view.
    ``bundles``: what runs the configs of each directory, read once for several files
    (see :class:`~policytest.check.validate.Around`)."""
    source = read_file(path, options.limits, options.root)
    template = _file_template(source)
    if template is not None:
        text = source.text or source.head
        return (ConfigView("", TEMPLATE, (Setting(STATUS, template),), text),)
    if source.problems:
        problem = source.problems[0]
        return (
            ConfigView(
                "",
                UNREADABLE,
                (Setting(STATUS, f"cannot be read: {problem.message} (line {problem.line})"),),
            ),
        )
    views: list[ConfigView] = []
    several = len(source.documents) > 1
    around = Around(source, options.root, options, bundles)
    configs = ConfigCounter(options.limits.max_configs)
    for document in source.documents:
        for embedded, kind in expand(document, options.limits, configs):
            views.extend(_views(embedded, kind, several, around))
    return _distinct_labels(views)


def _views(document: Document, kind: Kind, several: bool, around: Around) -> Iterator[ConfigView]:
    """The views of one recognised document, judged as ``validate`` judges it (the
    release and build its files state, another scheduler's look-alike, a template)."""
    options = around.options
    prefix = f"document {document.index + 1}" if several else ""
    if kind is Kind.VOLCANO or kind is Kind.KUBE_SCHEDULER:
        embedding = document.embedding
        where = embedding.described if embedding else ""
        label = ", ".join(part for part in (prefix, where) if part)
        scheduler = VOLCANO if kind is Kind.VOLCANO else KUBE
        template = _config_template(document)
        other = around.lookalike(document, kind) if template is None else None
        judged = around.judging(document, kind) if template is None and other is None else None
        text = _own_text(document)
        if template is not None:
            yield ConfigView(label, scheduler, (template,), text)
        elif other is not None:  # as validate's PT010 says
            status = f"not checked: {other.scheduler}'s config, not Volcano's ({other.why})"
            yield ConfigView(label, other.scheduler, (Setting(STATUS, status),), text)
        elif isinstance(judged, Finding):  # as validate's PT009 says
            status = f"not checked: {judged.message}"
            yield ConfigView(label, scheduler, (Setting(STATUS, status),), text)
        else:
            yield _view(document, kind, label, judged or options)
    elif kind is Kind.REFUSED and document.unparsed is not None:
        status = f"cannot be read: {document.unparsed.message}"
        yield ConfigView(prefix, UNREADABLE, (Setting(STATUS, status),))
    elif kind is Kind.CONFIGMAP_VALUE and document.unparsed is not None:
        from policytest.check.configmap import scheduler_of

        embedding = document.embedding
        where = embedding.described if embedding else ""
        label = ", ".join(part for part in (prefix, where) if part)
        status = f"rejected: {document.unparsed.message}"
        yield ConfigView(label, scheduler_of(document), (Setting(STATUS, status),))
    elif kind is Kind.FIXTURE:
        inline = _inline_config(document, options)
        if inline is not None:
            config, config_kind, name = inline
            label = ", ".join(part for part in (prefix, f"fixture {name}, inline config") if part)
            yield _view(config, config_kind, label, options)


def _own_text(document: Document) -> str:
    """The config's own text: its ConfigMap value, or its document's span of the file."""
    if document.embedding is not None or document.unparsed is not None:
        return document.text
    return document.text[document.root.start_mark.index : document.root.end_mark.index]


def _file_template(source: SourceFile) -> str | None:
    """The status of a file that is a scheduler config's template and not YAML (a
    chart's ``{{- if }}`` lines), as ``validate``'s PT005 says it: not checked."""
    if not source.problems or source.refused or source.spent:
        return None
    text = source.text or source.head
    templates = template_checks(source.path, text)
    if templates is None or not templates.OURS_IN_A_TEMPLATE.search(source.head):
        return None  # no template, or somebody else's (a chart's Deployment)
    found = templates.template_of(source.path, text)
    return None if found is None else str(templates.not_checked(found))


def _config_template(document: Document) -> Setting | None:
    """The status of a config whose own text is templated (a chart's ConfigMap that
    parses as YAML), as ``validate``'s PT005 says it; ``None`` for a literal config."""
    templates = template_checks(document.path, document.text)
    if templates is None:
        return None
    found = templates.config_template_of(document)
    return None if found is None else Setting(STATUS, templates.not_checked(found))


def _inline_config(document: Document, options: CheckOptions) -> tuple[Document, Kind, str] | None:
    fixture, _ = load_fixture(document, options)
    if fixture is None or fixture.scheduler.config_node is None:
        return None
    node = fixture.scheduler.config_node
    kind = Kind.VOLCANO if child(fixture.scheduler.node, "volcano") is node else Kind.KUBE_SCHEDULER
    return document.item(node), kind, fixture.name


def _view(document: Document, kind: Kind, label: str, options: CheckOptions) -> ConfigView:
    if kind is Kind.VOLCANO:
        from policytest.volcano.check import load as load_volcano

        conf, findings = load_volcano(document, options)
        fatal = [f for f in findings if f.rule in ("VR001", "VD001")]
        if conf is None and fatal:
            where = ", ".join(f"line {f.line}" for f in fatal)
            status = (
                "loads, but a plugin's arguments make the scheduler exit at its first "
                f"scheduling cycle (crash-loop; {where})"
            )
            return ConfigView(label, VOLCANO, (Setting(STATUS, status),))
        return ConfigView(label, VOLCANO, volcano_settings(conf))
    from policytest.kube.check import load as load_kube

    config, _ = load_kube(document, options)
    return ConfigView(label, KUBE, kube_settings(config))


def _distinct_labels(views: Sequence[ConfigView]) -> tuple[ConfigView, ...]:
    """Number repeated labels (two configs in one ConfigMap value list, say)."""
    seen: dict[str, int] = {}
    distinct = []
    for view in views:
        seen[view.label] = seen.get(view.label, 0) + 1
        if seen[view.label] > 1:
            view = ConfigView(f"{view.label} #{seen[view.label]}".strip(), view.kind, view.settings)
        distinct.append(view)
    return tuple(distinct)


# --- Volcano ---------------------------------------------------------------------------


def volcano_settings(conf: VolcanoConf | None) -> tuple[Setting, ...]:
    """What Volcano runs with: actions, plugins per tier, binpack and nodeorder weights."""
    if conf is None:
        return (
            Setting(
                STATUS,
                "rejected: Volcano cannot load this file and keeps its previous configuration",
            ),
        )
    settings = [Setting(STATUS, "loads"), Setting("actions", ", ".join(conf.actions))]
    for number, tier in enumerate(conf.tiers, start=1):
        names = [
            entry.name if entry.registered else f"{entry.name} (unknown to Volcano: skipped)"
            for entry in tier.plugins
        ]
        settings.append(Setting(f"tier {number} plugins", ", ".join(names) or "(none)"))
    settings.extend(_binpack_settings(conf))
    settings.extend(_nodeorder_settings(conf))
    if conf.entries(RSF):
        settings.extend(_rsf_settings(conf))
    return tuple(settings)


def _rsf_settings(conf: VolcanoConf) -> Iterator[Setting]:
    """resource-strategy-fit as ``New`` leaves it (only for confs that list it)."""
    calls = conf.calls(RSF)
    registered = [e for e in conf.entries(RSF) if e.registered]
    fatal = next(
        (
            e.weights.fatal
            for e in registered
            if isinstance(e.weights, ResourceStrategyFitArgs) and e.weights.fatal
        ),
        None,
    )
    if fatal is not None:
        yield Setting(RSF, f"stops the scheduler: {fatal}")
        return
    if not calls:
        reason = (
            f"not a plugin of Volcano {conf.release}"
            if not registered
            else "no score registered (weights 0) or enableNodeOrder is false"
        )
        yield Setting(RSF, f"off: {reason}")
    else:
        yield Setting(RSF, _on(len(calls)))
    source = calls[0].source if calls else registered[0] if registered else None
    if source is None or not isinstance(source.weights, ResourceStrategyFitArgs):
        return
    args = source.weights
    yield _weight(source, "resourceStrategyFitWeight", args.weight)
    for name, strategy in args.resources.items():
        yield Setting(f"resources.{name}", f"{strategy.type}, weight {strategy.weight}")
    sra = args.sra
    yield Setting(
        "sra",
        f"weight {sra.weight}: " + ", ".join(f"{k} {v}" for k, v in sra.resources.items())
        if sra.weight > 0
        else "off",
    )
    if args.proportional is not None:
        yield Setting(
            "proportional",
            ", ".join(
                f"{k} (cpu {v.cpu:g}, memory {v.memory:g})" for k, v in args.proportional.items()
            )
            or "(no resources)",
        )


def _binpack_settings(conf: VolcanoConf) -> Iterator[Setting]:
    """binpack on or off, and its weights as held: also when it is off by its own
    weight, so that ``binpack.weight 0 -> 10`` shows what changed."""
    calls = conf.calls(BINPACK)
    if calls and conf.binpack is not None:
        yield Setting(BINPACK, _on(len(calls)))
        source, weights = calls[0].source, conf.binpack
    else:
        yield Setting(BINPACK, f"off: {_binpack_off_reason(conf)}")
        held = [
            entry
            for entry in conf.entries(BINPACK)
            if entry.registered and isinstance(entry.weights, BinpackWeights)
        ]
        if not held or not isinstance(held[-1].weights, BinpackWeights):
            return
        source, weights = held[-1], held[-1].weights
    arguments = source.arguments or {}
    yield _weight(source, "binpack.weight", weights.weight)
    yield _weight(source, "binpack.cpu", weights.cpu)
    yield _weight(source, "binpack.memory", weights.memory)
    extra = [name for name in weights.resources if name not in ("cpu", "memory")]
    listed = arguments.get("binpack.resources")
    yield Setting(
        "binpack.resources",
        ", ".join(extra) or "(none)",
        None if listed is None or isinstance(listed, str) else shown_value(listed),
    )
    for name in extra:
        yield _weight(source, f"binpack.resources.{name}", weights.resources[name])


def _binpack_off_reason(conf: VolcanoConf) -> str:
    entries = conf.entries(BINPACK)
    registered = [entry for entry in entries if entry.registered]
    if not entries:
        return "not in any tier"
    if not registered:
        return f"not a plugin of Volcano {conf.release}"
    if all(
        isinstance(entry.weights, BinpackWeights) and entry.weights.weight == 0
        for entry in registered
    ):
        return "binpack.weight is 0, so Volcano does not register its score"
    return "enableNodeOrder is false on every binpack entry"


def _nodeorder_settings(conf: VolcanoConf) -> Iterator[Setting]:
    calls = conf.calls(NODEORDER)
    weights = conf.nodeorder
    if not calls or weights is None:
        entries = conf.entries(NODEORDER)
        reason = (
            "not in any tier"
            if not entries
            else f"not a plugin of Volcano {conf.release}"
            if not any(entry.registered for entry in entries)
            else "enableNodeOrder is false on every nodeorder entry"
        )
        yield Setting(NODEORDER, f"off: {reason}")
        return
    yield Setting(NODEORDER, _on(len(calls)))
    for key, name in KEYS.items():
        setting = _weight(calls[0].source, key, getattr(weights, name))
        yield Setting(f"nodeorder.{key}", setting.value, setting.written)


def _on(calls: int) -> str:
    return "on" if calls == 1 else f"on, scored {calls} times per node (listed {calls} times)"


def _weight(entry: PluginEntry, key: str, effective: int) -> Setting:
    """A weight as held, with what the file wrote when that reads differently."""
    return Setting(key, str(effective), written_weight(entry, key, effective))


# --- kube-scheduler --------------------------------------------------------------------


def kube_settings(config: KubeSchedulerConfig | None) -> tuple[Setting, ...]:
    """What kube-scheduler runs with, per profile: score plugins and their weights,
    NodeResourcesFit's strategy, resources and shape, BalancedAllocation's resources."""
    if config is None:
        return (
            Setting(STATUS, "refuses to start: kube-scheduler exits at start-up with this file"),
        )
    settings = [
        Setting(STATUS, "starts"),
        Setting("profiles", ", ".join(config.scheduler_names) or "(none)"),
        Setting(
            "percentageOfNodesToScore",
            str(config.percentage_of_nodes_to_score)
            + (" (adaptive)" if config.percentage_of_nodes_to_score == 0 else ""),
        ),
    ]
    for profile in config.profiles:
        prefix = f"profile {profile.scheduler_name}: "
        raised = profile.raised_weights
        for name, weight in profile.score_plugins:
            written = "0" if name in raised else None
            settings.append(Setting(f"{prefix}{name} weight", str(weight), written))
        fit = profile.fit_args
        if fit is not None and profile.scores(FIT):
            settings.append(Setting(f"{prefix}{FIT} scoringStrategy.type", fit.strategy))
            settings.append(
                Setting(
                    f"{prefix}{FIT} scoringStrategy.resources",
                    _resources(fit.resources),
                    _written_resources(FIT, fit.resources, raised),
                )
            )
            if fit.shape:
                shape = ", ".join(f"{utilization}% -> {score}" for utilization, score in fit.shape)
                settings.append(
                    Setting(f"{prefix}{FIT} scoringStrategy.requestedToCapacityRatio.shape", shape)
                )
        else:
            settings.append(Setting(f"{prefix}{FIT}", "does not score"))
        if profile.scores(BALANCED):
            names = ", ".join(name for name, _ in profile.balanced_args.resources)
            settings.append(Setting(f"{prefix}{BALANCED} resources", names))
    return tuple(settings)


def _resources(resources: Sequence[tuple[str, int]]) -> str:
    return ", ".join(f"{name} {weight}" for name, weight in resources) or "(none)"


def _written_resources(
    plugin: str, resources: Sequence[tuple[str, int]], raised: Sequence[str]
) -> str | None:
    """The resource list as written, when a weight 0 in it is held as 1."""
    zero = {name for name, _ in resources if f"{plugin}/{name}" in raised}
    if not zero:
        return None
    return _resources([(name, 0 if name in zero else weight) for name, weight in resources])


__all__ = [
    "KUBE",
    "UNREADABLE",
    "VOLCANO",
    "ConfigView",
    "Setting",
    "config_views",
    "kube_settings",
    "volcano_settings",
]
