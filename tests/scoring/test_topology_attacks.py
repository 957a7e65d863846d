"""The seven attacks on the topology plugins' work, at a size the suite affords: the work
done is counted, never timed.

Each attack (``tests/topology_attacks.py``) multiplies by ``count`` what a plugin read
once per pod, term, port, Service or node. Upstream's walk does that work again for
every copy; the plugins here read each pod object, label set and node group once. Each
test runs the attack's fixture through the runner for kube-scheduler's default profile
and Volcano's predicates and nodeorder, and counts what the plugins evaluate (selectors
matched, ports read, Services' selectors read, node terms matched, label sets hashed):
the counts stay near the size of the text, far below what ``count`` multiplies (the
figures in the comments are upstream's walk at these sizes). Where the work is the
input's own (spread constraints on every node), the meter counts it and refuses it past
``topology-checks``: ``tests/shells/test_untrusted_topology.py`` runs those through the
real command line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from policytest.core.limits import Invocation, Limits
from policytest.core.options import CheckOptions
from policytest.harness.load import scheduler_from_file
from policytest.harness.runner import CaseResult
from policytest.harness.suite import run_file
from policytest.scoring.cluster import Pod
from policytest.scoring.plugins import preferences
from policytest.scoring.selectors import Selector
from policytest.scoring.specs import node_from_dict, pod_from_dict
from policytest.scoring.workload import PodWorkload, WorkloadObject
from tests.scoring.test_grouped_topology import KUBE, VOLCANO
from tests.topology_attacks import ATTACKS, Scheduler, write_attack

SCHEDULERS: list[Scheduler] = ["kube", "volcano"]
BY_NAME = {attack.name: attack for attack in ATTACKS}


def _run(directory: Path, name: str, scheduler: Scheduler, **sizes: int) -> tuple[CaseResult, int]:
    """The attack's case result, and the topology checks its meter counted."""
    (directory / ".git").mkdir(exist_ok=True)
    path = write_attack(directory, BY_NAME[name], scheduler, **sizes)
    limits = Limits().for_invocation(Invocation())
    (result,) = run_file(str(path), CheckOptions(limits=limits), str(directory))
    assert result.status != "error", result.message
    return result, limits.invocation.spent.get("topology-checks", 0)


def _counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    """Every call of ``owner.name`` from now on, counted."""
    calls: list[int] = []
    original: Callable[..., Any] = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


@contextmanager
def _reads(cls: type, field: str) -> Iterator[list[int]]:
    """Every read of the slot ``field`` of ``cls`` instances, counted (the slot's own
    descriptor still stores it)."""
    slot = cls.__dict__[field]
    reads: list[int] = []

    def read(self: object) -> object:
        reads.append(1)
        return slot.__get__(self, cls)

    setattr(cls, field, property(read, slot.__set__))
    try:
        yield reads
    finally:
        setattr(cls, field, slot)


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_bound_pods_anti_affinity_terms_are_matched_once_per_pod_object(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scheduler: Scheduler
) -> None:
    """4,000 bound pods with 40 required anti-affinity terms each, on 4 nodes: upstream
    matches 160,000 terms against the incoming pod (Volcano's predicates too); here one
    pod object per node, 40 terms each."""
    calls = _counting(monkeypatch, Selector, "matches")
    _, checks = _run(tmp_path, "required-anti-affinity", scheduler, pods=4_000, terms=40, nodes=4)
    assert len(calls) <= 4 * 40 * 2
    assert checks <= 4 * 40 * 10


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_preferred_pod_affinity_terms_are_matched_once_per_label_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scheduler: Scheduler
) -> None:
    """An incoming pod with 100 preferred terms over 6,000 bound pods of one label set:
    upstream matches 600,000 pairs; here 100."""
    calls = _counting(monkeypatch, Selector, "matches")
    _, checks = _run(tmp_path, "preferred-pod-affinity", scheduler, pods=6_000, terms=100, nodes=3)
    assert len(calls) <= 100 * 3
    assert checks <= 100 * 10


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_bound_pods_host_ports_are_read_once_per_pod_object(
    tmp_path: Path, scheduler: Scheduler
) -> None:
    """4,000 bound pods holding 100 host ports each, on 2 nodes: upstream gathers 400,000
    ports per node for the incoming pod's filter; here each node's pod object is read once."""
    with _reads(PodWorkload, "host_ports") as reads:
        _, checks = _run(tmp_path, "host-ports", scheduler, pods=4_000, ports=100, nodes=2)
    assert len(reads) <= 100  # the incoming pod's, a few times per cycle, and 2 objects
    assert checks <= 2 * 100 + 50


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_services_are_matched_once_per_label_set_of_the_pods_placed(
    tmp_path: Path, scheduler: Scheduler
) -> None:
    """1,000 Services and 60 replicas of one Deployment placed on 10 nodes: upstream
    reads every Service's selector for every pod it places (Volcano scores each pod in
    full: 60,000 reads at least); here once."""
    with _reads(WorkloadObject, "selector_map") as reads:
        _, checks = _run(
            tmp_path, "many-services", scheduler, services=1_000, replicas=60, nodes=10
        )
    assert len(reads) <= 1_000 + 600  # and hashes of the implied ReplicaSet
    assert checks <= 1_000 * 4 + 5_000


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_preferred_node_terms_are_matched_once_per_group_of_equal_nodes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scheduler: Scheduler
) -> None:
    """200 preferred node-affinity terms on zones, 1,000 nodes in 10 zones: upstream
    matches 200,000 pairs; here 200 terms on 10 groups."""
    calls = _counting(monkeypatch, preferences, "term_matches")
    _, checks = _run(tmp_path, "preferred-node-affinity", scheduler, terms=200, nodes=1_000)
    assert len(calls) <= 200 * 10
    assert checks <= 200 * 10 + 1_000 * 2 + 2_000


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_spread_constraints_are_counted_and_checked_once_per_node(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scheduler: Scheduler
) -> None:
    """200 spread constraints on 300 nodes: each constraint's own selector is matched
    against the incoming pod once (upstream: once per node, 30,000 times), and the
    meter counts the constraints' domains and the nodes checked, about constraints x
    nodes: the work the input really asks for, which ``topology-checks`` bounds."""
    calls = _counting(monkeypatch, Selector, "matches")
    _, checks = _run(tmp_path, "spread-constraints", scheduler, constraints=200, nodes=300)
    assert len(calls) <= 200 * 4
    assert 200 * 300 // 2 <= checks <= 200 * 300 * 4


