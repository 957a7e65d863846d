"""kube-scheduler 1.36 ground truth, reproduced through ``policytest run``.

``data/oracle/kube136_score_cases.jsonl.gz`` holds 779 cases the real v1.36.3
``NodeResourcesFit`` / ``NodeResourcesBalancedAllocation`` scored, each beside what the
real v1.35.4 code gave for the same input (``result_1_35``). Every case becomes a fixture
(the plugin's args in a KubeSchedulerConfiguration, the case's nodes and pod), run by the
real CLI with ``--kubernetes-version 1.36`` and again with ``1.35``: each node's plugin
score in the JSON report must equal the real release's. Fit's filter is disabled in the
fixture's profile, because the corpus scores overcommitted nodes too, and a skipped
BalancedAllocation (PreScore Skip) must be absent from the report.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import DATA, RunLine
from tests.corpus import Corpus

CASES_FILE = DATA / "oracle" / "kube136_score_cases.jsonl.gz"
CASES = Corpus.read(CASES_FILE)


def container(spec: dict[str, Any], index: int, prefix: str) -> dict[str, Any]:
    """An oracle container as a fixture container; limits dropped (the oracle pods had no
    API-server defaulting, and scores depend on requests alone)."""
    out: dict[str, Any] = {"name": f"{prefix}{index}"}
    if spec.get("requests") is not None:
        out["resources"] = {"requests": spec["requests"]}
    if spec.get("restartPolicy"):
        out["restartPolicy"] = spec["restartPolicy"]
    return out


def pod(spec: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "containers": [container(c, i, "c") for i, c in enumerate(spec.get("containers") or [])]
    }
    if spec.get("initContainers"):
        out["initContainers"] = [container(c, i, "i") for i, c in enumerate(spec["initContainers"])]
    if spec.get("overhead"):
        out["overhead"] = spec["overhead"]
    if (spec.get("resources") or {}).get("requests"):
        out["resources"] = {"requests": spec["resources"]["requests"]}
    return out


def fixture(case: dict[str, Any]) -> dict[str, Any]:
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {"filter": {"disabled": [{"name": "NodeResourcesFit"}]}},
                "pluginConfig": [{"name": case["plugin"], "args": case["args"] or {}}],
            }
        ],
    }
    return {
        "apiVersion": "policytest/v1",
        "kind": "PolicyTest",
        "metadata": {"name": case["id"]},
        "scheduler": {"kubeSchedulerConfiguration": config},
        "cluster": {
            "nodes": [
                {
                    "name": node["name"],
                    "allocatable": node["allocatable"],
                    "pods": [pod(p) for p in node.get("pods") or []],
                }
                for node in case["nodes"]
            ]
        },
        "cases": [{"name": "score", "pod": pod(case["pod"]), "expect": {}}],
    }


def write_suite(root: Path, cases: Iterable[dict[str, Any]]) -> Path:
    for case in cases:
        text = yaml.safe_dump(fixture(case), sort_keys=False)
        (root / f"{case['id']}.policytest.yaml").write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_suite(tmp_path_factory.mktemp("kube136"), CASES.cases())


DIFFERING = CASES.select(lambda case: bool(case["differs_from_1_35"]))[0][:60]
"""Cases whose 1.35 and 1.36 scores differ: a release chosen wrong shows in every one
(the whole corpus goes through `run` once per release above)."""


@pytest.fixture(scope="module")
def differing(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_suite(tmp_path_factory.mktemp("kube136-differing"), CASES.cases(DIFFERING))


def reported(
    run_line: RunLine, suite: Path, release: str, *, settings: Path | None = None
) -> dict[str, dict[str, Any]]:
    """The JSON report of ``run`` over the suite, the release chosen by the flag or, with
    ``settings``, by a project settings file's ``kubernetesVersion``."""
    chosen = ["--settings", str(settings)] if settings else ["--kubernetes-version", release]
    result = run_line(["run", str(suite), "--root", str(suite), "--format", "json", *chosen])
    report = json.loads(result.stdout)
    return {Path(r["file"]).name.removesuffix(".policytest.yaml"): r for r in report["results"]}


def mismatches(
    results: dict[str, dict[str, Any]], expected: Any, indices: list[int] | None = None
) -> list[str]:
    wrong = []
    for case in CASES.cases(indices):
        result = results[case["id"]]
        if result["status"] == "error":
            wrong.append(f"{case['id']}: {result['message']}")
            continue
        scores, skipped = expected(case)
        for node in result["nodes"]:
            got = node["plugins"].get(case["plugin"])
            want = None if skipped else scores[node["name"]]
            if got != want:
                wrong.append(f"{case['id']} {node['name']}: {got} != {want}")
    return wrong


