"""A profile as kube-scheduler holds it after v1 defaulting, before validation.

Shared by the validation (:mod:`policytest.kube.semantics`) and the warnings about
what a valid profile does (:mod:`policytest.kube.advice`).
"""

from __future__ import annotations

from policytest.core.records import record
from policytest.kube.framework import Path, PluginSet
from policytest.kube.resources import BalancedArgsData, FitArgs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class PluginConfigEntry:
    """One ``pluginConfig`` item: the plugin name, its args as written, its path."""

    name: str
    args: Any
    path: Path

    @property
    def args_path(self) -> Path:
        return (*self.path, "args")


@record(frozen=True)
class ProfileData:
    """A profile after v1 defaulting, with the paths of what the user wrote."""

    path: Path
    name: str
    written: dict[str, Any]
    custom: dict[str, PluginSet]
    sets: dict[str, PluginSet]
    plugin_config: tuple[PluginConfigEntry, ...]
    fit: FitArgs
    balanced: BalancedArgsData

    def configured(self, plugin: str) -> PluginConfigEntry | None:
        return next((e for e in self.plugin_config if e.name == plugin), None)
