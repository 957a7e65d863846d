"""Scheduler configs that Helm charts build from their values.

Two charts people deploy schedulers with write a config from ``values.yaml`` (read from
each chart's own templates and values):

- Volcano's chart (volcano-sh/volcano ``installer/helm/chart/volcano``, from v1.10)
  writes ``custom.scheduler_config_override``, a block string, into its scheduler
  ConfigMap as ``volcano-scheduler.conf`` (:mod:`policytest.read.recognise` reads it as
  that conf, the string's positions mapped into the values file);
- scheduler-plugins' ``as-a-second-scheduler`` chart (kubernetes-sigs/scheduler-plugins
  ``manifests/install/charts``, v0.22 to v0.34) builds a KubeSchedulerConfiguration of one
  profile: ``schedulerName`` from ``scheduler.name``, ``plugins.multiPoint`` enabled and
  disabled from ``plugins.enabled`` / ``plugins.disabled`` (each name through Go's
  ``title``), ``pluginConfig`` from ``pluginConfig`` as written; no ConfigMap at all
  when ``plugins.enabled`` is empty. This module builds that config as a node tree
  whose nodes are the values' own (names and ``pluginConfig`` keep their positions in the
  values file), so every finding points into ``values.yaml``.

koordinator's chart (koordinator-sh/charts) writes its scheduler config in a template
(``koord-scheduler-config.yaml``), not from values: ``helm template`` shows it.
"""

from __future__ import annotations

import re

from policytest.read.nodes import MAP, SEQ, STR, MappingNode, Mark, Node, ScalarNode, SequenceNode
from policytest.read.source import child, scalar, sequence_items

_API_VERSION = "kubescheduler.config.k8s.io/v1"
_WORD_START = re.compile(r"(?<![A-Za-z0-9_])([a-z])")
"""Go's ``strings.Title`` (sprig's ``title``): a letter after a separator is upper-cased."""


def scheduler_plugins_config(values: MappingNode) -> MappingNode | None:
    """The KubeSchedulerConfiguration the scheduler-plugins chart builds from ``values``
    (a mapping with ``scheduler.image`` of scheduler-plugins and ``plugins.enabled``), as
    a tree of the values' own nodes, else ``None``."""
    scheduler = child(values, "scheduler")
    image = scalar(child(scheduler, "image")) if isinstance(scheduler, MappingNode) else None
    plugins = child(values, "plugins")
    enabled = child(plugins, "enabled") if isinstance(plugins, MappingNode) else None
    if not image or "scheduler-plugins/" not in image or not sequence_items(enabled):
        return None
    assert isinstance(plugins, MappingNode) and isinstance(scheduler, MappingNode)
    assert enabled is not None
    multi_point: list[tuple[Node, Node]] = [(_key("enabled", enabled), _names(enabled))]
    disabled = child(plugins, "disabled")
    if disabled is not None and sequence_items(disabled):
        multi_point.append((_key("disabled", disabled), _names(disabled)))
    profile: list[tuple[Node, Node]] = []
    name = child(scheduler, "name")
    if isinstance(name, ScalarNode):
        profile.append((_key("schedulerName", name), name))
    plugin_sets = _mapping(plugins, [(_key("multiPoint", plugins), _mapping(plugins, multi_point))])
    profile.append((_key("plugins", plugins), plugin_sets))
    plugin_config = child(values, "pluginConfig")
    if sequence_items(plugin_config):
        assert plugin_config is not None
        profile.append((_key("pluginConfig", plugin_config), plugin_config))
    root = _mapping(
        plugins,
        [
            (_key("apiVersion", plugins), _key(_API_VERSION, plugins)),
            (_key("kind", plugins), _key("KubeSchedulerConfiguration", plugins)),
            (
                _key("profiles", plugins),
                SequenceNode(SEQ, [_mapping(plugins, profile)], *_marks(plugins)),
            ),
        ],
    )
    return root


def _names(listed: Node | None) -> SequenceNode:
    """``- name: {{ title . }}`` for each listed plugin, at its place in the values."""
    entries: list[Node] = []
    for item in sequence_items(listed):
        if isinstance(item, ScalarNode):
            titled = ScalarNode(STR, _title(str(item.value)), item.start_mark, item.end_mark, '"')
            entries.append(_mapping(item, [(_key("name", item), titled)]))
    assert listed is not None
    return SequenceNode(SEQ, entries, *_marks(listed))


def _title(text: str) -> str:
    return _WORD_START.sub(lambda match: match.group(1).upper(), text)


def _key(text: str, at: Node) -> ScalarNode:
    """A string the template writes, placed where the value it comes from is."""
    return ScalarNode(STR, text, *_marks(at), '"')


def _mapping(at: Node, pairs: list[tuple[Node, Node]]) -> MappingNode:
    return MappingNode(MAP, pairs, *_marks(at))


def _marks(node: Node) -> tuple[Mark, Mark]:
    return node.start_mark, node.end_mark
