"""An unknown plugin beside a custom scheduler build is a warning naming that build.

Shaped like real repositories: a multi-architecture scheduler that deploys its own image
(``ghcr.io/.../kube-arch-scheduler``) next to the KubeSchedulerConfiguration it ships,
and an Ascend NPU installer that runs vc-scheduler with ``--plugins-dir`` next to a
conf naming the vendor plugin. Before, both were errors saying the scheduler refuses to
start (or skips the plugin); the same config without the evidence still is.
"""

from __future__ import annotations

import io
import shutil
import sys
from pathlib import Path

import pytest

from policytest.check.bundle import scan
from tests.check.helpers import validate_json
from tests.conftest import DATA, RunLine

BUNDLES = DATA / "realrepos" / "custom-build-bundles"


def _findings(run_line: RunLine, *paths: Path | str) -> list[dict[str, object]]:
    return validate_json(run_line, *paths)[1]


def test_own_scheduler_image_beside_the_config(run_line: RunLine) -> None:
    found = _findings(run_line, BUNDLES / "kube-arch-scheduler" / "scheduler-config.yaml")
    assert [(f["rule"], f["severity"], f["line"]) for f in found] == [
        ("KS020", "warning", 17),
        ("KS020", "warning", 20),
    ]
    message = str(found[1]["message"])
    assert message.startswith('ScorePlugin "ArchScore" does not exist upstream, but ')
    assert "deployment.yaml:18 deploys its own scheduler image" in message
    assert "`ghcr.io/example-org/kube-arch-scheduler:v0.4.1`" in message
    assert "declare the build's plugins under `kubeScheduler.plugins`" in message


def test_plugins_dir_beside_the_volcano_conf(run_line: RunLine) -> None:
    findings = _findings(run_line, BUNDLES / "volcano-npu" / "volcano-scheduler-configmap.yaml")
    assert [f["rule"] for f in findings] == ["VC004", "VB015"]  # binpack.weight 10 under nodeorder
    found = findings[0]
    assert (found["rule"], found["severity"], found["line"], found["column"]) == (
        "VC004",
        "warning",
        14,
        15,
    )
    assert "volcano-scheduler.yaml:23 runs the scheduler with `--plugins-dir`" in str(
        found["message"]
    )
    assert "under `volcano.plugins`" in str(found["message"])


def test_without_evidence_the_unknown_plugin_stays_an_error(run_line: RunLine) -> None:
    found = _findings(run_line, BUNDLES / "no-evidence" / "scheduler-config.yaml")
    assert {(f["rule"], f["severity"]) for f in found} == {("KS020", "error")}
    assert all("refuses to start" in str(f["message"]) for f in found)


def test_a_slip_stays_an_error_beside_a_custom_build(run_line: RunLine, tmp_path: Path) -> None:
    shutil.copytree(BUNDLES / "volcano-npu", tmp_path / "bundle")
    conf = tmp_path / "bundle" / "volcano-scheduler-configmap.yaml"
    conf.write_text(conf.read_text("utf-8").replace("name: binpack", "name: binpak"), "utf-8")
    found = {(f["rule"], f["severity"], f["line"]) for f in _findings(run_line, conf)}
    assert ("VC004", "error", 20) in found  # did you mean `binpack`?
    assert ("VC004", "warning", 14) in found


def test_evidence_on_stdin_comes_from_the_stream_itself(
    run_line: RunLine, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle = BUNDLES / "kube-arch-scheduler"
    text = (bundle / "deployment.yaml").read_text("utf-8") + "---\n"
    text += (bundle / "scheduler-config.yaml").read_text("utf-8")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    found = _findings(run_line, "-")
    assert {(f["rule"], f["severity"]) for f in found} == {("KS020", "warning")}
    assert "<stdin>:18 deploys its own scheduler image" in str(found[0]["message"])


@pytest.mark.parametrize(
    ("text", "kube", "volcano"),
    [
        pytest.param("image: registry.k8s.io/kube-scheduler:v1.35.4\n", False, False, id="k8s"),
        pytest.param("image: volcanosh/vc-scheduler:v1.15.0\n", False, False, id="volcano"),
        pytest.param("- image: quay.io/acme/gpu-scheduler:1\n", True, False, id="own-kube"),
        pytest.param("image: acme/vc-scheduler:npu\n", False, True, id="own-volcano"),
        pytest.param("args: [--plugins-dir=/plugins]\n", False, True, id="plugins-dir"),
        pytest.param("image: nginx:1.27\n", False, False, id="other-image"),
        pytest.param("image: {{ .Values.image }}\n", False, False, id="templated"),
        pytest.param("# runs with --plugins-dir=plugins\n", False, False, id="comment"),
        pytest.param('"message": "loads it from --plugins-dir, list it"', False, False, id="prose"),
        pytest.param("# image: acme/kube-scheduler-x:1\n", False, False, id="commented-image"),
    ],
)
def test_what_counts_as_evidence(text: str, kube: bool, volcano: bool) -> None:
    found = scan([("deploy.yaml", text)])
    assert (found.kube is not None, found.volcano is not None) == (kube, volcano)
