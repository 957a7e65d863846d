"""Look-alikes: other schedulers' configs in the shape of a Volcano conf.

Volcano's conf format comes from kube-batch, and others kept it: NVIDIA's KAI Scheduler
(kai-scheduler/KAI-Scheduler, ``pkg/scheduler/conf``) reads a ``config.yaml`` with
``actions`` and ``tiers`` of plugins, and kube-batch (kubernetes-sigs/kube-batch) reads
the same shape. By shape such a document is a Volcano conf, but it is another program's
file: judged as Volcano's, a KAI config without ``actions`` (KAI fills them from its
defaults, ``conf_util.ResolveConfigurationFromFile``) is "rejected", and its plugins
(``minruntime``, ``nodeplacement``; ``proportion`` with KAI's ``kValue``) are "unknown".

What tells them apart, from the strongest:

- the place: a KAI Scheduler or kube-batch image runs the conf (it mounts it, or sits in
  its file), or its ConfigMap is KAI's (named ``kai-scheduler-<shard>`` by KAI's operator,
  in namespace ``kai-scheduler``), or a KAI object (``kai.scheduler/v1``
  ``SchedulingShard``, ``Config``) is beside a conf that names no Volcano-only plugin;
- the plugins: a plugin only KAI registers (``nodeplacement``, ``gpupack``,
  ``minruntime``, ...) and none only Volcano registers;
- the actions: one no Volcano release has and no slip for one (``consolidation``,
  ``stalegangeviction`` are KAI's), with mostly non-Volcano plugins.

A document Volcano reads by name (``volcano-scheduler.conf``) is never a look-alike
(the caller decides that). A Volcano conf with a mistaken action and Volcano's plugins,
or a custom plugin of a Volcano fork, is still checked as Volcano's.
"""

from __future__ import annotations

from policytest.core.findings import Severity
from policytest.core.records import record
from policytest.core.rules import rule
from policytest.core.suggest import plausible
from policytest.read.nodes import MappingNode, Node
from policytest.read.source import child, scalar, sequence_items
from policytest.volcano.gotext import trim_space
from policytest.volcano.versions import ACTIONS, PLUGINS

KAI = "KAI Scheduler"
KUBE_BATCH = "kube-batch"

KAI_ACTIONS = frozenset({"allocate", "consolidation", "reclaim", "preempt", "stalegangeviction"})
"""``pkg/scheduler/actions/factory.go`` of KAI Scheduler v0.0.1 to v0.20.1."""
KAI_PLUGINS = frozenset(
    {
        "predicates",
        "priority",
        "proportion",
        "nodeplacement",
        "nominatednode",
        "numa",
        "nodeavailability",
        "gpusharingorder",
        "gpupack",
        "gpuspread",
        "resourcetype",
        "podaffinity",
        "elastic",
        "kubeflow",
        "ray",
        "taskorder",
        "subgrouporder",
        "dynamicresources",
        "topology",
        "minruntime",
        "snapshot",
        "sg-nodelocalgreedy",
        "sg-multinodegang",
        "reflectjoborder",
    }
)
"""``pkg/scheduler/plugins/factory.go`` of KAI Scheduler v0.0.1 to v0.20.1."""
_KAI_ONLY = frozenset(
    {
        "nodeplacement",
        "nominatednode",
        "nodeavailability",
        "gpusharingorder",
        "gpupack",
        "gpuspread",
        "resourcetype",
        "taskorder",
        "subgrouporder",
        "minruntime",
        "reflectjoborder",
        "sg-nodelocalgreedy",
        "sg-multinodegang",
    }
)
"""KAI's plugins no other scheduler names (``elastic``, ``ray``, ``topology``, ``snapshot``
could be a Volcano fork's own)."""
KUBE_BATCH_PLUGINS = frozenset(
    {"drf", "gang", "predicates", "priority", "nodeorder", "conformance", "proportion"}
)
"""``pkg/scheduler/plugins/factory.go`` of kube-batch (kubernetes-sigs/kube-batch, v0.5):
all of them Volcano's too, so only the place tells a kube-batch conf from Volcano's."""
_PLUGINS_OF = {KAI: KAI_PLUGINS, KUBE_BATCH: KUBE_BATCH_PLUGINS}
_VOLCANO_ONLY = frozenset(PLUGINS) - KAI_PLUGINS
OTHER = "another scheduler"

