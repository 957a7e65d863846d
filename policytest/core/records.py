"""Record classes for the hook's path: what ``@dataclass`` gives, without its import cost.

``import dataclasses`` imports ``inspect`` (hence ``ast``, ``dis``, ``tokenize``), and
each ``@dataclass`` compiles its generated methods from source text with ``exec``: on
the pre-commit hook, a fresh process on every commit, that is several milliseconds for
a file that takes one to check. ``@record`` builds the same methods from closures over
the class's field table, so defining a record costs tens of microseconds, and this
module imports nothing beyond the interpreter's start-up set.

Semantics follow ``dataclasses`` for what policytest uses: positional or keyword
``__init__`` with defaults and default factories, ``__post_init__``, ``frozen``
(assignment raises :class:`FrozenRecordError`, an ``AttributeError`` and, once
``dataclasses`` is imported, a ``dataclasses.FrozenInstanceError``), ``__eq__`` over
the ``compare`` fields of the same class, ``__hash__`` by the same rules (frozen and
eq: from the fields; eq alone: unhashable; an explicit ``__hash__`` is kept),
``order``, ``__repr__`` in ``dataclasses``' format, ``__match_args__`` and ``slots``;
``inspect.signature`` of a record class is its constructor's, made when first asked.
Not supported (refused where declared): ``init=False`` fields, ``kw_only``,
``InitVar``, ``unsafe_hash``; nor the signature as the docstring of a class without
one. What tools recognise by the code ``dataclasses`` generates is lost: ``pprint``
prints a record on one line, and pytest's attribute-by-attribute diff of two unequal
dataclasses is made by policytest's pytest plugin for records instead.

``dataclasses.fields``, ``replace``, ``asdict`` and ``is_dataclass`` work on records
(the public API's ``Finding`` or ``CheckOptions`` were dataclasses): a record's
``__dataclass_fields__`` is built, importing ``dataclasses``, the first time something
reads it. Policytest's own code uses :func:`replace` and :func:`fields` from here.
"""

from __future__ import annotations

import operator
import sys
from _thread import get_ident
from functools import cache
from types import MappingProxyType, MemberDescriptorType

from policytest.core.errors import PolicytestError

TYPE_CHECKING = False
"""``typing.TYPE_CHECKING`` without importing ``typing`` (mypy treats any name
``TYPE_CHECKING`` as true, whatever its value)."""
if not TYPE_CHECKING:  # the names a type checker takes from typing (below), at no cost

    def dataclass_transform(**_: object) -> Callable[[T], T]:
        """PEP 681's marker is for type checkers only."""
        return lambda function: function

    def overload(function: T) -> T:
        """The definition after the overloads replaces them, as with ``typing``'s."""
        return function

else:
    from collections.abc import Callable, Mapping
    from typing import Any, TypeVar, overload

    from typing_extensions import dataclass_transform  # typing's from Python 3.11

    T = TypeVar("T")
    R = TypeVar("R", bound=type)


class FrozenRecordError(PolicytestError, AttributeError):
    """Assignment to a field of a frozen record (``dataclasses.FrozenInstanceError``)."""


def _frozen_error(message: str) -> FrozenRecordError:
    """A :class:`FrozenRecordError` that is also a ``dataclasses.FrozenInstanceError``
    once ``dataclasses`` is imported, as it is wherever code catches that one."""
    dataclasses = sys.modules.get("dataclasses")
    if dataclasses is None:
        return FrozenRecordError(message)
    return _frozen_error_class(dataclasses.FrozenInstanceError)(message)


@cache
def _frozen_error_class(base: type) -> type[FrozenRecordError]:
    """:class:`FrozenRecordError` made a subclass of ``base`` too (made once)."""
    return type("FrozenRecordError", (FrozenRecordError, base), {})