def test_the_whole_corpus_is_here() -> None:
    assert len(CASES) == 779
    plugins = [case["plugin"] for case in CASES.cases()]
    assert plugins.count("NodeResourcesBalancedAllocation") == 611
    assert sum(case["differs_from_1_35"] for case in CASES.cases()) > 400


def test_every_1_36_score_through_run(run_line: RunLine, suite: Path) -> None:
    def expected(case: dict[str, Any]) -> tuple[dict[str, int], bool]:
        result = case["result"]
        return {s["name"]: s["score"] for s in result["scores"]}, result["skipped"]

    wrong = mismatches(reported(run_line, suite, "1.36"), expected)
    assert not wrong, f"{len(wrong)} differ; first:\n" + "\n".join(wrong[:10])


def test_every_1_35_score_of_the_same_inputs_through_run(run_line: RunLine, suite: Path) -> None:
    def expected(case: dict[str, Any]) -> tuple[dict[str, int], bool]:
        result = case["result_1_35"]
        return dict(result["scores"]), result["skipped"]

    wrong = mismatches(reported(run_line, suite, "1.35"), expected)
    assert not wrong, f"{len(wrong)} differ; first:\n" + "\n".join(wrong[:10])


@pytest.mark.parametrize(("release", "key"), [("1.36", "result"), ("1.35", "result_1_35")])
def test_the_release_chosen_by_the_settings_file(
    run_line: RunLine, differing: Path, tmp_path: Path, release: str, key: str
) -> None:
    settings = tmp_path / "settings.yaml"
    settings.write_text(f'kubernetesVersion: "{release}"\n')

    def expected(case: dict[str, Any]) -> tuple[dict[str, int], bool]:
        scores = case[key]["scores"]
        if isinstance(scores, list):
            return {s["name"]: s["score"] for s in scores}, case[key]["skipped"]
        return dict(scores), case[key]["skipped"]

    results = reported(run_line, differing, release, settings=settings)
    wrong = mismatches(results, expected, DIFFERING)
    assert not wrong, f"{len(wrong)} differ; first:\n" + "\n".join(wrong[:10])


QUIRK = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {name: fit-score-ignores-pod-level-requests}
scheduler:
  kubeSchedulerConfiguration:
    apiVersion: kubescheduler.config.k8s.io/v1
    kind: KubeSchedulerConfiguration
cluster:
  nodes:
  - {name: empty, allocatable: {cpu: "32", memory: 128Gi, pods: "110"}}
cases:
- name: three request-less containers, pod-level memory
  pod:
    containers: [{name: a}, {name: b}, {name: c}]
    resources: {requests: {memory: 4.653G}}
  expect:
    plugins: {empty: {NodeResourcesFit: 99}}
