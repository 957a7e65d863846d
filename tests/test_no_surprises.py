"""No surprises: no network, no YAML tag ever constructs anything, no eval/exec/pickle.

Network: every command (``diff`` in git and file mode and ``simulate`` included) and a
pytest run of the plugin run with ``socket`` connections patched to raise, in-process and
in a separate interpreter whose ``sitecustomize`` blocks them before policytest is even
imported (the schemas are bundled; nothing is fetched). Tags: fixtures and configs full of
``!!python/object/apply``, ``!!python/name`` and custom tags, which would create a marker
file if anything constructed them, go through validate, run, explain and ``run --update``;
the marker never appears. Source: the package never calls eval/exec/compile or imports
pickle-like modules, and only ever uses ruamel.yaml's composer or round-trip loader.
"""

from __future__ import annotations

import ast
import os
import shutil
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import RunLine

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "policytest"
FIXTURE = ROOT / "fixtures" / "volcano-three-nodes-cpu-weighted.policytest.yaml"
COMMANDS = [
    ["validate", "fixtures"],
    ["validate", "--format", "sarif", "fixtures"],
    ["run", "--format", "json", "fixtures"],
    ["run", "--format", "junit", "fixtures"],
    ["explain", str(FIXTURE.relative_to(ROOT))],
    ["diff", "--base", "HEAD", "--all", "fixtures"],
    [
        "diff",
        "fixtures/configs/volcano-binpack-cpu-weighted.yaml",
        "fixtures/configs/volcano-binpack-memory-weighted.yaml",
        "--fixtures",
        "fixtures",
        "--format",
        "markdown",
    ],
    [
        "simulate",
        "fixtures/volcano-gpu-two-nodes.policytest.yaml",
        "--config",
        "fixture",
        "--config",
        "fixtures/configs/volcano-binpack-gpu.yaml",
    ],
    ["upgrade", "--to-volcano", "1.16", "--format", "markdown", "fixtures"],
    ["schema"],
    ["schema", "policytest-fixture"],
    ["rules"],
]


