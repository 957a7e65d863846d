"""Real ``kubectl`` output: embedded configs are recognised and positions map to the outer file.

The files under ``tests/data/kubectl/`` were produced by kubectl itself (the README there has
the commands). Expected positions are computed here by searching the outer file's text, never
through :mod:`policytest.read.positions`, so a wrong mapping cannot agree with itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from policytest.core.limits import Limits
from policytest.read.nodes import MappingNode, Node, ScalarNode, SequenceNode
from policytest.read.positions import Position
from policytest.read.recognise import Kind, expand
from policytest.read.source import Document, read_file

DATA = Path(__file__).parent.parent / "data" / "kubectl"
LIMITS = Limits()

VOLCANO_KEY = "volcano-scheduler.conf"
KUBE_KEY = "kube-scheduler-config.yaml"


def embedded(name: str) -> tuple[Document, Kind]:
    """The one scheduler config found in ``tests/data/kubectl/<name>``."""
    source = read_file(str(DATA / name), LIMITS)
    assert source.problems == ()
    assert len(source.documents) == 1
    found = expand(source.documents[0], LIMITS)
    assert len(found) == 1, found
    return found[0]


Step = str | int


def select(root: Node, path: tuple[Step, ...], *, key: bool = False) -> Node:
    """The node at ``path`` (mapping keys and sequence indexes); with ``key``, the last key."""
    node = root
    for number, step in enumerate(path):
        last = number == len(path) - 1
        if isinstance(step, int):
            assert isinstance(node, SequenceNode)
            node = node.value[step]
            continue
        assert isinstance(node, MappingNode)
        pairs = [(k, v) for k, v in node.value if isinstance(k, ScalarNode) and k.value == step]
        assert len(pairs) == 1, f"{step!r} in {path}"
        node = pairs[0][0] if key and last else pairs[0][1]
    return node


def position_of(text: str, needle: str, offset: int = 0) -> Position:
    """1-based position of ``needle[offset]`` in ``text``; ``needle`` must occur exactly once."""
    assert text.count(needle) == 1, f"{needle!r} occurs {text.count(needle)} times"
    index = text.index(needle) + offset
    line_start = text.rfind("\n", 0, index) + 1
    return Position(text.count("\n", 0, index) + 1, index - line_start + 1)


@pytest.mark.parametrize(
    ("name", "kind", "configmap", "key", "source"),
    [
        pytest.param(
            "volcano-configmap.yaml",
            Kind.VOLCANO,
            "volcano-scheduler-configmap",
            VOLCANO_KEY,
            "volcano-scheduler.conf",
            id="volcano-o-yaml",
        ),
        pytest.param(
            "volcano-configmap.json",
            Kind.VOLCANO,
            "volcano-scheduler-configmap",
            VOLCANO_KEY,
            "volcano-scheduler.conf",
            id="volcano-o-json",
        ),
        pytest.param(
            "kustomize-volcano.yaml",
            Kind.VOLCANO,
            "volcano-scheduler-configmap-79hg85t467",  # kustomize's content-hash suffix
            VOLCANO_KEY,
            "volcano-scheduler.conf",
            id="volcano-kustomize",
        ),
        pytest.param(
            "volcano-configmap-trailing-space.yaml",
            Kind.VOLCANO,
            "volcano-scheduler-configmap",
            VOLCANO_KEY,
            "volcano-scheduler-trailing-space.conf",
            id="volcano-o-yaml-folded-string",
        ),
        pytest.param(
            "kube-scheduler-configmap.yaml",
            Kind.KUBE_SCHEDULER,
            "kube-scheduler-config",
            KUBE_KEY,
            "kube-scheduler-config.yaml",
            id="kube-o-yaml",
        ),
        pytest.param(
            "kube-scheduler-configmap.json",
            Kind.KUBE_SCHEDULER,
            "kube-scheduler-config",
            KUBE_KEY,
            "kube-scheduler-config.yaml",
            id="kube-o-json",
        ),
    ],
)
def test_embedded_config_is_recognised(
    name: str, kind: Kind, configmap: str, key: str, source: str
) -> None:
    document, found_kind = embedded(name)
    assert found_kind is kind
    assert document.embedding is not None
    assert (document.embedding.configmap, document.embedding.key) == (configmap, key)
    assert document.path == str(DATA / name)
    # kubectl copied the file verbatim: the decoded string is exactly the input file
    assert document.text == (DATA / source).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        pytest.param("volcano-scheduler.conf", Kind.VOLCANO, id="volcano-conf"),
        pytest.param("kube-scheduler-config.yaml", Kind.KUBE_SCHEDULER, id="kube-config"),
    ],
)
def test_kubectl_inputs_are_recognised_raw(name: str, kind: Kind) -> None:
    document, found_kind = embedded(name)
    assert found_kind is kind
    assert document.embedding is None


# (path to the node, key or value, needle in the outer text, offset of the node in the needle)
VOLCANO_NODES = [
    pytest.param(("tiers",), True, "tiers:", 0, id="key-tiers"),
    pytest.param(("actions",), True, "actions:", 0, id="key-actions"),
    pytest.param(("tiers", 1, "plugins", 5, "name"), False, "name: binpack", 6, id="binpack"),
    pytest.param(("tiers", 0, "plugins", 1, "name"), False, "name: gang", 6, id="gang"),
    pytest.param(
        ("tiers", 1, "plugins", 1, "enablePreemptable"),
        False,
        "enablePreemptable: false\n      - name: predicates",
        19,
        id="drf-enablePreemptable",
    ),
]
JSON_VOLCANO_NODES = [
    pytest.param(("tiers",), True, "\\ntiers:", 2, id="key-tiers"),
    pytest.param(("actions",), True, '"actions:', 1, id="key-actions"),
    pytest.param(("tiers", 1, "plugins", 5, "name"), False, "name: binpack", 6, id="binpack"),
    pytest.param(("tiers", 0, "plugins", 1, "name"), False, "name: gang", 6, id="gang"),
    pytest.param(
        ("tiers", 1, "plugins", 1, "enablePreemptable"),
        False,
        "enablePreemptable: false\\n  - name: predicates",
        19,
        id="drf-enablePreemptable",
    ),
    # the quoted value starts at its opening quote, written \" in the JSON string
    pytest.param(("actions",), False, 'actions: \\"enqueue', 9, id="escaped-quote"),
]
KUBE_NODES = [
    pytest.param(("profiles",), True, "profiles:", 0, id="key-profiles"),
    pytest.param(
        ("profiles", 0, "pluginConfig", 0, "args", "scoringStrategy", "type"),
        False,
        "type: MostAllocated",
        6,
        id="type-MostAllocated",
    ),
    pytest.param(
        ("profiles", 0, "pluginConfig", 0, "args", "scoringStrategy", "resources", 2, "name"),
        False,
        "name: nvidia.com/gpu",
        6,
        id="gpu-name",
    ),
    pytest.param(
        ("profiles", 0, "pluginConfig", 0, "args", "scoringStrategy", "resources", 2, "weight"),
        False,
        "weight: 5",
        8,
        id="gpu-weight",
    ),
]
# -o json: everything after the comment sits behind the \u003e and \u0026 escapes
JSON_KUBE_NODES = [
    pytest.param(("profiles",), True, "\\nprofiles:", 2, id="key-profiles"),
    *KUBE_NODES[1:],
]


def _check_position(name: str, path: tuple[Step, ...], key: bool, needle: str, offset: int) -> None:
    document, _ = embedded(name)
    node = select(document.root, path, key=key)
    outer_text = (DATA / name).read_text(encoding="utf-8")
    assert document.position(node) == position_of(outer_text, needle, offset)


@pytest.mark.parametrize(("path", "key", "needle", "offset"), VOLCANO_NODES)
@pytest.mark.parametrize("name", ["volcano-configmap.yaml", "kustomize-volcano.yaml"])
def test_volcano_block_positions(
    name: str, path: tuple[Step, ...], key: bool, needle: str, offset: int
) -> None:
    _check_position(name, path, key, needle, offset)


@pytest.mark.parametrize(("path", "key", "needle", "offset"), JSON_VOLCANO_NODES)
def test_volcano_json_positions(
    path: tuple[Step, ...], key: bool, needle: str, offset: int
) -> None:
    _check_position("volcano-configmap.json", path, key, needle, offset)


@pytest.mark.parametrize(("path", "key", "needle", "offset"), KUBE_NODES)
def test_kube_block_positions(path: tuple[Step, ...], key: bool, needle: str, offset: int) -> None:
    _check_position("kube-scheduler-configmap.yaml", path, key, needle, offset)


@pytest.mark.parametrize(("path", "key", "needle", "offset"), JSON_KUBE_NODES)
def test_kube_json_positions(path: tuple[Step, ...], key: bool, needle: str, offset: int) -> None:
    _check_position("kube-scheduler-configmap.json", path, key, needle, offset)


@pytest.mark.parametrize(
    ("name", "needle"),
    [
        pytest.param("volcano-configmap.yaml", "name: binpack", id="o-yaml"),
        pytest.param("volcano-configmap.json", "name: binpack", id="o-json"),
    ],
)
def test_end_position_of_a_value(name: str, needle: str) -> None:
    document, _ = embedded(name)
    node = select(document.root, ("tiers", 1, "plugins", 5, "name"))
    outer_text = (DATA / name).read_text(encoding="utf-8")
    assert document.position(node, end=True) == position_of(
        outer_text, needle, len("name: binpack")
    )


def test_folded_string_positions_stay_inside_the_string() -> None:
    """Trailing whitespace makes kubectl fold the value over lines: no exact columns then,
    but every position still points into the outer string, never past it."""
    name = "volcano-configmap-trailing-space.yaml"
    document, _ = embedded(name)
    outer_text = (DATA / name).read_text(encoding="utf-8")
    start = position_of(outer_text, f'{VOLCANO_KEY}: "actions', len(VOLCANO_KEY) + 2)
    end = position_of(outer_text, 'binpack.weight: 10\\n"', len("binpack.weight: 10\\n"))
    assert end.line == start.line + 1  # the value really is folded
    nodes = [
        select(document.root, ("tiers",), key=True),
        select(document.root, ("tiers", 0, "plugins", 0, "name")),
        select(document.root, ("tiers", 0, "plugins", 0, "arguments", "binpack.weight")),
    ]
    for node in nodes:
        assert start <= document.position(node) <= end
