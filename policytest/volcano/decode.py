"""``yaml.Unmarshal`` into Volcano's ``SchedulerConfiguration``, over composed nodes.

yaml.v2 decodes into typed Go structs non-strictly: unknown keys are skipped without
even decoding their values, a duplicate key overwrites (but a second ``arguments:`` map
merges into the first), any scalar fits a ``string`` field as its text, a ``*bool``
takes only a real boolean, and a mismatch does not stop the walk: every mismatch is
collected and the whole file is rejected at the end. Some failures (``!!int abc``, a bad
merge, a map used as a key) abort at once. This module reproduces that walk, keeping
the node of every value so that findings can point at it.
"""

from __future__ import annotations

from collections.abc import Callable

from policytest.core.records import field, record
from policytest.read.goyaml import (
    BINARY,
    Budget,
    DecodeError,
    decode,
    explicit_tag,
    is_merge_key,
    resolve_scalar,
    scalar_text,
    short_tag,
)
from policytest.read.nodes import MAP, NULL, MappingNode, Node, ScalarNode, SequenceNode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FLAGS = (
    "enableJobOrder",
    "enableHierarchy",
    "enableJobReady",
    "enableJobPipelined",
    "enableTaskOrder",
    "enablePreemptable",
    "enableReclaimable",
    "enablePreemptive",
    "enableQueueOrder",
    "enabledClusterOrder",
    "enablePredicate",
    "enableBestNode",
    "enableNodeOrder",
    "enableTargetJob",
    "enableReservedNodes",
    "enableJobEnqueued",
    "enabledVictim",
    "enableJobStarving",
    "enabledOverused",
    "enabledAllocatable",
    "enabledHyperNodeOrder",
    "enabledSubJobReady",
    "enabledSubJobPipelined",
    "enabledSubJobOrder",
    "enabledHyperNodeGradient",
)
"""Every ``PluginOption`` flag (yaml names) of Volcano 1.16: mind ``enable`` vs ``enabled``."""
UNSET_FLAGS = ("enableHierarchy", "enabledClusterOrder")
"""Flags that ``ApplyPluginConfDefaults`` leaves unset (false) instead of defaulting to true."""
PLUGIN_KEYS = ("name", *FLAGS, "arguments")

_EXPECTED = {
    "string": "a string",
    "bool": "true or false (unquoted)",
    "*bool": "true or false (unquoted)",
    "[]conf.Tier": "a list of tiers (`- plugins: [...]`)",
    "[]conf.PluginOption": "a list of plugin entries (`- name: binpack`)",
    "[]conf.Configuration": "a list of action configurations (`- name: allocate`)",
    "conf.SchedulerConfiguration": "a mapping with `actions` and `tiers`",
    "conf.Tier": "a mapping with `plugins`",
    "conf.PluginOption": "a mapping such as `name: binpack`",
    "conf.Configuration": "a mapping with `name` and `arguments`",
    "map[string]interface {}": "a mapping of argument names to values",
    "map[string]string": "a mapping of names to strings",
}


@record(frozen=True)
class TypeProblem:
    """A value yaml.v2 cannot put into its Go field: the file is rejected."""

    node: Node
    field: str
    go_type: str
    go_message: str

    @property
    def expected(self) -> str:
        return _EXPECTED.get(self.go_type, self.go_type)


@record(frozen=True)
class Duplicate:
    """A key written twice in one mapping; ``merged``: both maps were merged."""

    key: Node
    first: Node
    name: str
    merged: bool = False


@record(frozen=True)
class UnknownKey:
    """A key yaml.v2 skips (its value is never read); ``where`` names the struct."""

    key: Node
    name: str
    where: str
    choices: tuple[str, ...]


@record(eq=False)
class RawMap:
    """A decoded ``map[string]...`` field with the nodes of each key's last value."""

    values: dict[str, Any] = field(default_factory=dict)
    nodes: dict[str, tuple[Node, Node]] = field(default_factory=dict)


@record(eq=False)
class RawNamed:
    """What plugin entries and action configurations share: a name and arguments."""

    node: Node
    name: str = ""
    name_node: Node | None = None
    arguments: RawMap | None = None
    arguments_node: Node | None = None


