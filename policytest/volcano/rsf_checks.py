"""The ``VR`` findings: what resource-strategy-fit does with the arguments as written.

Each key is decoded as ``framework.Get`` decodes it (:mod:`policytest.volcano.mapdecode`);
a refusal is the fatal that stops the scheduler (VR001), every silent correction of
``New`` is a warning at the value it concerns.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from policytest.core.findings import Finding, Severity
from policytest.core.rules import Rule
from policytest.core.suggest import did_you_mean
from policytest.read.nodes import Node
from policytest.scoring.weights import LEAST, TYPES, ResourceStrategyFitArgs
from policytest.volcano import plugin_rules as rules
from policytest.volcano.binpack_args import resource_name_problem
from policytest.volcano.entry_check import EntryCheck
from policytest.volcano.gotext import split_trimmed
from policytest.volcano.mapdecode import INT, Decoded, children, decode, describe, field_key
from policytest.volcano.rsf_args import (
    KEYS,
    RESOURCES_KEY,
    SRA_KEY,
    WEIGHT_KEY,
    decode_key,
    rsf_args,
    valid_pattern,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from policytest.read.source import Document
    from policytest.volcano.entry import PluginEntry

SPECIAL = ("cpu", "memory", "pods", "ephemeral-storage")


def rsf_findings(document: Document, entry: PluginEntry) -> list[Finding]:
    """Every VR finding about one resource-strategy-fit entry."""
    return sorted(set(_Check(document, entry).findings()))


def decoded_int(value: Any) -> int:
    """What mapstructure makes of an accepted int field's value."""
    number: int = decode(value, INT, "", None, "").value
    return number


def field_of(
    value: Mapping[Any, Any], node: Node | None, name: str, text: str
) -> tuple[Any, Node | None, Node | None] | None:
    """The key mapstructure takes for struct field ``name`` (exact, else ignoring case),
    with its key and value nodes."""
    key = field_key(value, name)
    if key is None:
        return None
    key_node, value_node = children(node, text).get(key, (node, node))
    return key, key_node, value_node


