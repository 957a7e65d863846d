"""The conf-level rules (``VC``) and the plugin interplay rules ``VB012`` and ``VB015``.

Each function takes what loading produced (the document, the decoded structure and the
model) and yields findings that say what Volcano will do and how to fix it.
"""

from __future__ import annotations

from collections.abc import Iterator

from policytest.core.findings import Finding, Severity
from policytest.core.listing import listed
from policytest.core.records import replace
from policytest.core.rules import Rule
from policytest.core.suggest import closest
from policytest.read.nodes import MappingNode, Node, ScalarNode
from policytest.read.positions import Position
from policytest.read.source import Document
from policytest.scoring.weights import BinpackWeights, NodeOrderWeights
from policytest.volcano import rules, versions
from policytest.volcano.binpack_args import BINPACK
from policytest.volcano.conf import VolcanoConf, drf_conflicts, split_actions
from policytest.volcano.decode import FLAGS, PLUGIN_KEYS, RawConf, TypeProblem, UnknownKey
from policytest.volcano.entry import PluginEntry
from policytest.volcano.nodeorder_args import NODEORDER
from policytest.volcano.versions import Release

EXAMPLE_ACTIONS = '"enqueue, allocate, backfill"'
PLUGIN_ALIASES = {"numaaware": "numa-aware", "tasktopology": "task-topology"}


def line_of(node: Node, document: Document) -> int:
    return document.position(node).line


def at_offset(rule: Rule, document: Document, node: Node, offset: int, message: str) -> Finding:
    """A finding at character ``offset`` inside a one-line scalar (else at its start)."""
    if isinstance(node, ScalarNode) and node.start_mark.line == node.end_mark.line:
        quote = 1 if node.style in ('"', "'") else 0
        start = node.start_mark.index + quote
        raw = document.text[start : start + offset]
        if node.style in (None, '"', "'") and raw == node.value[:offset]:
            where: Position = document.positions.map(
                node.start_mark.line, node.start_mark.column + quote + offset
            )
            return rule.finding(document.path, where.line, where.column, message, document.index)
    return rule.at(document, node, message)


# --- VC001 ---------------------------------------------------------------------------


def type_problem(document: Document, problem: TypeProblem) -> Finding:
    """VC001 for one value yaml.v2 cannot decode into its field."""
    node = problem.node
    where = "the conf" if problem.field == "document" else f"`{problem.field}`"
    fix = ""
    if problem.go_type == "conf.PluginOption" and isinstance(node, ScalarNode):
        where = f"plugin entry `{node.value}`"
        fix = f"; write `- name: {node.value}`"
    elif problem.go_type in ("bool", "*bool") and isinstance(node, ScalarNode):
        lowered = node.value.strip().lower()
        word = {"1": "true", "0": "false", "yes": "true", "no": "false"}.get(lowered, lowered)
        if word in ("true", "false"):
            fix = f"; write `{problem.field}: {word}` (no quotes)"
    elif problem.go_type.startswith("map[string]interface") and not isinstance(node, MappingNode):
        fix = "; write the arguments as `key: value` lines under `arguments:`"
    elif problem.field == "actions":
        fix = f"; write one string such as `actions: {EXAMPLE_ACTIONS}`"
    return rules.VC001_LOAD_FAILURE.at(
        document,
        node,
        f"{where} must be {problem.expected}{fix}. Volcano cannot load this file "
        f"(yaml.v2: {problem.go_message}) and keeps running its previous configuration",
    )


# --- VC002 / VC008 -----------------------------------------------------------------------


