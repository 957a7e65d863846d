"""``@record`` behaves as ``@dataclass`` with the same fields and options: property tests
build one class both ways from a random declaration and compare what each does, and the
public API's records (formerly dataclasses) still answer ``dataclasses``' functions as
the dataclass declared from the same source does."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import operator
import pickle
import subprocess
import sys
from collections.abc import Callable
from functools import partial
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policytest.check.validate import ValidationReport
from policytest.core import records
from policytest.core.findings import Finding, Severity
from policytest.core.limits import Limits
from policytest.core.options import CheckOptions, RuleFilter
from policytest.core.records import FrozenRecordError, field, record, replace
from policytest.scoring.kube_args import FitScoring
from policytest.scoring.weights import BinpackWeights

NAMES = ("a", "b", "c", "d", "e")
VALUES = st.one_of(
    st.integers(-2, 2), st.sampled_from(["", "x", "y"]), st.none(), st.tuples(st.integers(0, 1))
)
FACTORIES: tuple[Callable[[], object], ...] = (list, dict, lambda: [0])


def outcome(action: Callable[[], object]) -> tuple[str, object]:
    """What ``action`` returns, or its exception's kind and message (both frozen errors
    are one kind: ``dataclasses.FrozenInstanceError`` and ``FrozenRecordError``)."""
    try:
        return "ok", action()
    except (FrozenRecordError, dataclasses.FrozenInstanceError) as error:
        assert isinstance(error, AttributeError)
        return "frozen", str(error)
    except Exception as error:
        return type(error).__name__, str(error).replace("dataclass", "record")


@st.composite
def declarations(draw: st.DrawFn) -> dict[str, Any]:
    """A record's fields (kind, value, compare, repr) and options, in any order, so that
    some declarations are refused (a required field after a defaulted one, a mutable
    default, order without eq)."""
    kinds = st.sampled_from(["required", "plain", "default", "factory", "mutable"])
    declared = [
        (name, draw(kinds), draw(VALUES), draw(st.sampled_from(FACTORIES)))
        for name in NAMES[: draw(st.integers(0, len(NAMES)))]
    ]
    return {
        "fields": [(*item, draw(st.booleans()), draw(st.booleans())) for item in declared],
        "frozen": draw(st.booleans()),
        "eq": draw(st.booleans()),
        "order": draw(st.booleans()),
    }


def define(declaration: dict[str, Any], decorator: Any, specifier: Any) -> type:
    """The class ``declaration`` describes, as policytest's modules write one (string
    annotations), made by ``decorator`` with ``specifier`` as ``field``."""
    namespace: dict[str, Any] = {"__module__": __name__, "__qualname__": "Rec"}
    annotations = namespace["__annotations__"] = {}
    for name, kind, value, factory, compare, shown in declaration["fields"]:
        annotations[name] = "object"
        options = {"compare": compare, "repr": shown}
        if kind == "plain":
            namespace[name] = value
        elif kind == "default":
            namespace[name] = specifier(default=value, **options)
        elif kind == "factory":
            namespace[name] = specifier(default_factory=factory, **options)
        elif kind == "mutable":
            namespace[name] = [value]
        elif not (compare and shown):
            namespace[name] = specifier(**options)
    options = {key: declaration[key] for key in ("frozen", "eq", "order")}
    return decorator(**options)(type("Rec", (), namespace))


def both(declaration: dict[str, Any]) -> tuple[tuple[str, object], tuple[str, object]]:
    return (
        outcome(lambda: define(declaration, record, field)),
        outcome(lambda: define(declaration, dataclasses.dataclass, dataclasses.field)),
    )


ARGUMENTS = st.tuples(
    st.lists(VALUES, max_size=6),
    st.dictionaries(st.sampled_from([*NAMES, "z"]), VALUES, max_size=3),
)


def described(instance: object) -> tuple[str, object]:
    """An instance's repr and field values, or the error that stood in its place."""
    return "ok", (repr(instance), [getattr(instance, n) for n in instance.__match_args__])


def hashed(instance: object) -> tuple[str, object]:
    if type(instance).__hash__ is object.__hash__:
        return "identity", hash(instance) == object.__hash__(instance)
    return outcome(lambda: hash(instance))