class NetworkUsed(AssertionError):
    pass


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    attempts: list[str] = []

    def refuse(*args: object, **kwargs: object) -> None:
        attempts.append(repr(args))
        raise NetworkUsed(f"network access attempted: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    yield attempts
    assert not attempts


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda argv: " ".join(argv))
def test_commands_run_with_the_network_blocked_in_process(
    run_line: RunLine, no_network: list[str], monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    monkeypatch.chdir(ROOT)
    result = run_line(argv)
    assert result.exit_code == 0, result
    assert not no_network


def test_the_pytest_plugin_runs_with_the_network_blocked_in_process(
    pytester: pytest.Pytester, no_network: list[str]
) -> None:
    result = pytester.runpytest("-p", "no:cacheprovider", str(ROOT / "fixtures"))
    assert result.ret == 0, result.stdout.str()
    assert result.parseoutcomes()["passed"] >= 8
    assert not no_network


def test_the_network_block_can_fail(no_network: list[str]) -> None:
    with pytest.raises(NetworkUsed):
        socket.create_connection(("example.com", 80))
    no_network.clear()


SITECUSTOMIZE = textwrap.dedent(
    """
    import socket, sys
    def refuse(*args, **kwargs):
        sys.stderr.write("NETWORK ATTEMPT\\n")
        raise OSError("network blocked by the test")
    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse
    """
)


def test_commands_run_with_the_network_blocked_in_a_subprocess(tmp_path: Path) -> None:
    """A ``sitecustomize`` blocks sockets before anything else runs (the plugin and the
    lazily imported checkers included); each command is its own process."""
    (tmp_path / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "NO_COLOR": "1"}
    probe = subprocess.run(
        [sys.executable, "-c", "import socket; socket.create_connection(('example.com', 80))"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "NETWORK ATTEMPT" in probe.stderr  # the block is in place
    for argv in COMMANDS:
        done = subprocess.run(
            [sys.executable, "-m", "policytest", *argv],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, (argv, done.stderr)
        assert "NETWORK ATTEMPT" not in done.stderr, argv
    plugin = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "fixtures"]
    done = subprocess.run(plugin, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout and "NETWORK ATTEMPT" not in done.stderr


# --- YAML tags construct nothing ------------------------------------------------------------

MARKER = "tag-ran-code"
TAGGED_VALUES = [
    f"!!python/object/apply:os.system ['touch {MARKER}']",
    f"!!python/object/apply:subprocess.check_call [['touch', '{MARKER}']]",
    f"!!python/object/new:subprocess.Popen [['touch', '{MARKER}']]",
    "!!python/name:os.system",
    "!!python/module:os",
    f"!!python/object:pathlib.PosixPath {{args: ['{MARKER}']}}",
    "!marker {path: x}",
    "!<tag:example.com,2000:touch> x",
]


def tagged_fixture(value: str, where: str) -> str:
    """The bundled three-node fixture with ``value`` at ``where`` (and failing, for --update)."""
    text = FIXTURE.read_text().replace(
        "ranking: [node-a, node-c, node-b]", "ranking: [node-b, node-a, node-c]"
    )
    text = text.replace("configs/", "")
    if where == "metadata":  # allowed by the schema: the fixture runs, fails, is updated
        return text.replace("metadata:\n", f"metadata:\n  extra: {value}\n", 1)
    if where == "pod":
        return text.replace("pod: {", f"pod: {{name: {value}, ", 1)
    assert where == "key"
    return text.replace("cases:\n", f"cases:\n- ? {value}\n  : 1\n", 1)


def tagged_config(value: str) -> str:
    config = (ROOT / "fixtures" / "configs" / "volcano-binpack-cpu-weighted.yaml").read_text()
    return config.replace("metadata:\n", f"metadata:\n  annotations:\n    extra: {value}\n", 1)


@pytest.mark.parametrize("where", ["metadata", "pod", "key"])
@pytest.mark.parametrize("value", TAGGED_VALUES)
def test_no_tag_constructs_anything(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, where: str
) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "volcano-binpack-cpu-weighted.yaml").write_text(tagged_config(value))
    fixture = tmp_path / "t.policytest.yaml"
    fixture.write_text(tagged_fixture(value, where))
    for argv in (
        ["validate", "--format", "json", "."],
        ["run", "--format", "json", "."],
        ["explain", fixture],
        ["run", "--update", "."],
    ):
        result = run_line(argv)
        assert result.exit_code in (0, 1), (argv, result)
        assert "internal error" not in result.stderr
    assert not (tmp_path / MARKER).exists()
    if where == "metadata":  # the round-trip loader of --update read the tagged text too
        assert "ranking: [node-a, node-c, node-b]" in fixture.read_text()
        assert value.split()[0] in fixture.read_text()
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == [
        "t.policytest.yaml",
        "volcano-binpack-cpu-weighted.yaml",
    ]


def test_the_marker_would_appear_if_a_tag_were_constructed(tmp_path: Path) -> None:
    """Positive control: an unsafe loader given the same text does create the marker."""
    if shutil.which("touch") is None:
        pytest.skip("no touch(1)")
    from ruamel.yaml import YAML

    script = f"a: {TAGGED_VALUES[0]}\n"
    with pytest.warns(Warning):  # ruamel.yaml warns loudly about the unsafe loader
        cwd = os.getcwd()
        os.chdir(tmp_path)
        try:
            YAML(typ="unsafe", pure=True).load(script)
        finally:
            os.chdir(cwd)
    assert (tmp_path / MARKER).exists()


# --- the source: no eval, exec or pickle ------------------------------------------------------

FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__", "execfile"}
FORBIDDEN_MODULES = {"pickle", "cPickle", "_pickle", "marshal", "shelve", "dill", "cloudpickle"}
SAFE_YAML_TYPES = {"rt", "safe"}


def package_sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def problems_in(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in FORBIDDEN_CALLS:
                yield f"line {node.lineno}: calls {node.func.id}()"
            if node.func.id == "YAML":
                for keyword in node.keywords:
                    typ = keyword.value
                    if keyword.arg == "typ" and not (
                        isinstance(typ, ast.Constant) and typ.value in SAFE_YAML_TYPES
                    ):
                        yield f"line {node.lineno}: YAML(typ={ast.unparse(typ)})"
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in {"literal_eval", "unsafe_load", "full_load"}
        ):
            yield f"line {node.lineno}: calls .{node.func.attr}()"
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in FORBIDDEN_MODULES:
                    yield f"line {node.lineno}: imports {alias.name}"
        if isinstance(node, ast.ImportFrom) and (
            (node.module or "").split(".")[0] in FORBIDDEN_MODULES or node.module == "builtins"
        ):
            yield f"line {node.lineno}: imports from {node.module}"
        if (
            isinstance(node, ast.Attribute)
            and node.attr in {"eval", "exec"}
            and isinstance(node.value, ast.Name)
            and node.value.id == "builtins"
        ):
            yield f"line {node.lineno}: uses builtins.{node.attr}"


def test_the_package_never_evaluates_code_or_unpickles() -> None:
    found = {
        str(path.relative_to(ROOT)): problems
        for path in package_sources()
        if (problems := list(problems_in(ast.parse(path.read_text(), str(path)))))
    }
    assert not found
    assert len(package_sources()) > 20  # the scan really saw the package


@pytest.mark.parametrize(
    "source",
    [
        "eval('1')",
        "exec('x = 1')",
        "import pickle",
        "from marshal import loads",
        "YAML(typ='unsafe')",
        "YAML(typ=kind)",
        "import builtins\nbuiltins.exec('')",
    ],
)
def test_the_scan_catches_each_forbidden_construct(source: str) -> None:
    assert list(problems_in(ast.parse(source)))
