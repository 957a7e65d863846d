"""Independent runs in parallel: in this process, in local worker processes, or on Dask.

A sweep's variants and ``--orders``' arrival orders are runs that share one large input
(the workload: nodes, pods, a repack's start) and differ in a small job (a config, an
order). Every engine here has one shape, ``run(function, shared, jobs, done)``: the
shared input travels to each worker process once (a local worker gets it as it starts, a
Dask worker from one broadcast scatter) and stays there for every run it takes; each job
is sent with its run. The package serialises nothing itself: the process pool and Dask
carry objects between this process and workers it started, never bytes from a file. A
run's exception is caught where it ran and comes back as that job's failure (its
parameters are the job), so it never loses the others' results; a local worker that dies
fails the runs it held, and the rest run again in a fresh pool. Results come back in the
jobs' order, whatever ran them and whenever they finished: the same inputs give the same
results, byte for byte, on every engine.

Dask (``pip install 'policytest[dask]'``, :mod:`policytest.harness.daskengine`) is
imported only for ``--dask``.
"""

from __future__ import annotations

import copyreg
import gc
import os
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from policytest.core.errors import PolicytestError
from policytest.core.gctuning import leave_oldest_generation, young_collections_only

__all__ = [
    "Engine",
    "EngineError",
    "LocalPool",
    "Outcome",
    "Serial",
    "engine_for",
    "worker_count",
]

J = TypeVar("J")
R = TypeVar("R")
Done = Callable[[int], None]
"""Told how many runs have finished, as they finish."""


def _mapping_proxy(items: dict[Any, Any]) -> types.MappingProxyType[Any, Any]:
    return types.MappingProxyType(items)


# The scorers keep their weights in read-only mappings; a config's scheduler travels to a
# worker with its job, so they pickle as the mapping they wrap.
copyreg.pickle(types.MappingProxyType, lambda proxy: (_mapping_proxy, (dict(proxy),)))


class EngineError(PolicytestError):
    """An engine that cannot run anything (a Dask scheduler that does not answer, Dask
    not installed): one line that names it."""


@dataclass(frozen=True)
class Outcome(Generic[J, R]):
    """One run: its job, and its result or why it failed (``"ValueError: ..."``)."""

    job: J
    result: R | None
    error: str = ""
    refused: bool = False
    """The run refused its input (a :class:`~policytest.core.errors.PolicytestError`,
    such as a spent budget: ``error`` is its message), rather than failing."""


class Engine(Protocol):
    def run(
        self,
        function: Callable[[Any, J], R],
        shared: object,
        jobs: Sequence[J],
        done: Done | None = None,
    ) -> list[Outcome[J, R]]: ...

    def close(self) -> None: ...


def attempt(function: Callable[[Any, J], R], shared: object, job: J) -> Outcome[J, R]:
    """Run one job, its failure caught as its outcome (the boundary of a worker).

    The garbage collector leaves alone what existed before the run (the shared input:
    a 5,000-node workload is a million objects) and makes no full collection during it;
    the run's own garbage is collected when it ends. A cluster's state holds reference
    cycles, so each run left 200,000 objects for the collector: a process that ran 32
    variants grew to 1.8 GB, and a worker's full collections, walking the shared input
    again and again, took 2 of a run's 9 seconds."""
    gc.freeze()
    try:
        with young_collections_only():
            outcome = _outcome(function, shared, job)
        gc.collect()  # only what the run made: the rest is frozen
        return outcome
    finally:
        gc.unfreeze()


def _outcome(function: Callable[[Any, J], R], shared: object, job: J) -> Outcome[J, R]:
    try:
        return Outcome(job, function(shared, job))
    except PolicytestError as error:
        return Outcome(job, None, str(error), refused=True)
    except Exception as error:
        return Outcome(job, None, f"{type(error).__name__}: {error}")


class Serial:
    """Every run in this process, one after another (``--workers 1``)."""

    def run(
        self,
        function: Callable[[Any, J], R],
        shared: object,
        jobs: Sequence[J],
        done: Done | None = None,
    ) -> list[Outcome[J, R]]:
        outcomes = []
        for count, job in enumerate(jobs, 1):
            outcomes.append(attempt(function, shared, job))
            if done is not None:
                done(count)
        return outcomes

    def close(self) -> None:
        pass


_SHARED: list[object] = []
"""A local worker process's shared input, installed once as the worker starts."""


def _install(_: object, shared: object) -> None:
    """A local worker's initializer: keeps the shared input for every run it takes."""
    _SHARED[:] = [shared]


class _YoungCollectionsFirst:
    """The first of a local worker's initializer arguments: a worker unpickles them as it
    starts, before any code of policytest runs in it, and this one is rebuilt by setting
    the worker's collector to young collections only (the worker runs nothing but the
    runs, which set it so themselves). Unpickling a 5,000-node workload, a million
    objects, under the default thresholds made full collections take 1.2 of its 1.5 s."""

    def __reduce__(self) -> tuple[Callable[[], None], tuple[()]]:
        return leave_oldest_generation, ()


def _pooled(function: Callable[[Any, J], R], job: J) -> Outcome[J, R]:
    return attempt(function, _SHARED[0], job)


class LocalPool:
    """Runs in ``workers`` local processes (``--workers N``): each worker receives the
    shared input once, when it starts (``spawn``: no state of this process leaks in)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def run(
        self,
        function: Callable[[Any, J], R],
        shared: object,
        jobs: Sequence[J],
        done: Done | None = None,
    ) -> list[Outcome[J, R]]:
        results: dict[int, Outcome[J, R]] = {}
        pending = list(range(len(jobs)))
        alone = False  # after a worker died: each job in a pool of its own
        while pending:
            groups = [[index] for index in pending] if alone else [pending]
            for group in groups:
                self._pool(function, shared, jobs, group, results, done)
            failed = [i for i in pending if i not in results]
            pending, alone = failed, True
        return [results[index] for index in range(len(jobs))]

    def _pool(
        self,
        function: Callable[[Any, J], R],
        shared: object,
        jobs: Sequence[J],
        indices: list[int],
        results: dict[int, Outcome[J, R]],
        done: Done | None,
    ) -> None:
        """Run ``indices`` in one pool; a worker that dies fails the pool's unfinished
        runs, which stay out of ``results`` (and run again alone) unless they ran alone."""
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed
        from concurrent.futures.process import BrokenProcessPool

        context = multiprocessing.get_context("spawn")
        workers = min(self.workers, len(indices))
        with ProcessPoolExecutor(
            workers, context, initializer=_install, initargs=(_YoungCollectionsFirst(), shared)
        ) as pool:
            futures = {pool.submit(_pooled, function, jobs[i]): i for i in indices}
            for future in as_completed(futures):
                index = futures[future]
                try:
                    results[index] = future.result()
                except BrokenProcessPool:
                    if len(indices) == 1:
                        results[index] = Outcome(jobs[index], None, "the worker process died")
                    continue
                if done is not None:
                    done(len(results))

    def close(self) -> None:
        pass


def worker_count(workers: int | None) -> int:
    """``--workers N``, else the machine's cores."""
    return workers or os.cpu_count() or 1


def engine_for(workers: int | None) -> Engine:
    """``--workers N`` (default: the machine's cores; 1 runs in this process); Dask's
    engine is :class:`policytest.harness.daskengine.DaskEngine`."""
    count = worker_count(workers)
    return Serial() if count == 1 else LocalPool(count)
