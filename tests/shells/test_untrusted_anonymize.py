"""``policytest snapshot --anonymize`` hashes every identifier wherever it appears (not
only where a name stands alone) and keeps what selectors match."""

from __future__ import annotations

import json
from pathlib import Path

from policytest.scoring.snapshot import stable_name
from tests.conftest import RunLine

SECRETS = (
    "prodnode7",
    "shopns",
    "checkoutpod",
    "acmegate",
    "ledgervol",
    "metricsport",
    "payclaim",
    "secretzone",
    "acmecorp",
)


def _dump() -> dict[str, object]:
    node = {
        "kind": "Node",
        "metadata": {
            "name": "prodnode7",
            "labels": {
                "kubernetes.io/hostname": "prodnode7",
                "pool": "prodnode7-pool",  # a node name inside a longer value
                "acmecorp.io/prodnode7": "true",  # ... and inside a label key
                "topology.kubernetes.io/zone": "secretzone",
            },
        },
        "spec": {
            "taints": [{"key": "acmecorp.io/dedicated", "value": "shopns", "effect": "NoSchedule"}]
        },
        "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"}},
    }
    pod_affinity = {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {
                "labelSelector": {"matchLabels": {"app": "checkoutpod"}},
                "namespaces": ["shopns"],
                "topologyKey": "kubernetes.io/hostname",
            }
        ]
    }
    pending = {
        "kind": "Pod",
        "metadata": {"name": "checkoutpod", "namespace": "shopns"},
        "spec": {
            "containers": [
                {
                    "name": "c",
                    "resources": {"requests": {"cpu": "1"}},
                    "ports": [{"name": "metricsport", "hostPort": 9100}],
                }
            ],
            "tolerations": [
                {
                    "key": "acmecorp.io/dedicated",
                    "operator": "Equal",
                    "value": "shopns",
                    "effect": "NoSchedule",
                }
            ],
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": "pool", "operator": "In", "values": ["prodnode7-pool"]},
                                    {"key": "cores", "operator": "Gt", "values": ["4"]},
                                ]
                            }
                        ]
                    }
                },
                "podAntiAffinity": pod_affinity,
            },
            "schedulingGates": [{"name": "acmegate"}],
            "resourceClaims": [{"name": "payclaim", "resourceClaimName": "checkoutpod-payclaim"}],
            "volumes": [
                {
                    "name": "ledgervol",
                    "persistentVolumeClaim": {"claimName": "checkoutpod-ledgervol"},
                }
            ],
        },
        "status": {"phase": "Pending"},
    }
    return {"kind": "List", "items": [node, pending]}


def test_no_identifier_survives_and_selectors_still_match(
    run_line: RunLine, tmp_path: Path
) -> None:
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps(_dump()))
    out = tmp_path / "snap.json"
    result = run_line(["snapshot", str(dump), "-o", str(out), "--anonymize"])
    assert result.exit_code == 0, result
    text = out.read_text()
    for secret in SECRETS:
        assert secret not in text, secret
    snapshot = json.loads(text)
    node, pod = snapshot["nodes"][0], snapshot["pending"][0]
    spec = pod["spec"]
    assert (
        node["labels"]["kubernetes.io/hostname"] == node["name"] == stable_name("node", "prodnode7")
    )
    assert node["taints"][0]["key"] == spec["tolerations"][0]["key"]
    assert node["taints"][0]["value"] == spec["tolerations"][0]["value"]
    terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    pool, cores = terms["nodeSelectorTerms"][0]["matchExpressions"]
    assert node["labels"][pool["key"]] == pool["values"][0]
    assert cores["values"] == ["4"] and cores["operator"] == "Gt"
    anti = spec["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert anti[0]["namespaces"] == [pod["metadata"]["namespace"]]
    assert anti[0]["topologyKey"] == "kubernetes.io/hostname"
    assert node["allocatable"] == {"cpu": "8", "memory": "16Gi", "pods": "110"}