class _Missing:
    """No default: a field the constructor must be given."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
_NO_METADATA: Mapping[str, Any] = MappingProxyType({})


class Field:
    """One field of a record: its name, annotation (a string), default and options."""

    __slots__ = ("compare", "default", "default_factory", "metadata", "name", "repr", "type")

    def __init__(
        self,
        default: Any,
        default_factory: Any,
        repr: bool,
        compare: bool,
        metadata: Mapping[str, Any] | None,
    ) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.type: Any = None
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare
        self.metadata = _NO_METADATA if metadata is None else MappingProxyType(metadata)

    def __repr__(self) -> str:
        return (
            f"Field(name={self.name!r},type={self.type!r},default={self.default!r},"
            f"default_factory={self.default_factory!r},repr={self.repr!r},"
            f"compare={self.compare!r},metadata={self.metadata!r})"
        )


@overload
def field(
    *,
    default: T,
    repr: bool = True,
    compare: bool = True,
    metadata: Mapping[str, Any] | None = None,
) -> T: ...


@overload
def field(
    *,
    default_factory: Callable[[], T],
    repr: bool = True,
    compare: bool = True,
    metadata: Mapping[str, Any] | None = None,
) -> T: ...


@overload
def field(
    *, repr: bool = True, compare: bool = True, metadata: Mapping[str, Any] | None = None
) -> Any: ...


def field(
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    repr: bool = True,
    compare: bool = True,
    metadata: Mapping[str, Any] | None = None,
) -> Any:
    """A field's options, as ``dataclasses.field`` takes them (``metadata`` is read by
    :func:`fields`)."""
    return Field(default, default_factory, repr, compare, metadata)


@overload
def record(cls: R, /) -> R: ...


@overload
def record(
    *, frozen: bool = False, eq: bool = True, order: bool = False, slots: bool = False
) -> Callable[[R], R]: ...


@dataclass_transform(field_specifiers=(field, Field))
def record(
    cls: R | None = None,
    /,
    *,
    frozen: bool = False,
    eq: bool = True,
    order: bool = False,
    slots: bool = False,
) -> R | Callable[[R], R]:
    """Make ``cls`` a record, as ``@dataclass`` would with the same options."""

    def build(cls: R) -> R:
        return _build(cls, frozen=frozen, eq=eq, order=order, slots=slots)

    return build if cls is None else build(cls)


def fields(class_or_instance: Any) -> tuple[Field, ...]:
    """A record's fields in constructor order (``dataclasses.fields``)."""
    try:
        return class_or_instance.__record_fields__  # type: ignore[no-any-return]
    except AttributeError:
        raise TypeError("must be called with a record type or instance") from None


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of the record ``obj`` with ``changes`` (``dataclasses.replace``): the
    constructor runs, so ``__post_init__`` sees the new values."""
    for item in fields(obj):
        if item.name not in changes:
            changes[item.name] = getattr(obj, item.name)
    return obj.__class__(**changes)


# --- building a record --------------------------------------------------------------


def _is_class_var(annotation: object) -> bool:
    """A ``ClassVar`` annotation declares a class attribute, not a field; ``InitVar`` and
    ``KW_ONLY`` declare what records do not support."""
    text = annotation if isinstance(annotation, str) else repr(annotation)
    kind = text.removeprefix("typing.").removeprefix("dataclasses.").split("[", 1)[0]
    if kind in ("InitVar", "KW_ONLY"):
        raise TypeError(f"a record does not support {kind} (declared as {text!r})")
    return kind == "ClassVar"


def _collect(cls: type) -> tuple[Field, ...]:
    """The fields of ``cls``: its bases' (in MRO order) with its own declared after."""
    table: dict[str, Field] = {}
    for base in cls.__mro__[-1:0:-1]:
        for item in base.__dict__.get("__record_fields__", ()):
            table[item.name] = item
    namespace = cls.__dict__
    annotations = namespace.get("__annotations__", {})
    for name, annotation in annotations.items():
        if _is_class_var(annotation):
            continue
        value = getattr(cls, name, MISSING)  # an inherited default too, as dataclasses
        if isinstance(value, MemberDescriptorType):  # a slotted base's field: no default
            value = MISSING
        item = value if isinstance(value, Field) else Field(value, MISSING, True, True, None)
        item.name = name
        item.type = annotation
        if item.default is not MISSING and item.default.__class__.__hash__ is None:
            raise ValueError(
                f"mutable default {type(item.default)} for field {name} is not allowed: "
                "use default_factory"
            )
        if isinstance(value, Field):  # the class keeps the plain default, as dataclasses does
            if item.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, item.default)
        table[name] = item
    for name, value in namespace.items():
        if isinstance(value, Field) and name not in annotations:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    return tuple(table.values())


