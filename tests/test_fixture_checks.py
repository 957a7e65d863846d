"""Fixture content that would make a result untrue is PT003 at its key, in validate and run:
scheduling features the scorers do not simulate, quantities Kubernetes would reject, and a
``scheduler.config`` that cannot be used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import VOLCANO_CONF, RunLine

FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
scheduler: {config: volcano.yaml}
cluster:
  nodes:
  - name: node-a
    allocatable: {cpu: "8", memory: 16Gi, pods: "110"}
    used: {cpu: "2"}
  - name: node-b
    allocatable: {cpu: "8", memory: 16Gi, pods: "110"}
    pods:
    - requests: {memory: 1Gi}
cases:
- name: one pod
  pod:
    requests: {cpu: "1"}
  expect: {ranking: [node-a, node-b]}
"""


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "volcano.yaml").write_text(VOLCANO_CONF)
    path = tmp_path / "f.policytest.yaml"
    path.write_text(text)
    return path


def both(run_line: RunLine, path: Path) -> tuple[list[dict[str, object]], dict[str, object]]:
    """The validate findings and the single run result, as JSON."""
    validated = run_line(["validate", path, "--format", "json"])
    assert validated.exit_code == 1, validated
    ran = run_line(["run", path, "--format", "json"])
    assert ran.exit_code == 1, ran
    (result,) = json.loads(ran.stdout)["results"]
    return json.loads(validated.stdout)["findings"], result


def test_the_base_fixture_is_clean_and_passes(run_line: RunLine, tmp_path: Path) -> None:
    path = write(tmp_path, FIXTURE)
    assert run_line(["validate", path]).exit_code == 0
    assert run_line(["run", path]).exit_code == 0


UNSIMULATED = [
    # (replace, with, line, column, plugin)
    (
        '    requests: {cpu: "1"}\n',
        '    requests: {cpu: "1"}\n    nodeSelector: {zone: a}\n',
        17,
        5,
        "NodeAffinity plugin",
    ),
    (
        '    requests: {cpu: "1"}\n',
        '    requests: {cpu: "1"}\n    affinity:\n      podAntiAffinity: {}\n',
        17,
        5,
        "InterPodAffinity plugin",
    ),
    (
        '    requests: {cpu: "1"}\n',
        '    requests: {cpu: "1"}\n    tolerations: [{key: gpu, operator: Exists}]\n',
        17,
        5,
        "TaintToleration plugin",
    ),
    (
        '    requests: {cpu: "1"}\n',
        '    requests: {cpu: "1"}\n    topologySpreadConstraints: [{maxSkew: 1}]\n',
        17,
        5,
        "PodTopologySpread plugin",
    ),
    (
        "    - requests: {memory: 1Gi}\n",
        "    - containers: [{name: c}]\n      volumes:\n      - name: data\n"
        "        persistentVolumeClaim: {claimName: data}\n",
        15,
        9,
        "VolumeBinding",
    ),
    (
        '    used: {cpu: "2"}\n',
        '    used: {cpu: "2"}\n    labels: {zone: a}\n',
        9,
        5,
        "NodeAffinity, InterPodAffinity and PodTopologySpread plugins",
    ),
    (
        '    used: {cpu: "2"}\n',
        '    used: {cpu: "2"}\n    taints: [{key: gpu}]\n',
        9,
        5,
        "TaintToleration plugin",
    ),
    (
        "    - requests: {memory: 1Gi}\n",
        "    - metadata: {name: web}\n      spec:\n        containers:\n        - name: web\n"
        "          ports: [{containerPort: 80, hostPort: 80}]\n",
        16,
        39,
        "NodePorts plugin",
    ),
]


@pytest.mark.parametrize(("old", "new", "line", "column", "plugin"), UNSIMULATED)
def test_unsimulated_features_are_errors_at_their_key(
    run_line: RunLine, tmp_path: Path, old: str, new: str, line: int, column: int, plugin: str
) -> None:
    assert old in FIXTURE
    findings, result = both(run_line, write(tmp_path, FIXTURE.replace(old, new)))
    (finding,) = findings
    assert (finding["rule"], finding["line"], finding["column"]) == ("PT003", line, column)
    assert plugin in str(finding["message"])
    assert "policytest does not simulate" in str(finding["message"])
    assert result["status"] == "error"
    assert result["findings"] == findings


def test_unknown_keys_in_the_short_pod_form_and_the_node_form(
    run_line: RunLine, tmp_path: Path
) -> None:
    text = FIXTURE.replace('requests: {cpu: "1"}', 'request: {cpu: "1"}').replace(
        '    used: {cpu: "2"}', '    usd: {cpu: "2"}'
    )
    findings, _ = both(run_line, write(tmp_path, text))
    assert [(f["rule"], f["line"], f["column"]) for f in findings] == [
        ("PT002", 8, 5),
        ("PT002", 16, 5),
    ]
    assert "unknown key `request`" in str(findings[1]["message"])


def test_a_pod_spec_fragment_and_a_full_pod_take_any_pod_spec_field(
    run_line: RunLine, tmp_path: Path
) -> None:
    text = FIXTURE.replace(
        "    - requests: {memory: 1Gi}\n",
        "    - containers: [{name: c, resources: {requests: {memory: 1Gi}}}]\n"
        "      restartPolicy: Never\n"
        "    - {metadata: {name: p}, spec: {containers: [{name: c}], priority: 5}}\n",
    )
    assert run_line(["validate", write(tmp_path, text)]).exit_code == 0


