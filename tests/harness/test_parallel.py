"""The engines of independent runs (:mod:`policytest.harness.parallel`): the same outcomes
in the same order on every engine, the shared input shipped once, a failed run reported
with its job and never losing the others' results."""

from __future__ import annotations

import gc
import os
import pickle
from typing import Any

import pytest

from policytest.core.gctuning import OLDEST_GENERATION_THRESHOLD
from policytest.harness.parallel import LocalPool, Outcome, Serial, engine_for

PICKLED = {"count": 0}
"""How often this process pickled a :class:`Shared` (the parent's count)."""
UNPICKLED = {"count": 0}
"""How often this process unpickled one (a worker's count)."""


UNPICKLED_UNDER: list[tuple[int, int, int]] = []
"""The collector's thresholds when this process unpickled a :class:`Shared`."""


def _rebuilt(payload: list[int]) -> Shared:
    UNPICKLED["count"] += 1
    UNPICKLED_UNDER.append(gc.get_threshold())
    return Shared(payload)


class Shared:
    """A large shared input that counts how often it travels."""

    def __init__(self, payload: list[int]) -> None:
        self.payload = payload

    def __reduce__(self) -> tuple[Any, tuple[list[int]]]:
        PICKLED["count"] += 1
        return _rebuilt, (self.payload,)


def square(shared: Shared, job: int) -> tuple[int, int, int]:
    """A run: its result, and how often this worker unpickled the shared input."""
    if job < 0:
        raise ValueError(f"job {job} is negative")
    return job * job + shared.payload[0], UNPICKLED["count"], os.getpid()


def die(shared: Shared, job: int) -> int:
    if job == 3:
        os._exit(1)  # the worker process is lost mid-run
    return job


JOBS = list(range(8))


def test_every_engine_gives_the_same_outcomes_in_the_jobs_order() -> None:
    shared = Shared([5])
    serial = Serial().run(square, shared, JOBS)
    pooled = LocalPool(2).run(square, shared, JOBS)
    assert [o.result[0] for o in serial if o.result] == [j * j + 5 for j in JOBS]
    assert [o.result[0] for o in pooled if o.result] == [o.result[0] for o in serial if o.result]
    assert [o.job for o in pooled] == JOBS


def test_the_shared_input_travels_once_per_worker_never_per_run() -> None:
    PICKLED["count"] = 0
    outcomes = LocalPool(2).run(square, Shared([1] * 100_000), list(range(12)))
    assert 1 <= PICKLED["count"] <= 2  # once for each worker, not for each of 12 runs
    results = [o.result for o in outcomes if o.result is not None]
    assert {result[1] for result in results} == {1}  # each worker unpickled it once
    assert len({result[2] for result in results}) <= 2


def test_a_failed_run_is_reported_with_its_job_and_the_others_stand() -> None:
    done: list[int] = []
    for engine in (Serial(), LocalPool(2)):
        outcomes = engine.run(square, Shared([0]), [1, -2, 3], done.append)
        assert outcomes[1] == Outcome(-2, None, "ValueError: job -2 is negative")
        assert [o.result[0] for o in (outcomes[0], outcomes[2]) if o.result] == [1, 9]
    assert done == [1, 2, 3, 1, 2, 3]  # the progress counts every run, failed or not


def test_a_worker_that_dies_fails_its_run_only() -> None:
    outcomes = LocalPool(2).run(die, Shared([0]), list(range(6)))
    assert [o.result for o in outcomes] == [0, 1, 2, None, 4, 5]
    assert outcomes[3].error == "the worker process died"


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def collecting(shared: Shared, job: int) -> tuple[int, int, int, list[tuple[int, int, int]]]:
    """A run that leaves cyclic garbage in the oldest generation (where only a full
    collection finds it): what the collector does meanwhile."""
    made = _Cycle()
    gc.collect(1)  # survivors of the middle generation move to the oldest
    del made
    return gc.get_count()[2], gc.get_threshold()[2], gc.get_freeze_count(), UNPICKLED_UNDER


def test_a_run_leaves_no_garbage_and_its_shared_input_is_never_walked() -> None:
    """A run makes no full collection and freezes what existed before it (a worker's
    full collections walked its million-object shared input again and again); its own
    cyclic garbage is collected as it ends, and nothing stays frozen."""
    shared = Shared([0])
    before = gc.get_threshold()
    (outcome,) = Serial().run(collecting, shared, [0])
    assert outcome.result is not None
    _, oldest, frozen, _ = outcome.result
    assert oldest == OLDEST_GENERATION_THRESHOLD
    assert frozen > 0  # what existed before the run
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == before
    assert not [o for o in gc.get_objects() if isinstance(o, _Cycle)]


def test_a_worker_unpickles_its_shared_input_without_full_collections() -> None:
    """Unpickling a 5,000-node workload under the default thresholds spent most of its
    time in full collections: a local worker's collector is set before it is rebuilt."""
    outcomes = LocalPool(2).run(collecting, Shared([0]), [0, 1])
    for outcome in outcomes:
        assert outcome.result is not None
        (under,) = outcome.result[3]
        assert under[2] == OLDEST_GENERATION_THRESHOLD


def test_one_worker_runs_in_this_process() -> None:
    assert isinstance(engine_for(1), Serial)
    assert isinstance(engine_for(3), LocalPool)
    assert isinstance(engine_for(None), Serial if (os.cpu_count() or 1) == 1 else LocalPool)


def test_schedulers_travel_to_workers(tmp_path: Any) -> None:
    """A config's scheduler goes with each run: Volcano's keeps read-only mappings."""
    from policytest.harness.load import scheduler_from_file

    volcano = scheduler_from_file("fixtures/configs/volcano-rsf-gpu-most-allocated.yaml")
    assert pickle.loads(pickle.dumps(volcano)).name == "volcano"


@pytest.fixture(autouse=True)
def _at_the_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers import this module by name: from the checkout's root."""
    monkeypatch.chdir(os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
