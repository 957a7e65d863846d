"""The scheduler releases policytest judges, and what each one does differently.

One row per supported release. ``--kubernetes-version`` / ``--volcano-version`` (and the
settings file's ``kubernetesVersion`` / ``volcanoVersion``, through ``CheckOptions``)
select a row; a release outside the table is refused with :class:`UnsupportedRelease`
(a usage error naming the supported range), never judged by a guess.

Sources of each fact (read, then ported):

- kube-scheduler 1.35 and 1.36: ``pkg/scheduler`` of v1.35.4 and v1.36.3 (resource plugins,
  defaults, validation) and the real code's verdicts and scores (tests/data).
- 1.33 and 1.34: ``pkg/scheduler`` of v1.33.13 and v1.34.9 (resource plugins, default
  plugins, defaults, validation) and the real code's config verdicts (tests/data). Their
  resource plugins compute what 1.35's do (the code differs in types only); 1.33 has no
  ``DynamicResourcesArgs`` (args under DynamicResources are never read) and leaves
  DynamicResources out of the defaults (DynamicResourceAllocation off); 1.34 knows
  ``filterTimeout`` only and runs DynamicResources as a filter, not a score plugin;
  ``PodLevelResources`` is on from 1.34. 1.33's TaintToleration names the taint in its
  filter reason (``taint_reason_names_taint``).
- 1.37: the v0.37 API types add ``plugins.podGroupPostFilter``; no 1.37 plugin code was
  at hand, so its scoring and the rest of its validation are 1.36's (``modelled_from``).
- Volcano: ``pkg/scheduler/util.go``, ``plugins/factory.go``, ``actions/factory.go`` and
  ``go.mod`` of each tag; ``GetPodResourceRequest`` for the overhead order.
"""

from __future__ import annotations

import re

from policytest.core.errors import PolicytestError
from policytest.core.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, Literal, TypeVar

    BalancedFormula = Literal["with-pod", "balance-change"]
    """``with-pod``: ``int64((1 - std) * 100)`` on the node with the pod (up to 1.35);
    ``balance-change``: ``50 + (50 + S(with pod) - S(without pod)) / 2`` (1.36, PR #135573)."""

__all__ = [
    "DEFAULT_KUBERNETES",
    "DEFAULT_VOLCANO",
    "KUBE_RELEASES",
    "VOLCANO_RELEASES",
    "KubeRelease",
    "UnsupportedRelease",
    "Version",
    "VolcanoRelease",
    "kube_release",
    "parse_release",
    "show",
    "summary",
    "supported_range",
    "volcano_release",
]

Version = tuple[int, int]

_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.\d+)?(?:-[0-9A-Za-z.]+)?")


class UnsupportedRelease(PolicytestError, ValueError):
    """A release policytest does not judge (or not a release number at all)."""


def parse_release(text: str) -> Version | None:
    """``1.36``, ``v1.36.3``, ``1.16.0-alpha.1`` -> (1, 36); ``None`` for anything else."""
    match = _VERSION.fullmatch(text.strip())
    return (int(match.group(1)), int(match.group(2))) if match else None


def show(version: Version) -> str:
    """(1, 29) -> ``1.29``."""
    return f"{version[0]}.{version[1]}"


# --- kube-scheduler ------------------------------------------------------------------------

_BASE_PLUGIN_SETS: Final = (
    "preEnqueue",
    "queueSort",
    "preFilter",
    "filter",
    "postFilter",
    "preScore",
    "score",
    "reserve",
    "permit",
    "preBind",
    "bind",
    "postBind",
    "multiPoint",
)