@pytest.mark.parametrize(
    ("old", "new", "line", "column", "shown"),
    [
        ('used: {cpu: "2"}', 'used: {cpu: "6x"}', 8, 17, '`cpu: "6x"`'),
        ("requests: {memory: 1Gi}", 'requests: {memory: "1 Gi"}', 12, 26, '`memory: "1 Gi"`'),
    ],
)
def test_a_malformed_quantity_is_pt003_at_the_quantity(
    run_line: RunLine, tmp_path: Path, old: str, new: str, line: int, column: int, shown: str
) -> None:
    findings, result = both(run_line, write(tmp_path, FIXTURE.replace(old, new)))
    (finding,) = findings
    assert (finding["rule"], finding["line"], finding["column"]) == ("PT003", line, column)
    assert str(finding["message"]).startswith(f"{shown} is not a quantity Kubernetes accepts")
    assert "quantities must match the regular expression" in str(finding["message"])
    assert result["status"] == "error" and result["findings"] == findings


@pytest.mark.parametrize(
    ("new", "line", "column", "shown", "reason"),
    [
        (
            "- spec: {containers: [{name: x, resources: {requests: 5}}]}",
            12,
            59,
            "spec.containers[0].resources.requests",
            "expected a mapping, got int",
        ),
        ("- spec: {containers: main}", 12, 26, "spec.containers", "must be a list of containers"),
        (
            "- spec: {containers: [{name: x, restartPolicy: Always}]}",
            12,
            52,
            "spec.containers[0].restartPolicy",
            "only init containers take a restartPolicy",
        ),
    ],
)
def test_a_wrongly_shaped_bound_pod_is_pt003_at_the_value(
    run_line: RunLine, tmp_path: Path, new: str, line: int, column: int, shown: str, reason: str
) -> None:
    """The full pod form takes any PodSpec field, so the schema cannot say this."""
    text = FIXTURE.replace("    - requests: {memory: 1Gi}\n", f"    {new}\n")
    findings, result = both(run_line, write(tmp_path, text))
    (finding,) = findings
    assert (finding["rule"], finding["line"], finding["column"]) == ("PT003", line, column)
    assert str(finding["message"]).startswith(f"pod `{shown}`: {reason}")
    assert result["status"] == "error" and result["findings"] == findings


def test_validate_reports_a_missing_config(run_line: RunLine, tmp_path: Path) -> None:
    path = write(tmp_path, FIXTURE.replace("volcano.yaml", "missing.yaml"))
    findings, result = both(run_line, path)
    (finding,) = findings
    assert (finding["rule"], finding["line"], finding["column"]) == ("PT003", 3, 21)
    assert "`missing.yaml` does not exist" in str(finding["message"])
    assert result["findings"] == findings


@pytest.fixture
def uses_outside_config(tmp_path: Path) -> Path:
    """A fixture in ``tmp_path/repo`` (a git repository) whose config is one level up."""
    (tmp_path / "outside.yaml").write_text(VOLCANO_CONF)
    repository = tmp_path / "repo"
    (repository / ".git").mkdir(parents=True)
    return write(repository, FIXTURE.replace("volcano.yaml", "../outside.yaml"))


def test_validate_reports_a_config_outside_the_repository(
    run_line: RunLine, uses_outside_config: Path
) -> None:
    findings, _ = both(run_line, uses_outside_config)
    (finding,) = findings
    assert finding["rule"] == "PT003"
    assert "is outside the root" in str(finding["message"])


def test_validate_root_option_widens_where_configs_may_live(
    run_line: RunLine, tmp_path: Path, uses_outside_config: Path
) -> None:
    """``validate --root`` as ``run --root``: here the config one level up is allowed."""
    root = str(tmp_path)
    result = run_line(["validate", "--format", "json", "--root", root, str(uses_outside_config)])
    assert result.exit_code == 0, result
    assert json.loads(result.stdout)["findings"] == []


@pytest.mark.parametrize(
    ("old", "new", "line", "message"),
    [
        ("  - name: node-b\n", "  - name: node-a\n", 9, "node `node-a` is listed twice"),
        (
            "  expect: {ranking: [node-a, node-b]}\n",
            "  expect: {ranking: [node-a, node-b]}\n- name: one pod\n  pod: {requests: {}}\n"
            "  expect: {}\n",
            18,
            "case `one pod` is listed twice",
        ),
    ],
)
def test_a_name_listed_twice_is_pt003_at_the_second(
    run_line: RunLine, tmp_path: Path, old: str, new: str, line: int, message: str
) -> None:
    """Names identify nodes and cases (expectations, pytest ids, diff, --update)."""
    path = write(tmp_path, FIXTURE.replace(old, new))
    result = run_line(["validate", "--format", "json", path])
    assert result.exit_code == 1, result
    # every problem at once: renaming node-b also leaves the expectation's node-b unknown
    (finding,) = [
        f for f in json.loads(result.stdout)["findings"] if str(f["message"]).startswith(message)
    ]
    assert (finding["rule"], finding["line"]) == ("PT003", line)