def _check(
    cls: type, record_fields: tuple[Field, ...], frozen: bool, eq: bool, order: bool
) -> None:
    """Refuse what ``dataclasses`` refuses, in its order, once the fields are read."""
    bases = [
        b.__dict__["__record_params__"]
        for b in cls.__mro__[1:]
        if "__record_params__" in b.__dict__
    ]
    if bases and any(params[0] for params in bases) != frozen:
        raise TypeError(
            "cannot inherit frozen record from a non-frozen one"
            if frozen
            else "cannot inherit non-frozen record from a frozen one"
        )
    if order and not eq:
        raise ValueError("eq must be true if order is true")
    defaulted = False
    for item in record_fields:
        if item.default is MISSING and item.default_factory is MISSING:
            if defaulted:
                raise TypeError(f"non-default argument {item.name!r} follows default argument")
        else:
            defaulted = True


def _build(cls: R, *, frozen: bool, eq: bool, order: bool, slots: bool) -> R:
    record_fields = _collect(cls)
    _check(cls, record_fields, frozen, eq, order)
    names = tuple(item.name for item in record_fields)
    if slots:
        cls = _with_slots(cls, names)
    namespace = cls.__dict__
    explicit_hash = "__hash__" in namespace and not (
        namespace["__hash__"] is None and "__eq__" in namespace
    )
    cls.__record_fields__ = record_fields  # type: ignore[attr-defined]
    cls.__record_params__ = (frozen, eq, order)  # type: ignore[attr-defined]
    cls.__dataclass_fields__ = _FIELDS_VIEW  # type: ignore[attr-defined]
    cls.__dataclass_params__ = _PARAMS_VIEW  # type: ignore[attr-defined]
    cls.__signature__ = _SIGNATURE  # type: ignore[attr-defined]
    methods: dict[str, Any] = {
        "__init__": _init(cls, record_fields, slots),
        "__repr__": _repr(tuple(item.name for item in record_fields if item.repr)),
        "__match_args__": names,
    }
    key = _key(tuple(item.name for item in record_fields if item.compare))
    if eq:
        methods["__eq__"] = _comparison(key, operator.eq)
    for name, method in methods.items():
        if name not in namespace:
            setattr(cls, name, method)
    if order:
        for name, compare in _ORDER.items():
            if name in namespace:
                raise TypeError(
                    f"Cannot overwrite attribute {name} in class {cls.__name__}. "
                    "Consider using functools.total_ordering"
                )
            setattr(cls, name, _comparison(key, compare))
    if eq and not explicit_hash:
        cls.__hash__ = _hash(key) if frozen else None  # type: ignore[assignment]
    if frozen:
        _freeze(cls, frozenset(names))
        if slots:
            cls.__getstate__ = lambda self: [getattr(self, name) for name in names]  # type: ignore[attr-defined]
            cls.__setstate__ = lambda self, state: _set_all(self, zip(names, state, strict=True))  # type: ignore[attr-defined]
    return cls


def _with_slots(cls: R, names: tuple[str, ...]) -> R:
    """``cls`` made again with ``__slots__`` for its fields (a class cannot gain slots)."""
    inherited = {slot for base in cls.__mro__[1:-1] for slot in base.__dict__.get("__slots__", ())}
    namespace = dict(cls.__dict__)
    for name in (*names, "__dict__", "__weakref__"):
        namespace.pop(name, None)
    namespace["__slots__"] = tuple(name for name in names if name not in inherited)
    made = type(cls)(cls.__name__, cls.__bases__, namespace)
    made.__qualname__ = cls.__qualname__
    return made