PT010_OTHER_SCHEDULER = rule(
    "PT010",
    Severity.INFO,
    "another scheduler's config in the shape of a Volcano conf: not checked",
    """
    KAI Scheduler and kube-batch read confs of Volcano's shape (``actions``, ``tiers`` of
    ``plugins``) with plugins, actions and defaults of their own: KAI fills a missing
    ``actions`` from its defaults and registers ``minruntime``, ``nodeplacement``,
    ``gpupack`` and more. Judged as Volcano's, such a conf would draw Volcano's
    verdicts ("Volcano rejects the whole file", "unknown plugin"), which do not apply to
    it. policytest recognises it from what the conf and its neighbours say (a KAI or
    kube-batch image running it, KAI's ConfigMap names and namespace, a KAI
    ``SchedulingShard`` beside it, plugins or actions only KAI has) and says once that it
    is not checked. A file Volcano reads by name (``volcano-scheduler.conf``) is always
    checked as Volcano's.

    Failing::

        # KAI Scheduler's config.yaml
        tiers:
        - plugins:
          - name: predicates
          - name: proportion
            arguments: {kValue: "1.0"}
          - name: minruntime
          - name: nodeplacement
            arguments: {cpu: binpack, gpu: binpack}

    Passing::

        actions: "enqueue, allocate, backfill"
        tiers:
        - plugins:
          - name: predicates
          - name: proportion
          - name: binpack
    """,
)
_SEPARATORS = (" ", ";", "\t", "\uff0c", "\u3001")
_ALIASES = frozenset({"numaaware", "tasktopology"})


@record(frozen=True)
class Lookalike:
    """Whose config a Volcano-shaped document is, and what shows it."""

    scheduler: str
    """``KAI Scheduler``, ``kube-batch``, or ``another scheduler``."""
    why: str


@record(frozen=True)
class Place:
    """What the files around a conf say of the scheduler that reads it."""

    scheduler: str
    why: str
    strong: bool = True
    """A scheduler that runs it (or its own ConfigMap); weak: an object of that
    scheduler beside it, or its name, which a conf naming a Volcano plugin that scheduler
    lacks outweighs."""


def lookalike(root: Node, places: tuple[Place, ...] = ()) -> Lookalike | None:
    """Whose config ``root`` is, when it is not Volcano's (see the module docstring)."""
    if not isinstance(root, MappingNode):
        return None
    plugins = _plugin_names(root)
    for place in places:
        theirs = _PLUGINS_OF.get(place.scheduler, frozenset())
        if place.strong or not [name for name in plugins if name in PLUGINS and name not in theirs]:
            return Lookalike(place.scheduler, place.why)
    volcano_only = [name for name in plugins if name in _VOLCANO_ONLY]
    kai_only = [name for name in dict.fromkeys(plugins) if name in _KAI_ONLY]
    if kai_only and not volcano_only:
        listed = ", ".join(f"`{name}`" for name in kai_only[:3])
        return Lookalike(KAI, f"its plugins {listed} are {KAI}'s, not Volcano's")
    return _foreign_actions(root, plugins)


def _foreign_actions(root: MappingNode, plugins: list[str]) -> Lookalike | None:
    actions = scalar(child(root, "actions"))
    if actions is None:
        return None
    foreign = [name for name in _action_names(actions) if _foreign_action(name)]
    if not foreign:
        return None
    unknown = [name for name in plugins if name not in PLUGINS and name not in _ALIASES]
    if len(unknown) <= len(plugins) - len(unknown):
        return None  # Volcano's plugins with a wrong action: a Volcano conf, reported
    listed = ", ".join(f"`{name}`" for name in foreign)
    why = (
        f"its actions {listed} and {len(unknown)} of its {len(plugins)} plugins are no "
        "Volcano release's"
    )
    return Lookalike(KAI if set(foreign) <= KAI_ACTIONS else OTHER, why)


def not_checked(found: Lookalike, root: Node) -> str:
    """PT010's message: whose config it is, why, and that nothing in it is checked."""
    whose = (
        "another scheduler's config in the shape of a Volcano conf"
        if found.scheduler == OTHER
        else f"{found.scheduler}'s config, not Volcano's"
    )
    defaults = (
        f"; {KAI} fills a missing `actions` from its defaults"
        if found.scheduler == KAI
        and isinstance(root, MappingNode)
        and child(root, "actions") is None
        else ""
    )
    return (
        f"this is {whose} ({found.why}{defaults}): policytest judges Volcano's and "
        "kube-scheduler's configs, so nothing in it is checked (Volcano's verdicts do not "
        "apply to it)"
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