@record(eq=False)
class RawPlugin(RawNamed):
    """One ``PluginOption`` as decoded (flags only where written)."""

    flags: dict[str, bool | None] = field(default_factory=dict)
    flag_nodes: dict[str, Node] = field(default_factory=dict)
    null_flags: list[Node] = field(default_factory=list)


@record(eq=False)
class RawTier:
    node: Node
    plugins: list[RawPlugin] | None = None
    plugins_node: Node | None = None


@record(eq=False)
class RawConfiguration(RawNamed):
    """One ``configurations`` entry as decoded."""


@record(eq=False)
class RawConf:
    """``SchedulerConfiguration`` as yaml.v2 leaves it, plus what the walk noticed."""

    root: Node
    actions: str = ""
    actions_node: Node | None = None
    tiers: list[RawTier] | None = None
    configurations: list[RawConfiguration] | None = None
    metrics: RawMap | None = None
    problems: list[TypeProblem] = field(default_factory=list)
    duplicates: list[Duplicate] = field(default_factory=list)
    unknown: list[UnknownKey] = field(default_factory=list)


Handler = Callable[[Node, Node], None]


class _Decoder:
    """One ``yaml.Unmarshal`` walk; raises :class:`DecodeError` where yaml.v2 panics."""

    def __init__(self, text: str, budget: Budget, string_arguments: bool) -> None:
        self.text = text
        self.budget = budget
        self.string_arguments = string_arguments
        self.conf: RawConf | None = None

    # --- scalars --------------------------------------------------------------------

    def problem(self, node: Node, field_name: str, go_type: str) -> None:
        assert self.conf is not None
        self.conf.problems.append(
            TypeProblem(node, field_name, go_type, self.go_message(node, go_type))
        )

    def go_message(self, node: Node, go_type: str) -> str:
        """yaml.v2's own wording (``cannot unmarshal !!str `true` into bool``)."""
        if isinstance(node, MappingNode):
            return f"cannot unmarshal !!map into {go_type}"
        if isinstance(node, SequenceNode):
            return f"cannot unmarshal !!seq into {go_type}"
        assert isinstance(node, ScalarNode)
        tag = explicit_tag(node, self.text) or resolve_scalar(node, self.text)[0]
        text = scalar_text(node)
        value = text if len(text) <= 10 else text[:7] + "..."
        return f"cannot unmarshal {short_tag(tag)} `{value}` into {go_type}"

    def string(self, node: Node, field_name: str, go_type: str = "string") -> str | None:
        """A ``string`` field: any scalar as its text, null as ``""``."""
        self.budget.spend(node, 0)
        if not isinstance(node, ScalarNode):
            self.problem(node, field_name, go_type)
            return None
        tag, value = resolve_scalar(node, self.text)
        if value is None:
            return ""
        return str(value) if tag == BINARY else scalar_text(node)

    def is_null(self, node: Node) -> bool:
        """Is ``node`` null in the sense of yaml.v2's ``prepare`` (pointers stay nil)?"""
        if not isinstance(node, ScalarNode):
            return False
        tag = explicit_tag(node, self.text)
        if tag is not None:
            return tag == NULL
        return node.value in ("null", "~") or (node.value == "" and node.style is None)

    def flag(self, plugin: RawPlugin, name: str, node: Node) -> None:
        """A ``*bool`` flag: only a real YAML boolean fits; null leaves it unset."""
        self.budget.spend(node, 0)
        if self.is_null(node):
            assert isinstance(node, ScalarNode)
            if resolve_scalar(node, self.text)[1] is not None:
                self.problem(node, name, "*bool")
                return
            plugin.flags[name] = None
        elif not isinstance(node, ScalarNode):
            self.problem(node, name, "bool")
            return
        else:
            value = resolve_scalar(node, self.text)[1]
            if value is None:  # `Null`, `NULL`: yaml.v2 allocates the pointer, sets false
                plugin.null_flags.append(node)
                plugin.flags[name] = False
            elif isinstance(value, bool):
                plugin.flags[name] = value
            else:
                self.problem(node, name, "bool")
                return
        plugin.flag_nodes[name] = node

    # --- structs, slices, maps --------------------------------------------------------

    def struct(
        self, node: MappingNode, handlers: dict[str, Handler], where: str, depth: int
    ) -> None:
        """``mappingStruct``: known keys to their handlers, unknown keys skipped."""
        assert self.conf is not None
        seen: dict[str, Node] = {}
        for key, value in node.value:
            self.budget.spend(key, depth)
            if is_merge_key(key, self.text):
                for source in self.merge_sources(value):
                    self.struct(source, handlers, where, depth + 1)
                continue
            name = self.string(key, "key")
            if name is None:
                continue
            handler = handlers.get(name)
            if handler is None:
                self.conf.unknown.append(UnknownKey(key, name, where, tuple(handlers)))
                continue
            if name in seen:
                merged = name in ("arguments", "metrics")
                self.conf.duplicates.append(Duplicate(key, seen[name], name, merged))
            seen[name] = key
            handler(key, value)

    def merge_sources(self, node: Node) -> list[MappingNode]:
        """``d.merge``: a mapping, or a list of mappings merged last-to-first."""
        if isinstance(node, MappingNode):
            return [node]
        if isinstance(node, SequenceNode):
            maps = [item for item in node.value if isinstance(item, MappingNode)]
            if len(maps) == len(node.value):
                return maps[::-1]
        raise DecodeError("map merge requires map or sequence of maps as the value", node)

    def sequence(
        self, node: Node, field_name: str, go_type: str, item: Callable[[Node], Any]
    ) -> list[Any] | None:
        """A slice field: a fresh slice each time; items that fail are dropped."""
        self.budget.spend(node, 0)
        if isinstance(node, SequenceNode):
            items = [item(child) for child in node.value]
            return [decoded for decoded in items if decoded is not None]
        if isinstance(node, ScalarNode) and resolve_scalar(node, self.text)[1] is None:
            return None
        self.problem(node, field_name, go_type)
        return None

    def element(self, node: Node, field_name: str, go_type: str) -> MappingNode | None:
        """A struct slice element: a mapping, or null for a zero struct."""
        self.budget.spend(node, 0)
        if isinstance(node, MappingNode):
            return node
        if isinstance(node, ScalarNode) and resolve_scalar(node, self.text)[1] is None:
            return MappingNode(MAP, [], node.start_mark, node.end_mark)
        self.problem(node, field_name, go_type)
        return None

    def map_field(
        self, current: RawMap | None, node: Node, field_name: str, *, of_strings: bool, depth: int
    ) -> RawMap | None:
        """``map[string]X``: null clears it, a mapping merges into what is there."""
        self.budget.spend(node, depth)
        go_type = "map[string]string" if of_strings else "map[string]interface {}"
        if isinstance(node, ScalarNode) and resolve_scalar(node, self.text)[1] is None:
            return None
        if not isinstance(node, MappingNode):
            self.problem(node, field_name, go_type)
            return current
        result = current if current is not None else RawMap()
        self.fill_map(result, node, field_name, of_strings, depth)
        return result

    def fill_map(
        self, result: RawMap, node: MappingNode, field_name: str, of_strings: bool, depth: int
    ) -> None:
        assert self.conf is not None
        seen: dict[str, Node] = {}
        for key, value in node.value:
            self.budget.spend(key, depth + 1)
            if is_merge_key(key, self.text):
                for source in self.merge_sources(value):
                    self.fill_map(result, source, field_name, of_strings, depth + 1)
                continue
            name = self.string(key, f"{field_name} key")
            if name is None:
                continue
            if of_strings:
                decoded: Any = self.string(value, f"{field_name}.{name}")
                if decoded is None:
                    continue
            else:
                decoded = decode(
                    value,
                    self.text,
                    budget=self.budget,
                    depth=depth + 2,
                    on_duplicate=self.nested_duplicate,
                )
            if name in seen:
                self.conf.duplicates.append(Duplicate(key, seen[name], name))
            seen[name] = key
            result.values[name] = decoded
            result.nodes[name] = (key, value)

    def nested_duplicate(self, mapping: MappingNode, key: ScalarNode) -> None:
        assert self.conf is not None
        first = next(k for k, _ in mapping.value if k.value == key.value)
        self.conf.duplicates.append(Duplicate(key, first, str(key.value)))

    # --- the configuration ---------------------------------------------------------

    def run(self, root: Node) -> RawConf:
        conf = self.conf = RawConf(root)
        self.budget.spend(root, 0)
        if isinstance(root, MappingNode):
            self.struct(root, self.root_handlers(conf), "top level", 1)
        elif not (isinstance(root, ScalarNode) and resolve_scalar(root, self.text)[1] is None):
            self.problem(root, "document", "conf.SchedulerConfiguration")
        return conf

    def root_handlers(self, conf: RawConf) -> dict[str, Handler]:
        def actions(key: Node, value: Node) -> None:
            text = self.string(value, "actions")
            if text is not None:
                conf.actions, conf.actions_node = text, value

        def tiers(key: Node, value: Node) -> None:
            conf.tiers = self.sequence(value, "tiers", "[]conf.Tier", self.tier)

        def configurations(key: Node, value: Node) -> None:
            conf.configurations = self.sequence(
                value, "configurations", "[]conf.Configuration", self.configuration
            )

        def metrics(key: Node, value: Node) -> None:
            conf.metrics = self.map_field(conf.metrics, value, "metrics", of_strings=True, depth=1)

        return {
            "actions": actions,
            "tiers": tiers,
            "configurations": configurations,
            "metrics": metrics,
        }

    def tier(self, node: Node) -> RawTier | None:
        mapping = self.element(node, "tiers item", "conf.Tier")
        if mapping is None:
            return None
        tier = RawTier(node)

        def plugins(key: Node, value: Node) -> None:
            tier.plugins = self.sequence(value, "plugins", "[]conf.PluginOption", self.plugin)
            tier.plugins_node = value

        self.struct(mapping, {"plugins": plugins}, "tier", 2)
        return tier

    def plugin(self, node: Node) -> RawPlugin | None:
        mapping = self.element(node, "plugins item", "conf.PluginOption")
        if mapping is None:
            return None
        plugin = RawPlugin(node)
        handlers = self.named_handlers(plugin, depth=4)
        for flag_name in FLAGS:
            handlers[flag_name] = self.flag_handler(plugin, flag_name)
        self.struct(mapping, handlers, "plugin entry", 4)
        return plugin

    def flag_handler(self, plugin: RawPlugin, name: str) -> Handler:
        return lambda key, value: self.flag(plugin, name, value)

    def configuration(self, node: Node) -> RawConfiguration | None:
        mapping = self.element(node, "configurations item", "conf.Configuration")
        if mapping is None:
            return None
        configuration = RawConfiguration(node)
        self.struct(mapping, self.named_handlers(configuration, depth=3), "configuration", 2)
        return configuration

    def named_handlers(self, target: RawNamed, depth: int) -> dict[str, Handler]:
        """``name`` (a string) and ``arguments`` (a map that merges) of an entry."""

        def name(key: Node, value: Node) -> None:
            text = self.string(value, "name")
            if text is not None:
                target.name, target.name_node = text, value

        def arguments(key: Node, value: Node) -> None:
            target.arguments = self.map_field(
                target.arguments,
                value,
                "arguments",
                of_strings=self.string_arguments,
                depth=depth,
            )
            target.arguments_node = value

        return {"name": name, "arguments": arguments}


def unmarshal(root: Node, text: str, budget: Budget, *, string_arguments: bool) -> RawConf:
    """Decode ``root`` as ``yaml.Unmarshal(text, &SchedulerConfiguration{})``.

    ``string_arguments``: Volcano up to 1.5 declared ``arguments`` as
    ``map[string]string``. Raise :class:`DecodeError` where yaml.v2 aborts.
    """
    return _Decoder(text, budget, string_arguments).run(root)


__all__ = [
    "FLAGS",
    "PLUGIN_KEYS",
    "UNSET_FLAGS",
    "Duplicate",
    "RawConf",
    "RawConfiguration",
    "RawMap",
    "RawNamed",
    "RawPlugin",
    "RawTier",
    "TypeProblem",
    "UnknownKey",
    "unmarshal",
]
