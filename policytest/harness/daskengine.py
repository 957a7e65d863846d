"""Runs on a Dask cluster (``--dask ADDRESS``, or ``--dask local``): the engine of
:mod:`policytest.harness.parallel` on ``distributed.Client``, whose ``submit`` and
``as_completed`` have the shape of a process pool's.

A platform team points it at the Dask cluster it already runs (the Dask Kubernetes
operator, the Helm chart): the workers need policytest installed. The shared input is
scattered to every worker once (``broadcast``), and each run is given the worker's copy.
A run's exception comes back as its failure; a worker lost (``KilledWorker`` after
Dask's own retries) fails the runs it held."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from policytest.harness.parallel import Done, EngineError, Outcome, attempt

__all__ = ["DaskEngine"]

J = TypeVar("J")
R = TypeVar("R")

_LOCAL_WORKERS: dict[str, object] = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
}
"""The configuration of the cluster ``--dask local`` starts (its scheduler and nannies
take it as they are made), for diagnostics that no one reads on a cluster that lives for
one command: the statistical profiler samples a running task's stack every 10 ms for the
dashboard; the event loop's tick (every 20 ms) and system monitor (every 0.5 s) wake a
thread that takes the interpreter lock from the run. On a 5,000-node sweep the profiler
cost 15 % of the time, and the tick and monitor about 10 % more. A cluster named by
address keeps its own configuration."""


def _on_worker(shared: object, function: Callable[[Any, J], R], job: J) -> Outcome[J, R]:
    return attempt(function, shared, job)


class DaskEngine:
    """A Dask client: of the scheduler at ``address``, or of a ``LocalCluster`` of
    ``workers`` single-threaded processes (``address`` ``local``)."""

    def __init__(self, address: str, workers: int, timeout: float = 5.0) -> None:
        try:
            import dask
            from distributed import Client, LocalCluster
        except ImportError:
            raise EngineError(
                "--dask needs Dask's distributed scheduler: pip install 'policytest[dask]'"
            ) from None
        self.cluster: Any = None
        self.client: Any = None
        try:
            if address == "local":
                with dask.config.set(_LOCAL_WORKERS):
                    self.cluster = LocalCluster(
                        n_workers=workers,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=":0",  # any free port: never a clash with another
                    )
                self.client = Client(self.cluster)
            else:
                self.client = Client(address, timeout=timeout)
        except (OSError, TimeoutError, ValueError) as error:
            self.close()
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise EngineError(
                f"the Dask scheduler at {address} does not answer: {reason}"
            ) from None

    def run(
        self,
        function: Callable[[Any, J], R],
        shared: object,
        jobs: Sequence[J],
        done: Done | None = None,
    ) -> list[Outcome[J, R]]:
        from distributed import as_completed

        [scattered] = self.client.scatter([shared], broadcast=True, hash=False)
        futures = {
            self.client.submit(_on_worker, scattered, function, job, pure=False): index
            for index, job in enumerate(jobs)
        }
        results: dict[int, Outcome[J, R]] = {}
        for future in as_completed(futures):
            index = futures[future]
            try:
                results[index] = future.result()
            except Exception as error:
                results[index] = Outcome(jobs[index], None, f"{type(error).__name__}: {error}")
            if done is not None:
                done(len(results))
        return [results[index] for index in range(len(jobs))]

    def close(self) -> None:
        for part in (self.client, self.cluster):
            if part is not None:
                part.close()