def action_findings(document: Document, raw: RawConf, release: Release) -> Iterator[Finding]:
    """VC002 for every action Volcano cannot find, VC008 for allocate and repeats."""
    node = raw.actions_node
    if node is None:
        if any(problem.field in ("actions", "document") for problem in raw.problems):
            return  # present but not a string (or no mapping at all): VC001 says so
        if not release.unknown_action_rejects:
            yield rules.VC002_UNKNOWN_ACTION.at(
                document,
                _first_key(raw.root),
                f"`actions` is missing: Volcano {release.name} reads it as one empty action "
                "name, logs `Failed to find Action , ignore it` and runs no action at all, "
                f"so nothing is scheduled; add e.g. `actions: {EXAMPLE_ACTIONS}`",
                Severity.WARNING,
            )
            return
        yield rules.VC002_UNKNOWN_ACTION.at(
            document,
            _first_key(raw.root),
            "`actions` is missing: Volcano reads it as one empty action name and rejects "
            f"the whole file; add e.g. `actions: {EXAMPLE_ACTIONS}`",
        )
        return
    items = split_actions(raw.actions)
    seen: set[str] = set()
    for item in items:
        if item.name in release.actions:
            if item.name in seen:
                yield at_offset(
                    rules.VC008_ACTIONS_SHAPE,
                    document,
                    node,
                    item.offset + item.written.index(item.name),
                    f"action `{item.name}` is listed twice: it runs twice in every "
                    "scheduling cycle; list it once",
                )
            seen.add(item.name)
            continue
        offset = item.offset + (item.written.index(item.name) if item.name else 0)
        finding = at_offset(
            rules.VC002_UNKNOWN_ACTION,
            document,
            node,
            offset,
            _action_message(item.name, release),
        )
        if not release.unknown_action_rejects:  # v1.12, v1.13: logged, the rest run
            finding = replace(finding, severity=Severity.WARNING)
        yield finding
    runs = not release.unknown_action_rejects or all(i.name in release.actions for i in items)
    if "allocate" not in seen and runs:
        yield rules.VC008_ACTIONS_SHAPE.at(
            document,
            node,
            "no `allocate` action: nothing binds normal pending tasks to nodes, so jobs "
            f"stay pending; add it, e.g. `actions: {EXAMPLE_ACTIONS}`",
        )


def _action_message(name: str, release: Release) -> str:
    rejected = "Volcano rejects the whole file and keeps its previous configuration"
    if not release.unknown_action_rejects:
        rejected = (
            f"Volcano {release.name} logs `Failed to find Action {name}, ignore it` and runs "
            "the other actions without it (Volcano up to 1.11 and from 1.14 rejects the file)"
        )
    if name == "":
        return f"empty action name (a trailing or doubled comma, or an empty `actions`): {rejected}"
    missing = _missing(release, "action", name, release.action_history(name), rejected)
    if missing is not None:
        return missing
    message = f"unknown action `{name}`{_invisible(name)}: {rejected}"
    if any(sep in name for sep in (";", " ", "\uff0c", "\u3001", "\t")):
        return message + "; separate actions with commas"
    for real in sorted(versions.ACTIONS):
        if real == name.lower() and real in release.actions:
            return message + f"; action names are case-sensitive: write `{real}`"
    suggestion = closest(name, sorted(release.actions))
    return message + (f"; did you mean `{suggestion}`?" if suggestion else "")


def _missing(
    release: Release, kind: str, name: str, history: str | None, consequence: str
) -> str | None:
    """The message for a real name that this release does not have, else ``None``."""
    if history is None:
        return None
    return f"{kind} `{name}` does not exist in Volcano {release.name} ({history}): {consequence}"


def _invisible(name: str) -> str:
    """Name the characters a terminal does not show (``strings.TrimSpace`` keeps them)."""
    hidden = sorted({char for char in name if not char.isprintable() or char in "\u200b\ufeff"})
    if not hidden:
        return ""
    codes = ", ".join(f"U+{ord(char):04X}" for char in hidden)
    return f" (it contains {codes}, which Go's strings.TrimSpace does not remove)"


def _first_key(root: Node) -> Node:
    if isinstance(root, MappingNode) and root.value:
        first: Node = root.value[0][0]
        return first
    return root


# --- VC003 ------------------------------------------------------------------------------


def drf_findings(document: Document, conf: VolcanoConf) -> Iterator[Finding]:
    for tier in drf_conflicts(conf):
        drf = next(p for p in tier.plugins if p.name == "drf" and p.flags.get("enableHierarchy"))
        proportion = next(p for p in tier.plugins if p.name == "proportion")
        yield rules.VC003_DRF_PROPORTION.at(
            document,
            drf.flag_nodes.get("enableHierarchy", drf.anchor),
            f"drf has `enableHierarchy: true` and proportion is in the same tier (line "
            f"{line_of(proportion.anchor, document)}): Volcano rejects the whole file "
            '("proportion and drf with hierarchy enabled conflicts"); move one of them to '
            "another tier or drop `enableHierarchy`",
        )