def _set_all(instance: object, items: Any) -> None:
    for name, value in items:
        object.__setattr__(instance, name, value)


def _plural(names: list[str]) -> str:
    """``'a'``, ``'a' and 'b'``, ``'a', 'b', and 'c'``, as Python's argument errors say."""
    quoted = [repr(name) for name in names]
    if len(quoted) < 3:
        return " and ".join(quoted)
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]


def _init(cls: type, record_fields: tuple[Field, ...], slots: bool) -> Callable[..., None]:
    """``__init__(self, <fields>)`` with defaults, then ``__post_init__`` if defined."""
    names = tuple(item.name for item in record_fields)
    count = len(names)
    defaults = tuple((item.name, item.default, item.default_factory) for item in record_fields)
    post_init = hasattr(cls, "__post_init__")
    qualname = cls.__qualname__

    def bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        """Every field's value, in order, from a call that does not give them all by
        position (the factories run once the call is known to be good)."""
        values = list(args)
        if len(values) <= count:
            found = 0
            factories = []
            for name, default, factory in defaults[len(values) :]:
                if name in kwargs:
                    values.append(kwargs[name])
                    found += 1
                elif default is not MISSING:
                    values.append(default)
                elif factory is not MISSING:
                    factories.append(len(values))
                    values.append(factory)
                else:
                    break
            else:
                if found == len(kwargs):  # else a keyword is unknown or given twice
                    for index in factories:
                        values[index] = values[index]()
                    return values
        raise _refusal(qualname, defaults, args, kwargs)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if kwargs or len(args) != count:
            args = tuple(bind(args, kwargs))
        # one value per name now; zip's strict= would cost more than the rest of the call
        if slots:
            for name, value in zip(names, args):  # noqa: B905
                object.__setattr__(self, name, value)
        else:
            state = self.__dict__
            for name, value in zip(names, args):  # noqa: B905
                state[name] = value
        if post_init:
            self.__post_init__()

    __init__.__qualname__ = f"{qualname}.__init__"
    return __init__


