"""ImageLocality (``imagelocality/image_locality.go``), NodePorts
(``nodeports/node_ports.go``) and NodeName (``nodename/node_name.go``).

ImageLocality scores a node by the images of the pod it already holds: each image's
size scaled by the share of *all* nodes holding it (infeasible ones too), summed and
clamped to [23 MiB, 1000 MiB x (containers + init containers)], mapped linearly to
0-100; not normalised. From 1.36 the pod's image volumes count too (the threshold
still counts containers only). Volcano's nodeorder calls the same score, with the
image states of its own cache.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from policytest.scoring.kube import MAX_NODE_SCORE, quo64
from policytest.scoring.plugins.view import ClusterView, HostPorts, ImageState, ViewNode
from policytest.scoring.snapshot import normalized_image
from policytest.scoring.workload import HostPort, PodWorkload

__all__ = [
    "NODE_NAME_REASON",
    "NODE_PORTS_REASON",
    "image_score",
    "image_scorer",
    "node_name_filter",
    "node_ports_filter",
]

MB: Final = 1024 * 1024
MIN_THRESHOLD: Final = 23 * MB
MAX_CONTAINER_THRESHOLD: Final = 1000 * MB
NODE_PORTS_REASON: Final = "node(s) didn't have free ports for the requested pod ports"
NODE_NAME_REASON: Final = "node(s) didn't match the requested node name"
BIND_ALL: Final = "0.0.0.0"


def image_score(
    pod: PodWorkload,
    node: ViewNode,
    images: Mapping[str, ImageState],
    total_nodes: int,
    *,
    image_volumes: bool,
) -> int:
    """``Score``: ``sumImageScores`` then ``calculatePriority``."""
    scorer = image_scorer(pod, images, total_nodes, image_volumes=image_volumes)
    return 0 if scorer is None else scorer(node)


def image_scorer(
    pod: PodWorkload,
    images: Mapping[str, ImageState],
    total_nodes: int,
    *,
    image_volumes: bool,
) -> Callable[[ViewNode], int] | None:
    """``image_score`` with the pod's side done once: each of its images the cluster
    holds, with its scaled size (``None``: the cluster holds none of them, so every node
    scores 0)."""
    wanted = [*pod.init_images, *pod.images, *(pod.image_volumes if image_volumes else ())]
    scaled = []
    for image in wanted:
        name = normalized_image(image)
        state = images.get(name)
        if state is not None:
            scaled.append(
                (name, int(float(state.size) * (float(state.nodes) / float(total_nodes))))
            )
    if not scaled:
        return None
    high = MAX_CONTAINER_THRESHOLD * (len(pod.images) + len(pod.init_images))

    def score(node: ViewNode) -> int:
        total = sum(size for name, size in scaled if name in node.images)
        if total < MIN_THRESHOLD:
            total = MIN_THRESHOLD
        elif total > high:
            total = high
        return quo64(MAX_NODE_SCORE * (total - MIN_THRESHOLD), high - MIN_THRESHOLD)

    return score


def _conflicts(port: HostPort, used: HostPorts) -> bool:
    """``HostPortInfo.CheckConflict``: 0.0.0.0 conflicts with every IP."""
    pair = (port.protocol, port.port)
    if port.host_ip == BIND_ALL:
        return any(pair in pairs for pairs in used.values())
    return any(pair in used.get(ip, ()) for ip in (BIND_ALL, port.host_ip))


def node_ports_filter(pod: PodWorkload, node: ViewNode, view: ClusterView) -> str | None:
    """``Filter``: no wanted host port is held on the node already (the node's ports
    are a set, kept by the view: each wanted port is a lookup per host IP held)."""
    if not pod.host_ports:
        return None
    used = view.host_ports(node)
    if not used:
        return None
    view.charge(len(pod.host_ports) * len(used), "NodePorts: the pod's ports against a node's")
    if any(_conflicts(port, used) for port in pod.host_ports):
        return NODE_PORTS_REASON
    return None


def node_name_filter(pod: PodWorkload, node: ViewNode) -> str | None:
    """NodeName's ``Filter``: a pod naming a node fits only there."""
    if pod.node_name and pod.node_name != node.name:
        return NODE_NAME_REASON
    return None