@record(frozen=True)
class KubeRelease:
    """What one kube-scheduler release does that another does not."""

    version: Version
    balanced_allocation: BalancedFormula
    """NodeResourcesBalancedAllocation's formula."""
    pod_level_resources: bool
    """``PodLevelResources`` default: pod-level ``resources.requests`` count (filter,
    BalancedAllocation, node accounting; Fit's *score* ignores them in every release)."""
    plugin_sets: tuple[str, ...]
    """The keys of ``profiles[].plugins`` the API decodes (others: unknown field)."""
    new_plugins: frozenset[str]
    """In-tree plugins added since 1.33 that this release registers."""
    default_plugins: frozenset[str]
    """Gated plugins in the default multiPoint set (``DynamicResources``,
    ``NodeDeclaredFeatures``)."""
    dra_args: tuple[str, ...] | None
    """``DynamicResourcesArgs`` fields (``None``: the kind is not registered, so the args
    are accepted unchecked)."""
    dra_binding_timeout_gate: bool
    """``DRADeviceBindingConditions`` and ``DRAResourceClaimDeviceStatus`` both on:
    ``bindingTimeout`` accepted at 1s or more and defaulted to 10m; otherwise forbidden."""
    dra_scores: bool
    """DynamicResources implements Score and joins the default profile with weight 2
    (1.35+); in 1.34 it is in the default multiPoint set without a weight and only
    filters, so a score set naming it is refused."""
    strict_ratio_block: bool
    """``requestedToCapacityRatio`` must be set exactly when the type is
    RequestedToCapacityRatio (1.36); before, a block beside another type is ignored
    (its shape still checked) and a missing one crashes the scheduler."""
    ground_truth: str
    modelled_from: str | None = None
    """Where a part of the row is taken from another release (said in --verbose)."""
    image_volume_locality: bool = False
    """ImageLocality counts the pod's image volumes (1.36+, kubernetes PR #130135)."""
    taint_reason_names_taint: bool = False
    """TaintToleration's filter reason names the first untolerated taint,
    ``untolerated taint {key: value}`` (1.33); from 1.34 it says ``untolerated taint(s)``."""

    @property
    def name(self) -> str:
        return show(self.version)

    @property
    def placement(self) -> bool:
        """``placementGenerate`` / ``placementScore`` exist (1.36+)."""
        return "placementScore" in self.plugin_sets


_PLACEMENT_SETS: Final = ("placementGenerate", "placementScore")
_PLACEMENT_PLUGINS: Final = frozenset(
    {"NodeDeclaredFeatures", "GangScheduling", "PodGroupPodsCount", "TopologyPlacementGenerator"}
)
"""The new in-tree plugins of 1.36 and later."""
KUBE_RELEASES: Final[tuple[KubeRelease, ...]] = (
    KubeRelease(
        (1, 33),
        balanced_allocation="with-pod",
        pod_level_resources=False,
        plugin_sets=_BASE_PLUGIN_SETS,
        new_plugins=frozenset(),
        default_plugins=frozenset(),
        dra_args=None,
        dra_binding_timeout_gate=False,
        dra_scores=False,
        strict_ratio_block=False,
        ground_truth="real v1.33.13: 232 config verdicts; resource plugins, defaults and "
        "validation read from its code; full-profile totals equal to 1.35.4's",
        taint_reason_names_taint=True,
    ),
    KubeRelease(
        (1, 34),
        balanced_allocation="with-pod",
        pod_level_resources=True,
        plugin_sets=_BASE_PLUGIN_SETS,
        new_plugins=frozenset(),
        default_plugins=frozenset({"DynamicResources"}),
        dra_args=("filterTimeout",),
        dra_binding_timeout_gate=False,
        dra_scores=False,
        strict_ratio_block=False,
        ground_truth="real v1.34.9: 232 config verdicts; resource plugins, defaults and "
        "validation read from its code; full-profile totals equal to 1.35.4's",
    ),
    KubeRelease(
        (1, 35),
        balanced_allocation="with-pod",
        pod_level_resources=True,
        plugin_sets=_BASE_PLUGIN_SETS,
        new_plugins=frozenset({"NodeDeclaredFeatures", "GangScheduling"}),
        default_plugins=frozenset({"DynamicResources"}),
        dra_args=("filterTimeout", "bindingTimeout"),
        dra_binding_timeout_gate=False,
        dra_scores=True,
        strict_ratio_block=False,
        ground_truth="real v1.35.4: 3035 scores, 192 config verdicts (+40 beside 1.36)",
    ),
    KubeRelease(
        (1, 36),
        balanced_allocation="balance-change",
        pod_level_resources=True,
        plugin_sets=(*_BASE_PLUGIN_SETS, *_PLACEMENT_SETS),
        new_plugins=_PLACEMENT_PLUGINS,
        default_plugins=frozenset({"DynamicResources", "NodeDeclaredFeatures"}),
        dra_args=("filterTimeout", "bindingTimeout"),
        dra_binding_timeout_gate=True,
        dra_scores=True,
        strict_ratio_block=True,
        image_volume_locality=True,
        ground_truth="real v1.36.3: 779 scores, 40 config verdicts",
    ),
    KubeRelease(
        (1, 37),
        balanced_allocation="balance-change",
        pod_level_resources=True,
        plugin_sets=(*_BASE_PLUGIN_SETS, *_PLACEMENT_SETS, "podGroupPostFilter"),
        new_plugins=_PLACEMENT_PLUGINS,
        default_plugins=frozenset({"DynamicResources", "NodeDeclaredFeatures"}),
        dra_args=("filterTimeout", "bindingTimeout"),
        dra_binding_timeout_gate=True,
        dra_scores=True,
        strict_ratio_block=True,
        image_volume_locality=True,
        ground_truth="v0.37.0-beta.0 API types (podGroupPostFilter); no 1.37 plugin code run",
        modelled_from="1.36 (scores, plugin registry, args validation: no 1.37 plugin source "
        "was available; only the API types were read)",
    ),
)
DEFAULT_KUBERNETES: Final = "1.36"
"""The newest release judged exactly (1.37 is partly modelled from 1.36)."""


