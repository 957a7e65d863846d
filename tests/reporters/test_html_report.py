"""The HTML reports without a browser: what reaches the page from an input is escaped,
the policy allows exactly the page's own style and script, Jinja2 is loaded only for
``--format html``, and a single pod's utilisation "after" is its node's plus the pod.
(The pages are opened in Chromium in ``tests/browser/``.)"""

from __future__ import annotations

import base64
import hashlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from policytest.core.options import CheckOptions
from policytest.harness.suite import run_file
from tests.conftest import DATA, RunLine

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = {
    "run": ["run", "--format", "html", "."],
    "explain": ["explain", "--format", "html", "hostile.policytest.yaml"],
    "simulate": ["simulate", "--format", "html", "hostile.policytest.yaml", "--config", "new.yaml"],
    "diff": ["diff", "old.yaml", "new.yaml", "--fixtures", ".", "--format", "html"],
}


@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS.keys())
def test_hostile_names_are_escaped_and_the_policy_fits_the_page(
    command: list[str], run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("hostile.policytest.yaml", "old.yaml", "new.yaml"):
        shutil.copy(DATA / "html" / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    page = run_line(command).stdout
    for raw in ("<script>window", "<img", "</style><", "<b>", "\u202e", "{{ 7*7 }} \u202e"):
        assert raw not in page
    # as HTML text, or as JSON for the script (which sets it as text)
    assert "&lt;script&gt;window.pwned=1" in page or "\\u003cscript\\u003ewindow" in page
    assert "{{ 7*7 }} \\u202eevil" in page or "{{ 7*7 }} \\\\u202eevil" in page
    blocks = re.findall(r"<(style|script)>(.*?)</\1>", page, re.DOTALL)
    assert [tag for tag, _ in blocks] == ["style", "script"]  # the node data has a type
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy is not None
    for tag, body in blocks:
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert f"{tag}-src &#39;sha256-{digest}&#39;" in policy.group(1)
    assert policy.group(1).startswith("default-src &#39;none&#39;;")


@pytest.mark.parametrize(
    ("argv", "loaded"),
    [
        (["validate", "fixtures/configs/kube-most-allocated.yaml"], set()),
        (["run", "fixtures/kube-most-allocated.policytest.yaml"], {"runner"}),
        (
            ["run", "--format", "html", "fixtures/kube-most-allocated.policytest.yaml"],
            {"runner", "jinja2"},
        ),
    ],
    ids=["validate", "run-text", "run-html"],
)
def test_each_command_imports_what_it_needs_only(argv: list[str], loaded: set[str]) -> None:
    """Jinja2 only for ``--format html``; the runner (and the reporters' options) never
    for ``validate``, the pre-commit hook's command."""
    code = (
        "import sys, io, contextlib\nfrom policytest.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n    status = main({argv!r})\n"
        "assert status == 0, status\n"
        "print(' '.join(sorted(name for name, module in "
        "[('jinja2', 'jinja2'), ('runner', 'policytest.harness.runner')] "
        "if module in sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert set(done.stdout.split()) == loaded


def test_a_single_pod_is_counted_on_the_best_node_after() -> None:
    path = str(ROOT / "fixtures" / "kube-least-allocated.policytest.yaml")
    result = run_file(path, CheckOptions(), str(ROOT))[0]
    best = result.ranking[0][0]
    assert result.before != result.utilisation
    for name, resources in result.before.items():
        if name != best:
            assert result.utilisation[name] == resources
    cpu_before, cpu_total = result.before[best]["cpu"]
    assert result.utilisation[best]["cpu"] == (cpu_before + 2000, cpu_total)  # the pod's 2 cpu


def test_a_sequence_keeps_the_cluster_as_it_was_before_its_first_pod() -> None:
    """``before`` is computed when read, from the nodes as the fixture gives them, not
    from the case's cluster state, which the sequence has filled by then."""
    path = str(ROOT / "fixtures" / "kube-most-allocated-deployment.policytest.yaml")
    result = next(r for r in run_file(path, CheckOptions(), str(ROOT)) if r.placements)
    assert result.placements is not None
    for name, placed in result.placements.items():
        cpu_before, cpu_total = result.before[name]["cpu"]
        assert result.utilisation[name]["cpu"] == (cpu_before + 500 * placed, cpu_total)