@settings(max_examples=300)
@given(declarations(), ARGUMENTS, ARGUMENTS, st.dictionaries(st.sampled_from(NAMES), VALUES))
def test_a_record_does_what_the_same_dataclass_does(
    declaration: dict[str, Any],
    first: tuple[list[Any], dict[str, Any]],
    second: tuple[list[Any], dict[str, Any]],
    changes: dict[str, Any],
) -> None:
    made, expected = both(declaration)
    assert made[0] == expected[0], (made, expected)
    if made[0] != "ok":
        assert made == expected
        return
    mine, theirs = made[1], expected[1]
    assert isinstance(mine, type) and isinstance(theirs, type)
    assert mine.__match_args__ == theirs.__match_args__
    pairs = []
    for args, kwargs in (first, second):
        built = outcome(partial(mine, *args, **kwargs)), outcome(partial(theirs, *args, **kwargs))
        assert built[0][0] == built[1][0] and str(built[0][1]) == str(built[1][1]), built
        if built[0][0] == "ok":
            assert described(built[0][1]) == described(built[1][1])
            pairs.append((built[0][1], built[1][1]))
            again = mine(*args, **kwargs)
            for name, kind, *_ in declaration["fields"]:
                if kind == "factory" and name not in kwargs and NAMES.index(name) >= len(args):
                    assert getattr(again, name) is not getattr(built[0][1], name)  # fresh
    if not pairs:
        return
    record_one, dataclass_one = pairs[0]
    assert hashed(record_one)[0] == hashed(dataclass_one)[0]
    if hashed(record_one)[0] != "identity":
        assert hashed(record_one) == hashed(dataclass_one)
    if len(pairs) == 2:
        (record_two, dataclass_two) = pairs[1]
        for compare in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt):
            assert outcome(partial(compare, record_one, record_two)) == outcome(
                partial(compare, dataclass_one, dataclass_two)
            )
    assert record_one != dataclass_one  # never equal across classes
    replaced = outcome(lambda: described(replace(record_one, **changes)))
    assert replaced == outcome(lambda: described(dataclasses.replace(dataclass_one, **changes)))
    assert replaced == outcome(lambda: described(dataclasses.replace(record_one, **changes)))
    for name in (*NAMES[:1], "z"):
        assignments = [outcome(partial(setattr, i, name, 1)) for i in pairs[0]]
        assert assignments[0] == assignments[1]
        deletions = [outcome(partial(delattr, i, name)) for i in pairs[0]]
        assert deletions[0][0] == deletions[1][0]


@settings(max_examples=100)
@given(declarations())
def test_dataclasses_functions_see_the_fields_the_dataclass_declares(
    declaration: dict[str, Any],
) -> None:
    made, expected = both(declaration)
    if made[0] != "ok":
        return
    mine, theirs = made[1], expected[1]
    assert dataclasses.is_dataclass(mine)
    assert _fields(mine) == _fields(theirs)
    assert [f.name for f in records.fields(mine)] == [f.name for f in dataclasses.fields(theirs)]
    params = mine.__dataclass_params__
    assert repr(params) == repr(theirs.__dataclass_params__)


def _fields(cls: Any) -> list[tuple[object, ...]]:
    return [
        (f.name, f.type, f.default, f.default_factory, f.compare, f.repr, dict(f.metadata))
        for f in dataclasses.fields(cls)
    ]


def test_a_subclass_adds_its_fields_after_its_bases_and_may_redefine_a_default() -> None:
    def declare(decorator: Any, specifier: Any) -> type:
        @decorator(frozen=True)
        class Base:
            a: int
            b: int = 1

        @decorator(frozen=True)
        class Child(Base):
            c: list[int] = specifier(default_factory=list, compare=False)
            b: int = 2

        return Child

    mine, theirs = declare(record, field), declare(dataclasses.dataclass, dataclasses.field)
    assert _fields(mine) == _fields(theirs)
    assert repr(mine(0)).endswith("Child(a=0, b=2, c=[])")
    assert repr(mine(0)) == repr(theirs(0)).replace(theirs.__qualname__, mine.__qualname__)
    assert mine(0, 2, [1]) == mine(0, 2, [2])
    assert mine.__match_args__ == theirs.__match_args__


def test_a_field_declared_again_without_a_value_keeps_the_inherited_default() -> None:
    def declare(decorator: Any) -> type:
        @decorator
        class Base:
            x: int = 1

        @decorator
        class Child(Base):
            x: int

        return Child

    mine, theirs = declare(record), declare(dataclasses.dataclass)
    assert repr(mine()).endswith("Child(x=1)") and repr(theirs()).endswith("Child(x=1)")


def test_the_signature_of_a_record_is_the_dataclass_s() -> None:
    def declare(decorator: Any, specifier: Any) -> type:
        @decorator(frozen=True)
        class Rec:
            a: int
            b: str = "b"
            c: list[int] = specifier(default_factory=list)

        return Rec

    mine = declare(record, field)
    theirs = declare(dataclasses.dataclass, dataclasses.field)
    assert str(inspect.signature(mine)) == str(inspect.signature(theirs))
    assert str(inspect.signature(Finding)) == (
        "(path: 'str', line: 'int', column: 'int', rule: 'str', severity: 'Severity', "
        "message: 'str', document: 'int' = 0) -> None"
    )


