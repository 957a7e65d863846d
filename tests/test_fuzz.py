"""Fuzzing with a short budget: mutated real configs and fixtures, and raw bytes.

Every input goes through the reader, ``validate``, the fixture loader and runner, and the
CLI (see :mod:`tests.fuzzing` for the seeds, the mutations and the properties). The long
run is ``benchmarks/fuzz_long.py``; set ``POLICYTEST_FUZZ_EXAMPLES`` to run more here.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import fuzzing
from tests.fuzzing import Workspace


def budget(default: int) -> settings:
    return settings(
        max_examples=int(os.environ.get("POLICYTEST_FUZZ_EXAMPLES", default)),
        deadline=timedelta(seconds=10),  # generous: a hang, not a slow machine, should fail
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    return Workspace(tmp_path_factory.mktemp("fuzz-repo"))


@pytest.mark.parametrize("name", fuzzing.FIXTURE_SEEDS)
def test_rendered_seed_fixtures_pass_before_any_mutation(workspace: Workspace, name: str) -> None:
    """The renderer is faithful: a seed fixture written back out still passes."""
    data = fuzzing.render(fuzzing.seed_documents(name)).encode()
    path = workspace.write("seed.policytest.yaml", data)
    results = fuzzing.run_file(str(path), fuzzing.OPTIONS, str(workspace.root))
    assert results and all(result.status == "passed" for result in results), results


@budget(40)
@given(fuzzing.documents_strategy())
def test_reader_never_raises(data: bytes) -> None:
    fuzzing.check_reader(data)


@budget(8)
@given(fuzzing.documents_strategy())
def test_validate_never_raises(workspace: Workspace, data: bytes) -> None:
    with workspace.inside():
        fuzzing.check_validate(workspace, data)


@budget(6)
@given(fuzzing.fixture_cases())
def test_fixture_loader_and_runner_never_raise(
    workspace: Workspace, case: tuple[bytes, bytes | None]
) -> None:
    with workspace.inside():
        fuzzing.check_run(workspace, *case)


@budget(3)
@given(fuzzing.fixture_cases())
def test_cli_exits_with_documented_codes(
    workspace: Workspace, case: tuple[bytes, bytes | None]
) -> None:
    with workspace.inside():
        fuzzing.check_cli(workspace, *case)


@budget(10)
@given(st.binary(max_size=2048))
def test_raw_bytes_through_validate(workspace: Workspace, data: bytes) -> None:
    with workspace.inside():
        fuzzing.check_validate(workspace, data)


def test_the_marker_check_can_fail(workspace: Workspace) -> None:
    """If a tag ever ran ``touch``, ``Workspace.inside`` would notice."""
    with pytest.raises(AssertionError, match="a YAML tag executed code"):  # noqa: SIM117
        with workspace.inside():
            Path(fuzzing.MARKER).touch()
    (workspace.root / fuzzing.MARKER).unlink()