class _Check(EntryCheck["PluginEntry"]):
    def __init__(self, document: Document, entry: PluginEntry) -> None:
        super().__init__(document, entry)
        self.text = document.text
        args = entry.weights
        self.args = args if isinstance(args, ResourceStrategyFitArgs) else rsf_args(None)

    def at(self, node: Node | None) -> Node:
        return node if node is not None else self.entry.anchor

    def findings(self) -> Iterator[Finding]:
        for key in self.ordered():
            key_node, value_node = self.key_node(key), self.value_node(key)
            if key not in KEYS:
                yield self.unknown_top(key, key_node)
                continue
            decoded = decode_key(self.arguments, key, self.text, value_node)
            yield from self.decoding(key, decoded)
            if decoded.refusals:
                continue
            value = self.arguments[key]
            if key == WEIGHT_KEY:
                yield from self.weight(
                    value, decoded.value, key_node if value is None else value_node
                )
            elif key == RESOURCES_KEY:
                yield from self.resources(value, key_node, value_node)
            elif key == SRA_KEY:
                yield from self.sra(value, decoded.value, key_node, value_node)
            else:
                yield from self.proportional(value, decoded.value, key_node, value_node)
        yield from self.defaults()
        yield from self.flags()

    def defaults(self) -> Iterator[Finding]:
        """VR009 (advice): no ``resources`` at all scores cpu and memory LeastAllocated."""
        if RESOURCES_KEY in self.arguments or self.args.fatal is not None:
            return
        if self.args.weight <= 0:
            return
        yield rules.VR009_RSF_RESOURCES_DEFAULTED.at(
            self.document,
            self.entry.anchor,
            "resource-strategy-fit without `resources` scores cpu and memory LeastAllocated "
            f"with weight 1: it spreads pods, by up to {100 * self.args.weight} points per "
            "node; list the resources to score (e.g. `nvidia.com/gpu: {type: MostAllocated, "
            f"weight: 1}}`), or set `{WEIGHT_KEY}: 0` to keep only sra",
            Severity.INFO,
        )

    # --- decoding ------------------------------------------------------------------------

    def unknown_top(self, key: str, node: Node) -> Finding:
        message = f"`{key}` is not a resource-strategy-fit argument; Volcano ignores it"
        exact = next((k for k in KEYS if k.lower() == key.lower()), None)
        if exact is not None:
            message += f" (top-level keys are case-sensitive): write `{exact}`"
        elif key in ("weight", "resource-strategy-fit.weight"):
            message += f"; the plugin weight is `{WEIGHT_KEY}`"
        else:
            message += did_you_mean(key, KEYS) or f" (it reads {', '.join(KEYS)})"
        return rules.VR008_RSF_UNKNOWN_KEY.at(self.document, node, message)

    def decoding(self, key: str, decoded: Decoded) -> Iterator[Finding]:
        for refusal in decoded.refusals:
            yield rules.VR001_RSF_FATAL.at(
                self.document,
                self.at(refusal.node),
                f"`{refusal.path}` must be {refusal.expected}, but it is {refusal.got}: "
                f"framework.Get cannot decode `{key}` and calls klog.Fatalf, so the "
                "scheduler exits at its first scheduling cycle and crash-loops; "
                f"write {refusal.expected}",
            )
        for coercion in decoded.coercions:
            yield rules.VR002_RSF_NUMBER.at(
                self.document,
                self.at(coercion.node),
                f"`{coercion.path}: {coercion.written}` is {coercion.why}: Volcano reads "
                f"{coercion.result}; write the integer you mean",
            )
        for ignored in decoded.ignored:
            if ignored.shadowed_by is not None:
                message = (
                    f"`{ignored.path}` is ignored: `{ignored.shadowed_by}` sets the same "
                    "field (names are matched ignoring case); keep one"
                )
                if ignored.random:
                    message = (
                        f"`{ignored.path}` and `{ignored.shadowed_by}` set the same field "
                        "(names are matched ignoring case) and neither is spelt like it: "
                        "which one Volcano reads changes at random (Go map order); keep one"
                    )
            else:
                fields = ", ".join(f[0].lower() + f[1:] for f in ignored.fields)
                message = (
                    f"`{ignored.path}` is not a field Volcano reads here; it is ignored "
                    f"(the fields are {fields})"
                    + did_you_mean(ignored.name, [f[0].lower() + f[1:] for f in ignored.fields])
                )
            yield rules.VR008_RSF_UNKNOWN_KEY.at(self.document, self.at(ignored.node), message)

    # --- resourceStrategyFitWeight -------------------------------------------------------------

    def weight(self, raw: Any, value: int, node: Node) -> Iterator[Finding]:
        if raw is None:
            yield rules.VR004_RSF_WEIGHT_OFF.at(
                self.document,
                self.at(node),
                f"`{WEIGHT_KEY}` has no value: null decodes to 0 (not the default 10), so "
                f"the strategy score is left out{self._unregistered()}; write "
                f"`{WEIGHT_KEY}: 10` or remove the key",
            )
        elif value == 0:
            yield rules.VR004_RSF_WEIGHT_OFF.at(
                self.document,
                self.at(node),
                f"`{WEIGHT_KEY}: 0` leaves the strategy score out{self._unregistered()}; "
                "use a positive weight (default 10) to score the resources",
            )
        elif value < 0:
            yield rules.VR003_RSF_WEIGHT_DEFAULTED.at(
                self.document,
                self.at(node),
                f"`{WEIGHT_KEY}` is negative ({value}): Volcano silently uses 10 instead; "
                "use 0 to leave the strategy score out, or a positive weight",
            )

    def _unregistered(self) -> str:
        if self.args.sra.weight > 0:
            return " (only the sra score is added)"
        return (
            " and, with sra off, the plugin scores nothing (its node-order function is "
            "not registered)"
        )

    # --- resources -------------------------------------------------------------------------

    def resources(self, raw: Any, key_node: Node, node: Node) -> Iterator[Finding]:
        if not raw:
            shown = "null" if raw is None else "empty"
            yield rules.VR009_RSF_RESOURCES_DEFAULTED.at(
                self.document,
                self.at(node),
                f"`{RESOURCES_KEY}` is {shown}: Volcano uses its default, cpu and memory "
                "LeastAllocated with weight 1, which spreads pods; list the resources to "
                "score (e.g. `nvidia.com/gpu: {type: MostAllocated, weight: 1}`)",
            )
            return
        entries = children(node, self.text)
        valid: list[str] = []
        for name, item in raw.items():
            key_node_of, value_node = entries.get(name, (node, node))
            label = "" if name is None else str(name)
            if not valid_pattern(label):
                yield self.pattern(label, key_node_of)
                continue
            valid.append(label)
            yield from self.entry_of(label, item, key_node_of, value_node)
        if not valid:
            yield rules.VR009_RSF_RESOURCES_DEFAULTED.at(
                self.document,
                self.at(key_node),
                f"every entry of `{RESOURCES_KEY}` is dropped (see VR007), and an emptied "
                "map is not replaced by the default: the strategy score is 0 on every node; "
                "list resources by name or `prefix/*`",
            )
        yield from self.precedence(valid, entries)

    def pattern(self, name: str, node: Node) -> Finding:
        if name == "*":
            why = "a bare `*` is not supported as a default strategy"
            fix = "name each resource, or a prefix such as `nvidia.com/*`"
        else:
            why = "only one `*`, at the end, is supported"
            fix = f"write a prefix pattern such as `{name.split('*', 1)[0] or 'nvidia.com/'}*`"
        return rules.VR007_RSF_PATTERN.at(
            self.document,
            node,
            f"`{name}`: {why}; Volcano drops this entry (a log line), so the resources it "
            f"was meant for are not scored by it; {fix}",
        )

    def entry_of(self, name: str, item: Any, key_node: Node, node: Node) -> Iterator[Finding]:
        if "*" not in name:
            problem = resource_name_problem(name)
            if problem is not None:
                yield rules.VR014_RSF_RESOURCE_NAME.at(self.document, key_node, problem)
        if item is None:
            yield rules.VR006_RSF_TYPE.at(
                self.document,
                key_node,
                f"`{name}` has no settings (null): Volcano scores it LeastAllocated with "
                "weight 1; write `type:` and `weight:`",
            )
            return
        type_field = field_of(item, node, "Type", self.text)
        if type_field is None:
            yield rules.VR006_RSF_TYPE.at(
                self.document,
                key_node,
                f"`{name}` has no `type`: Volcano uses {LEAST} (spreading); write "
                "`type: MostAllocated` to pack",
            )
        else:
            yield from self.type_value(name, item[type_field[0]], type_field[2])
        weight_field = field_of(item, node, "Weight", self.text)
        if weight_field is None:
            yield rules.VR005_RSF_RESOURCE_WEIGHT.at(
                self.document,
                key_node,
                f"`{name}` has no `weight`: Volcano uses 1; write it to make it explicit",
                Severity.INFO,
            )
            return
        raw_weight = item[weight_field[0]]
        weight = self.args.resources.get(name)
        if decoded_int(raw_weight) <= 0:
            shown = "null" if raw_weight is None else str(raw_weight)
            yield rules.VR005_RSF_RESOURCE_WEIGHT.at(
                self.document,
                self.at(weight_field[2]),
                f"`{name}` weight {shown} is not positive: Volcano silently uses "
                f"{weight.weight if weight else 1} instead; remove the entry to leave the "
                "resource out, or use a positive weight",
            )

    def type_value(self, name: str, value: Any, node: Node | None) -> Iterator[Finding]:
        if value in TYPES:
            return
        shown = "null" if value is None else f"`{value}`"
        hint = ""
        if isinstance(value, str):
            exact = next((t for t in TYPES if t.lower() == value.lower()), None)
            hint = (
                f"; types are case-sensitive: write `{exact}`"
                if exact
                else did_you_mean(value, TYPES)
            )
        yield rules.VR006_RSF_TYPE.at(
            self.document,
            self.at(node),
            f"`{name}` type {shown} is neither MostAllocated nor LeastAllocated: Volcano "
            f"silently uses {LEAST} (spreading){hint}",
        )

    def precedence(
        self, names: list[str], entries: Mapping[Any, tuple[Node, Node]]
    ) -> Iterator[Finding]:
        wildcards = [n for n in names if n.endswith("*")]
        for name in names:
            if name.endswith("*"):
                continue
            matching = [w for w in wildcards if name.startswith(w[:-1])]
            if matching:
                shadowed = ", ".join(f"`{w}`" for w in matching)
                yield rules.VR010_RSF_PRECEDENCE.at(
                    self.document,
                    entries[name][0],
                    f"`{name}` is scored by this entry, not by {shadowed}: an exact name "
                    "beats any wildcard",
                )
        for wildcard in wildcards:
            prefix = wildcard[:-1]
            longer = [w for w in wildcards if w != wildcard and w[:-1].startswith(prefix)]
            if longer:
                yield rules.VR010_RSF_PRECEDENCE.at(
                    self.document,
                    entries[wildcard][0],
                    f"`{wildcard}` does not score what {', '.join(f'`{w}`' for w in longer)} "
                    "matches: the longest matching prefix wins",
                )
            caught = [s for s in SPECIAL if s.startswith(prefix) and s not in names]
            if caught:
                yield rules.VR010_RSF_PRECEDENCE.at(
                    self.document,
                    entries[wildcard][0],
                    f"`{wildcard}` also matches {', '.join(f'`{s}`' for s in caught)}, "
                    "so it scores them too (every pod requests `pods: 1`); use a longer "
                    "prefix, or list them by name",
                )

    # --- sra and proportional: the parts they share ------------------------------------

    def switched_off(
        self, raw: Mapping[Any, Any], node: Node, key_node: Node, rule: Rule, section: str
    ) -> Iterator[Finding]:
        """A section whose ``enable`` is not true, with settings that therefore do nothing."""
        enable = field_of(raw, node, "Enable", self.text)
        if any(enable is None or k != enable[0] for k in raw):
            yield rule.at(
                self.document,
                self.at(enable[2] if enable is not None else key_node),
                f"{section} is off (`enable` is not true), so its settings do nothing; "
                "write `enable: true` to use them",
            )

    def field_node(self, raw: Mapping[Any, Any], node: Node, name: str, fallback: Node) -> Node:
        """The value node of a section's field ``name``, else ``fallback``."""
        found = field_of(raw, node, name, self.text)
        return self.at(found[2] if found else fallback)

    def map_field(
        self, raw: Mapping[Any, Any], node: Node, value: Mapping[str, Any], name: str
    ) -> Iterator[tuple[str, Any, Node, Node]]:
        """A section's map field ``name`` written as a mapping: each decoded entry with
        its key and value nodes."""
        found = field_of(raw, node, name, self.text)
        if found is None or not isinstance(raw[found[0]], Mapping):
            return
        entries = children(found[2], self.text)
        for key, item in (value[name] or {}).items():
            key_node, value_node = entries.get(key, (found[1], found[2]))
            yield key, item, self.at(key_node), self.at(value_node)

    # --- sra -----------------------------------------------------------------------------

    def sra(
        self, raw: Any, value: Mapping[str, Any], key_node: Node, node: Node
    ) -> Iterator[Finding]:
        if not isinstance(raw, Mapping):
            return
        if not value["Enable"]:
            yield from self.switched_off(raw, node, key_node, rules.VR011_RSF_SRA, "sra")
            return
        weight_field = field_of(raw, node, "Weight", self.text)
        if value["Weight"] <= 0:
            yield rules.VR011_RSF_SRA.at(
                self.document,
                self.at(weight_field[2] if weight_field else key_node),
                f"sra is enabled but its weight is {value['Weight']}"
                + ("" if weight_field else " (no `weight`)")
                + ": Volcano adds no sra score; give it a positive weight",
            )
        listed = split_trimmed(value["Resources"])
        where = self.field_node(raw, node, "Resources", key_node)
        if not listed:
            yield rules.VR011_RSF_SRA.at(
                self.document,
                where,
                "sra is enabled without `resources`: its score is 0 on every node; list "
                'the scarce resources, e.g. `resources: "nvidia.com/gpu"`',
            )
        for name in sorted({n for n in listed if listed.count(n) > 1}):
            yield rules.VR011_RSF_SRA.at(
                self.document,
                where,
                f"`{name}` is listed {listed.count(name)} times in `sra.resources`: each "
                "listing counts in the weight sum, so a node with it never reaches the "
                "full sra score; list it once",
            )
        for name in listed:
            problem = resource_name_problem(name)
            if problem is not None:
                yield rules.VR014_RSF_RESOURCE_NAME.at(self.document, where, problem)
        yield from self.sra_weights(raw, node, listed, value)

    def sra_weights(
        self, raw: Mapping[Any, Any], node: Node, listed: tuple[str, ...], value: Mapping[str, Any]
    ) -> Iterator[Finding]:
        weights = self.map_field(raw, node, value, "ResourceWeight")
        for name, weight, key_node, value_node in weights:
            if name not in listed:
                yield rules.VR011_RSF_SRA.at(
                    self.document,
                    key_node,
                    f"`resourceWeight.{name}` is ignored: `{name}` is not listed in "
                    "`sra.resources`; add it there",
                )
            elif weight < 0:
                yield rules.VR011_RSF_SRA.at(
                    self.document,
                    value_node,
                    f"`resourceWeight.{name}` is negative ({weight}): Volcano silently uses "
                    "1 instead",
                )

    # --- proportional ---------------------------------------------------------------------

    def proportional(
        self, raw: Any, value: Mapping[str, Any], key_node: Node, node: Node
    ) -> Iterator[Finding]:
        if not isinstance(raw, Mapping):
            return
        if not value["Enable"]:
            yield from self.switched_off(
                raw, node, key_node, rules.VR012_RSF_PROPORTIONAL, "the proportional filter"
            )
            return
        listed = split_trimmed(value["Resources"])
        if not listed:
            yield rules.VR012_RSF_PROPORTIONAL.at(
                self.document,
                self.field_node(raw, node, "Resources", key_node),
                "the proportional filter is enabled without `resources`: it checks "
                'nothing; list the resources, e.g. `resources: "nvidia.com/gpu"`',
            )
        wanted = {f"{n}.{part}" for n in listed for part in ("cpu", "memory")}
        rates = self.map_field(raw, node, value, "ResourceProportion")
        for name, rate, key_node_of, value_node in rates:
            if name not in wanted:
                yield rules.VR012_RSF_PROPORTIONAL.at(
                    self.document,
                    key_node_of,
                    f"`resourceProportion.{name}` is ignored: Volcano reads only "
                    "`<resource>.cpu` and `<resource>.memory` for the resources listed in "
                    "`proportional.resources`" + did_you_mean(name, sorted(wanted)),
                )
            elif rate < 0:
                yield rules.VR012_RSF_PROPORTIONAL.at(
                    self.document,
                    value_node,
                    f"`resourceProportion.{name}` is negative ({describe(rate)}): Volcano "
                    "silently uses 1 instead",
                )

    # --- flags ----------------------------------------------------------------------------

    def flags(self) -> Iterator[Finding]:
        if self.args.fatal is not None:
            return
        messages = {
            "enableNodeOrder": (
                self.args.registers_node_order,
                "`enableNodeOrder: false` on resource-strategy-fit: Volcano never calls its "
                "score, so its strategy and sra settings do nothing; remove the flag (or the "
                "plugin)",
            ),
            "enablePredicate": (
                self.args.proportional is not None,
                "`enablePredicate: false` on resource-strategy-fit: its proportional filter "
                "never runs; remove the flag, or the `proportional` settings",
            ),
        }
        for name, (applies, message) in messages.items():
            flag = self.entry.flag_nodes.get(name)
            if flag is not None and applies and not self.entry.enabled(name):
                yield rules.VR013_RSF_SWITCHED_OFF.at(self.document, flag, message)
