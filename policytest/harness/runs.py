"""The runs of one ``simulate``: every workload with every config (or sweep variant), in
the case's own arrival order and in ``--orders N`` random ones, through one engine.

Each run is :func:`pack` of a :class:`PackingJob` against the workloads, which every run
shares (the engine ships them once per worker): a pure function of picklable inputs, so
the reports are the same whatever ran them. Random orders are seeded: order ``k`` of seed
``S`` is the same permutation on every machine and engine.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from policytest.core.limits import DEFAULT_LIMITS, Limits
from policytest.harness.parallel import Engine, Outcome
from policytest.harness.simulate import PackingReport, Workload, simulate
from policytest.scoring.protocol import Scheduler

__all__ = ["OrderSpread", "PackingJob", "arrival", "pack", "run_all", "spread"]


@dataclass(frozen=True)
class PackingJob:
    """One run: which workload, with which config (its label, its scheduler and the
    release it is judged as), in which order (``None``: the case's own; ``k``: the
    ``k``-th random order of ``seed``)."""

    workload: int
    label: str
    scheduler: Scheduler
    release: str
    order: int | None = None
    seed: int = 0
    limits: Limits = DEFAULT_LIMITS
    """What the run's topology plugins may check (a worker process counts against its
    copy of the invocation's budget, as it was when the job was sent)."""

    def __str__(self) -> str:
        """How a failed run is named: its config and order."""
        order = "" if self.order is None else f", random order {self.order + 1} of seed {self.seed}"
        return f"{self.label}{order}"


def arrival(count: int, seed: int, order: int) -> tuple[int, ...]:
    """Random order ``order`` of ``seed``: a permutation of ``count`` pods' positions
    (``random.Random`` seeded with a string is the same on every platform and release)."""
    return tuple(random.Random(f"policytest:{seed}:{order}").sample(range(count), count))


def pack(workloads: Sequence[Workload], job: PackingJob) -> PackingReport:
    """One run: the job's workload placed with its config, in its order."""
    workload = workloads[job.workload]
    order = None if job.order is None else arrival(len(workload.pods), job.seed, job.order)
    return simulate(
        job.scheduler, workload, job.label, None, job.release, order, job.order, job.limits
    )


def run_all(
    engine: Engine,
    workloads: Sequence[Workload],
    jobs: Sequence[PackingJob],
    done: Callable[[int], None] | None = None,
) -> list[Outcome[PackingJob, PackingReport]]:
    """Every job's outcome, in the jobs' order."""
    return engine.run(pack, tuple(workloads), jobs, done)


@dataclass(frozen=True)
class OrderSpread:
    """Nodes in use over one config's random arrival orders."""

    label: str
    path: str
    case: str
    runs: int
    least: int
    median: float
    most: int


def spread(reports: Sequence[PackingReport]) -> list[OrderSpread]:
    """Per workload and config, the distribution of nodes in use over its random orders
    (the reports with an ``order``), in the order the configs first appear."""
    groups: dict[tuple[str, str, str], list[int]] = {}
    for report in reports:
        if report.order is not None:
            key = (report.path, report.case, report.label)
            groups.setdefault(key, []).append(report.nodes_in_use)
    return [
        OrderSpread(
            label, path, case, len(counts), min(counts), statistics.median(counts), max(counts)
        )
        for (path, case, label), counts in groups.items()
    ]
