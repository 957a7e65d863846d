"""Which plugins a kube-scheduler *build* registers: the in-tree ones, plus the
out-of-tree plugins of a known distribution or of the user's own binary.

A scheduler built with ``app.NewSchedulerCommand(app.WithPlugin(...))`` knows more
plugins than kube-scheduler itself; a config written for it names them in its plugin
sets and ``pluginConfig``. The project settings (``kubeScheduler.distribution`` and
``kubeScheduler.plugins``) say which build a repository's configs are for, and the
:class:`Registry` built here is what the framework checks consult.

``scheduler-plugins`` is kubernetes-sigs/scheduler-plugins **v0.34.7** (commit
8283b1452a3a): the plugins its ``cmd/scheduler/main.go`` registers, the extension
points each one implements (its methods: ``Less`` is a queue sort, ``PreFilter``,
``Filter``, ``PostFilter``, ``Reserve``/``Unreserve``, ``Permit``, ``PreScore``,
``Score``, ``PostBind``) and the args kinds its ``apis/config/v1`` registers (the
plugins without one, such as CapacityScheduling in this release, take no args).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from policytest.core.options import CheckOptions, CustomPlugin, kube_release
from policytest.core.records import field, record
from policytest.kube.registry import EXTENSION_POINTS, PLUGINS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

SCHEDULER_PLUGINS: Final = "scheduler-plugins"
SCHEDULER_PLUGINS_RELEASE: Final = "v0.34.7"

_PF, _F, _PO, _R, _PS, _S = "preFilter", "filter", "postFilter", "reserve", "preScore", "score"
_PERMIT, _POST_BIND, _Q = "permit", "postBind", "queueSort"

# name -> (extension points, args kind or None), from scheduler-plugins v0.34.7.
_SCHEDULER_PLUGINS: Final[dict[str, tuple[frozenset[str], str | None]]] = {
    "CapacityScheduling": (frozenset({_PF, _PO, _R}), None),
    "Coscheduling": (frozenset({_Q, _PF, _PO, _PERMIT, _R}), "CoschedulingArgs"),
    "LoadVariationRiskBalancing": (frozenset({_S}), "LoadVariationRiskBalancingArgs"),
    "NetworkOverhead": (frozenset({_PF, _F, _S}), "NetworkOverheadArgs"),
    "TopologicalSort": (frozenset({_Q}), "TopologicalSortArgs"),
    "NodeResourcesAllocatable": (frozenset({_S}), "NodeResourcesAllocatableArgs"),
    "NodeResourceTopologyMatch": (
        frozenset({_F, _R, _S, _POST_BIND}),
        "NodeResourceTopologyMatchArgs",
    ),
    "PreemptionToleration": (frozenset({_PO}), "PreemptionTolerationArgs"),
    "TargetLoadPacking": (frozenset({_S}), "TargetLoadPackingArgs"),
    "LowRiskOverCommitment": (frozenset({_PS, _S}), "LowRiskOverCommitmentArgs"),
    "SySched": (frozenset({_S}), "SySchedArgs"),
    "Peaks": (frozenset({_S}), "PeaksArgs"),
    "PodState": (frozenset({_S}), None),
    "QOSSort": (frozenset({_Q}), None),
}

_TRIMARAN = ("metricProvider", "watcherAddress")  # TrimaranSpec, inlined
ARGS_FIELDS: Final[dict[str, frozenset[str]]] = {
    kind: frozenset({"apiVersion", "kind", *fields})
    for kind, fields in {
        "CoschedulingArgs": (
            "permitWaitingTimeSeconds",
            "podGroupBackoffSeconds",
            "podGroupRejectPercentage",
        ),
        "NodeResourcesAllocatableArgs": ("resources", "mode"),
        "TargetLoadPackingArgs": (
            *_TRIMARAN,
            "defaultRequests",
            "defaultRequestsMultiplier",
            "targetUtilization",
        ),
        "LoadVariationRiskBalancingArgs": (
            *_TRIMARAN,
            "safeVarianceMargin",
            "safeVarianceSensitivity",
        ),
        "LowRiskOverCommitmentArgs": (*_TRIMARAN, "smoothingWindowSize", "riskLimitWeights"),
        "NodeResourceTopologyMatchArgs": (
            "scoringStrategy",
            "cacheResyncPeriodSeconds",
            "discardReservedNodes",
            "cache",
        ),
        "PreemptionTolerationArgs": ("minCandidateNodesPercentage", "minCandidateNodesAbsolute"),
        "TopologicalSortArgs": ("namespaces",),
        "NetworkOverheadArgs": ("namespaces", "weightsName", "networkTopologyName"),
        "SySchedArgs": ("defaultProfileNamespace", "defaultProfileName"),
    }.items()
}
"""The top-level JSON fields of scheduler-plugins v0.34.7's args kinds (``apis/config/v1``).
kube-scheduler decodes a registered args kind strictly, so any other field stops it.
``PeaksArgs`` is left out: its struct tags are malformed upstream, so which names it
accepts is not what the source seems to say."""

DISTRIBUTIONS: Final[dict[str, tuple[str, dict[str, tuple[frozenset[str], str | None]]]]] = {
    SCHEDULER_PLUGINS: (f"scheduler-plugins {SCHEDULER_PLUGINS_RELEASE}", _SCHEDULER_PLUGINS),
}
"""Known builds: name -> (release modelled, its out-of-tree plugins)."""


def distribution_plugins(name: str) -> tuple[CustomPlugin, ...]:
    """The out-of-tree plugins of a known distribution (``KeyError`` if unknown)."""
    origin, plugins = DISTRIBUTIONS[name]
    return tuple(
        CustomPlugin(plugin, points, args_kind, origin)
        for plugin, (points, args_kind) in plugins.items()
    )


def _frozen(mapping: Mapping[str, frozenset[str]]) -> Mapping[str, frozenset[str]]:
    return MappingProxyType(dict(mapping))


_IN_TREE_POINTS: Final = _frozen(PLUGINS)
_NO_CUSTOM: Final[Mapping[str, CustomPlugin]] = MappingProxyType({})


@record(frozen=True)
class Registry:
    """The plugins one scheduler build knows.

    ``points``: plugin -> the extension points it implements (in-tree, and out-of-tree
    ones whose points are known). ``open``: out-of-tree plugins whose points were not
    declared; they are accepted at every extension point, and multiPoint expands them
    everywhere except queueSort and bind (which a build's queue sort or binder would
    have to be declared for). ``custom``: every out-of-tree plugin, for args.
    """

    # the one shared read-only mapping (a record refuses an unhashable default)
    points: Mapping[str, frozenset[str]] = field(default_factory=lambda: _IN_TREE_POINTS)
    open: frozenset[str] = frozenset()
    # the one shared read-only mapping (a record refuses an unhashable default)
    custom: Mapping[str, CustomPlugin] = field(default_factory=lambda: _NO_CUSTOM)

    def knows(self, name: str) -> bool:
        return name in self.points or name in self.open

    def implements(self, name: str) -> frozenset[str] | None:
        """The points ``name`` implements; every point for an open plugin; ``None``
        for a plugin this build does not have."""
        if name in self.open:
            return frozenset(EXTENSION_POINTS)
        return self.points.get(name)

    def names(self) -> frozenset[str]:
        return frozenset(self.points) | self.open

    def __hash__(self) -> int:
        return hash((tuple(sorted(self.points)), self.open, tuple(sorted(self.custom))))


IN_TREE: Final = Registry()


def registry_for(
    plugins: Iterable[CustomPlugin], in_tree: Mapping[str, frozenset[str]] = PLUGINS
) -> Registry:
    """The in-tree registry (``in_tree``: the release's, default 1.35's) with these
    out-of-tree plugins added (a later declaration of a name replaces an earlier one;
    in-tree names cannot be replaced)."""
    custom = {plugin.name: plugin for plugin in plugins if plugin.name not in in_tree}
    if not custom:
        return IN_TREE if in_tree is PLUGINS else Registry(_frozen(in_tree))
    points = dict(in_tree)
    open_names: set[str] = set()
    for plugin in custom.values():
        if plugin.extension_points is None:
            open_names.add(plugin.name)
        else:
            points[plugin.name] = frozenset(plugin.extension_points)
    return Registry(_frozen(points), frozenset(open_names), MappingProxyType(custom))


def options_registry(options: CheckOptions) -> Registry:
    """The registry of the build ``options`` describe: its distribution's plugins, then
    the plugins declared one by one."""
    from policytest.kube.release_facts import registry

    distribution = options.kube_distribution
    known = distribution_plugins(distribution) if distribution in DISTRIBUTIONS else ()
    return registry_for((*known, *options.kube_plugins), registry(kube_release(options)))
