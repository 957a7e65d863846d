"""Each side's own project settings file, for ``policytest diff`` between revisions.

A pull request that moves ``kubernetesVersion`` from 1.35 to 1.36 changes what the
cluster does as surely as a config edit. Each side of the diff reads the settings file
at its own revision, and the options of each side are built from it:

- what describes the cluster (``kubernetesVersion``, ``volcanoVersion``,
  ``kubeScheduler.distribution``) comes from each side's own file;
- what judges findings (``select``, ``ignore``, ``severity``, declared custom plugins)
  comes from the base's file, so a change cannot silence its own findings, unless the
  head's is asked for (``--head-settings``);
- command-line flags win over both, as everywhere.

Every key that differs is a :class:`~policytest.diff.model.SettingsChange`, shown in
every format whether it was applied or not.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Final

from policytest.core.options import CheckOptions, RuleFilter
from policytest.core.records import replace
from policytest.diff.git import DiffError, Side
from policytest.diff.model import SettingsChange
from policytest.harness.releases import with_release
from policytest.read.project_settings import (
    NO_SETTINGS,
    SETTINGS_NAMES,
    ProjectSettings,
    SettingsError,
    load_settings,
)

__all__ = [
    "CommandLine",
    "SideSettings",
    "affects",
    "compare",
    "read",
    "side_options",
    "with_setting",
]

KUBE = "kube-scheduler"
VOLCANO = "volcano"
DESCRIBES_THE_CLUSTER = (
    ("kubernetesVersion", "kubernetes_version", KUBE),
    ("volcanoVersion", "volcano_version", VOLCANO),
    ("kubeScheduler.distribution", "kube_distribution", KUBE),
)
"""(key, ``ProjectSettings`` field, the scheduler it describes)."""


@dataclass(frozen=True)
class CommandLine:
    """What the command line said, before any settings file: the options of the flags
    alone (defaults elsewhere), whether ``--select``/``--ignore`` were given, the
    ``--settings`` file named, and whether the head's judging settings apply."""

    options: CheckOptions
    check: Callable[[ProjectSettings], ProjectSettings]
    """Checks a settings file for meaning as the flags are checked (a release outside
    the table, an unknown rule: :class:`SettingsError`)."""
    rule_flags: frozenset[str] = frozenset()
    """``select`` / ``ignore`` when given on the command line."""
    explicit: str | None = None
    head_settings: bool = False


@dataclass(frozen=True)
class SideSettings:
    """The settings file one side reads (``NO_SETTINGS`` when it has none)."""

    path: str
    settings: ProjectSettings


def read(side: Side, repository_root: str, start: str, command: CommandLine) -> SideSettings:
    """The settings file of ``side``: ``--settings`` (at this revision when it lies in the
    repository; both sides read it when it lies outside), else the nearest one above
    ``start`` inside the repository as this revision has it (a file above the checkout is
    never read). Raises :class:`DiffError` for a file the side cannot use."""
    explicit = command.explicit
    for relative in _candidates(repository_root, start, explicit):
        if side.has(relative):
            side.materialise([relative])
            try:
                loaded = load_settings(side.path(relative), root=side.root)
                return SideSettings(relative, command.check(replace(loaded, path=relative)))
            except SettingsError as error:
                shown = str(error).replace(side.path(relative), relative)
                raise DiffError(f"{shown} (at {side.label})") from None
    outside = _outside(repository_root, explicit)
    if outside is None:
        return SideSettings("", NO_SETTINGS)
    try:
        return SideSettings(outside, command.check(load_settings(outside)))
    except SettingsError as error:
        raise DiffError(str(error)) from None


def _candidates(root: str, start: str, explicit: str | None) -> list[str]:
    """Repository-relative paths to look for, nearest first."""
    if explicit is not None:
        real = os.path.realpath(explicit)
        relative = os.path.relpath(real, root)
        inside = not (relative == os.pardir or relative.startswith(os.pardir + os.sep))
        return [relative.replace(os.sep, "/")] if inside else []
    found = []
    directory = os.path.relpath(os.path.realpath(start), root)
    while not directory.startswith(os.pardir):
        prefix = "" if directory == os.curdir else directory.replace(os.sep, "/") + "/"
        found += [prefix + name for name in SETTINGS_NAMES]
        if directory == os.curdir:
            break
        directory = os.path.dirname(directory) or os.curdir
    return found


