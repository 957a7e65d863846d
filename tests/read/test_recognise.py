"""Recognition by shape, and embedded configs whose positions map to the outer file."""

from __future__ import annotations

import json

import pytest

from policytest.core.limits import Limits
from policytest.read.nodes import Node
from policytest.read.positions import Position
from policytest.read.recognise import Kind, expand
from policytest.read.source import Document, child, read_bytes, sequence_items

LIMITS = Limits()

VOLCANO_CONF = 'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: binpack\n'


def expanded(text: str) -> list[tuple[Document, Kind]]:
    found: list[tuple[Document, Kind]] = []
    for document in read_bytes("f.yaml", text.encode(), LIMITS).documents:
        found.extend(expand(document, LIMITS))
    return found


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        pytest.param(VOLCANO_CONF, Kind.VOLCANO, id="volcano-conf"),
        pytest.param("tiers: []\n", Kind.VOLCANO, id="volcano-tiers-only"),
        pytest.param(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n",
            Kind.KUBE_SCHEDULER,
            id="kube-v1",
        ),
        pytest.param(
            "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
            Kind.KUBE_SCHEDULER,
            id="kube-v1beta3",
        ),
        pytest.param(
            '{"kind": "Policy", "apiVersion": "v1", "priorities": []}',
            Kind.KUBE_POLICY,
            id="legacy-policy",
        ),
        pytest.param('{"predicates": [], "priorities": []}', Kind.KUBE_POLICY, id="policy-no-kind"),
        pytest.param(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: Policy\n",
            Kind.KUBE_POLICY,
            id="policy-in-the-scheduler-group",
        ),
        pytest.param("apiVersion: policytest/v1\nkind: PolicyTest\n", Kind.FIXTURE, id="fixture"),
    ],
)
def test_kinds(text: str, kind: Kind) -> None:
    assert [k for _, k in expanded(text)] == [kind]


@pytest.mark.parametrize(
    "text",
    [
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n",
        "- a\n- b\n",
        "just a string\n",
        "apiVersion: v1\nkind: ConfigMap\ndata:\n  key: value\n",
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n",
        "apiVersion: v1\nkind: ConfigMap\ndata:\n  notes: |\n    not: [a config\n",
    ],
    ids=[
        "deployment",
        "list",
        "scalar",
        "configmap-plain",
        "audit-policy",
        "configmap-broken-yaml",
    ],
)
def test_not_ours(text: str) -> None:
    assert expanded(text) == []


def test_kind_list_items_are_checked() -> None:
    text = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "- apiVersion: kubescheduler.config.k8s.io/v1\n  kind: KubeSchedulerConfiguration\n"
        "- apiVersion: v1\n  kind: Service\n"
    )
    assert [k for _, k in expanded(text)] == [Kind.KUBE_SCHEDULER]


def _plugin_name_node(document: Document) -> Node:
    tiers = sequence_items(child(document.root, "tiers"))
    plugins = sequence_items(child(tiers[0], "plugins"))
    node = child(plugins[0], "name")
    assert node is not None
    return node


def _outer_position(text: str, needle: str) -> Position:
    offset = text.index(needle)
    return Position(text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1)


def test_literal_block_configmap_positions_map_to_the_outer_file() -> None:
    body = "".join(f"    {line}\n" for line in VOLCANO_CONF.splitlines())
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: volcano-scheduler-configmap\n"
        f"data:\n  volcano-scheduler.conf: |\n{body}"
    )
    ((document, kind),) = expanded(text)
    assert kind is Kind.VOLCANO
    assert document.embedding is not None
    assert (document.embedding.configmap, document.embedding.key) == (
        "volcano-scheduler-configmap",
        "volcano-scheduler.conf",
    )
    assert document.position(_plugin_name_node(document)) == _outer_position(text, "binpack")


def test_json_configmap_positions_map_through_escapes() -> None:
    text = json.dumps(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "cm"},
            "data": {"volcano-scheduler.conf": VOLCANO_CONF},
        },
        indent=2,
    )
    ((document, _),) = expanded(text)
    assert document.position(_plugin_name_node(document)) == _outer_position(text, "binpack")
    actions = child(document.root, "actions")
    assert actions is not None
    assert document.position(actions) == _outer_position(text, '\\"enqueue')


def test_configmap_with_two_configs_yields_both_with_their_keys() -> None:
    kube = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    text = (
        "kind: ConfigMap\nmetadata: {name: both}\ndata:\n"
        + "  a.conf: |\n"
        + "".join(f"    {line}\n" for line in VOLCANO_CONF.splitlines())
        + "  b.yaml: |\n"
        + "".join(f"    {line}\n" for line in kube.splitlines())
    )
    found = expanded(text)
    assert [(d.embedding.key if d.embedding else None, k) for d, k in found] == [
        ("a.conf", Kind.VOLCANO),
        ("b.yaml", Kind.KUBE_SCHEDULER),
    ]


def test_raw_conf_with_an_indented_first_line_is_read_as_volcano_reads_it() -> None:
    from policytest.check.configs import read_as_scheduler
    from policytest.core.options import DEFAULT_OPTIONS

    text = '  actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: binpack\n'
    source = read_bytes("volcano-scheduler.conf", text.encode(), LIMITS)
    assert source.problems  # YAML tools reject it ...
    read = read_as_scheduler(source, DEFAULT_OPTIONS)
    assert not read.problems  # ... Volcano trims the file first and loads it
    ((document, kind),) = expand(read.documents[0], LIMITS)
    assert kind is Kind.VOLCANO
    assert document.position(_plugin_name_node(document)) == Position(4, 11)


def test_configmap_string_with_several_documents_yields_the_first() -> None:
    body = "".join(f"    {line}\n" for line in (VOLCANO_CONF + "---\nactions: x\n").splitlines())
    text = f"kind: ConfigMap\nmetadata: {{name: cm}}\ndata:\n  volcano-scheduler.conf: |\n{body}"
    ((document, kind),) = expanded(text)
    assert kind is Kind.VOLCANO
    assert document.position(_plugin_name_node(document)) == _outer_position(text, "binpack")
    assert document.embedding is not None
    (ignored,) = document.embedding.ignored
    assert document.position(ignored) == _outer_position(text, "actions: x")


def test_folded_configmap_string_is_read_without_fold_markers() -> None:
    text = 'kind: ConfigMap\ndata:\n  conf: >\n    actions: "allocate"\n\n    tiers: []\n'
    ((document, kind),) = expanded(text)
    assert kind is Kind.VOLCANO
    assert "\a" not in document.text