def _refusal(
    qualname: str,
    defaults: tuple[tuple[str, Any, Any], ...],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> TypeError:
    """The error Python raises for this bad call of a function with the fields as its
    parameters, in Python's order of checks."""
    names = [name for name, _, _ in defaults]
    called = f"{qualname}.__init__()"
    for name in kwargs:
        if name not in names:
            return TypeError(f"{called} got an unexpected keyword argument {name!r}")
        if names.index(name) < len(args):
            return TypeError(f"{called} got multiple values for argument {name!r}")
    if len(args) > len(names):
        total = len(names) + 1
        required = 1 + sum(
            1 for _, default, factory in defaults if default is MISSING and factory is MISSING
        )
        takes = (
            f"from {required} to {total} positional arguments"
            if required < total
            else f"{total} positional argument{'s' if total > 1 else ''}"
        )
        return TypeError(f"{called} takes {takes} but {len(args) + 1} were given")
    missing = [
        name
        for index, (name, default, factory) in enumerate(defaults)
        if index >= len(args) and name not in kwargs and default is MISSING and factory is MISSING
    ]
    return TypeError(
        f"{called} missing {len(missing)} required positional "
        f"argument{'s' if len(missing) > 1 else ''}: {_plural(missing)}"
    )


def _key(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of ``names``' values that ``__eq__``, ``__hash__`` and order compare."""
    if len(names) == 1:
        get = operator.attrgetter(names[0])
        return lambda instance: (get(instance),)
    if not names:
        return lambda instance: ()
    return operator.attrgetter(*names)


def _comparison(
    key: Callable[[Any], tuple[Any, ...]], compare: Callable[[Any, Any], bool]
) -> Callable[[Any, Any], Any]:
    """A rich comparison of two instances of exactly the same class (else
    ``NotImplemented``), by their field tuples."""

    def method(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return compare(key(self), key(other))
        return NotImplemented

    return method


def _hash(key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    """The hash of the field tuple ``__eq__`` compares (a frozen record's)."""

    def __hash__(self: Any) -> int:
        return hash(key(self))

    return __hash__


_ORDER: dict[str, Callable[[Any, Any], Any]] = {
    "__lt__": operator.lt,
    "__le__": operator.le,
    "__gt__": operator.gt,
    "__ge__": operator.ge,
}


def _freeze(cls: type[Any], names: frozenset[str]) -> None:
    """Assigning or deleting a field raises, as it does on a frozen dataclass."""

    def __setattr__(self: object, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise _frozen_error(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: object, name: str) -> None:
        if type(self) is cls or name in names:
            raise _frozen_error(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    for method in (__setattr__, __delattr__):
        if method.__name__ in cls.__dict__:
            raise TypeError(f"Cannot overwrite attribute {method.__name__} in class {cls.__name__}")
        setattr(cls, method.__name__, method)


_RUNNING: set[tuple[int, int]] = set()
"""The records whose ``__repr__`` is running (with the thread), so that a record that
contains itself prints ``...`` there, as a dataclass does."""


def _repr(names: tuple[str, ...]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        running = (id(self), get_ident())
        if running in _RUNNING:
            return "..."
        _RUNNING.add(running)
        try:
            shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        finally:
            _RUNNING.discard(running)
        return f"{self.__class__.__qualname__}({shown})"

    return __repr__


class _DataclassView:
    """``__dataclass_fields__`` / ``__dataclass_params__`` of a record, made when first
    read: ``dataclasses`` is imported then, and the values are those of a dataclass
    declared with the same fields and options, so ``dataclasses.fields``, ``replace``,
    ``asdict`` and ``is_dataclass`` treat the record as that dataclass."""

    def __init__(self, attribute: str) -> None:
        self.attribute = attribute

    def __get__(self, instance: object, owner: type) -> Any:
        twin = _dataclass_twin(owner)
        owner.__dataclass_fields__ = twin.__dataclass_fields__  # type: ignore[attr-defined]
        owner.__dataclass_params__ = twin.__dataclass_params__  # type: ignore[attr-defined]
        return getattr(twin, self.attribute)


_FIELDS_VIEW = _DataclassView("__dataclass_fields__")
_PARAMS_VIEW = _DataclassView("__dataclass_params__")


class _Factory:
    """How a signature shows a default factory's default, as ``dataclasses`` does."""

    def __repr__(self) -> str:
        return "<factory>"


class _SignatureView:
    """``inspect.signature(RecordClass)``: the fields as the constructor's parameters,
    made (importing ``inspect``) when a caller asks: ``help()``, hypothesis'
    ``st.builds``, an IDE's runtime inspection."""

    def __get__(self, instance: object, owner: type) -> Any:
        import inspect

        def default(item: Field) -> Any:
            if item.default is not MISSING:
                return item.default
            return inspect.Parameter.empty if item.default_factory is MISSING else _Factory()

        parameters = [
            inspect.Parameter(
                item.name,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=default(item),
                annotation=item.type,
            )
            for item in fields(owner)
        ]
        return inspect.Signature(parameters, return_annotation=None)


_SIGNATURE = _SignatureView()


def _dataclass_twin(cls: type) -> type:
    import dataclasses

    def missing(value: Any) -> Any:
        return dataclasses.MISSING if value is MISSING else value

    frozen, eq, order = cls.__record_params__  # type: ignore[attr-defined]
    spec = [
        (
            item.name,
            item.type,
            dataclasses.field(
                default=missing(item.default),
                default_factory=missing(item.default_factory),
                repr=item.repr,
                compare=item.compare,
                metadata=item.metadata or None,
            ),
        )
        for item in fields(cls)
    ]
    return dataclasses.make_dataclass(cls.__name__, spec, frozen=frozen, eq=eq, order=order)
