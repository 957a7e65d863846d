"""Every scenario of the real Volcano v1.15.1 and v1.16.0-alpha.1 sessions
(tests/data/oracle/volcano-session), replayed: the record's ``List`` read as a snapshot,
its pending pods scheduled for the record's sessions under its conf. The set of bound
pods matches everywhere, each pod's node where the real scheduler was deterministic
over its 8 runs, each PodGroup's phase after the last session; each session's binds in
commit order too where deterministic. The README's ten facts are tested on the same
records and on the replay."""

from __future__ import annotations

import functools
import gzip
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from policytest.sessions.result import SessionsResult
from tests.sessions.replay import replay_list

DATA = Path(__file__).parent.parent / "data" / "oracle" / "volcano-session"
RELEASES = ("1.15.1", "1.16.0-alpha.1")


@functools.cache
def records(release: str) -> tuple[dict[str, Any], ...]:
    with gzip.open(DATA / f"volcano-session-{release}.jsonl.gz", "rt") as lines:
        return tuple(json.loads(line) for line in lines)


def replay(record: Mapping[str, Any], release: str) -> tuple[SessionsResult, dict[str, str]]:
    """The record's input run (once per record): the result, and each pending pod's node
    ("" unbound)."""
    return _replayed(record["id"], release)


@functools.cache
def _replayed(identifier: str, release: str) -> tuple[SessionsResult, dict[str, str]]:
    record = next(r for r in records(release) if r["id"] == identifier)
    source = record["input"]
    return replay_list(source["objects"], source["conf"], source["sessions"], release, identifier)


def _bound(final: Mapping[str, str]) -> set[str]:
    return {pod for pod, node in final.items() if node}


@pytest.mark.parametrize("release", RELEASES)
def test_every_scenario_matches_the_real_scheduler(release: str) -> None:
    mismatches = []
    counts = {"scenarios": 0, "deterministic": 0, "pods": 0, "phases": 0}
    for record in records(release):
        result, final = replay(record, release)
        expected = record["result"]
        counts["scenarios"] += 1
        if expected["boundSetStable"] and _bound(final) != _bound(expected["final"]):
            mismatches.append((record["id"], "bound set"))
        if expected["deterministic"]:
            counts["deterministic"] += 1
            counts["pods"] += len(final)
            if final != expected["final"]:
                mismatches.append((record["id"], "nodes"))
            for ours, theirs in zip(result.sessions, expected["sessions"], strict=True):
                binds = [(bind.pod, bind.node) for bind in ours.binds]
                if binds != [(b["pod"], b["node"]) for b in theirs["binds"]]:
                    mismatches.append((record["id"], f"session {theirs['index']} commit order"))
        phases = {key: outcome.phase for key, outcome in result.pod_groups.items()}
        counts["phases"] += len(phases)
        if expected["phasesStable"] and phases != expected["finalPodGroups"]:
            mismatches.append((record["id"], "phases"))
    assert mismatches == []
    assert counts["scenarios"] == 154
    assert counts["deterministic"] == {"1.15.1": 106, "1.16.0-alpha.1": 113}[release]


def _all(release: str, group: str = "") -> list[dict[str, Any]]:
    return [r for r in records(release) if r["group"].startswith(group)]


@pytest.mark.parametrize("release", RELEASES)
def test_fact_1_a_gang_binds_whole_or_not_at_all(release: str) -> None:
    unbound_gangs = 0
    for record in _all(release):
        result, _ = replay(record, release)
        for record_session in result.sessions:
            for outcome in record_session.jobs.values():
                assert (
                    outcome.bound == 0
                    or outcome.bound >= outcome.min_member
                    or (
                        record["id"].startswith("edges-be")  # fact 2
                    )
                )
                if outcome.bound == 0 and outcome.phase != "Running":
                    unbound_gangs += 1
                    assert "tasks in gang unschedulable" in outcome.reason
    assert unbound_gangs > 0


@pytest.mark.parametrize("release", RELEASES)
def test_fact_2_pending_best_effort_members_count_as_ready(release: str) -> None:
    gangs = {r["id"]: r for r in _all(release, "edges") if r["id"].startswith("edges-be")}
    assert gangs
    for record in gangs.values():
        result, final = replay(record, release)
        assert final == record["result"]["final"]
        partial = [o for o in result.pod_groups.values() if 0 < o.bound < o.min_member]
        assert partial and all(o.phase == "Inqueue" for o in partial)


@pytest.mark.parametrize("release", RELEASES)
def test_fact_3_extra_tasks_interleave_with_other_jobs(release: str) -> None:
    interleaved = 0
    for record in _all(release):
        if not record["result"]["deterministic"]:
            continue
        result, _ = replay(record, release)
        jobs = [bind.pod.rsplit("-", 2)[0] for bind in result.sessions[0].binds]
        runs = [job for index, job in enumerate(jobs) if index == 0 or jobs[index - 1] != job]
        interleaved += len(runs) != len(set(runs))
    assert interleaved > 10


def _priorities(record: Mapping[str, Any]) -> dict[str, int]:
    """Each PodGroup's priority (``namespace/name``: its PriorityClass's value, 0 without)."""
    items = record["input"]["objects"]["items"]
    values = {i["metadata"]["name"]: i["value"] for i in items if i["kind"] == "PriorityClass"}
    return {
        f"{i['metadata'].get('namespace', 'default')}/{i['metadata']['name']}": values.get(
            i["spec"].get("priorityClassName", ""), 0
        )
        for i in items
        if i["kind"] == "PodGroup"
    }