class _CountedLabels(tuple[tuple[str, str], ...]):
    """A label set whose hashing is counted (a tuple hashes every item, every time)."""

    hashed: list[int] = []  # noqa: RUF012 - one counter, reset by the test

    def __hash__(self) -> int:
        self.hashed.append(1)
        return super().__hash__()


@pytest.mark.parametrize("text", [KUBE, VOLCANO], ids=SCHEDULERS)
def test_bound_pods_labels_are_hashed_once_per_pod_object(text: str, tmp_path: Path) -> None:
    """20,000 bound pods carrying one label set of 300 labels (``count``: one object),
    and a Deployment's pod placed: upstream indexes every pod by its labels (20,000
    hashes of 300 labels); here the label set is hashed a few times."""
    config = tmp_path / ("volcano.conf" if text == VOLCANO else "kube.yaml")
    config.write_text(text, encoding="utf-8")
    bound = Pod(workload=PodWorkload(labels=_CountedLabels((f"l{i}", f"v{i}") for i in range(300))))
    nodes = [
        replace(
            node_from_dict(
                {
                    "name": f"n{i}",
                    "allocatable": {"cpu": "100", "pods": "100000"},
                    "labels": {"kubernetes.io/hostname": f"n{i}"},
                },
                default_requests_from_limits=True,
            ),
            pods=(bound,) * 10_000,
        )
        for i in range(2)
    ]
    incoming = pod_from_dict(
        {"requests": {"cpu": "1m"}, "deployment": "web"}, default_requests_from_limits=True
    )
    _CountedLabels.hashed.clear()
    scores = scheduler_from_file(str(config)).cluster(nodes).score(incoming)
    assert all(score.feasible for score in scores)
    assert 0 < len(_CountedLabels.hashed) <= 10


def test_a_step_past_the_budget_is_refused_before_it_is_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The meter is charged with a step's checks before the step: 200 preferred node
    terms on 1,000 nodes in 10 zones cost 2,000 checks; with fewer left, no term is
    matched at all and the case errors with the limit's name."""
    (tmp_path / ".git").mkdir()
    path = write_attack(
        tmp_path, BY_NAME["preferred-node-affinity"], "kube", terms=200, nodes=1_000
    )
    calls = _counting(monkeypatch, preferences, "term_matches")
    limits = Limits(max_topology_checks=1_500).for_invocation(Invocation())
    (result,) = run_file(str(path), CheckOptions(limits=limits), str(tmp_path))
    assert result.status == "error"
    assert "(NodeAffinity's preferred terms against the nodes would add 2,000 to" in (
        result.message
    )
    assert calls == []
    assert limits.invocation.spent["topology-checks"] <= 1_500