@pytest.mark.parametrize(
    "annotation", ["InitVar[int]", "dataclasses.InitVar[int]", "KW_ONLY", "dataclasses.KW_ONLY"]
)
def test_what_records_do_not_support_is_refused_where_declared(annotation: str) -> None:
    with pytest.raises(TypeError, match="a record does not support"):
        record(type("Rec", (), {"__annotations__": {"a": annotation}}))


def test_only_class_var_itself_declares_a_class_variable() -> None:
    rec = record(type("Rec", (), {"__annotations__": {"a": "ClassVarious", "b": "ClassVar[int]"}}))
    assert [f.name for f in records.fields(rec)] == ["a"]


def test_a_frozen_record_never_inherits_from_a_mutable_one_nor_the_other_way() -> None:
    @record
    class Mutable:
        a: int = 0

    @record(frozen=True)
    class Frozen:
        a: int = 0

    with pytest.raises(TypeError, match="frozen record from a non-frozen"):
        record(frozen=True)(type("Sub", (Mutable,), {}))
    with pytest.raises(TypeError, match="non-frozen record from a frozen"):
        record(type("Sub", (Frozen,), {}))


def test_declarations_dataclasses_refuse_are_refused() -> None:
    with pytest.raises(TypeError, match="'b' is a field but has no type annotation"):
        record(type("Rec", (), {"b": field(default=1)}))
    with pytest.raises(ValueError, match="both default and default_factory"):
        field(default=1, default_factory=list)
    with pytest.raises(TypeError, match="Cannot overwrite attribute __lt__"):
        record(order=True)(type("Rec", (), {"__lt__": lambda self, other: True}))


def test_a_class_variable_is_no_field_and_an_explicit_hash_is_kept() -> None:
    @record(frozen=True)
    class Rec:
        kind: ClassVar[str] = "rec"
        a: int = 0

        def __hash__(self) -> int:
            return 7

    assert [f.name for f in records.fields(Rec)] == ["a"]
    assert hash(Rec(1)) == 7 and Rec.kind == "rec"
    weights = BinpackWeights(weight=2)
    assert hash(weights) == hash((2, 1, 1, (("cpu", 1), ("memory", 1))))


def test_post_init_runs_after_every_field_is_set_also_on_replace() -> None:
    weights = BinpackWeights(cpu=3, resources={"nvidia.com/gpu": 2})
    assert dict(weights.resources) == {"nvidia.com/gpu": 2, "cpu": 3, "memory": 1}
    assert dict(replace(weights, memory=5).resources)["memory"] == 5
    with pytest.raises(ValueError, match="unknown NodeResourcesFit scoring strategy"):
        FitScoring("Unknown")


def test_a_record_with_slots_has_no_dict_and_pickles_though_frozen() -> None:
    scoring = FitScoring("MostAllocated", (("cpu", 2),))
    assert FitScoring.__slots__ == ("strategy", "resources", "shape")
    assert not hasattr(scoring, "__dict__")
    assert pickle.loads(pickle.dumps(scoring)) == scoring
    assert copy.deepcopy(scoring) == scoring
    with pytest.raises(AttributeError, match="cannot assign to field 'shape'"):
        scoring.shape = ()
    assert (
        repr(scoring) == "FitScoring(strategy='MostAllocated', resources=(('cpu', 2),), shape=())"
    )


def test_a_record_that_holds_itself_prints_three_dots_there() -> None:
    @record
    class Node:
        children: list[object] = field(default_factory=list)

    node = Node()
    node.children.append(node)
    assert (
        repr(node)
        == "test_a_record_that_holds_itself_prints_three_dots_there.<locals>.Node(children=[...])"
    )


# --- the public API's records, against the dataclasses declared from their source --------

PUBLIC = (Finding, ValidationReport, CheckOptions, RuleFilter)


def as_dataclass(cls: type) -> type:
    """``cls`` declared from its own source with ``@dataclass`` for ``@record``: what the
    public API's class was before it became a record."""
    source = inspect.getsource(cls).replace("@record(", "@dataclass(")
    namespace = {
        **vars(sys.modules[cls.__module__]),
        "dataclass": dataclasses.dataclass,
        "field": dataclasses.field,
    }
    exec(compile(source, inspect.getfile(cls), "exec"), namespace)
    twin = namespace[cls.__name__]
    assert dataclasses.is_dataclass(twin) and twin is not cls
    return twin