@pytest.mark.parametrize("release", RELEASES)
def test_fact_4_the_higher_priority_job_binds_first(release: str) -> None:
    """Of two jobs of one queue with different priorities that both bound in session 1,
    the higher one's first bind comes first, in every scenario; the priority scenarios
    the real scheduler ran deterministically are matched pod by pod."""
    pairs = 0
    for record in _all(release):
        result, final = replay(record, release)
        priority = _priorities(record)
        first = result.sessions[0]
        owner = {pod: job.key for job in first.jobs.values() for pod in job.pods}
        starts: dict[str, int] = {}
        for index, bind in enumerate(first.binds):
            starts.setdefault(owner[bind.pod], index)
        for one in starts:
            for other in starts:
                same_queue = first.jobs[one].queue == first.jobs[other].queue
                if same_queue and priority[one] > priority[other]:
                    pairs += 1
                    assert starts[one] < starts[other], (record["id"], one, other)
        if record["group"] == "priority" and record["result"]["deterministic"]:
            assert final == record["result"]["final"]
    assert pairs > 50


@pytest.mark.parametrize("release", RELEASES)
def test_fact_5_queues_alternate_and_capability_holds_a_gang(release: str) -> None:
    capability = next(r for r in _all(release, "edges") if r["id"] == "edges-queue-capability")
    result, _ = replay(capability, release)
    phases = sorted(outcome.phase for outcome in result.pod_groups.values())
    assert "Pending" in phases and "Running" in phases
    for record in _all(release, "queues"):
        if record["result"]["deterministic"]:
            assert replay(record, release)[1] == record["result"]["final"]


@pytest.mark.parametrize("release", RELEASES)
def test_fact_6_enqueue_gates_allocation(release: str) -> None:
    never = 0
    for record in _all(release):
        result, _ = replay(record, release)
        never += sum(1 for o in result.pod_groups.values() if o.phase == "Pending")
        if record["group"] == "no_enqueue":
            assert all(o.phase != "Pending" for o in result.pod_groups.values())
    assert never > 0


@pytest.mark.parametrize("release", RELEASES)
def test_fact_7_the_phase_lags_one_session(release: str) -> None:
    """Every PodGroup's phase after each session is the real scheduler's wherever its
    phases were stable over the 8 runs; only the README's transitions occur (Pending ->
    Inqueue -> Running, Pending -> Inqueue, Inqueue -> Inqueue -> Running, or a phase
    that stays); a gang bound in session 1 is Running from session 2; sessions after the
    first bind nothing."""
    seen: set[tuple[str, ...]] = set()
    for record in _all(release):
        result, _ = replay(record, release)
        for ours, theirs in zip(result.sessions, record["result"]["sessions"], strict=True):
            phases = {key: outcome.phase for key, outcome in ours.jobs.items()}
            if record["result"]["phasesStable"]:
                assert phases == {k: g["phase"] for k, g in theirs["podGroups"].items()}, (
                    record["id"],
                    theirs["index"],
                )
        for key in result.pod_groups:
            path = [record_session.jobs[key].phase for record_session in result.sessions]
            seen.add(tuple(dict.fromkeys(path)))
        first = result.sessions[0]
        for key, outcome in first.jobs.items():
            if outcome.bound >= outcome.min_member > 0 and len(result.sessions) > 1:
                assert first.jobs[key].phase == "Inqueue"
                assert result.sessions[1].jobs[key].phase == "Running", (record["id"], key)
        assert all(not record_session.binds for record_session in result.sessions[1:])
    assert {("Inqueue", "Running"), ("Inqueue",), ("Pending",)} <= seen
    assert seen <= {("Inqueue", "Running"), ("Inqueue",), ("Pending",), ("Running",)}


@pytest.mark.parametrize("release", RELEASES)
def test_fact_8_packing_decides_whether_the_big_gang_fits(release: str) -> None:
    """The README's edges-gpu8-min2 story, and gpu_frag's pairs (the same inputs under
    the Helm chart's default conf and a GPU-weighted binpack): the 8-GPU gang never
    starts under the default conf alone."""
    story = {r["id"]: replay(r, release)[0] for r in _all(release, "edges")
             if r["id"].startswith("edges-gpu8-min2")}  # fmt: skip
    llm = {conf: result.pod_groups["default/llm"].bound for conf, result in story.items()}
    assert llm["edges-gpu8-min2-gpu_binpack"] == 2
    assert all(bound == 0 for conf, bound in llm.items() if not conf.endswith("gpu_binpack"))
    started: dict[str, dict[str, bool]] = {}
    for record in _all(release, "gpu_frag"):
        result, _ = replay(record, release)
        big = result.pod_groups["default/big"]
        pair, conf = record["id"].rsplit("-", 1)
        started.setdefault(pair, {})[conf] = big.bound >= big.min_member
    pairs = [both for both in started.values() if len(both) == 2]
    assert len(pairs) >= 5
    assert not any(both["default"] and not both["gpu_binpack"] for both in pairs)
    assert any(both["gpu_binpack"] and not both["default"] for both in pairs)


@pytest.mark.parametrize("release", RELEASES)
def test_fact_9_ties_are_reported_where_the_real_scheduler_was_not_deterministic(
    release: str,
) -> None:
    for record in _all(release):
        result, _ = replay(record, release)
        different = [bind for bind in result.ties if not bind.identical]
        if not record["result"]["deterministic"] and record["id"] != "queues-00":
            assert result.ties, record["id"]
        if not result.ties and not result.equal_shares:
            assert record["result"]["deterministic"] or not different, record["id"]


@pytest.mark.parametrize("release", RELEASES)
def test_fact_10_a_gang_that_cannot_fit_does_not_stop_the_next(release: str) -> None:
    for record in _all(release, "gang_nofit"):
        result, _ = replay(record, release)
        assert any(o.bound for o in result.pod_groups.values())
        assert any(o.bound == 0 for o in result.pod_groups.values())