# --- VC004 / VC005 -------------------------------------------------------------------------


def plugin_findings(document: Document, conf: VolcanoConf, release: Release) -> Iterator[Finding]:
    """VC004 for unknown plugin names, VC005 for plugins listed more than once."""
    seen: dict[str, int] = {}
    for entry in conf.plugins:
        if not entry.registered:
            yield rules.VC004_UNKNOWN_PLUGIN.at(
                document, entry.anchor, _plugin_problem(entry.name, release)
            )
            continue
        seen[entry.name] = seen.get(entry.name, 0) + 1
        if seen[entry.name] == 2:
            yield rules.VC005_DUPLICATE_PLUGIN.at(
                document, entry.anchor, _duplicate_message(document, conf, entry.name)
            )


def _plugin_problem(name: str, release: Release) -> str:
    skipped = "Volcano skips it at every scheduling cycle (only an error log)"
    if name == "":
        return f"plugin entry without a `name`: {skipped}; add `name:`"
    missing = _missing(release, "plugin", name, release.plugin_history(name), skipped)
    if missing is not None:
        return missing
    suggestion = PLUGIN_ALIASES.get(name) or closest(name, sorted(release.plugins))
    hint = (
        f"; did you mean `{suggestion}`?"
        if suggestion
        else "; if your scheduler loads it from --plugins-dir, list it under "
        "`volcano.plugins` in the project settings file .policytest.yaml"
    )
    return f"unknown plugin `{name}`: {skipped}{hint}"


def _duplicate_message(document: Document, conf: VolcanoConf, name: str) -> str:
    entries = conf.entries(name)
    lines = listed(line_of(e.anchor, document) for e in entries)
    head = f"plugin `{name}` is listed {len(entries):,} times (lines {lines})"
    calls = conf.calls(name)
    if name in (BINPACK, NODEORDER):
        if not calls:
            return f"{head}: none of its entries makes a node-order call; keep one entry"
        source = line_of(calls[0].source.anchor, document)
        return (
            f"{head}: Volcano adds its node-order score {len(calls)} times per node, each "
            f"time with the weights of the entry at line {source}; the other entries' "
            "arguments do nothing. Keep one entry"
        )
    return (
        f"{head}: its functions run once per entry, each time with the last entry's "
        "arguments; keep one entry"
    )


# --- VC006 / VC007 / VC010 / VC011 --------------------------------------------------------------


def unknown_key(document: Document, unknown: UnknownKey) -> Finding:
    name = unknown.name
    message = f"unknown key `{name}` in the {unknown.where}: Volcano ignores it"
    if name.startswith("disable") and unknown.where == "plugin entry":
        flag = "enable" + name[len("disable") :]
        flag = flag if flag in FLAGS else closest(flag, FLAGS) or flag
        message += (
            f"; there are no `disable` flags: write `{flag}: false` to switch that function off"
        )
    elif unknown.where == "plugin entry" and ("." in name or name == "weight"):
        message += "; plugin arguments go under `arguments:`"
    elif unknown.where == "tier" and name in PLUGIN_KEYS:
        message += (
            "; this belongs to a plugin entry in the tier's `plugins:` list (check the "
            "indentation: `- name:` must sit under `plugins:`)"
        )
    else:
        suggestion = _flag_spelling(name) if unknown.where == "plugin entry" else None
        suggestion = suggestion or closest(name, unknown.choices)
        if suggestion is None and name.rstrip("s") + "s" in unknown.choices:
            suggestion = name.rstrip("s") + "s"
        if suggestion is not None:
            message += f"; did you mean `{suggestion}`?"
    return rules.VC006_UNKNOWN_KEY.at(document, unknown.key, message)


def _flag_spelling(name: str) -> str | None:
    """``enabledNodeOrder`` -> ``enableNodeOrder`` (and the other way round)."""
    for wrong, right in (("enabled", "enable"), ("enable", "enabled")):
        if name.startswith(wrong):
            candidate = right + name[len(wrong) :]
            if candidate in FLAGS:
                return candidate
    lowered = {key.lower(): key for key in PLUGIN_KEYS}
    return lowered.get(name.lower())


