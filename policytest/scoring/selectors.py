"""Label selectors as ``k8s.io/apimachinery/pkg/labels`` holds them.

``metav1.LabelSelectorAsSelector`` turns a written selector into requirements: ``nil``
is *Nothing* (matches no labels), ``{}`` is *Everything* (matches all, and is "empty",
which PodTopologySpread counts as matching no pod), and a selector that does not parse
(an unknown operator, ``In`` without values, an invalid key or value) is an error,
which each plugin handles its own way (:class:`SelectorError`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from policytest.core.errors import PolicytestError
from policytest.scoring.names import is_label_value, is_qualified_name
from policytest.scoring.workload import Labels, LabelSelector

__all__ = [
    "EVERYTHING",
    "NOTHING",
    "Selector",
    "SelectorError",
    "compile_selector",
    "label_map",
    "selector_from_set",
]

_OPERATORS: Final = frozenset({"In", "NotIn", "Exists", "DoesNotExist"})

Requirement = tuple[str, str, frozenset[str]]
"""(key, operator, values); ``=`` is ``In`` with one value."""


class SelectorError(PolicytestError, ValueError):
    """A label selector that ``LabelSelectorAsSelector`` refuses (the message is the
    reason, as the scheduler words it closely enough to recognise)."""


@dataclass(frozen=True, slots=True)
class Selector:
    """A parsed selector: requirements ANDed, or *Nothing*."""

    requirements: tuple[Requirement, ...] = ()
    nothing: bool = False

    @property
    def size(self) -> int:
        """How many requirements a match reads, at most (1 for none): what matching it
        against one label set costs, for the topology plugins' meter."""
        return max(1, len(self.requirements))

    @property
    def empty(self) -> bool:
        """``Selector.Empty()``: *Everything* (no requirements); *Nothing* is not empty."""
        return not self.nothing and not self.requirements

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.nothing:
            return False
        for key, operator, values in self.requirements:
            value = labels.get(key)
            if operator == "In":
                if value is None or value not in values:
                    return False
            elif operator == "NotIn":
                if value is not None and value in values:
                    return False
            elif operator == "Exists":
                if value is None:
                    return False
            elif value is not None:  # DoesNotExist
                return False
        return True

    def with_requirements(self, more: Iterable[Requirement]) -> Selector:
        """``Selector.Add``: *Nothing* stays *Nothing*."""
        if self.nothing:
            return self
        return Selector((*self.requirements, *more))


EVERYTHING: Final = Selector()
NOTHING: Final = Selector(nothing=True)


@lru_cache(maxsize=1 << 16)
def label_map(labels: Labels) -> Mapping[str, str]:
    """A pod's labels as a mapping, made once per distinct label set."""
    return dict(labels)


def selector_from_set(labels: Labels | Mapping[str, str]) -> Selector:
    """``labels.Set.AsSelector()``: one equality per label (no validation)."""
    pairs = labels.items() if isinstance(labels, Mapping) else labels
    return Selector(tuple((key, "In", frozenset((value,))) for key, value in sorted(pairs)))


@lru_cache(maxsize=4096)
def compile_selector(selector: LabelSelector | None) -> Selector:
    """``metav1.LabelSelectorAsSelector``; raises :class:`SelectorError`."""
    if selector is None:
        return NOTHING
    requirements: list[Requirement] = []
    for key, value in selector.match_labels:
        requirements.append(_requirement(key, "In", (value,)))
    for expression in selector.match_expressions:
        if expression.operator not in _OPERATORS:
            raise SelectorError(f'"{expression.operator}" is not a valid label selector operator')
        requirements.append(_requirement(expression.key, expression.operator, expression.values))
    return Selector(tuple(requirements))


def _requirement(key: str, operator: str, values: tuple[str, ...]) -> Requirement:
    """``labels.NewRequirement``'s checks."""
    if not is_qualified_name(key):
        raise SelectorError(f"key: Invalid value: {key!r}: not a qualified label key")
    if operator in ("In", "NotIn") and not values:
        raise SelectorError("for 'in', 'notin' operators, values set can't be empty")
    if operator in ("Exists", "DoesNotExist") and values:
        raise SelectorError("values set must be empty for exists and does not exist")
    for value in values:
        if not is_label_value(value):
            raise SelectorError(f"values: Invalid value: {value!r}: not a label value")
    return (key, operator, frozenset(values))
