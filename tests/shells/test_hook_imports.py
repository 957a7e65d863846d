"""The hook's cost on every commit: ``validate`` on one file loads a scheduler's semantics
only when a document of that kind appears, and a plugin's argument decoders only when a
conf has the plugin (``python -X importtime``, a fresh process, as the hook runs), and
no module of ours imports ``typing``. Speed itself is measured in
``benchmarks/validate_latency.py``, never asserted here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import VOLCANO_CONF

KUBE_CONF = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
"""
KUBE_AFFINITY_CONF = KUBE_CONF + (
    "  pluginConfig:\n  - name: NodeAffinity\n    args:\n      addedAffinity:\n"
    "        requiredDuringSchedulingIgnoredDuringExecution:\n          nodeSelectorTerms:\n"
    "          - matchExpressions:\n            - {key: zone, operator: In, values: [a]}\n"
)
"""A profile with an ``addedAffinity``: the node filters load to check it."""
RSF_CONF = VOLCANO_CONF + "  - name: resource-strategy-fit\n"
CONFIGMAP = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: volcano-scheduler-configmap\n"
    "data:\n  volcano-scheduler.conf: |\n"
    + "".join(f"    {line}\n" for line in VOLCANO_CONF.splitlines())
)


def imported(tmp_path: Path, name: str, text: str) -> set[str]:
    """The modules ``policytest validate FILE`` imports, by ``-X importtime``."""
    path = tmp_path / name
    path.write_text(text)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "policytest", "validate", str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


VOLCANO_EXTRAS = {"policytest.volcano.rsf_args", "policytest.volcano.mapdecode"}
NEVER = {
    # the release a config's files state: only when something around it can state one
    "policytest.check.declared",
    "policytest.read.chart_values",
    "jsonschema",
    "difflib",
    "importlib.resources",
    "policytest.harness.runner",
    "policytest.diff.model",
    # Volcano's jobs and sessions: a cluster's objects and what runs them, not a config's
    "policytest.sessions",
    "policytest.sessions.objects",
    "policytest.scoring.session_plan",
    # the scorers and the cluster model: validating a config needs its args, not a cluster
    "policytest.scoring.kube",
    "policytest.scoring.accounting",
    "policytest.scoring.cluster",
    "policytest.scoring.filters",
    # records, not dataclasses (which imports inspect, ast, dis and tokenize): issue 28, item 9
    "dataclasses",
    "inspect",
    # argparse sizes its help by the terminal without shutil (and its bz2, lzma): item 9
    "shutil",
    # a small config is read by the small reader: no ruamel.yaml, no libyaml
    "ruamel.yaml",
    "_ruamel_yaml",
}


@pytest.mark.parametrize(
    ("name", "text", "absent", "present"),
    [
        pytest.param(
            "volcano-scheduler.conf",
            VOLCANO_CONF,
            {"policytest.kube.semantics", *VOLCANO_EXTRAS, *NEVER},
            {"policytest.volcano.conf", "policytest.volcano.binpack_args"},
            id="volcano",
        ),
        pytest.param(
            "volcano-scheduler-configmap.yaml",
            CONFIGMAP,
            {"policytest.kube.semantics", *VOLCANO_EXTRAS, *NEVER},
            {"policytest.volcano.conf", "policytest.volcano.binpack_args"},
            id="volcano-configmap",
        ),
        pytest.param(
            "volcano-scheduler.conf",
            RSF_CONF,
            {"policytest.kube.semantics", *NEVER},
            VOLCANO_EXTRAS,
            id="volcano-with-resource-strategy-fit",
        ),
        pytest.param(
            "kube.yaml",
            KUBE_CONF,
            {"policytest.volcano.conf", "policytest.volcano.decode", *NEVER},
            {"policytest.kube.semantics"},
            id="kube-scheduler",
        ),
        pytest.param(
            "values.yaml",
            "replicaCount: 2\n",
            {"policytest.volcano.conf", "policytest.kube.semantics", *NEVER},
            set(),
            id="not-a-scheduler-config",
        ),
    ],
)
def test_validate_loads_only_the_semantics_its_documents_need(
    tmp_path: Path, name: str, text: str, absent: set[str], present: set[str]
) -> None:
    modules = imported(tmp_path, name, text)
    assert not modules & absent, sorted(modules & absent)
    assert present <= modules, sorted(present - modules)


SPY = """\
import builtins, runpy, sys

importers = set()
real_import = builtins.__import__


def spying(name, globals=None, locals=None, fromlist=(), level=0):
    if name == "typing" or name.startswith("typing."):
        importers.add((globals or {}).get("__name__", "?"))
    return real_import(name, globals, locals, fromlist, level)


builtins.__import__ = spying
report, sys.argv = sys.argv[1], ["policytest", *sys.argv[2:]]
try:
    runpy.run_module("policytest", run_name="__main__", alter_sys=True)
finally:
    with open(report, "w") as out:
        out.write("\\n".join(sorted(importers)))
"""


def typing_importers(tmp_path: Path, name: str, text: str) -> set[str]:
    """The modules whose ``import`` statements ask for ``typing`` (or a submodule) while
    ``policytest validate FILE`` runs: every statement, not only the first, which
    ``-X importtime`` would show alone."""
    path = tmp_path / name
    path.write_text(text)
    report = tmp_path / "importers.txt"
    done = subprocess.run(
        [sys.executable, "-c", SPY, str(report), "validate", str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return set(report.read_text().split())


@pytest.mark.parametrize(
    ("name", "text"),
    [
        pytest.param("volcano-scheduler.conf", VOLCANO_CONF, id="volcano"),
        pytest.param("volcano-scheduler-configmap.yaml", CONFIGMAP, id="volcano-configmap"),
        pytest.param("volcano-scheduler.conf", RSF_CONF, id="volcano-with-resource-strategy-fit"),
        pytest.param("kube.yaml", KUBE_CONF, id="kube-scheduler"),
        pytest.param("kube.yaml", KUBE_AFFINITY_CONF, id="kube-scheduler-added-affinity"),
    ],
)
def test_validate_imports_no_typing(tmp_path: Path, name: str, text: str) -> None:
    """``import typing`` costs the hook about 3 ms (issue 28, item 9): names for the type
    checker are imported under ``TYPE_CHECKING = False`` (``docs/performance.md``), and
    records are ``@record``s, not ``NamedTuple``s. ``pkgutil`` is no way to read a schema
    either: it imports ``typing`` as it loads (``functools.singledispatch``)."""
    assert not typing_importers(tmp_path, name, text)
    assert "typing" not in imported(tmp_path, name, text)
