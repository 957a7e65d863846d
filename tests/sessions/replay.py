"""Replaying a cluster through Volcano sessions as the oracle's harness does: a
Kubernetes ``List`` (Nodes, Pods bound and pending, PriorityClasses, Queues, PodGroups)
read as a snapshot, its pending pods scheduled for some sessions under a conf of a
release. Shared by the oracle scenarios and upstream's own test cases."""

from __future__ import annotations

import functools
import io
import json
from collections.abc import Mapping
from typing import Any

from policytest.core.options import CheckOptions
from policytest.scoring.fast import build_nodes
from policytest.scoring.schedulers import VolcanoScheduler
from policytest.scoring.snapshot import read_snapshot_stream
from policytest.scoring.specs import pod_from_dict
from policytest.scoring.workload import NO_OBJECTS
from policytest.sessions.build import build_jobs
from policytest.sessions.objects import scheduling_objects
from policytest.sessions.result import SessionsResult
from policytest.sessions.session import run_sessions


@functools.cache
def scheduler(conf: str, release: str) -> VolcanoScheduler:
    """The conf as ``release`` (``1.15.1``, ``1.16.0-alpha.1``, ``1.12``) runs it."""
    from policytest.check.configs import load_config
    from policytest.read.recognise import Kind
    from policytest.read.source import read_bytes
    from policytest.volcano.scheduler import volcano_scheduler

    options = CheckOptions(volcano_version=release[:4])
    document = read_bytes("volcano-scheduler.conf", conf.encode(), options.limits).documents[0]
    model, _ = load_config(document, Kind.VOLCANO, options)
    assert model is not None
    return volcano_scheduler(model)  # type: ignore[arg-type]


def replay_list(
    objects: Mapping[str, Any], conf: str, sessions: int, release: str, name: str = "list"
) -> tuple[SessionsResult, dict[str, str]]:
    """The sessions' result, and each pending pod's node (``""``: not bound)."""
    snapshot = read_snapshot_stream(io.BytesIO(json.dumps(objects).encode()), name)
    volcano = scheduler(conf, release)
    nodes = build_nodes((node["name"], node) for node in snapshot.nodes)
    pods = [(p, pod_from_dict(p, default_requests_from_limits=False)) for p in snapshot.pending]
    bound = ((node.name, pod) for node in nodes for pod in node.pods)
    built = build_jobs(scheduling_objects(snapshot.objects), pods, volcano.overhead_first, bound)
    assert volcano.session is not None
    result = run_sessions(
        volcano.session, volcano, nodes, NO_OBJECTS, built.jobs, built.queues, sessions
    )
    final = {
        f"{p['metadata'].get('namespace', 'default')}/{p['metadata']['name']}": ""
        for p in snapshot.pending
    }
    final.update({bind.pod: bind.node for bind in result.binds})
    return result, final