def structure_findings(document: Document, raw: RawConf) -> Iterator[Finding]:
    """VC006 unknown keys, VC007 duplicate keys, VC010 ``Null`` flags."""
    for unknown in raw.unknown:
        yield unknown_key(document, unknown)
    for duplicate in raw.duplicates:
        first = line_of(duplicate.first, document)
        if duplicate.merged:
            yield rules.VC007_DUPLICATE_KEY.at(
                document,
                duplicate.key,
                f"second `{duplicate.name}:` in this entry (first at line {first}): yaml.v2 "
                "merges the two maps, the later one winning for keys both set; write one map",
                Severity.WARNING,
            )
        else:
            yield rules.VC007_DUPLICATE_KEY.at(
                document,
                duplicate.key,
                f"`{duplicate.name}` is written twice in this mapping (first at line {first}): "
                "Volcano silently keeps this one and drops the first; keep one",
            )
    for tier in raw.tiers or ():
        for plugin in tier.plugins or ():
            for node in plugin.null_flags:
                yield rules.VC010_NULL_FLAG.at(
                    document,
                    node,
                    f"`{node.value}` sets this flag to false (only `null`, `~` or an empty "
                    "value leave it unset, so that it defaults to true); write `false`, or "
                    "remove the key",
                )


def configuration_findings(
    document: Document, conf: VolcanoConf, release: Release
) -> Iterator[Finding]:
    """VC011: a configuration whose action does not run (or that looks like a typo)."""
    for configuration in conf.configurations:
        name = configuration.name
        node = configuration.name_node or configuration.node
        if name in conf.actions:
            continue
        if name in release.actions:
            message = (
                f"configuration for `{name}`, which is not in `actions`: it is never read; "
                f"add `{name}` to `actions` or remove the configuration"
            )
        else:
            suggestion = closest(name, sorted(release.actions))
            if suggestion is None:
                continue  # plugins may read configurations by other names
            message = (
                f"configuration for `{name}`, which is not an action: no action reads it; "
                f"did you mean `{suggestion}`?"
            )
        yield rules.VC011_IDLE_CONFIGURATION.at(document, node, message)


# --- VB012 ------------------------------------------------------------------------------


def cancellation_findings(document: Document, conf: VolcanoConf) -> Iterator[Finding]:
    """VB012: nodeorder's leastrequested cancels or outweighs binpack's packing.

    For a pod that requests cpu and memory and none of binpack's other resources, both
    scores are linear in the node's cpu and memory utilisation u (after placement):
    binpack adds ``100 * weight * (cpu * u_cpu + memory * u_memory) / (cpu + memory)``,
    nodeorder's leastrequested ``100 * lr * (2 - u_cpu - u_memory) / 2`` and its
    mostrequested ``100 * mr * (u_cpu + u_memory) / 2``. On a node fuller in both, the
    sum rises by ``weight + mr - lr`` per unit of utilisation: with ``weight + mr <= lr``
    fuller nodes are not preferred. Equal weights (and ``binpack.cpu == binpack.memory``)
    cancel exactly, up to leastrequested's integer rounding. Pods that request only one of
    cpu and memory, or a resource binpack weights, are not covered: binpack skips what a
    pod does not request, while leastrequested always averages cpu and memory, so binpack
    still draws them to nodes fuller in what they request.
    """
    weighed = _weighed(conf)
    if weighed is None:
        return
    binpack, nodeorder = weighed
    spreading = sum(weights.leastrequested for weights in nodeorder)
    packing_too = sum(weights.mostrequested for weights in nodeorder)
    packing = sum(weights.weight for weights in binpack)
    if spreading <= 0 or packing <= 0 or packing + packing_too > spreading:
        return
    source, node = _binpack_weight(conf)
    even = all(weights.cpu == weights.memory for weights in binpack)
    if packing + packing_too < spreading:
        effect = "outweighs binpack (emptier nodes score higher)"
    elif even:
        effect = "cancels binpack exactly (up to rounding)"
    else:
        effect = "cancels binpack on nodes as full in cpu as in memory"
    most = f" (less mostrequested.weight {packing_too})" if packing_too else ""
    weights_said = f"nodeorder's leastrequested.weight is {spreading}{most}"
    if not source.arguments:
        head = (
            "binpack is listed without arguments, as in Volcano's default conf: its weight "
            f"is {packing} and {weights_said}, so"
        )
    elif "binpack.weight" in source.argument_nodes:
        head = f"binpack.weight is {packing} and {weights_said}:"
    else:
        head = f"binpack.weight is not written, so it is {packing}, and {weights_said}:"
    message = (
        f"{head} for pods that request only cpu and memory, leastrequested {effect}, so Volcano "
        "does not bin-pack them. Set `binpack.weight: 10` (the upstream docs' value) or "
        "nodeorder's `leastrequested.weight: 0`"
    )
    severity = Severity.INFO if not source.arguments else None
    yield rules.VB012_BINPACK_CANCELLED.at(document, node, message, severity)


