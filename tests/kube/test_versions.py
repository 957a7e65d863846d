"""``--kubernetes-version``: which release removed which apiVersion, the Policy API, and
releases outside the table."""

from __future__ import annotations

import pytest

from policytest.core.findings import Severity
from policytest.core.options import CheckOptions
from policytest.core.releases import UnsupportedRelease
from policytest.kube.registry import parse_version, served_api_version
from tests.kube.helpers import findings_for
from tests.kube.test_seeds import LEGACY_POLICY

BODY = "kind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n"


def config(version: str) -> str:
    return f"apiVersion: kubescheduler.config.k8s.io/{version}\n{BODY}"


@pytest.mark.parametrize(
    ("version", "target", "text"),
    [
        ("v1beta3", "1.35", "removed in Kubernetes 1.29"),
        ("v1beta3", "1.33", "removed in Kubernetes 1.29"),
        ("v1beta2", "v1.34.2", "removed in Kubernetes 1.28"),
        ("v1beta1", "1.36", "removed in Kubernetes 1.23"),
        ("v1alpha2", "1.37", "removed in Kubernetes 1.19"),
    ],
)
def test_api_version_against_the_target_release(version: str, target: str, text: str) -> None:
    found = [
        f
        for f in findings_for(config(version), CheckOptions(kubernetes_version=target))
        if f.rule == "KS001"
    ]
    assert [(f.severity, f.line, f.column) for f in found] == [(Severity.ERROR, 1, 13)]
    assert text in found[0].message


@pytest.mark.parametrize("target", ["1.33", "1.34", "1.35", "1.36", "1.37"])
def test_v1_is_clean_in_every_judged_release(target: str) -> None:
    assert findings_for(config("v1"), CheckOptions(kubernetes_version=target)) == ()


@pytest.mark.parametrize("target", ["latest", "1.22", "1.32", "1.38", "2.0"])
def test_a_release_outside_the_table_is_refused(target: str) -> None:
    """Never a guess: ``--kubernetes-version 1.22`` on a v1beta1 config used to draw false
    KS003/KS020 from the v1 schema; now it is refused, naming the supported range."""
    with pytest.raises(UnsupportedRelease, match=r"judges 1\.33 to 1\.37"):
        findings_for(config("v1beta1"), CheckOptions(kubernetes_version=target))


def test_policy_is_removed_in_every_judged_release() -> None:
    found = findings_for(LEGACY_POLICY, CheckOptions(kubernetes_version="1.33"))
    assert [(f.rule, f.severity) for f in found] == [("KS002", Severity.ERROR)]
    assert '"apiVersion": "kubescheduler.config.k8s.io/v1"' in found[0].message
    assert "removed in Kubernetes 1.23" in found[0].message


def test_versions_parse() -> None:
    assert parse_version("v1.35.4") == (1, 35)
    assert parse_version("1.9") == (1, 9)
    assert parse_version("one") is None
    assert parse_version("1") is None
    assert served_api_version((1, 24)) == "kubescheduler.config.k8s.io/v1beta3"
