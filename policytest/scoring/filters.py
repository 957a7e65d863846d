"""The node filters both schedulers apply before scoring, exact to kube-scheduler v1.35.

- **NodeUnschedulable**: a cordoned node (``spec.unschedulable``) takes only pods that
  tolerate the synthetic taint ``node.kubernetes.io/unschedulable:NoSchedule`` (empty
  value), whatever taints the node really has.
- **TaintToleration** (filter): every ``NoSchedule`` / ``NoExecute`` taint of the node must
  be tolerated (``PreferNoSchedule`` only scores). The ``Lt``/``Gt`` toleration operators
  are behind the alpha gate ``TaintTolerationComparisonOperators``, off in 1.35: they
  never tolerate.
- **NodeAffinity** (PreFilter + Filter): ``nodeSelector`` AND the required node affinity.
  Terms are ORed, an empty term matches nothing, a term that does not parse (an unknown
  operator, a ``Gt`` value that is not a base-10 int64, an invalid label key or value) is
  skipped; ``matchFields`` on ``metadata.name`` with ``In`` narrows the candidate nodes in
  PreFilter (kube-scheduler leaves the other nodes out: "didn't satisfy plugin(s)").

Volcano's ``predicates`` plugin builds the same plugins from its Kubernetes dependency;
only the order (NodeUnschedulable, NodeAffinity, TaintToleration), the enable flags and
what it does with PreFilter's node names differ (see :func:`volcano_filter`).

Everything a pod or a node carries for these filters is parsed once into the frozen
values below (``Pod.placement``, ``Node.traits``); :class:`PodFilter` compiles a pod's
terms once per scheduling cycle.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from policytest.core.errors import PolicytestError
from policytest.scoring.names import is_label_value, is_qualified_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = [
    "AFFINITY_REASON",
    "CONFLICT_REASON",
    "NOT_IN_NAMES_REASON",
    "NO_PLACEMENT",
    "PLAIN_NODE",
    "TAINT_REASON",
    "UNSCHEDULABLE_REASON",
    "FilterSpecError",
    "NodeTraits",
    "Placement",
    "PodFilter",
    "Requirement",
    "SelectorTerm",
    "Taint",
    "Toleration",
    "compile_term",
    "kube_filter",
    "node_traits_from_dict",
    "placement_from_dict",
    "selector_term_from_dict",
    "term_matches",
    "term_parses",
    "volcano_filter",
]

NODE_UNSCHEDULABLE: Final = "NodeUnschedulable"
TAINT_TOLERATION: Final = "TaintToleration"
NODE_AFFINITY: Final = "NodeAffinity"
NODE_RESOURCES_FIT: Final = "NodeResourcesFit"

UNSCHEDULABLE_REASON: Final = "node(s) were unschedulable"
TAINT_REASON: Final = "node(s) had untolerated taint(s)"
TAINT_REASON_133: Final = "node(s) had untolerated taint"
"""1.33's reason, followed by the taint: ``node(s) had untolerated taint {key: value}``."""
AFFINITY_REASON: Final = "node(s) didn't match Pod's node affinity/selector"
CONFLICT_REASON: Final = "pod affinity terms conflict"
NOT_IN_NAMES_REASON: Final = "node(s) didn't satisfy plugin(s) [NodeAffinity]"
ENFORCED_REASON: Final = "node(s) didn't match scheduler-enforced node affinity"
VOLCANO_CONFLICT_REASON: Final = f"plugin NodeAffinity pre-predicates failed {CONFLICT_REASON}"

TAINT_NODE_UNSCHEDULABLE: Final = "node.kubernetes.io/unschedulable"
NO_SCHEDULE: Final = "NoSchedule"
NO_EXECUTE: Final = "NoExecute"
_FILTERING_EFFECTS: Final = frozenset({NO_SCHEDULE, NO_EXECUTE})
OBJECT_NAME_FIELD: Final = "metadata.name"

_LABEL_OPERATORS: Final = frozenset({"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"})
_INT64: Final = re.compile(r"[+-]?[0-9]+")
_INT64_MIN: Final = -(1 << 63)
_INT64_MAX: Final = (1 << 63) - 1