def _outside(root: str, explicit: str | None) -> str | None:
    """The ``--settings`` file named outside the repository, which both sides read."""
    if explicit is None:
        return None
    real = os.path.realpath(explicit)
    return explicit if os.path.relpath(real, root).startswith(os.pardir) else None


def compare(
    before: ProjectSettings, after: ProjectSettings, head_settings: bool
) -> tuple[SettingsChange, ...]:
    """Every key that differs, in the settings file's order of importance."""
    changes = [
        SettingsChange(key, getattr(before, field), getattr(after, field))
        for key, field, _ in DESCRIBES_THE_CLUSTER
        if getattr(before, field) != getattr(after, field)
    ]
    judging = (
        ("select", _listed(before.select), _listed(after.select)),
        ("ignore", _listed(before.ignore), _listed(after.ignore)),
        ("severity", _severities(before), _severities(after)),
        (
            "kubeScheduler.plugins",
            _listed(tuple(p.name for p in before.kube_plugins)),
            _listed(tuple(p.name for p in after.kube_plugins)),
        ),
        ("volcano.plugins", _listed(before.volcano_plugins), _listed(after.volcano_plugins)),
    )
    changes += [
        SettingsChange(key, old, new, applied=head_settings)
        for key, old, new in judging
        if old != new
    ]
    return tuple(changes)


def _listed(items: Sequence[str] | None) -> str | None:
    return None if items is None else "[" + ", ".join(items) + "]"


def _severities(settings: ProjectSettings) -> str | None:
    if not settings.severity:
        return None
    return "{" + ", ".join(f"{rule}: {level.value}" for rule, level in settings.severity) + "}"


def side_options(
    command: CommandLine, own: ProjectSettings, judging: ProjectSettings
) -> CheckOptions:
    """The options of one side: its own file's cluster description, ``judging``'s
    rules and declared plugins, the flags over both."""
    flags = command.options
    options = flags
    for _, field, _ in DESCRIBES_THE_CLUSTER[:2]:
        value = getattr(own, field)
        if field not in flags.release_flags and value is not None:
            options = with_release(options, field, value)
    select = flags.rules.select if "select" in command.rule_flags else judging.select or ()
    ignore = flags.rules.ignore if "ignore" in command.rule_flags else judging.ignore or ()
    options = replace(options, rules=RuleFilter(select, ignore, severities=judging.severity))
    return replace(
        options,
        kube_distribution=own.kube_distribution or flags.kube_distribution,
        kube_plugins=(*flags.kube_plugins, *judging.kube_plugins),
        volcano_plugins=(*flags.volcano_plugins, *judging.volcano_plugins),
    )


def with_setting(base: ProjectSettings, head: ProjectSettings, key: str) -> ProjectSettings:
    """``base`` with the head's value of the setting ``key`` (one that describes the
    cluster; any other key judges findings, which both sides share): the settings of a
    side that has that one change alone."""
    for name, field, _ in DESCRIBES_THE_CLUSTER:
        if name == key:
            return replace(base, **{field: getattr(head, field)})
    return base


def affects(change: SettingsChange, scheduler: str | None, pinned: Collection[str]) -> bool:
    """Does an applied ``change`` change how a fixture of ``scheduler`` (``kube-scheduler``,
    ``volcano``) is judged? Not a release the fixture states itself (``pinned``); the
    rules (``select``/``ignore``) judge every fixture's findings."""
    if not change.applied or change.key in pinned:
        return False
    owner = _OWNERS.get(change.key)
    return owner is None or owner == scheduler


_OWNERS: Final = {key: owner for key, _, owner in DESCRIBES_THE_CLUSTER} | {
    "kubeScheduler.plugins": KUBE,
    "volcano.plugins": VOLCANO,
}
"""The scheduler each setting that describes the cluster is about."""
