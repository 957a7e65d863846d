"""``--kubernetes-version``: which release removed which apiVersion, and the Policy API."""

from __future__ import annotations

import pytest

from policytest.core.findings import Severity
from policytest.core.options import CheckOptions
from policytest.kube.registry import parse_version, served_api_version
from tests.kube.helpers import findings_for
from tests.kube.test_seeds import LEGACY_POLICY

BODY = "kind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n"


def config(version: str) -> str:
    return f"apiVersion: kubescheduler.config.k8s.io/{version}\n{BODY}"


@pytest.mark.parametrize(
    ("version", "target", "severity", "text"),
    [
        ("v1beta3", "1.35", Severity.ERROR, "removed in Kubernetes 1.29"),
        ("v1beta3", "1.29", Severity.ERROR, "removed in Kubernetes 1.29"),
        ("v1beta3", "1.28", Severity.WARNING, "deprecated and removed in Kubernetes 1.29"),
        ("v1beta2", "1.28", Severity.ERROR, "removed in Kubernetes 1.28"),
        ("v1beta2", "v1.27.3", Severity.WARNING, "removed in Kubernetes 1.28"),
        ("v1beta1", "1.23", Severity.ERROR, "removed in Kubernetes 1.23"),
        ("v1beta1", "1.22", Severity.WARNING, "removed in Kubernetes 1.23"),
        ("v1alpha2", "1.35", Severity.ERROR, "removed in Kubernetes 1.19"),
        ("v1", "1.24", Severity.ERROR, "served from Kubernetes 1.25"),
        ("v1beta3", "1.22", Severity.ERROR, "served from Kubernetes 1.23"),
    ],
)
def test_api_version_against_the_target_release(
    version: str, target: str, severity: Severity, text: str
) -> None:
    found = [
        f
        for f in findings_for(config(version), CheckOptions(kubernetes_version=target))
        if f.rule == "KS001"
    ]
    assert [(f.severity, f.line, f.column) for f in found] == [(severity, 1, 13)]
    assert text in found[0].message


@pytest.mark.parametrize("target", ["1.25", "1.29", "1.35"])
def test_v1_is_clean_from_1_25(target: str) -> None:
    assert findings_for(config("v1"), CheckOptions(kubernetes_version=target)) == ()


def test_an_unparseable_target_means_the_newest_release() -> None:
    found = findings_for(config("v1beta3"), CheckOptions(kubernetes_version="latest"))
    assert "kube-scheduler 1.35" in found[0].message


def test_policy_is_a_warning_before_1_23_and_uses_the_served_version() -> None:
    found = findings_for(LEGACY_POLICY, CheckOptions(kubernetes_version="1.22"))
    assert [(f.rule, f.severity) for f in found] == [("KS002", Severity.WARNING)]
    assert '"apiVersion": "kubescheduler.config.k8s.io/v1beta2"' in found[0].message
    assert "removed in Kubernetes 1.23" in found[0].message


def test_versions_parse() -> None:
    assert parse_version("v1.35.4") == (1, 35)
    assert parse_version("1.9") == (1, 9)
    assert parse_version("one") is None
    assert parse_version("1") is None
    assert served_api_version((1, 24)) == "kubescheduler.config.k8s.io/v1beta3"