# --- Volcano -------------------------------------------------------------------------------


@record(frozen=True)
class VolcanoRelease:
    """What one Volcano release does that another does not (the action and plugin names
    each release registers are in :mod:`policytest.volcano.versions`)."""

    version: Version
    kubernetes: str
    """The Kubernetes library it builds on (``go.mod``): nodeorder calls its plugins."""
    unknown_action_rejects: bool
    """An unknown action rejects the conf (else: logged "ignore it", the rest run)."""
    overhead_first: bool
    """``GetPodResourceRequest`` adds the pod overhead to the containers before taking the
    maximum with the init containers (up to v1.14); from v1.15 after it."""
    getbool_parses_strings: bool
    """``Arguments.GetBool`` parses a string with ``strconv.ParseBool`` (from v1.15; before,
    a string is ignored with a warning): deviceshare's flags, network-topology-aware's
    ``hypernode.binpack.normal-pod.enable``."""
    hypernode_binpack: bool
    """network-topology-aware reads the ``hypernode.binpack.*`` arguments (from v1.14)."""
    ground_truth: str
    prerelease: bool = False

    @property
    def name(self) -> str:
        return show(self.version)

    @property
    def balanced_allocation(self) -> BalancedFormula:
        """nodeorder's balancedresource is its Kubernetes library's BalancedAllocation."""
        return kube_formula(parse_release(self.kubernetes) or (1, 0))

    @property
    def image_volume_locality(self) -> bool:
        """nodeorder's ImageLocality counts the pod's image volumes: its Kubernetes
        library's from 1.36 (v1.15, on 1.35, gives them 0)."""
        return (parse_release(self.kubernetes) or (1, 0)) >= (1, 36)


def kube_formula(version: Version) -> BalancedFormula:
    return "balance-change" if version >= (1, 36) else "with-pod"


