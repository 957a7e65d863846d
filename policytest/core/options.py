"""Options that change what the checks conclude (not how findings are shown)."""

from __future__ import annotations

from policytest.core import releases
from policytest.core.findings import Finding, Severity
from policytest.core.limits import DEFAULT_LIMITS, Limits
from policytest.core.records import field, record, replace
from policytest.core.releases import (
    DEFAULT_KUBERNETES,
    DEFAULT_VOLCANO,
    KubeRelease,
    VolcanoRelease,
)

NEWEST_VOLCANO = DEFAULT_VOLCANO
"""The default Volcano release (the newest stable one; see ``policytest.core.releases``)."""
NEWEST_KUBERNETES = DEFAULT_KUBERNETES
"""The default kube-scheduler release (the newest judged exactly)."""


@record(frozen=True)
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


@record(frozen=True)
class RuleFilter:
    """``--select`` / ``--ignore``: rule ids or prefixes (``VB``, ``VB00``, ``VB004``).

    The one rule filter of every command and of the pytest plugin: it decides which
    findings are shown and counted, never what the scheduler does with a config.
    """

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severities: tuple[tuple[str, Severity], ...] = ()
    """The settings file's ``severity``: (rule id or prefix, severity); the longest
    matching prefix decides a finding's severity in place of its rule's."""

    def allows(self, rule_id: str) -> bool:
        if self.select and not rule_id.startswith(self.select):
            return False
        return not rule_id.startswith(self.ignore) if self.ignore else True

    def graded(self, finding: Finding) -> Finding:
        """``finding`` at the severity the project chose for its rule, if it chose one."""
        matching = [(len(p), s) for p, s in self.severities if finding.rule.startswith(p)]
        if not matching:
            return finding
        severity = max(matching, key=lambda match: match[0])[1]
        return finding if severity is finding.severity else replace(finding, severity=severity)


def rule_ids(text: str) -> tuple[str, ...]:
    """``VB,ks001`` as rule ids or prefixes: ``("VB", "KS001")``."""
    return tuple(item.strip().upper() for item in text.split(",") if item.strip())


@record(frozen=True)
class CheckOptions:
    """Which scheduler releases to judge a config against, the input limits, and the root
    that fixtures' configs must stay inside.

    ``volcano_version`` / ``kubernetes_version`` select a row of ``policytest.core.releases``
    (from the command line or the settings file); ``kube_release`` / ``volcano_release``
    read them and raise ``UnsupportedRelease`` for a release outside the table."""

    volcano_version: str = NEWEST_VOLCANO
    kubernetes_version: str = NEWEST_KUBERNETES
    limits: Limits = field(default_factory=Limits)
    root: str | None = None
    """Where fixtures' configs must live (``None``: each fixture's git repository root,
    else the working directory)."""
    rules: RuleFilter = field(default_factory=RuleFilter)
    """Which findings are shown and counted (``--select``/``--ignore``, the settings
    file's ``select``/``ignore``, suppression comments aside)."""
    kube_distribution: str | None = None
    """A known kube-scheduler build (``scheduler-plugins``) whose out-of-tree plugins the
    kube-scheduler checks know (project settings ``kubeScheduler.distribution``)."""
    kube_plugins: tuple[CustomPlugin, ...] = ()
    """Out-of-tree plugins of the kube-scheduler build (project settings ``kubeScheduler``)."""
    volcano_plugins: tuple[str, ...] = ()
    """Custom Volcano plugins loaded with ``--plugins-dir`` (project settings ``volcano``)."""
    release_flags: frozenset[str] = frozenset()
    """The release fields (``kubernetes_version``, ``volcano_version``) given on the
    command line: a fixture that states another release is refused, not overridden."""
    forced_releases: frozenset[str] = frozenset()
    """The release fields an upgrade preview sets for every fixture, also those that
    state their own release (``policytest upgrade``'s target side)."""


DEFAULT_OPTIONS = CheckOptions(limits=DEFAULT_LIMITS)


def kube_release(options: CheckOptions) -> KubeRelease:
    """The kube-scheduler release ``options`` selects."""
    return releases.kube_release(options.kubernetes_version)


def volcano_release(options: CheckOptions) -> VolcanoRelease:
    """The Volcano release ``options`` selects."""
    return releases.volcano_release(options.volcano_version)
