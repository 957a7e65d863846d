"""The scheduler's silent corrections of a loaded config, for ``explain`` and ``run``.

A config the scheduler loads is scored as loaded: Volcano resets a negative resource
weight to 1, skips a quoted or fractional weight (keeping the default) and ignores the
weight of a resource not listed in ``binpack.resources``; kube-scheduler holds a
weight of 0 as 1. Each correction is one line, ``binpack.cpu: written -1, Volcano
uses 1``, read from the same effective settings ``diff`` shows (never from raw YAML).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from policytest.kube.model import KubeSchedulerConfig
    from policytest.volcano.conf import VolcanoConf

_RESOURCE_WEIGHT = "binpack.resources."


def volcano_corrections(conf: VolcanoConf) -> tuple[str, ...]:
    """Every setting Volcano holds differently from how the conf writes it."""
    from policytest.diff_settings import volcano_settings
    from policytest.volcano.binpack_args import BINPACK
    from policytest.volcano.weights import BinpackWeights

    lines = [
        f"{setting.key}: written {setting.written}, Volcano uses {setting.value}"
        for setting in volcano_settings(conf)
        if setting.written is not None
    ]
    calls = conf.calls(BINPACK)
    weights = conf.binpack
    if calls and isinstance(weights, BinpackWeights):
        source = calls[0].source
        for key, value in (source.arguments or {}).items():
            name = key[len(_RESOURCE_WEIGHT) :]
            if key.startswith(_RESOURCE_WEIGHT) and name and name not in weights.resources:
                lines.append(
                    f"{key}: written {value}, Volcano ignores it ({name} is not listed in "
                    "binpack.resources)"
                )
    return tuple(lines)


def kube_corrections(config: KubeSchedulerConfig, profile: str) -> tuple[str, ...]:
    """Every setting of one profile kube-scheduler holds differently from the file."""
    from policytest.diff_settings import kube_settings

    prefix = f"profile {profile}: "
    return tuple(
        f"{setting.key[len(prefix) :]}: written {setting.written}, kube-scheduler uses "
        f"{setting.value}"
        for setting in kube_settings(config)
        if setting.written is not None and setting.key.startswith(prefix)
    )
