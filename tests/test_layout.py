"""The package's layout keeps its design visible: stages import only the stages beneath
them, nothing imports in a circle, and each cross-cutting job has one home.

Imports are read from the source with :mod:`ast`, counting imports inside functions and
under ``TYPE_CHECKING``, and dotted module names written as strings (the lazily
imported tables of checkers, loaders and reporters). The package root is the one
exception: it names its public API as strings to import it lazily (PEP 562).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

import policytest
from policytest.core.errors import PolicytestError
from policytest.reporters.catalogue import RULE_MODULES, all_rules

PACKAGE = Path(policytest.__file__).parent
STAGES = (
    "core",
    "read",
    "scoring",
    "sessions",
    "volcano",
    "kube",
    "check",
    "harness",
    "diff",
    "reporters",
    "api",
    "commands",
    "pytest_plugin",
    "cli",
    "__main__",
)
"""Bottom to top: a module may import its own stage and those listed before it."""
SIBLINGS = {"volcano", "kube"}
"""The two scheduler packages stand side by side and never import each other."""
_DOTTED = re.compile(r"policytest(?:\.\w+)+")


def _modules() -> dict[str, Path]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The package module ``name`` refers to (a module, or a name inside one)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _references(module: str, path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield from (f"{base}.{alias.name}" for alias in node.names)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and module != "policytest"
            and _DOTTED.fullmatch(node.value)
            and _resolve(node.value) != "policytest"  # a resource package such as schemas
        ):
            yield node.value


@cache
def import_graph() -> dict[str, frozenset[str]]:
    graph = {}
    for module, path in MODULES.items():
        found = {
            _resolve(name) for name in _references(module, path) if name.startswith("policytest")
        }
        graph[module] = frozenset(m for m in found if m is not None and m != module)
    return graph


def _stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "policytest"


def test_the_top_level_holds_the_shells_and_the_api_only() -> None:
    top = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert top == ["__init__.py", "__main__.py", "api.py", "cli.py", "pytest_plugin.py"]


def test_every_stage_is_known() -> None:
    stages = {_stage(module) for module in MODULES} - {"policytest"}
    assert stages <= set(STAGES), stages - set(STAGES)


def test_each_stage_imports_only_the_stages_beneath_it() -> None:
    upward = []
    for module, imported in import_graph().items():
        for target in imported:
            here, there = _stage(module), _stage(target)
            if "policytest" in (here, there) or here == there:
                continue
            if {here, there} == SIBLINGS or STAGES.index(there) > STAGES.index(here):
                upward.append(f"{module} -> {target}")
    assert not upward, "\n".join(sorted(upward))


def _cycles(graph: dict[str, frozenset[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle_between_modules() -> None:
    assert _cycles(dict(import_graph())) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"}), "d": frozenset()}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_every_rule_id_appears_in_the_code_that_emits_it() -> None:
    """``grep KS012`` finds the check, not only the catalogue entry."""
    declaration = re.compile(r'^\w+ = rule\(\s*"([A-Z]{2}\d{3})"', re.MULTILINE)
    outside = "\n".join(
        declaration.sub("", path.read_text(encoding="utf-8")) for path in MODULES.values()
    )
    missing = [rule.id for rule in all_rules() if rule.id not in outside]
    assert not missing, missing


def test_the_catalogue_imports_every_module_that_declares_rules() -> None:
    declaring = {
        module
        for module, path in MODULES.items()
        if re.search(r"^\w+ = rule\($", path.read_text(encoding="utf-8"), re.MULTILINE)
    }
    assert declaring == {module.__name__ for module in RULE_MODULES}


def _classes() -> Iterator[tuple[str, ast.ClassDef]]:
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                yield module, node


def test_every_exception_derives_from_the_one_base_class() -> None:
    import importlib

    for module, node in _classes():
        value = getattr(importlib.import_module(module), node.name, None)
        if isinstance(value, type) and issubclass(value, BaseException):
            assert issubclass(value, PolicytestError), f"{module}.{node.name}"


@pytest.mark.parametrize(
    ("pattern", "home"),
    [
        pytest.param(r"\bdifflib\b", "policytest.core.suggest", id="did-you-mean"),
        pytest.param(r"\bos\.walk\(", "policytest.read.walk", id="file-walker"),
    ],
)
def test_one_home_for_each_cross_cutting_job(pattern: str, home: str) -> None:
    users = {
        m for m, path in MODULES.items() if re.search(pattern, path.read_text(encoding="utf-8"))
    }
    assert users == {home}


def test_the_public_api_is_all_and_typed() -> None:
    for name in policytest.__all__:
        assert getattr(policytest, name) is not None, name
    assert (PACKAGE / "py.typed").exists()
    with pytest.raises(AttributeError):
        _ = policytest.no_such_name  # type: ignore[attr-defined]