# --- VB015 ------------------------------------------------------------------------------

SPREADING_RATIO = 10
"""VB015: binpack's net packing weight below this many times nodeorder's
``podtopologyspread.weight`` lets the default spreading win for small replicas (the
threshold of kube-scheduler's KS047; measured on the bundled Volcano Deployment fixture:
binpack.weight 10 packs replicas taking 6% of a node and spreads those taking 1.5%)."""


def spreading_findings(document: Document, conf: VolcanoConf) -> Iterator[Finding]:
    """VB015: nodeorder's default pod spreading outweighs binpack for Deployment pods.

    nodeorder builds kube-scheduler's PodTopologySpread with ``defaultingType: System``
    (Volcano has no setting for it), so every pod a Service, ReplicaSet,
    ReplicationController or StatefulSet selects is spread by hostname and zone, up to
    ``100 * podtopologyspread.weight`` points. binpack's net pull towards fuller nodes is
    ``binpack.weight + mostrequested.weight - leastrequested.weight`` points per percent
    of a node a replica takes. Where that pull is not positive, VB012 says so instead.
    """
    weighed = _weighed(conf)
    if weighed is None:
        return
    binpack, nodeorder = weighed
    spreading = sum(weights.podtopologyspread for weights in nodeorder)
    packing = sum(weights.weight for weights in binpack)
    net = (
        packing
        + sum(weights.mostrequested for weights in nodeorder)
        - sum(weights.leastrequested for weights in nodeorder)
    )
    if spreading <= 0 or net <= 0 or net >= SPREADING_RATIO * spreading:
        return
    _, node = _binpack_weight(conf)
    needed = packing + SPREADING_RATIO * spreading - net
    yield rules.VB015_SPREADING_BEATS_BINPACK.at(
        document,
        node,
        f"binpack.weight is {packing}, but nodeorder spreads every pod a Service, ReplicaSet, "
        "ReplicationController or StatefulSet selects (kube-scheduler's default constraints, "
        f"podtopologyspread.weight {spreading}): a node holding replicas loses up to "
        f"{100 * spreading} points, while a replica taking 5% of a node gains about "
        f"{5 * net} for packing, so Volcano spreads such pods. Set nodeorder's "
        f"`podtopologyspread.weight: 0` or `binpack.weight: {needed}`",
    )


def _weighed(
    conf: VolcanoConf,
) -> tuple[list[BinpackWeights], list[NodeOrderWeights]] | None:
    """The weights of the binpack and nodeorder calls VB012 and VB015 weigh against each
    other (``None``: no binpack call, or one that scores nothing for a pod of cpu and
    memory: VB010)."""
    binpack = [c.weights for c in conf.calls(BINPACK) if isinstance(c.weights, BinpackWeights)]
    if not binpack or any(weights.cpu + weights.memory <= 0 for weights in binpack):
        return None
    nodeorder = [
        c.weights for c in conf.calls(NODEORDER) if isinstance(c.weights, NodeOrderWeights)
    ]
    return binpack, nodeorder


def _binpack_weight(conf: VolcanoConf) -> tuple[PluginEntry, Node]:
    """The entry of the last binpack call, and its ``binpack.weight`` (else the entry)."""
    source = conf.calls(BINPACK)[-1].source
    node = source.argument_nodes.get("binpack.weight", (None, source.anchor))[1]
    assert node is not None
    return source, node
