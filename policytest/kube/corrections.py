"""What kube-scheduler holds where its configuration writes something else.

kube-scheduler starts with a weight of 0 (a score plugin's, or a resource's of
NodeResourcesFit or BalancedAllocation) and holds it as 1. ``explain`` and ``run`` show
each such correction of the profile a fixture runs as one line
(``NodeResourcesFit weight: written 0, kube-scheduler uses 1``).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policytest.kube.model import Profile


def kube_corrections(profile: Profile) -> tuple[str, ...]:
    """One line per weight of ``profile`` written 0 and held as 1."""
    lines = []
    for raised in profile.raised_weights:
        plugin, _, resource = raised.partition("/")
        if resource:
            lines.append(f"{plugin} resource {resource} weight: written 0, kube-scheduler uses 1")
        else:
            held = profile.weight(plugin)
            lines.append(f"{plugin} weight: written 0, kube-scheduler uses {held or 1}")
    return tuple(lines)
