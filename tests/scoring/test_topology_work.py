"""The topology plugins' indexes and groups give exactly what upstream's walk gives.

InterPodAffinity matches the incoming pod's terms once per label set of the bound pods and
the bound pods' terms once per pod object; PodTopologySpread works out domains once per
key and inclusion once per policy; NodePorts keeps each node's ports as a set; the
Services selecting a pod are looked up once per label set; NodeAffinity scores groups of
nodes equal in what its terms read. Each is compared here with the plain walk of
``tests/scoring/reference.py`` on generated clusters: bound pods repeated by ``count``
(one object) and written twice (equal objects), in several namespaces, with required and
preferred (anti-)affinity terms, host ports; incoming pods with terms, spread
constraints, ports and preferred node terms; and again after binds, and after taking
them back.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from policytest.scoring.cluster import Node, Pod
from policytest.scoring.filters import (
    NodeTraits,
    Placement,
    Requirement,
    SelectorTerm,
    Taint,
    pod_filter,
)
from policytest.scoring.plugins import interpod, spread
from policytest.scoring.plugins.locality import node_ports_filter
from policytest.scoring.plugins.preferences import (
    PreferredTermError,
    preferred_scores,
    preferred_terms,
)
from policytest.scoring.plugins.view import ClusterView
from policytest.scoring.workload import (
    AffinityTerm,
    ClusterObjects,
    HostPort,
    LabelSelector,
    PodAffinity,
    PodWorkload,
    PreferredNodeTerm,
    SelectorRequirement,
    SpreadConstraint,
    WeightedAffinityTerm,
    WorkloadObject,
)
from tests.scoring import reference

HOSTNAME = spread.HOSTNAME
ZONE = spread.ZONE
KEYS = ("app", "tier", "team")
VALUES = ("a", "b", "c")
NAMESPACES = ("default", "other", "third")

_namespace = st.sampled_from(["default", "default", *NAMESPACES])  # mostly the same one
_labels = st.one_of(
    st.just((("app", "a"),)),  # what many pods, terms and constraints share
    st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=3).map(
        lambda found: tuple(sorted(found.items()))
    ),
)


@st.composite
def _requirement(draw: st.DrawFn) -> SelectorRequirement:
    operator = draw(st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist"]))
    values: tuple[str, ...] = ()
    if operator in ("In", "NotIn"):
        values = tuple(draw(st.sets(st.sampled_from(VALUES), min_size=1)))
    return SelectorRequirement(draw(st.sampled_from(KEYS)), operator, values)


_selector = st.one_of(
    st.none(),
    st.builds(
        LabelSelector,
        match_labels=_labels,
        match_expressions=st.lists(_requirement(), max_size=2).map(tuple),
    ),
)
_term = st.builds(
    AffinityTerm,
    topology_key=st.sampled_from([HOSTNAME, ZONE, "rack"]),
    label_selector=_selector,
    namespaces=st.sampled_from([(), ("other",), ("default", "third")]),
    namespace_selector=st.sampled_from([None, LabelSelector(), LabelSelector((("team", "x"),))]),
)
_weighted = st.builds(WeightedAffinityTerm, weight=st.integers(1, 100), term=_term)
_affinity = st.builds(
    PodAffinity,
    required=st.lists(_term, max_size=2).map(tuple),
    preferred=st.lists(_weighted, max_size=2).map(tuple),
    anti_required=st.lists(_term, max_size=2).map(tuple),
    anti_preferred=st.lists(_weighted, max_size=2).map(tuple),
)
_ports = st.lists(
    st.builds(
        HostPort,
        port=st.sampled_from([80, 443, 8080]),
        protocol=st.sampled_from(["TCP", "UDP"]),
        host_ip=st.sampled_from(["0.0.0.0", "10.0.0.1", "10.0.0.2"]),
    ),
    max_size=3,
).map(tuple)
_workload = st.builds(
    PodWorkload,
    namespace=_namespace,
    labels=_labels,
    affinity=st.one_of(st.just(PodAffinity()), _affinity),
    host_ports=_ports,
)


@st.composite
def _constraint(draw: st.DrawFn, dense: bool = False) -> SpreadConstraint:
    keys = [HOSTNAME, ZONE] if dense else [HOSTNAME, ZONE, "rack"]
    when = ["DoNotSchedule"] if dense else ["DoNotSchedule", "ScheduleAnyway"]
    return SpreadConstraint(
        max_skew=draw(st.sampled_from([1, 1, 2, 0])),  # 0: a domain without pods may break it
        topology_key=draw(st.sampled_from(keys)),
        when_unsatisfiable=draw(st.sampled_from(when)),
        label_selector=draw(st.one_of(st.just(LabelSelector((("app", "a"),))), _selector)),
        min_domains=draw(st.sampled_from([None, 1, 4])),
        node_affinity_policy=draw(st.sampled_from([None, "Honor", "Ignore"])),
        node_taints_policy=draw(st.sampled_from([None, "Honor", "Ignore"])),
        match_label_keys=draw(st.sampled_from([(), ("app",)])),
    )


@st.composite
def _node_requirement(draw: st.DrawFn) -> Requirement:
    operator = draw(st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]))
    key = draw(st.sampled_from([ZONE, "rack", "size"]))
    if operator in ("Exists", "DoesNotExist"):
        return Requirement(key, operator)
    if operator in ("Gt", "Lt"):
        return Requirement(key, operator, (draw(st.sampled_from(["1", "2", "3"])),))
    return Requirement(
        key, operator, tuple(draw(st.sets(st.sampled_from(["z1", "z2", "r1", "2"]), min_size=1)))
    )


@st.composite
def _preferred(draw: st.DrawFn) -> tuple[PreferredNodeTerm, ...]:
    terms = []
    for _ in range(draw(st.integers(0, 4))):
        fields = ()
        if draw(st.integers(0, 3)) == 0:
            name = draw(st.sampled_from(["n0", "n1", "n2"]))
            fields = (
                Requirement("metadata.name", draw(st.sampled_from(["In", "NotIn"])), (name,)),
            )
        expressions = tuple(draw(st.lists(_node_requirement(), max_size=2)))
        terms.append(
            PreferredNodeTerm(draw(st.integers(1, 100)), SelectorTerm(expressions, fields))
        )
    return tuple(terms)


@st.composite
def _node(draw: st.DrawFn, index: int, workloads: list[PodWorkload], dense: bool) -> Node:
    name = f"n{index}"
    labels = {} if draw(st.integers(0, 7)) == 0 and not dense else {HOSTNAME: name}
    if dense:
        labels[ZONE] = draw(st.sampled_from(["z1", "z2", "z3"]))
    for key, values in (
        (ZONE, ["z1", "z2", ""]),
        ("rack", ["r1", "r2"]),
        ("size", ["1", "2", "3"]),
    ):
        if draw(st.booleans()):
            labels[key] = draw(st.sampled_from(values))
    pods: list[Pod] = []
    for _ in range(draw(st.integers(0, 3))):
        workload = draw(st.sampled_from(workloads))
        count = draw(st.integers(1, 5))
        if draw(st.booleans()):  # ``count``: one object repeated
            pods.extend((Pod(workload=workload),) * count)
        else:  # written out: equal objects
            pods.extend(Pod(workload=PodWorkload(**_fields(workload))) for _ in range(count))
    taints = (Taint("dedicated", "", "NoSchedule"),) if draw(st.integers(0, 4)) == 0 else ()
    return Node(name, pods=tuple(pods), traits=NodeTraits(tuple(sorted(labels.items())), taints))


def _fields(workload: PodWorkload) -> dict[str, Any]:
    return {name: getattr(workload, name) for name in PodWorkload.__dataclass_fields__}


@st.composite
def _case(draw: st.DrawFn, dense: bool = False) -> tuple[ClusterView, Pod, list[PodWorkload]]:
    """A cluster, an incoming pod, pods bound later. ``dense``: most pods alike, in one
    namespace, every node in a zone, so that spreading constraints count pods and
    break their skew on some domains and not on others."""
    bound = draw(st.lists(_workload, min_size=1, max_size=4))
    if dense:
        bound += [PodWorkload(labels=(("app", "a"),))] * 3
    nodes = [draw(_node(i, bound, dense)) for i in range(draw(st.integers(1, 7)))]
    services = [
        WorkloadObject(
            "Service",
            f"s{i}",
            draw(_namespace),
            draw(st.one_of(st.none(), _labels)),
        )
        for i in range(draw(st.integers(0, 4)))
    ]
    namespaces = (("default", ()), ("other", (("team", "x"),)), ("third", (("team", "y"),)))
    view = ClusterView.of(nodes, ClusterObjects(tuple(services), namespaces))
    workload = draw(_workload)
    if dense:
        workload = PodWorkload(labels=draw(st.sampled_from([(("app", "a"),), ()])))
    spread_constraints = tuple(draw(st.lists(_constraint(dense), min_size=dense, max_size=3)))
    preferred = draw(st.one_of(st.none(), _preferred()))
    incoming = PodWorkload(
        **{**_fields(workload), "spread": spread_constraints, "preferred_node_terms": preferred}
    )
    placement = Placement(
        tolerations=(),
        node_selector=draw(st.sampled_from([None, (), ((ZONE, "z1"),)])),
    )
    later = draw(st.lists(_workload, max_size=3))
    return view, Pod(placement=placement, workload=incoming), later


def _assert_exact(view: ClusterView, pod: Pod) -> None:
    workload = pod.workload
    assert interpod.filter_state(workload, view) == reference.interpod_filter_state(workload, view)
    for args in (
        interpod.InterPodArgs(),
        interpod.InterPodArgs(hard_pod_affinity_weight=0),
        interpod.InterPodArgs(5, ignore_preferred_terms_of_existing_pods=True),
    ):
        assert interpod.prescore(workload, args, view) == reference.interpod_prescore(
            workload, args, view
        )
    filter_of = pod_filter(pod.placement)
    constraints = spread.constraints_for(
        workload, spread.SpreadArgs(), view, spread.DO_NOT_SCHEDULE
    )
    if constraints:
        state = spread.filter_state(workload, constraints, view, filter_of)
        counts, minimums = reference.spread_filter_state(workload, constraints, view, filter_of)
        assert (state.counts, state.minimums) == (counts, minimums)
        for node in view.nodes:
            assert spread.node_filter(state, node) == reference.spread_node_filter(
                constraints, counts, minimums, workload, node
            )
    assert spread.default_selector(workload, view) == reference.default_selector(workload, view)
    for node in view.nodes:
        assert node_ports_filter(workload, node, view) == reference.node_ports_filter(
            workload, node
        )
    if workload.preferred_node_terms is not None:
        try:
            terms = [preferred_terms(workload.preferred_node_terms)]
        except PreferredTermError:
            return
        assert preferred_scores(terms, view) == reference.preferred_scores(terms, view)


@settings(max_examples=150)
@given(case=st.one_of(_case(), _case(dense=True)))
def test_indexed_topology_plugins_equal_the_plain_walk(
    case: tuple[ClusterView, Pod, list[PodWorkload]],
) -> None:
    view, pod, later = case
    _assert_exact(view, pod)
    binds = []
    for index, workload in enumerate(later):  # binds update the groups and indexes
        binds += [(view.nodes[index % len(view.nodes)].name, workload)]
        binds += [(view.nodes[0].name, pod.workload)]
        for name, bound in binds[-2:]:
            view.bind(name, bound)
        _assert_exact(view, pod)
    for name, bound in reversed(binds):  # and so does taking them back (a Volcano session)
        view.unbind(name, bound)
        _assert_exact(view, pod)
