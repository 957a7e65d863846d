"""What every text report says beside the scores: what the scheduler does that policytest
does not simulate, and the order its queue took a sequence's pods in.

Both stay short at cluster scale: a queue of thousands of pods is summed up per
priority, its pods named by their listed positions in runs (``pods 1-40, 81-120``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from policytest.harness.queue import PodQueue
from policytest.harness.runner import Step, positions_name
from policytest.reporters.quoting import text
from policytest.reporters.validate.text import plural
from policytest.scoring.protocol import NotSimulated

NOT_SIMULATED_HEADING: Final = (
    "Not simulated (the scheduler does this on a real cluster; the result shows it without):"
)
MAX_PRIORITIES: Final = 6
"""Priorities shown in a queue summary; the rest are counted."""


def not_simulated_lines(items: Sequence[NotSimulated]) -> list[str]:
    """The heading, then one line per item (empty when there are none)."""
    if not items:
        return []
    return [NOT_SIMULATED_HEADING, *(f"  {text(item.describe())}" for item in items)]


def not_simulated_names(items: Sequence[NotSimulated]) -> str:
    """``preempt, reclaim``: the names alone, for a summary line."""
    return ", ".join(text(item.name) for item in items)


def queue_lines(queue: PodQueue | None) -> list[str]:
    """How the queue took a sequence's pods, when that is not simply as listed with one
    priority: ``Queue (PrioritySort: priority, then arrival by creation time):``, then
    one line per priority, highest first."""
    if queue is None or queue.plain:
        return []
    arrival = "arrival by creation time" if queue.by_creation else "arrival as listed"
    how = f"PrioritySort: priority, then {arrival}" if queue.priority_sort else arrival
    lines = [f"Queue ({how}):"]
    by_priority: dict[int, list[int]] = {}
    for position in queue.order:
        by_priority.setdefault(queue.priorities[position], []).append(position)
    groups = list(by_priority.items())
    for priority, positions in groups[:MAX_PRIORITIES]:
        count = plural(len(positions), "pod")
        lines.append(f"  priority {priority:,}: {count} ({positions_name(positions)})")
    if len(groups) > MAX_PRIORITIES:
        rest = sum(len(positions) for _, positions in groups[MAX_PRIORITIES:])
        lines.append(
            f"  ... {len(groups) - MAX_PRIORITIES:,} more priorities with {plural(rest, 'pod')}"
        )
    return lines


def pending_line(steps: Sequence[Step]) -> list[str]:
    """``pending: pods 1-2, 7`` (listed positions), when some pod was left pending."""
    pending = sorted(step.index for step in steps if step.node is None)
    return [f"pending: {positions_name(pending)}"] if pending else []
