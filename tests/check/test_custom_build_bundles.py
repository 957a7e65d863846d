"""An unknown plugin of a config a custom scheduler build runs is a warning naming it.

Shaped like real repositories: a multi-architecture scheduler that deploys its own image
(``ghcr.io/.../kube-arch-scheduler``) mounting the KubeSchedulerConfiguration it ships,
and an Ascend NPU installer that runs vc-scheduler with ``--plugins-dir`` mounting a
conf naming the vendor plugin. Before, both were errors saying the scheduler refuses to
start (or skips the plugin); the same config without the evidence still is.

Evidence is only what runs *this* config: a GitOps monorepo (``monorepo/``) deploys one
team's custom scheduler beside another team's config and an in-house Volcano admission
webhook beside the Volcano conf. Before, every unknown plugin of every config there
became a warning citing the one custom Deployment (a truncated in-tree name too), and the
webhook's ``vc-webhook-manager`` image was taken for a custom Volcano build.
"""

from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path

import pytest

from policytest.check.bundle import Bundle, read_bundle, scan, scheduler_image
from policytest.core.limits import DEFAULT_LIMITS, Limits
from policytest.read.source import Document, decoded, read_bytes
from tests.check.helpers import validate_json
from tests.conftest import DATA, RunLine

BUNDLES = DATA / "realrepos" / "custom-build-bundles"


def _findings(run_line: RunLine, *paths: Path | str) -> list[dict[str, object]]:
    return validate_json(run_line, *paths)[1]


def test_own_scheduler_image_mounting_the_config(run_line: RunLine) -> None:
    found = _findings(run_line, BUNDLES / "kube-arch-scheduler" / "scheduler-config.yaml")
    assert [(f["rule"], f["severity"], f["line"]) for f in found] == [
        ("KS020", "warning", 17),
        ("KS020", "warning", 20),
    ]
    message = str(found[1]["message"])
    assert message.startswith('ScorePlugin "ArchScore" does not exist upstream, but ')
    assert (
        "Deployment `kube-arch-scheduler` (" in message
        and "deployment.yaml:18) mounts this config and runs its own scheduler image "
        "`ghcr.io/example-org/kube-arch-scheduler:v0.4.1`"
        in message
    )
    assert "declare the build's plugins under `kubeScheduler.plugins`" in message


def test_plugins_dir_of_the_scheduler_mounting_the_volcano_conf(run_line: RunLine) -> None:
    findings = _findings(run_line, BUNDLES / "volcano-npu" / "volcano-scheduler-configmap.yaml")
    assert [f["rule"] for f in findings] == ["VC004", "VB015"]  # binpack.weight 10 under nodeorder
    found = findings[0]
    assert (found["rule"], found["severity"], found["line"], found["column"]) == (
        "VC004",
        "warning",
        14,
        15,
    )
    assert (
        "Deployment `volcano-scheduler` (" in str(found["message"])
        and "volcano-scheduler.yaml:18) mounts this config and runs the scheduler with "
        "`--plugins-dir`"
        in str(found["message"])
    )
    assert "under `volcano.plugins`" in str(found["message"])


def test_a_config_file_named_by_the_config_flag(run_line: RunLine) -> None:
    """kustomize's configMapGenerator names the ConfigMap; ``--config`` names the file."""
    [found] = _findings(run_line, BUNDLES / "file-config" / "gpu-scheduler-config.yaml")
    assert (found["rule"], found["severity"]) == ("KS020", "warning")
    assert "deployment.yaml:15) mounts this config and runs its own scheduler image" in str(
        found["message"]
    )


def test_evidence_does_not_leak_between_the_configs_of_a_monorepo(run_line: RunLine) -> None:
    found = _findings(run_line, BUNDLES / "monorepo")
    rows = [(Path(str(f["path"])).name, f["line"], f["rule"], f["severity"]) for f in found]
    assert rows == [
        ("arch-scheduler.yaml", 38, "KS020", "warning"),  # ArchScore: team A's own build
        ("arch-scheduler.yaml", 39, "KS020", "error"),  # BalancedAllocation: a truncation
        ("team-b-scheduler-config.yaml", 9, "KS020", "error"),  # nothing runs it
        ("volcano-scheduler-configmap.yaml", 13, "VC004", "error"),  # a webhook is no scheduler
    ]
    assert "arch-scheduler.yaml:16) mounts this config" in str(found[0]["message"])
    assert str(found[1]["message"]).endswith(
        "did you mean `NodeResourcesBalancedAllocation`? (`BalancedAllocation` is only part "
        "of the name)"
    )
    assert all("custom build, which probably" not in str(f["message"]) for f in found[1:])


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
    assert "(<stdin>:18) mounts this config and runs its own scheduler image" in str(
        found[0]["message"]
    )


def test_a_scheduler_in_the_same_file_is_evidence_without_a_mount(
    run_line: RunLine, tmp_path: Path
) -> None:
    bundle = BUNDLES / "kube-arch-scheduler"
    deployment = (bundle / "deployment.yaml").read_text("utf-8")
    text = deployment.replace("name: kube-arch-scheduler-config", "name: another") + "---\n"
    path = tmp_path / "bundle.yaml"
    path.write_text(text + (bundle / "scheduler-config.yaml").read_text("utf-8"), "utf-8")
    found = _findings(run_line, path)
    assert {(f["rule"], f["severity"]) for f in found} == {("KS020", "warning")}
    assert "Deployment `kube-arch-scheduler` in this file (" in str(found[0]["message"])


