"""Capacity free but stranded in pieces smaller than what pending work needs."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from policytest.harness.fragmentation import Pending, Stranded, stranded
from policytest.reporters.run.jobs import sentence
from policytest.scoring.cluster import Node
from policytest.scoring.specs import node_from_dict, pod_from_dict


def gpu_node(name: str, used: int, **extra: object) -> Node:
    spec = {
        "name": name,
        "allocatable": {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": "8", "pods": "110"},
        "used": {"nvidia.com/gpu": str(used)} if used else None,
        **extra,
    }
    return node_from_dict(spec, default_requests_from_limits=True)


def gpus(count: int, **extra: object) -> Pending:
    pod = pod_from_dict(
        {"requests": {"nvidia.com/gpu": str(count), "cpu": "1"}, **extra},
        default_requests_from_limits=True,
    )
    return Pending("default/llm", "job", (pod,) * 3, 2)


def test_the_8_gpu_story() -> None:
    """Every node with 5 or 6 GPUs used after the small job: 20 free, no node with 8."""
    nodes = [
        gpu_node("gpu-00", 2),
        gpu_node("gpu-01", 3),
        gpu_node("gpu-02", 2),
        gpu_node("gpu-03", 5),
    ]
    assert stranded(nodes, [gpus(8)]) == (
        Stranded("default/llm", "job", "nvidia.com/gpu", 8, 2, 20, 6, 0, 0),
    )


def test_enough_whole_nodes_is_not_stranded() -> None:
    nodes = [gpu_node("a", 0), gpu_node("b", 0), gpu_node("c", 7)]
    assert stranded(nodes, [gpus(8)]) == ()


def test_short_of_capacity_is_not_stranded() -> None:
    """12 GPUs free cannot hold two pods of 8 however they are cut."""
    assert stranded([gpu_node("a", 2), gpu_node("b", 2)], [gpus(8)]) == ()


def test_one_roomy_node_is_not_enough() -> None:
    nodes = [gpu_node("a", 0), gpu_node("b", 4), gpu_node("c", 4)]
    (found,) = stranded(nodes, [gpus(8)])
    assert (found.free, found.roomy, found.fits, found.largest) == (16, 1, 1, 8)


def test_nodes_the_pods_cannot_run_on_are_not_capacity() -> None:
    """A tainted node's free GPUs count only for pods that tolerate the taint."""
    taint = {"taints": [{"key": "gpu", "value": "a100", "effect": "NoSchedule"}]}
    nodes = [gpu_node("a", 4), gpu_node("b", 4), gpu_node("tainted", 0, **taint)]
    assert stranded(nodes, [gpus(8)]) == ()  # 8 free where they may run: short, not stranded
    tolerant = gpus(8, tolerations=[{"key": "gpu", "operator": "Exists"}])
    (found,) = stranded(nodes, [tolerant])
    assert (found.free, found.roomy, found.fits) == (16, 1, 1)


def test_pods_of_several_sizes_fit_largest_first() -> None:
    small = pod_from_dict({"requests": {"nvidia.com/gpu": "2"}}, default_requests_from_limits=True)
    large = pod_from_dict({"requests": {"nvidia.com/gpu": "6"}}, default_requests_from_limits=True)
    job = Pending("default/mixed", "job", (large, small, small), 3)
    nodes = [gpu_node("a", 3), gpu_node("b", 3), gpu_node("c", 4)]  # 5, 5, 4 free
    (found,) = stranded(nodes, [job])
    assert (found.per_pod, found.needed, found.free, found.fits) == (6, 3, 14, 2)


@given(
    st.lists(st.integers(0, 8), min_size=1, max_size=12),
    st.integers(1, 8),
    st.integers(1, 6),
)
def test_a_stranded_report_is_a_true_statement(used: list[int], size: int, needed: int) -> None:
    """Reported only when the free capacity would hold the pods, but its pieces do not."""
    nodes = [gpu_node(f"n{i}", u) for i, u in enumerate(used)]
    pod = pod_from_dict(
        {"requests": {"nvidia.com/gpu": str(size)}}, default_requests_from_limits=True
    )
    found = stranded(nodes, [Pending("j", "job", (pod,) * needed, needed)])
    pieces = [8 - u for u in used]
    holds = sum(piece // size for piece in pieces)
    expected = sum(pieces) >= size * needed and holds < needed
    assert bool(found) == expected
    for item in found:
        assert item.fits == holds < item.needed
        assert item.roomy == sum(1 for piece in pieces if piece >= size)


def test_pods_short_of_the_same_pieces_are_all_named() -> None:
    """Two pending pods of different kinds, short of the same free pieces: one sentence
    names both and counts both (it named the first alone, as if the other fitted)."""
    nodes = [gpu_node("gpu-00", 2), gpu_node("gpu-01", 3)]
    first, second = (Pending(name, "pods", (gpus(8).pods[0],), 1) for name in ("pod 15", "pod 16"))
    found = stranded(nodes, [first, second])
    assert [item.name for item in found] == ["pod 15", "pod 16"]
    assert sentence(found) == (
        "11 nvidia.com/gpu free, no node with 8 free: pod 15, pod 16 cannot be placed "
        "(8 each; the free pieces hold 0 of 2)"
    )
    assert sentence(found, top=1).startswith(
        "11 nvidia.com/gpu free, no node with 8 free: pod 15 and 1 more cannot be placed"
    )
