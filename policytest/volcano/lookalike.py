"""Look-alikes: other schedulers' configs that have Volcano's ``actions:`` and ``tiers:``.

Volcano's conf format was forked: NVIDIA's KAI Scheduler, for one, reads a
``config.yaml`` with ``actions: allocate, consolidation, reclaim, ...`` and ``tiers:`` of
plugins (``nodeplacement``, ``gpupack``, ...). By shape such a document is a Volcano
conf, but it is not one with mistakes in it: it is another program's file, and
reporting its actions and plugins as Volcano errors would be false.

A document recognised by shape alone (not named ``volcano-scheduler.conf``, which is
what Volcano reads whatever it holds) is a look-alike when it names an action that is
no Volcano release's and not a slip for one (a case or separator mistake, a near miss
such as ``alocate``), and most of its plugins are not Volcano's either. A Volcano conf
with a mistaken action and Volcano's plugins is still checked, and reported.
"""

from __future__ import annotations

from policytest.core.suggest import plausible
from policytest.read.nodes import MappingNode, Node
from policytest.read.source import child, scalar, sequence_items
from policytest.volcano.gotext import trim_space
from policytest.volcano.versions import ACTIONS, PLUGINS

_SEPARATORS = (" ", ";", "\t", "\uff0c", "\u3001")
_ALIASES = frozenset({"numaaware", "tasktopology"})


def lookalike(root: Node) -> str | None:
    """Why ``root`` is another scheduler's config shaped like a Volcano conf, or ``None``."""
    if not isinstance(root, MappingNode):
        return None
    actions = scalar(child(root, "actions"))
    if actions is None:
        return None
    foreign = [name for name in _action_names(actions) if _foreign_action(name)]
    if not foreign:
        return None
    plugins = _plugin_names(root)
    unknown = [name for name in plugins if name not in PLUGINS and name not in _ALIASES]
    if len(unknown) <= len(plugins) - len(unknown):
        return None  # Volcano's plugins with a wrong action: a Volcano conf, reported
    listed = ", ".join(f"`{name}`" for name in foreign)
    return (
        f"another scheduler's config shaped like a Volcano conf: its actions {listed} and "
        f"{len(unknown)} of its {len(plugins)} plugins are no Volcano release's"
    )


def _action_names(actions: str) -> list[str]:
    items = (trim_space(item) for item in actions.split(","))
    return [item for item in items if item]


def _foreign_action(name: str) -> bool:
    """Not Volcano's and not a slip for one of Volcano's actions."""
    if name in ACTIONS or name.lower() in ACTIONS:
        return False
    if any(separator in name for separator in _SEPARATORS):
        return False  # "enqueue allocate": Volcano's actions, badly separated
    return not any(plausible(name, action) for action in ACTIONS)


def _plugin_names(root: Node) -> list[str]:
    names: list[str] = []
    for tier in sequence_items(child(root, "tiers")):
        if not isinstance(tier, MappingNode):
            continue
        for plugin in sequence_items(child(tier, "plugins")):
            if isinstance(plugin, MappingNode):
                names.append(scalar(child(plugin, "name")) or "")
    return names
