"""Options that change what the checks conclude (not how findings are shown)."""

from __future__ import annotations

from dataclasses import dataclass, field

from policytest.limits import DEFAULT_LIMITS, Limits

NEWEST_VOLCANO = "1.16"
NEWEST_KUBERNETES = "1.35"


@dataclass(frozen=True)
class CustomPlugin:
    """An out-of-tree kube-scheduler plugin compiled into the user's scheduler build
    (from the project settings: a known distribution's, or one the user declared)."""

    name: str
    extension_points: frozenset[str] | None = None
    """The extension points it implements (``None``: not stated, so accepted anywhere)."""
    args_kind: str | None = "unchecked"
    """Its pluginConfig args: ``"unchecked"`` (accepted as written), the name of its
    args type (a distribution's, accepted), or ``None`` (it takes no args: they are
    ignored)."""
    origin: str = "the project settings"
    """Where policytest learnt of it, for messages (``scheduler-plugins v0.34.7``)."""


@dataclass(frozen=True)
class CheckOptions:
    """Which scheduler releases to judge a config against, the input limits, and the root
    that fixtures' configs must stay inside."""

    volcano_version: str = NEWEST_VOLCANO
    kubernetes_version: str = NEWEST_KUBERNETES
    limits: Limits = field(default_factory=Limits)
    root: str | None = None
    """Where fixtures' configs must live (``None``: each fixture's git repository root)."""
    kube_plugins: tuple[CustomPlugin, ...] = ()
    """Out-of-tree plugins of the kube-scheduler build (project settings ``kubeScheduler``)."""
    volcano_plugins: tuple[str, ...] = ()
    """Custom Volcano plugins loaded with ``--plugins-dir`` (project settings ``volcano``)."""


DEFAULT_OPTIONS = CheckOptions(limits=DEFAULT_LIMITS)
