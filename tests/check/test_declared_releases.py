"""A config is judged as the release its own files state.

Shaped like real repositories: a kops cluster spec on Kubernetes 1.24 with a ``v1beta2``
KubeSchedulerConfiguration beside it (before: "kube-scheduler 1.36 fails to start"), an
installer bundle running a Volcano 1.3 fork (before: judged by 1.9+ rules), and Volcano
1.12 as released, whose unknown action is logged and dropped rather than rejected.
Precedence: a flag, then what the files state, then the settings file, then the default.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from policytest.check.bundle import KUBE, SCHEDULER_PLUGINS, VOLCANO, Runner
from policytest.check.declared import PT009_UNJUDGED_RELEASE, declared_release
from policytest.read.source import Document, empty_root
from tests.check.helpers import example_rules, validate_json
from tests.conftest import DATA, RunLine

RELEASES = DATA / "realrepos" / "releases"


def _one(run_line: RunLine, *args: str | Path) -> dict[str, object]:
    [finding] = validate_json(run_line, *args)[1]
    return finding


def test_a_kops_cluster_outside_the_table_is_one_info(run_line: RunLine) -> None:
    code, found = validate_json(run_line, RELEASES / "kops-cluster-1.24.yaml")
    assert code == 0
    assert [(f["rule"], f["severity"], f["line"]) for f in found] == [("PT009", "info", 12)]
    assert str(found[0]["message"]) == (
        "this config targets kube-scheduler 1.24 (`kubernetesVersion: v1.24.0` of the kops "
        "Cluster `gpu.k8s.local`, line 7), which policytest does not judge (it judges 1.33 to "
        "1.37), so it is not checked: judged as another release, it would get that release's "
        "verdicts; to judge it as one anyway, pass --kubernetes-version 1.33"
    )


def test_a_kops_cluster_in_the_table_is_judged_as_its_release(run_line: RunLine) -> None:
    result = run_line(["validate", "--verbose", RELEASES / "kops-cluster-1.34.yaml"])
    assert (
        "KS001 error: kubescheduler.config.k8s.io/v1beta2 was removed in Kubernetes 1.28: "
        "kube-scheduler 1.34 fails" in result.stdout
    )
    assert (
        "judged as kube-scheduler 1.34 (`kubernetesVersion: v1.34.2` of the kops Cluster "
        "`gpu2.k8s.local`, line 7): "
    ) in result.stderr


@pytest.mark.parametrize(
    ("args", "release"),
    [
        pytest.param(("--kubernetes-version", "1.33"), "1.33", id="the-flag-wins"),
        pytest.param(("--settings", "SETTINGS"), "1.34", id="the-file-wins-over-settings"),
    ],
)
def test_precedence(run_line: RunLine, tmp_path: Path, args: tuple[str, str], release: str) -> None:
    settings = tmp_path / "settings.yaml"
    settings.write_text('kubernetesVersion: "1.36"\n', encoding="utf-8")
    given = [str(settings) if arg == "SETTINGS" else arg for arg in args]
    found = [
        f
        for f in validate_json(run_line, *given, RELEASES / "kops-cluster-1.34.yaml")[1]
        if f["rule"] == "KS001"
    ]
    assert f"kube-scheduler {release} fails" in str(found[0]["message"])


def test_a_volcano_fork_states_its_release_in_its_image_tag(run_line: RunLine) -> None:
    finding = _one(run_line, RELEASES / "volcano-fork-bundle.yaml")
    assert (finding["rule"], finding["line"]) == ("PT009", 9)
    assert str(finding["message"]).startswith(
        "this config targets Volcano 1.3 (the scheduler image "
        "`registry.example.com/ai-platform/vc-scheduler:v2.4.0-vc1.3-arm64` of Deployment "
        "`volcano-scheduler`, "
    )
    assert "pass --volcano-version 1.9" in str(finding["message"])


def test_volcano_as_released_is_judged_as_its_tag(run_line: RunLine) -> None:
    finding = _one(run_line, RELEASES / "volcano-1.12-bundle.yaml")
    assert (finding["rule"], finding["severity"]) == ("VC002", "warning")
    assert "Volcano 1.12 logs `Failed to find Action gangpreempt" in str(finding["message"])
    flagged = _one(run_line, "--volcano-version", "1.14", RELEASES / "volcano-1.12-bundle.yaml")
    assert (flagged["rule"], flagged["severity"]) == ("VC002", "error")


def _runner(image: str, family: str, build: str | None) -> Runner:
    return Runner(
        "Deployment `s`", "d.yaml", 9, image, family, build, frozenset(), frozenset(), False
    )


CONFIG = Document("c.yaml", 0, empty_root(), "")


@pytest.mark.parametrize(
    ("image", "family", "build", "release"),
    [
        pytest.param("registry.k8s.io/kube-scheduler:v1.30.2", KUBE, None, (1, 30), id="kube"),
        pytest.param(
            "registry.k8s.io/scheduler-plugins/kube-scheduler:v0.34.7",
            KUBE,
            SCHEDULER_PLUGINS,
            (1, 34),
            id="scheduler-plugins-is-built-on-kubernetes-1.34",
        ),
        pytest.param("ghcr.io/acme/my-scheduler:v1.2.0", KUBE, "own", None, id="own-build-tag"),
        pytest.param("volcanosh/vc-scheduler:v1.9.0", VOLCANO, None, (1, 9), id="volcano"),
        pytest.param("volcanosh/vc-scheduler:latest", VOLCANO, None, None, id="latest"),
        pytest.param("acme/vc-scheduler:v2.4.0-vc1.3-arm64", VOLCANO, "own", (1, 3), id="fork"),
        pytest.param("acme/vc-scheduler:v2.4.0", VOLCANO, "own", None, id="fork-own-version"),
        pytest.param("acme/vc-scheduler:1.14.1-npu", VOLCANO, "own", (1, 14), id="fork-base"),
    ],
)
def test_which_tags_state_a_release(
    image: str, family: str, build: str | None, release: tuple[int, int] | None
) -> None:
    found = declared_release(CONFIG, family, (), (_runner(image, family, build),))
    assert (found.version if found else None) == release


def test_runners_that_disagree_state_nothing() -> None:
    runners = (
        _runner("volcanosh/vc-scheduler:v1.9.0", VOLCANO, None),
        _runner("volcanosh/vc-scheduler:v1.12.0", VOLCANO, None),
    )
    assert declared_release(CONFIG, VOLCANO, (), runners) is None


@pytest.mark.parametrize(("label", "expected"), [("Failing", ["PT009"]), ("Passing", [])])
def test_the_rule_examples(
    run_line: RunLine, tmp_path: Path, label: str, expected: list[str]
) -> None:
    assert example_rules(run_line, tmp_path, PT009_UNJUDGED_RELEASE.doc, label)[1] == expected
