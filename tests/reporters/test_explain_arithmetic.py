"""explain's arithmetic adds up: for any cluster, pod and weights, the steps it prints
(per-resource score x weight, the sum, the division by the sum of weights, the plugin
weight) reproduce the scorer's own contribution of NodeResourcesFit and binpack."""

from __future__ import annotations

import re
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from policytest.harness.runner import CaseResult, format_score, rank
from policytest.reporters.run.explain import render_case
from policytest.scoring.kube import FitScoring
from policytest.scoring.schedulers import KubeScheduler, NodeOrderEntry, VolcanoScheduler
from policytest.scoring.specs import node_from_dict, pod_from_dict
from policytest.scoring.weights import BinpackWeights

cores = st.integers(min_value=1, max_value=64)
gib = st.integers(min_value=1, max_value=256)


@st.composite
def clusters(draw: st.DrawFn) -> tuple[list[dict[str, object]], dict[str, object]]:
    nodes = []
    for index in range(draw(st.integers(min_value=1, max_value=4))):
        cpu, memory = draw(cores), draw(gib)
        nodes.append(
            {
                "name": f"n{index}",
                "allocatable": {"cpu": str(cpu), "memory": f"{memory}Gi", "pods": "110"},
                "used": {
                    "cpu": f"{draw(st.integers(0, cpu * 1000))}m",
                    "memory": f"{draw(st.integers(0, memory))}Gi",
                },
            }
        )
    pod = {"requests": {"cpu": f"{draw(st.integers(1, 4000))}m", "memory": f"{draw(gib)}Mi"}}
    return nodes, pod


def explained(scheduler: object, nodes: list[dict[str, object]], pod: dict[str, object]) -> str:
    built = [node_from_dict(n, default_requests_from_limits=True) for n in nodes]
    scores = scheduler.cluster(built).score(  # type: ignore[attr-defined]
        pod_from_dict(pod, default_requests_from_limits=True)
    )
    result = CaseResult("f.policytest.yaml", "case", "passed", nodes=tuple(scores))
    text = render_case(replace(result, ranking=rank(scores)))
    return text, [s for s in scores if s.feasible]  # type: ignore[return-value]


@settings(max_examples=60)
@given(
    cluster=clusters(),
    strategy=st.sampled_from(["LeastAllocated", "MostAllocated"]),
    weights=st.tuples(st.integers(1, 100), st.integers(1, 100)),
    plugin_weight=st.integers(1, 10),
)
def test_kube_fit_steps_reproduce_the_contribution(
    cluster: tuple[list[dict[str, object]], dict[str, object]],
    strategy: str,
    weights: tuple[int, int],
    plugin_weight: int,
) -> None:
    fit = FitScoring(strategy, (("cpu", weights[0]), ("memory", weights[1])))  # type: ignore[arg-type]
    text, feasible = explained(KubeScheduler(fit, plugin_weight, None, 0), *cluster)
    steps = re.findall(
        r"= \(([\d + ]+)\) / \(([\d + ]+)\) = (\d+) / (\d+) = (\d+) \(int64 division truncates\)\n"
        r"\s+x plugin weight (\d+) = (\d+) \(NodeResourcesFit's contribution to the total\)",
        text,
    )
    assert len(steps) == len(feasible), text  # every scored node shows every step
    for (products, summed, total, divisor, mean, weight, contribution), node in zip(
        steps, sorted(feasible, key=lambda n: -n.total), strict=True
    ):
        assert sum(int(p) for p in products.split(" + ")) == int(total)
        assert sum(int(w) for w in summed.split(" + ")) == int(divisor) == sum(weights)
        assert int(total) // int(divisor) == int(mean)  # non-negative: truncation is floor
        assert int(weight) == plugin_weight
        assert int(mean) * plugin_weight == int(contribution) == node.plugins["NodeResourcesFit"]


@settings(max_examples=60)
@given(
    cluster=clusters(),
    cpu=st.integers(0, 10),
    memory=st.integers(0, 10),
    binpack_weight=st.integers(1, 20),
)
def test_volcano_binpack_steps_are_shown_for_every_node(
    cluster: tuple[list[dict[str, object]], dict[str, object]],
    cpu: int,
    memory: int,
    binpack_weight: int,
) -> None:
    weights = BinpackWeights(weight=binpack_weight, cpu=cpu, memory=memory)
    scheduler = VolcanoScheduler((NodeOrderEntry("binpack", binpack=weights),), not_modelled=())
    text, feasible = explained(scheduler, *cluster)
    shown = re.findall(rf"x 100 x binpack\.weight {binpack_weight} = (\S+)", text)
    assert len(shown) == len(feasible), text  # shown only when it reproduces the score
    for value, node in zip(shown, sorted(feasible, key=lambda n: -n.total), strict=True):
        assert value == format_score(node.plugins["binpack"])