def test_a_json_deployment_beside_the_config_is_evidence(run_line: RunLine, tmp_path: Path) -> None:
    """``kubectl get deployment -o json`` writes ``"image": "..."``: the file is read for
    the scheduler it runs as its YAML form is (before, only ``image:`` was looked for)."""
    bundle = BUNDLES / "kube-arch-scheduler"
    shutil.copy(bundle / "scheduler-config.yaml", tmp_path)
    deployment = read_bytes("d.yaml", (bundle / "deployment.yaml").read_bytes(), DEFAULT_LIMITS)
    (tmp_path / "deployment.json").write_text(
        json.dumps(decoded(deployment.documents[0], DEFAULT_LIMITS), indent=2), "utf-8"
    )
    found = _findings(run_line, tmp_path / "scheduler-config.yaml")
    assert {(f["rule"], f["severity"]) for f in found} == {("KS020", "warning")}
    assert "deployment.json:" in str(found[0]["message"])


def test_a_file_beside_the_config_over_a_mebibyte_is_no_evidence(
    run_line: RunLine, tmp_path: Path
) -> None:
    """A scheduler's manifest is a few KiB: a hostile bundle of 200 files of 16 MiB is
    not read in full for every config beside it."""
    shutil.copytree(BUNDLES / "kube-arch-scheduler", tmp_path / "bundle")
    deployment = tmp_path / "bundle" / "deployment.yaml"
    padding = "# " + "x" * 1022 + "\n"
    deployment.write_text(deployment.read_text("utf-8") + padding * 1024, "utf-8")
    found = _findings(run_line, tmp_path / "bundle" / "scheduler-config.yaml")
    assert {(f["rule"], f["severity"]) for f in found} == {("KS020", "error")}


def test_only_a_config_has_its_directory_read(
    run_line: RunLine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What runs a config is read from its directory; a fixture has no scheduler of its
    own there (before, a fixtures directory was read again, file by file, for each run)."""
    read: list[str] = []

    def recorded(
        path: str, documents: tuple[Document, ...], root: str | None, limits: Limits
    ) -> Bundle:
        read.append(Path(path).name)
        return read_bundle(path, documents, root, limits)

    monkeypatch.setattr("policytest.check.bundle.read_bundle", recorded)
    fixture = Path(__file__).parents[2] / "fixtures" / "volcano-gpu-two-nodes.policytest.yaml"
    assert run_line(["validate", fixture]).exit_code == 0
    assert read == []
    run_line(["validate", BUNDLES / "kube-arch-scheduler" / "scheduler-config.yaml"])
    assert read == ["scheduler-config.yaml"]


@pytest.mark.parametrize(
    ("image", "family", "build"),
    [
        pytest.param("registry.k8s.io/kube-scheduler:v1.35.4", "kube-scheduler", None, id="k8s"),
        pytest.param(
            "registry.k8s.io/scheduler-plugins/kube-scheduler:v0.34.7",
            "kube-scheduler",
            "scheduler-plugins",
            id="scheduler-plugins",
        ),
        pytest.param(
            "registry.k8s.io/kube-scheduler@sha256:0a1b2c", "kube-scheduler", None, id="digest"
        ),
        pytest.param(
            "localhost:5000/scheduler-plugins/kube-scheduler",
            "kube-scheduler",
            "scheduler-plugins",
            id="scheduler-plugins-untagged-local",
        ),
        pytest.param(
            "localhost:5000/scheduler-plugins/kube-scheduler:latest",
            "kube-scheduler",
            "scheduler-plugins",
            id="scheduler-plugins-built-locally",
        ),
        pytest.param("volcanosh/vc-scheduler:v1.15.0", "Volcano", None, id="volcano"),
        pytest.param("quay.io/acme/gpu-scheduler:1", "kube-scheduler", "own", id="own-kube"),
        pytest.param("acme/vc-scheduler:npu", "Volcano", "own", id="own-volcano"),
        pytest.param("ghcr.io/nvidia/kai-scheduler/scheduler:v0.9.3", "KAI Scheduler", None),
        pytest.param("kubesigs/kube-batch:v0.5", "kube-batch", None, id="kube-batch"),
        pytest.param("volcanosh/vc-webhook-manager:v1.15.0", None, None, id="webhook"),
        pytest.param("acme/vc-webhook-manager:v1.9", None, None, id="own-webhook"),
        pytest.param("volcanosh/vc-controller-manager:v1.15.0", None, None, id="controller"),
        pytest.param("nginx:1.27", None, None, id="other-image"),
        pytest.param("{{ .Values.image }}", None, None, id="templated"),
    ],
)
def test_which_images_run_a_scheduler(image: str, family: str | None, build: str | None) -> None:
    assert scheduler_image(image) == (family, build)


@pytest.mark.parametrize(
    ("container", "plugins_dir", "config_files"),
    [
        pytest.param("args: [--plugins-dir=/plugins]", True, set(), id="plugins-dir"),
        pytest.param("args: [--plugins-dir, plugins]", True, set(), id="plugins-dir-apart"),
        pytest.param("args: [--config=/etc/a/config.yaml]", False, {"config.yaml"}, id="config"),
        pytest.param("command: [s, --scheduler-conf, /c/v.conf]", False, {"v.conf"}, id="conf"),
        pytest.param("args: ['# --plugins-dir=plugins']", False, set(), id="a-comment-string"),
    ],
)
def test_what_a_scheduler_container_reads(
    container: str, plugins_dir: bool, config_files: set[str]
) -> None:
    text = (
        "kind: Pod\nmetadata: {name: s}\nspec:\n  containers:\n"
        f"  - image: acme/vc-scheduler:1\n    {container}\n"
    )
    documents = read_bytes("pod.yaml", text.encode(), DEFAULT_LIMITS).documents
    [runner] = scan([("pod.yaml", documents)]).runners
    assert (runner.plugins_dir, set(runner.config_files)) == (plugins_dir, config_files)