def samples(cls: type) -> list[dict[str, Any]]:
    """Keyword arguments for a few instances of each public record."""
    finding = {"path": "a.yaml", "line": 3, "column": 1, "rule": "VB003"}
    finding |= {"severity": Severity.ERROR, "message": "m"}
    return {
        Finding: [finding, {**finding, "document": 2}, {**finding, "line": 1}],
        ValidationReport: [
            {"findings": (Finding(**finding),), "checked": ("a.yaml",)},
            {"findings": (), "checked": (), "skipped": ("b.yaml",), "notes": (("b", "why"),)},
        ],
        CheckOptions: [
            {},
            {"volcano_version": "1.9", "rules": RuleFilter(select=("VB",))},
            {"limits": Limits(max_pods=5), "release_flags": frozenset({"volcano_version"})},
        ],
        RuleFilter: [{}, {"select": ("VB",), "severities": (("VB003", Severity.ERROR),)}],
    }[cls]


@pytest.mark.parametrize("cls", PUBLIC, ids=lambda cls: cls.__name__)
def test_the_public_records_answer_dataclasses_functions_as_their_dataclasses_did(
    cls: type,
) -> None:
    twin = as_dataclass(cls)
    assert dataclasses.is_dataclass(cls)
    assert _fields(cls) == _fields(twin)
    assert repr(cls.__dataclass_params__) == repr(twin.__dataclass_params__)
    for kwargs in samples(cls):
        mine, theirs = cls(**kwargs), twin(**kwargs)
        assert dataclasses.is_dataclass(mine) and dataclasses.fields(mine) == dataclasses.fields(
            cls
        )
        assert repr(mine) == repr(theirs)
        assert dataclasses.asdict(mine) == dataclasses.asdict(theirs)
        assert dataclasses.astuple(mine) == dataclasses.astuple(theirs)
        assert hash(mine) == hash(theirs)
        assert mine == cls(**kwargs) and mine != theirs
        for changes in samples(cls):
            changed = dataclasses.replace(mine, **changes)
            assert type(changed) is cls
            assert repr(changed) == repr(dataclasses.replace(theirs, **changes))
            assert changed == replace(mine, **changes)
        assert pickle.loads(pickle.dumps(mine)) == mine
        assert copy.copy(mine) == mine == copy.deepcopy(mine)
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field"):
            mine.__setattr__(dataclasses.fields(mine)[0].name, None)


def test_check_options_as_a_dict_holds_its_limits_and_rules_as_dicts() -> None:
    converted = dataclasses.asdict(CheckOptions())
    assert converted["limits"]["max_pods"] == Limits().max_pods
    assert converted["rules"] == {"select": (), "ignore": (), "severities": ()}


FINDINGS = st.builds(
    Finding,
    path=st.sampled_from(["a.yaml", "b.yaml"]),
    line=st.integers(1, 4),
    column=st.integers(1, 3),
    rule=st.sampled_from(["VB001", "VB003", "KS040"]),
    severity=st.sampled_from(list(Severity)),
    message=st.sampled_from(["", "m", "n"]),
    document=st.integers(0, 1),
)


@settings(max_examples=150)
@given(st.lists(FINDINGS, max_size=8))
def test_findings_sort_and_deduplicate_as_the_dataclass_did(findings: list[Finding]) -> None:
    twin = as_dataclass(Finding)
    theirs = [twin(**dataclasses.asdict(finding)) for finding in findings]
    assert [repr(f) for f in sorted(findings)] == [repr(f) for f in sorted(theirs)]
    assert len(set(findings)) == len(set(theirs))


RECORD_IN_A_FRESH_PROCESS = """
import sys, policytest.core.errors
before = set(sys.modules)
from policytest.core.records import FrozenRecordError, record
print(*sorted(set(sys.modules) - before))
Rec = record(frozen=True)(type("Rec", (), {"__annotations__": {"a": "int"}}))
try:
    Rec(1).a = 2
except FrozenRecordError as error:
    print(type(error) is FrozenRecordError, "dataclasses" in sys.modules)
"""


def test_the_records_module_imports_nothing_the_interpreter_has_not_loaded() -> None:
    """Importing it adds only itself (no ``dataclasses``, ``inspect``, ``typing``) to what
    the interpreter and its package's import (``policytest.core.errors``) loaded, and a
    frozen record's error does not import ``dataclasses`` either."""
    done = subprocess.run(
        [sys.executable, "-c", RECORD_IN_A_FRESH_PROCESS],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == ["policytest.core.records", "True", "False"]


def test_a_frozen_record_error_is_the_dataclasses_one_once_dataclasses_is_imported() -> None:
    finding = Finding("a.yaml", 1, 1, "VB003", Severity.ERROR, "m")
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'line'"):
        finding.line = 2  # type: ignore[misc]
    with pytest.raises(FrozenRecordError, match="cannot delete field 'line'"):
        del finding.line  # type: ignore[misc]