"""


def test_fit_score_ignores_the_pod_level_requests(run_line: RunLine, tmp_path: Path) -> None:
    """The oracle README's worked case (k136-fit-0087): Fit's score sums the containers
    (3 x 100m, 3 x 200Mi) and gets 99; the pod-level memory would give 97."""
    path = tmp_path / "quirk.policytest.yaml"
    path.write_text(QUIRK, encoding="utf-8")
    for release in ("1.35", "1.36"):
        result = run_line(
            ["run", str(path), "--root", str(tmp_path), "--kubernetes-version", release]
        )
        assert result.exit_code == 0, result


def test_the_corpus_has_pod_level_fit_cases_whose_score_the_quirk_decides() -> None:
    from policytest.scoring.accounting import kube_node_info, kube_pod_non_zero_requests
    from policytest.scoring.kube import fit_score
    from policytest.scoring.specs import node_from_dict, pod_from_dict
    from tests.kube_args import fit_args_from_dict

    decided = 0
    for case in CASES.cases():
        if case["plugin"] != "NodeResourcesFit" or not (case["pod"].get("resources") or {}):
            continue
        spec = pod_from_dict(case["pod"], default_requests_from_limits=False)
        if kube_pod_non_zero_requests(spec) != kube_pod_non_zero_requests(spec, True):
            decided += 1
        args = fit_args_from_dict(case["args"])
        for node, recorded in zip(case["nodes"], case["result"]["scores"], strict=True):
            info = kube_node_info(node_from_dict(node, default_requests_from_limits=False))
            assert fit_score(args, spec, info) == recorded["score"], case["id"]
    assert decided >= 10


def test_explain_shows_both_balance_terms(run_line: RunLine, suite: Path) -> None:
    case = next(
        c
        for c in CASES.cases()
        if c["plugin"] == "NodeResourcesBalancedAllocation"
        and not c["result"]["skipped"]
        and c["differs_from_1_35"]
    )
    path = suite / f"{case['id']}.policytest.yaml"
    argv = ["explain", str(path), "--root", str(suite), "--kubernetes-version", "1.36"]
    result = run_line([*argv, "--fail-on", "failure"])
    # the generated cases assert nothing (the oracle's scores are checked from the JSON),
    # so the case fails as an empty expectation does, and explain still shows every term
    assert result.exit_code == 1 and "expect is empty" in result.stdout, result
    old = case["result_1_35"]["scores"]
    for score in case["result"]["scores"]:
        name = score["name"]
        line = next(
            line
            for line in result.stdout.splitlines()
            if line.strip().startswith(f"{name} / NodeResourcesBalancedAllocation: S(with pod)")
        )
        with_pod = int(line.split("S(with pod) ")[1].split(",")[0])
        without_pod = int(line.split("S(without pod) ")[1].split(" ")[0])
        assert with_pod == old[name]  # S(with) is the 1.35 score
        assert 50 + (50 + with_pod - without_pod) // 2 == score["score"]
        assert line.endswith(f"-> {score['score']}")


# --- Volcano's nodeorder balancedresource is the same plugin ---------------------------------

NODEORDER = {
    "actions": "enqueue, allocate, backfill",
    "tiers": [
        {
            "plugins": [
                {"name": "predicates"},
                {
                    "name": "nodeorder",
                    "arguments": {
                        "leastrequested.weight": 0,
                        "mostrequested.weight": 0,
                        "balancedresource.weight": 1,
                        # nodeorder's topology terms off: balancedresource alone
                        "tainttoleration.weight": 0,
                        "nodeaffinity.weight": 0,
                        "podaffinity.weight": 0,
                        "podtopologyspread.weight": 0,
                        "imagelocality.weight": 0,
                    },
                },
            ]
        }
    ],
}


def _same_as_nodeorder(case: dict[str, Any]) -> bool:
    """BalancedAllocation cases nodeorder's balancedresource (cpu, memory, nvidia.com/gpu,
    Score called without PreScore) reproduces: default resources, no GPU requested, not
    skipped."""
    if case["plugin"] != "NodeResourcesBalancedAllocation" or case["result"]["skipped"]:
        return False
    resources = [r["name"] for r in case["result"]["effective_args"]["resources"]]
    requests = json.dumps(case["pod"])
    return resources == ["cpu", "memory"] and "nvidia.com/gpu" not in requests


VOLCANO_CASES = CASES.select(_same_as_nodeorder)[0]


@pytest.mark.parametrize(("release", "key"), [("1.16", "result"), ("1.15", "result_1_35")])
def test_volcano_balancedresource_is_its_kubernetes_release(
    run_line: RunLine, tmp_path: Path, release: str, key: str
) -> None:
    """Volcano 1.16 builds on Kubernetes 1.36 and 1.15 on 1.35: nodeorder's
    balancedresource gives the real 1.36.3 (1.35.4) plugin's score on every node Volcano's
    predicates let through."""
    assert len(VOLCANO_CASES) > 100
    by_id = {case["id"]: case for case in CASES.cases(VOLCANO_CASES)}
    for case in by_id.values():
        data = fixture(case)
        data["scheduler"] = {"volcano": NODEORDER}
        path = tmp_path / f"{case['id']}.policytest.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    result = run_line(
        ["run", tmp_path, "--root", tmp_path, "--format", "json", "--volcano-version", release]
    )
    compared = 0
    wrong = []
    for entry in json.loads(result.stdout)["results"]:
        case = by_id[Path(entry["file"]).name.removesuffix(".policytest.yaml")]
        scores = case[key]["scores"]
        expected = {s["name"]: s["score"] for s in scores} if isinstance(scores, list) else scores
        for node in entry["nodes"]:
            if node["feasible"]:
                compared += 1
                if node["plugins"]["nodeorder"] != expected[node["name"]]:
                    wrong.append(f"{case['id']} {node['name']}: {node['plugins']} != {expected}")
    assert not wrong, "\n".join(wrong[:10])
    assert compared > 300