class FilterSpecError(PolicytestError, ValueError):
    """A taint, toleration, label or selector of the wrong shape (the API server's
    strict decoding would reject the object)."""


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str = ""
    effect: str = ""

    def __str__(self) -> str:
        value = f"={self.value}" if self.value else ""
        return f"{self.key}{value}:{self.effect}"


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str = ""
    operator: str = ""
    value: str = ""
    effect: str = ""

    def tolerates(self, taint: Taint) -> bool:
        """``Toleration.ToleratesTaint`` with comparison operators off (the 1.35 default)."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator in ("", "Equal"):
            return self.value == taint.value
        return self.operator == "Exists"


@dataclass(frozen=True, slots=True)
class Requirement:
    """A ``NodeSelectorRequirement`` as written (checked when a term is compiled)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()
    members: frozenset[str] = field(init=False, repr=False, compare=False)
    """``values`` as a set: ``In``/``NotIn`` cost one lookup per node, however many
    values a pull request writes (a list cost 30-50 s a case at 1,000,000 x 2,000)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "members", frozenset(self.values))


@dataclass(frozen=True, slots=True)
class SelectorTerm:
    """A ``NodeSelectorTerm``: its expressions (on labels) and fields (on the name)."""

    match_expressions: tuple[Requirement, ...] = ()
    match_fields: tuple[Requirement, ...] = ()


@dataclass(frozen=True, slots=True)
class Placement:
    """What a pod asks of a node: its tolerations, ``nodeSelector`` (``None``: not set;
    ``{}`` is set, and makes NodeAffinity's PreFilter run) and the ``nodeSelectorTerms``
    of its required node affinity (``None``: no required node affinity)."""

    tolerations: tuple[Toleration, ...] = ()
    node_selector: tuple[tuple[str, str], ...] | None = None
    required_terms: tuple[SelectorTerm, ...] | None = None

    @property
    def uses_labels(self) -> bool:
        """Whether the node's labels or name can change this pod's verdict."""
        return self.node_selector is not None or self.required_terms is not None


NO_PLACEMENT: Final = Placement()


@dataclass(frozen=True, slots=True)
class NodeTraits:
    """What the filters read from a node besides its resources."""

    labels: tuple[tuple[str, str], ...] = ()
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False


PLAIN_NODE: Final = NodeTraits()


# --- parsing (the fixture's pod and node forms, kubectl's objects) -------------------------


def placement_from_dict(spec: Mapping[str, Any], where: str) -> Placement:
    """A PodSpec's tolerations, ``nodeSelector`` and required node affinity."""
    tolerations = tuple(
        Toleration(
            _string(item, "key", f"{where}.tolerations[{i}]"),
            _string(item, "operator", f"{where}.tolerations[{i}]"),
            _string(item, "value", f"{where}.tolerations[{i}]"),
            _string(item, "effect", f"{where}.tolerations[{i}]"),
        )
        for i, item in enumerate(_list(spec.get("tolerations"), f"{where}.tolerations"))
    )
    selector = spec.get("nodeSelector")
    node_selector = None if selector is None else _string_pairs(selector, f"{where}.nodeSelector")
    required_terms = None
    affinity = _map(spec.get("affinity"), f"{where}.affinity")
    node_affinity = _map(affinity.get("nodeAffinity"), f"{where}.affinity.nodeAffinity")
    required_key = "requiredDuringSchedulingIgnoredDuringExecution"
    required = node_affinity.get(required_key)
    if required is not None:
        at = f"{where}.affinity.nodeAffinity.{required_key}"
        terms = _list(_map(required, at).get("nodeSelectorTerms"), f"{at}.nodeSelectorTerms")
        required_terms = tuple(
            _term(term, f"{at}.nodeSelectorTerms[{i}]") for i, term in enumerate(terms)
        )
    if not tolerations and node_selector is None and required_terms is None:
        return NO_PLACEMENT
    return Placement(tolerations, node_selector, required_terms)


def node_traits_from_dict(
    labels: object, taints: object, unschedulable: object, where: str
) -> NodeTraits:
    """A node's labels, taints and ``unschedulable`` (fixture node or ``v1.Node`` parts)."""
    parsed_labels = () if labels is None else _string_pairs(labels, f"{where}.labels")
    parsed_taints = tuple(
        Taint(
            _string(item, "key", f"{where}.taints[{i}]"),
            _string(item, "value", f"{where}.taints[{i}]"),
            _string(item, "effect", f"{where}.taints[{i}]"),
        )
        for i, item in enumerate(_list(taints, f"{where}.taints"))
    )
    if unschedulable is not None and not isinstance(unschedulable, bool):
        raise FilterSpecError(f"{where}.unschedulable: must be true or false")
    if not parsed_labels and not parsed_taints and not unschedulable:
        return PLAIN_NODE
    return NodeTraits(parsed_labels, parsed_taints, bool(unschedulable))


def selector_term_from_dict(data: object, where: str) -> SelectorTerm:
    """A ``NodeSelectorTerm`` (a required term, or a preferred term's ``preference``)."""
    return _term(data, where)


def _term(data: object, where: str) -> SelectorTerm:
    term = _map(data, where)
    return SelectorTerm(
        _requirements(term.get("matchExpressions"), f"{where}.matchExpressions"),
        _requirements(term.get("matchFields"), f"{where}.matchFields"),
    )


def _requirements(data: object, where: str) -> tuple[Requirement, ...]:
    result = []
    for i, item in enumerate(_list(data, where)):
        at = f"{where}[{i}]"
        values = _list(_map(item, at).get("values"), f"{at}.values")
        for j, value in enumerate(values):
            if not isinstance(value, str):
                raise FilterSpecError(f"{at}.values[{j}]: must be a string")
        key, operator = _string(item, "key", at), _string(item, "operator", at)
        result.append(Requirement(key, operator, tuple(values)))
    return tuple(result)


def _string_pairs(data: object, where: str) -> tuple[tuple[str, str], ...]:
    mapping = _map(data, where)
    for key, value in mapping.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise FilterSpecError(f"{where}.{key}: keys and values must be strings")
    return tuple(mapping.items())


def _string(data: object, key: str, where: str) -> str:
    value = _map(data, where).get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise FilterSpecError(f"{where}.{key}: must be a string")
    return value


def _map(data: object, where: str) -> Mapping[str, Any]:
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise FilterSpecError(f"{where}: expected a mapping, got {type(data).__name__}")
    return data


def _list(data: object, where: str) -> Sequence[Any]:
    if data is None:
        return ()
    if not isinstance(data, list):
        raise FilterSpecError(f"{where}: expected a list, got {type(data).__name__}")
    return data


# --- matching --------------------------------------------------------------------------------


def _go_int64(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``: ``None`` where Go returns an error."""
    if not _INT64.fullmatch(text):
        return None
    value = int(text)
    return value if _INT64_MIN <= value <= _INT64_MAX else None


def _label_requirement_parses(requirement: Requirement) -> bool:
    """Whether ``labels.NewRequirement`` accepts it (else the whole term is skipped)."""
    operator, values = requirement.operator, requirement.values
    if operator not in _LABEL_OPERATORS or not is_qualified_name(requirement.key):
        return False
    if operator in ("In", "NotIn") and not values:
        return False
    if operator in ("Exists", "DoesNotExist") and values:
        return False
    if operator in ("Gt", "Lt") and (
        len(values) != 1 or any(_go_int64(value) is None for value in values)
    ):
        return False
    return all(is_label_value(value) for value in values)


def _label_matches(requirement: Requirement, labels: Mapping[str, str]) -> bool:
    """``labels.Requirement.Matches`` for a requirement that parsed."""
    operator = requirement.operator
    value = labels.get(requirement.key)
    if operator == "In":
        return value is not None and value in requirement.members
    if operator == "NotIn":
        return value is None or value not in requirement.members
    if operator == "Exists":
        return value is not None
    if operator == "DoesNotExist":
        return value is None
    if value is None:
        return False
    have = _go_int64(value)
    if have is None:
        return False
    wanted = _go_int64(requirement.values[0])
    assert wanted is not None  # the term parsed
    return have > wanted if operator == "Gt" else have < wanted


@dataclass(frozen=True, slots=True)
class CompiledTerm:
    expressions: tuple[Requirement, ...]
    fields: tuple[tuple[str, str, bool], ...]  # (field, value, equal)


def _compile(term: SelectorTerm) -> CompiledTerm | None:
    """``newNodeSelectorTerm``; ``None`` for a term that matches nothing (empty, or one
    that does not parse: ``LazyErrorNodeSelector`` skips it)."""
    if not term.match_expressions and not term.match_fields:
        return None
    if not all(_label_requirement_parses(r) for r in term.match_expressions):
        return None
    fields = []
    for requirement in term.match_fields:
        if requirement.operator not in ("In", "NotIn") or len(requirement.values) != 1:
            return None
        fields.append((requirement.key, requirement.values[0], requirement.operator == "In"))
    return CompiledTerm(term.match_expressions, tuple(fields))


def compile_term(term: SelectorTerm) -> CompiledTerm | None:
    """A term as the scheduler holds it; ``None`` when it is empty or does not parse
    (callers that must tell the two apart check ``term_parses``)."""
    return _compile(term)


def term_parses(term: SelectorTerm) -> bool:
    """Whether ``newNodeSelectorTerm`` parses the term without errors (an empty term
    parses: it matches nothing)."""
    if not term.match_expressions and not term.match_fields:
        return True
    return _compile(term) is not None


def term_matches(term: CompiledTerm, name: str, labels: Mapping[str, str]) -> bool:
    """``nodeSelectorTerm.match`` of a compiled term on a node's name and labels."""
    return all(_label_matches(r, labels) for r in term.expressions) and all(
        (name == value if field == OBJECT_NAME_FIELD else value == "") == equal
        for field, value, equal in term.fields
    )


class PodFilter:
    """One pod's filters, compiled once per scheduling cycle."""

    __slots__ = ("_selector", "_terms", "conflict", "names", "placement", "skip_affinity")

    def __init__(self, placement: Placement) -> None:
        self.placement = placement
        self._selector = dict(placement.node_selector or ())
        terms = placement.required_terms
        self._terms: tuple[CompiledTerm, ...] | None = (
            None
            if terms is None
            else tuple(c for c in (_compile(term) for term in terms) if c is not None)
        )
        # NodeAffinity.PreFilter: Skip, or the node names of matchFields metadata.name In.
        self.skip_affinity = terms is None and placement.node_selector is None
        self.names: frozenset[str] | None = None
        self.conflict = False
        if terms:
            names: set[str] = set()
            for term in terms:
                term_names: set[str] | None = None
                for requirement in term.match_fields:
                    if requirement.key == OBJECT_NAME_FIELD and requirement.operator == "In":
                        values = set(requirement.values)
                        term_names = values if term_names is None else term_names & values
                if term_names is None:
                    names = set()
                    break
                names |= term_names
            else:
                self.conflict = not names
                self.names = frozenset(names) or None

    @property
    def trivial(self) -> bool:
        """No selector, no required node affinity: a plain node (no filtering taint, no
        cordon) passes every node filter, so the pod's verdict there depends on the
        node's resources alone. Tolerations do not matter there (they only let a pod
        onto tainted nodes), and nearly every real pod has some: the API server adds
        the ``not-ready`` and ``unreachable`` ones."""
        return self.skip_affinity

    def tolerates_unschedulable(self) -> bool:
        synthetic = Taint(TAINT_NODE_UNSCHEDULABLE, "", NO_SCHEDULE)
        return any(t.tolerates(synthetic) for t in self.placement.tolerations)

    def untolerated_taint(self, traits: NodeTraits) -> Taint | None:
        """``FindMatchingUntoleratedTaint`` over the NoSchedule and NoExecute taints."""
        for taint in traits.taints:
            if taint.effect in _FILTERING_EFFECTS and not any(
                t.tolerates(taint) for t in self.placement.tolerations
            ):
                return taint
        return None

    def affinity_matches(self, name: str, labels: Mapping[str, str]) -> bool:
        """``RequiredNodeAffinity.Match``: the selector, then the required terms (ORed)."""
        for key, value in self._selector.items():
            if labels.get(key) != value:
                return False
        if self._terms is None:
            return True
        return any(term_matches(term, name, labels) for term in self._terms)


def kube_filter(
    pod: PodFilter,
    name: str,
    traits: NodeTraits,
    labels: Mapping[str, str],
    order: Sequence[str],
    fit: Callable[[], str | None] | None = None,
    added: PodFilter | None = None,
    extra: Callable[[str], str | None] | None = None,
    *,
    name_taint: bool = False,
) -> str | None:
    """kube-scheduler's verdict from these filters, in the profile's filter ``order``
    (plugins not named there do not run; ``NodeResourcesFit`` there calls ``fit``):
    ``None`` if the node passes, else the reason of the first filter that fails.
    NodeAffinity's PreFilter rejects every node on a conflict and leaves out the nodes
    outside its node names; ``added`` is the profile's ``addedAffinity`` (its required
    terms), which every node must match first; ``extra`` gives the verdict of the
    other filters in ``order`` (the topology plugins: NodeName, NodePorts, ...);
    ``name_taint``: TaintToleration's reason names the taint, as 1.33's does."""
    affinity = NODE_AFFINITY in order and (not pod.skip_affinity or added is not None)
    if affinity and pod.conflict:
        return CONFLICT_REASON
    if affinity and pod.names is not None and name not in pod.names:
        return NOT_IN_NAMES_REASON
    if pod.trivial and added is None and extra is None and passes_trivially(traits):
        return fit() if fit is not None and NODE_RESOURCES_FIT in order else None
    for plugin in order:
        if plugin == NODE_RESOURCES_FIT:
            reason = fit() if fit is not None else None
            if reason is not None:
                return reason
        elif plugin == NODE_UNSCHEDULABLE:
            if traits.unschedulable and not pod.tolerates_unschedulable():
                return UNSCHEDULABLE_REASON
        elif plugin == TAINT_TOLERATION:
            taint = pod.untolerated_taint(traits)
            if taint is not None:
                return (
                    f"{TAINT_REASON_133} {{{taint.key}: {taint.value}}}"
                    if name_taint
                    else TAINT_REASON
                )
        elif plugin == NODE_AFFINITY:
            if affinity and added is not None and not added.affinity_matches(name, labels):
                return ENFORCED_REASON
            if affinity and not pod.affinity_matches(name, labels):
                return AFFINITY_REASON
        elif extra is not None:
            reason = extra(plugin)
            if reason is not None:
                return reason
    return None


def volcano_filter(
    pod: PodFilter,
    name: str,
    traits: NodeTraits,
    labels: Mapping[str, str],
    *,
    node_affinity: bool,
    taint_toleration: bool,
) -> str | None:
    """Volcano ``predicates``: NodeAffinity's PreFilter in PrePredicate (a conflict fails
    the task everywhere; its node names are ignored), then NodeUnschedulable, NodeAffinity
    and TaintToleration (each failure aborts), NodeAffinity and TaintToleration only when
    ``predicate.NodeAffinityEnable`` / ``predicate.TaintTolerationEnable`` are on."""
    affinity = node_affinity and not pod.skip_affinity
    if affinity and pod.conflict:
        return VOLCANO_CONFLICT_REASON
    if pod.trivial and passes_trivially(traits):
        return None
    if traits.unschedulable and not pod.tolerates_unschedulable():
        return UNSCHEDULABLE_REASON
    if affinity and not pod.affinity_matches(name, labels):
        return AFFINITY_REASON
    if taint_toleration and pod.untolerated_taint(traits) is not None:
        return TAINT_REASON
    return None


@lru_cache(maxsize=1024)
def pod_filter(placement: Placement) -> PodFilter:
    """The compiled filter of a placement (cached: a sequence repeats a few pod shapes)."""
    return PodFilter(placement)


def passes_trivially(traits: NodeTraits) -> bool:
    """A pod without a selector or required node affinity passes: nothing keeps it out."""
    if traits is PLAIN_NODE or not (traits.taints or traits.unschedulable):
        return True
    return not traits.unschedulable and all(
        taint.effect not in _FILTERING_EFFECTS for taint in traits.taints
    )
