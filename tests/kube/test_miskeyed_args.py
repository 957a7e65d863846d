"""A pluginConfig entry under a key of kube-scheduler's validator table that is not a
plugin name (``NodeResourcesFitArgs`` in 1.35.4 and 1.36.3) stops the scheduler with
``has to match plugin args``; under the plugin's name the same args are fine."""

from __future__ import annotations

from pathlib import Path

import pytest

from policytest.kube.other_args import MISKEYED_ARGS
from tests.conftest import RunLine

CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: bin-packing-scheduler
  pluginConfig:
  - name: {name}
{args}"""
MOST_ALLOCATED = """\
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
        - {name: cpu, weight: 1}
        - {name: memory, weight: 1}
"""


def _write(tmp_path: Path, name: str, args: str) -> Path:
    path = tmp_path / "kube.yaml"
    path.write_text(CONFIG.format(name=name, args=args))
    return path


def test_the_miskeyed_names_are_upstreams() -> None:
    assert MISKEYED_ARGS == {"NodeResourcesFitArgs": "NodeResourcesFit"}


@pytest.mark.parametrize("version", ["1.35", "1.36"])
@pytest.mark.parametrize(
    ("args", "shown"), [(MOST_ALLOCATED, "runtime.Unknown{...}"), ("", "null")]
)
def test_args_kind_as_plugin_name_is_refused(
    run_line: RunLine, tmp_path: Path, version: str, args: str, shown: str
) -> None:
    path = _write(tmp_path, "NodeResourcesFitArgs", args)
    result = run_line(["validate", "--kubernetes-version", version, path])
    assert result.exit_code == 1, result
    assert f"{path}:6:11: KS030 error: " in result.stdout
    assert (
        f'"profiles[0].pluginConfig[0].args: Invalid value: {shown}: has to match plugin args"'
        in result.stdout
    )
    assert 'name the entry "NodeResourcesFit"' in result.stdout
    assert "KS041" not in result.stdout  # not "accepted and ignored": it is refused


def test_the_plugin_name_is_accepted(run_line: RunLine, tmp_path: Path) -> None:
    result = run_line(["validate", _write(tmp_path, "NodeResourcesFit", MOST_ALLOCATED)])
    assert result.exit_code == 0, result


def test_refused_even_for_a_custom_build(run_line: RunLine, tmp_path: Path) -> None:
    settings = tmp_path / "settings.yaml"
    settings.write_text("kubeScheduler:\n  distribution: scheduler-plugins\n")
    path = _write(tmp_path, "NodeResourcesFitArgs", MOST_ALLOCATED)
    result = run_line(["validate", "--settings", settings, path])
    assert "has to match plugin args" in result.stdout
