"""``simulate --dask``: a real ``distributed.LocalCluster`` runs the same runs as the local
workers, byte for byte; the shared input is scattered once; an address that does not
answer is one line naming it, with nothing written."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

import pytest

from policytest.harness.daskengine import DaskEngine
from policytest.harness.parallel import EngineError, Outcome
from tests.conftest import RunLine
from tests.harness.test_parallel import PICKLED, Shared, square
from tests.harness.test_sweep import SWEEP

pytestmark = [
    # distributed's scheduler leaves its HTTP server's probe socket to the collector
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]


@pytest.fixture(scope="module")
def cluster() -> Any:
    """One LocalCluster of two single-threaded worker processes for the module."""
    os.chdir(Path(__file__).parent.parent.parent)  # workers import tests.* by name
    engine = DaskEngine("local", 2)
    yield engine
    engine.close()


def test_the_cluster_gives_the_same_outcomes_in_the_jobs_order(cluster: DaskEngine) -> None:
    PICKLED["count"] = 0
    jobs = list(range(24))
    outcomes = cluster.run(square, Shared([5] * 1000), jobs)
    assert [o.result[0] for o in outcomes if o.result] == [j * j + 5 for j in jobs]
    assert PICKLED["count"] == 1  # scattered once, not once per run
    # Each worker holds the broadcast copy for all its runs (about 12 each). Under load Dask
    # may also hand a worker the copy a run asked for while the broadcast was in flight.
    assert max(o.result[1] for o in outcomes if o.result) <= 2


def test_a_failed_run_on_a_worker_is_reported_with_its_job(cluster: DaskEngine) -> None:
    done: list[int] = []
    outcomes = cluster.run(square, Shared([0]), [2, -1, 4], done.append)
    assert outcomes[1] == Outcome(-1, None, "ValueError: job -1 is negative")
    assert [o.result[0] for o in (outcomes[0], outcomes[2]) if o.result] == [4, 16]
    assert done == [1, 2, 3]


@pytest.mark.parametrize("form", ["text", "json"])
def test_reports_are_the_same_on_dask_as_on_local_workers(run_line: RunLine, form: str) -> None:
    args = [*SWEEP, "--orders", "1", "--format", form]
    local = run_line([*args, "--workers", "2"])
    dask = run_line([*args, "--workers", "2", "--dask", "local"])
    assert dask.exit_code == local.exit_code == 0, dask
    assert dask.stdout == local.stdout


def test_an_address_that_does_not_answer_is_one_line_and_writes_nothing(
    run_line: RunLine, tmp_path: Path
) -> None:
    with socket.socket() as free:  # a port on this machine nothing listens on
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    out = tmp_path / "report.html"
    ran = run_line([*SWEEP, "--dask", address, "--format", "json"])
    assert ran.exit_code == 2 and ran.stdout == ""
    (line,) = ran.stderr.splitlines()[-1:]
    assert line.startswith(f"policytest: error: the Dask scheduler at {address} does not answer")
    assert "Traceback" not in ran.stderr and not out.exists()
    with pytest.raises(EngineError, match=address):
        DaskEngine(address, 1, timeout=1.0)


def _diagnostics() -> tuple[object, object, object]:
    import dask

    return (
        dask.config.get("distributed.worker.profile.enabled"),
        dask.config.get("distributed.admin.tick.interval"),
        dask.config.get("distributed.admin.system-monitor.interval"),
    )


def test_the_local_cluster_s_workers_do_not_profile_the_runs() -> None:
    """Dask's profiler samples every running task, and its tick and system monitor wake
    a thread that takes the interpreter lock, for a dashboard that no one reads on a
    cluster that lives for one command: they cost a 5,000-node sweep a quarter of its
    time."""
    before = _diagnostics()
    engine = DaskEngine("local", 1)
    try:
        assert set(engine.client.run(_diagnostics).values()) == {(False, "1s", "2s")}
    finally:
        engine.close()
    assert _diagnostics() == before == (True, "20ms", "500ms")  # this process's stay