_VOLCANO_SOURCES = "sources of the tag (util.go, factories, nodeorder, binpack)"
_RSF = "; resource-strategy-fit oracle"
# release, Kubernetes library, unknown action rejects, overhead first, GetBool parses
# strings, hypernode.binpack.*, tag (and its ground truth)
_VOLCANO_ROWS: Final = (
    ((1, 9), "1.29", True, True, False, False, "v1.9.1", ""),
    ((1, 10), "1.30", True, True, False, False, "v1.10.2", ""),
    ((1, 11), "1.31", True, True, False, False, "v1.11.2", ""),
    ((1, 12), "1.32", False, True, False, False, "v1.12.4", ""),
    ((1, 13), "1.33", False, True, False, False, "v1.13.3", _RSF),
    ((1, 14), "1.34", True, True, False, True, "v1.14.4", _RSF),
    ((1, 15), "1.35", True, False, True, True, "v1.15.1", f"; real binpack scores{_RSF}"),
    ((1, 16), "1.36", True, False, True, True, "v1.16.0-alpha.1", _RSF),
)  # fmt: skip
VOLCANO_RELEASES: Final[tuple[VolcanoRelease, ...]] = tuple(
    VolcanoRelease(
        version=version,
        kubernetes=kubernetes,
        unknown_action_rejects=rejects,
        overhead_first=first,
        getbool_parses_strings=getbool,
        hypernode_binpack=hypernode,
        ground_truth=f"{tag} {_VOLCANO_SOURCES}{extra}",
        prerelease="-" in tag,
    )
    for version, kubernetes, rejects, first, getbool, hypernode, tag, extra in _VOLCANO_ROWS
)
DEFAULT_VOLCANO: Final = "1.15"
"""The newest stable Volcano release (v1.16 is a pre-release)."""


# --- selecting a row -----------------------------------------------------------------------


if TYPE_CHECKING:
    _Row = TypeVar("_Row", KubeRelease, VolcanoRelease)


def supported_range(rows: tuple[KubeRelease, ...] | tuple[VolcanoRelease, ...]) -> str:
    """``1.33 to 1.37``: the first and last release of a table."""
    return f"{rows[0].name} to {rows[-1].name}"


def _select(rows: tuple[_Row, ...], text: str, scheduler: str, default: str) -> _Row:
    version = parse_release(text)
    for row in rows:
        if row.version == version:
            return row
    raise UnsupportedRelease(
        f"{scheduler} {text!r} is not a release policytest judges: it judges "
        f"{supported_range(rows)} (default {default})"
    )


def kube_release(text: str) -> KubeRelease:
    """The row for ``--kubernetes-version`` (``1.36``, ``v1.36.3``); raise
    :class:`UnsupportedRelease` naming the supported range otherwise."""
    return _select(KUBE_RELEASES, text, "kube-scheduler", DEFAULT_KUBERNETES)


def volcano_release(text: str) -> VolcanoRelease:
    """The row for ``--volcano-version`` (``1.15``, ``v1.16.0-alpha.1``); raise
    :class:`UnsupportedRelease` naming the supported range otherwise."""
    return _select(VOLCANO_RELEASES, text, "Volcano", DEFAULT_VOLCANO)


def summary() -> str:
    """One line per scheduler: the releases judged and the default (``--version``)."""
    kube = ", ".join(row.name + ("*" if row.modelled_from else "") for row in KUBE_RELEASES)
    volcano = ", ".join(
        row.name + (" (pre-release)" if row.prerelease else "") for row in VOLCANO_RELEASES
    )
    return (
        f"kube-scheduler {kube} (default {DEFAULT_KUBERNETES}; * partly modelled from "
        f"another release, see --verbose)\nVolcano {volcano} (default {DEFAULT_VOLCANO})"
    )


def describe(kube: KubeRelease, volcano: VolcanoRelease) -> list[str]:
    """What ``validate --verbose`` says about the releases being judged."""
    lines = [
        f"judging kube-scheduler {kube.name} (ground truth: {kube.ground_truth}); "
        f"supported {supported_range(KUBE_RELEASES)}, default {DEFAULT_KUBERNETES}",
    ]
    if kube.modelled_from:
        lines.append(f"kube-scheduler {kube.name} is partly modelled from {kube.modelled_from}")
    lines.append(
        f"judging Volcano {volcano.name} (built on Kubernetes {volcano.kubernetes}; "
        f"ground truth: {volcano.ground_truth}); supported {supported_range(VOLCANO_RELEASES)}, "
        f"default {DEFAULT_VOLCANO}"
    )
    return lines
