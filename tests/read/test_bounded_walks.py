"""Every walk of a document is bounded by one node and alias budget (issue 34, item 2).

A billion-laughs document (nine anchors, each aliasing the previous one nine times: a
few hundred bytes that expand to 387 million nodes) is refused as it is read, whatever
kind of document holds it and whichever command reads it: the reader charges the
expansion of every document that holds an alias to ``yaml-nodes``, ``alias-nodes`` and
``depth`` once, so no later walk (decoding, recognising, the search for configs nested
in a wrapper, merge keys, the checks) can reach more. Each test runs the real command
under a :class:`~tests.workmeter.WorkMeter` and asserts the refusal and the calls it
took: an unbounded walk fails the test at the meter's limit instead of hanging it.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from policytest.core.limits import DEFAULT_LIMITS, Limits, NodeCounter
from policytest.read import bigload, goyaml, source
from policytest.read.nodes import MappingNode, Node, SequenceNode
from policytest.read.recognise import expand
from policytest.read.source import read_bytes
from tests.conftest import VOLCANO_CONF, RunLine, committed_repo, git
from tests.workmeter import WorkMeter

WORK = 3_000_000
"""Calls a refusal may take: about 300,000 are made (the whole command, start to end);
the walk the bomb once sent through 387 million nodes would make billions."""
ALIASES = "too many nodes through aliases (an alias bomb?)"


def bomb(levels: int = 9, fan: int = 9) -> str:
    """The billion laughs as one flow mapping, to put wherever a value goes."""
    anchors = ["l0: &l0 [" + ",".join(["x"] * fan) + "]"]
    for level in range(1, levels + 1):
        anchors.append(f"l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * fan) + "]")
    return "{" + ", ".join(anchors) + "}"


def merge_bomb(levels: int = 9, fan: int = 9) -> str:
    """The same through merge keys, which every lookup of a key follows."""
    anchors = ["m0: &m0 {k: v}"]
    for level in range(1, levels + 1):
        merged = ", ".join([f"*m{level - 1}"] * fan)
        anchors.append(f"m{level}: &m{level} {{<<: [{merged}]}}")
    return "{" + ", ".join(anchors) + ", top: {<<: *m" + str(levels) + "}}"


def deep_through_aliases(levels: int = 150, copies: int = 3) -> str:
    """Each anchor nests the previous one ``levels`` deeper: no text nests past the depth
    limit, the expansion does (450 levels: Python's recursion stops near 1,000)."""
    anchors = ["d0: &d0 x"]
    for index in range(1, copies + 1):
        inner = "[" * levels + f"*d{index - 1}" + "]" * levels
        anchors.append(f"d{index}: &d{index} {inner}")
    return "{" + ", ".join(anchors) + "}"


FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
scheduler: {{config: configs/volcano.yaml}}
cluster:
  {cluster}
cases:
- name: one
  pod: {{requests: {{cpu: 1m}}}}
  expect: {{ranking: [a]}}
"""
NODES = 'nodes: [{name: a, allocatable: {cpu: "8", pods: "110"}}]'


def values_file(hostile: str) -> str:
    return f"image: nginx\nreplicas: 2\nextra: {hostile}\n"


def deployment(hostile: str) -> str:
    return (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
        f"spec: {{replicas: 2, template: {hostile}}}\n"
    )


def snapshot_without_kind(hostile: str) -> str:
    return f"items: [{hostile}]\n"


def fixture(hostile: str) -> str:
    return FIXTURE.format(cluster=NODES) + f"metadata: {{labels: {hostile}}}\n"


def wrapped_configmap(hostile: str) -> str:
    """An Ansible task holding the scheduler's ConfigMap, the bomb beside it."""
    return (
        "- name: deploy the scheduler config\n"
        f"  vars: {hostile}\n"
        "  k8s:\n    definition:\n      kind: ConfigMap\n"
        "      metadata: {name: volcano-scheduler-configmap}\n"
        "      data:\n        volcano-scheduler.conf: |\n" + textwrap.indent(VOLCANO_CONF, " " * 10)
    )


def embedded_in_configmap(hostile: str) -> str:
    """The bomb inside the conf a wrapped ConfigMap's value holds."""
    conf = VOLCANO_CONF + f"extra: {hostile}\n"
    return (
        "- name: deploy the scheduler config\n"
        "  k8s:\n    definition:\n      kind: ConfigMap\n"
        "      metadata: {name: volcano-scheduler-configmap}\n"
        "      data:\n        volcano-scheduler.conf: |\n" + textwrap.indent(conf, " " * 10)
    )


HOSTILE = {"alias": bomb(), "merge": merge_bomb(), "deep": deep_through_aliases()}
REFUSAL = {"alias": ALIASES, "merge": ALIASES, "deep": "nests deeper than 200 levels"}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "volcano.yaml").write_text(VOLCANO_CONF)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def metered(run_line: RunLine, argv: list[str], work: int = WORK) -> tuple[int, str, int]:
    """Exit code, output and calls of one command under a work meter of ``work`` calls."""
    with WorkMeter(work) as meter:
        result = run_line(argv)
    assert "Traceback" not in result.stdout + result.stderr
    return result.exit_code, result.stdout + result.stderr, meter.calls


@pytest.mark.parametrize("hostile", sorted(HOSTILE))
@pytest.mark.parametrize(
    ("name", "make"),
    [
        pytest.param("values.yaml", values_file, id="values-file"),
        pytest.param("deployment.yaml", deployment, id="deployment"),
        pytest.param("snapshot.yaml", snapshot_without_kind, id="snapshot-without-kind"),
    ],
)
def test_a_document_of_no_known_kind_is_refused_with_a_warning(
    run_line: RunLine, repo: Path, name: str, make: object, hostile: str
) -> None:
    assert callable(make)
    (repo / name).write_text(make(HOSTILE[hostile]))
    code, out, calls = metered(run_line, ["validate", name])  # as the pre-commit hook runs
    assert code == 0 and "PT001 warning" in out and REFUSAL[hostile] in out, out
    assert calls < WORK
    code, out, calls = metered(run_line, ["validate", "."])  # walked: somebody else's file
    assert code == 0 and "All clean: 1 file checked" in out and name not in out, out
    assert calls < WORK


@pytest.mark.parametrize("hostile", sorted(HOSTILE))
def test_a_fixture_is_refused_by_validate_and_run(
    run_line: RunLine, repo: Path, hostile: str
) -> None:
    (repo / "f.policytest.yaml").write_text(fixture(HOSTILE[hostile]))
    for command in ("validate", "run"):
        code, out, calls = metered(run_line, [command, "f.policytest.yaml"])
        assert code == 1 and REFUSAL[hostile] in out, out
        assert calls < WORK


@pytest.mark.parametrize("hostile", sorted(HOSTILE))
def test_a_snapshot_a_fixture_names_is_refused_for_that_fixture(
    run_line: RunLine, repo: Path, hostile: str
) -> None:
    (repo / "snapshot.yaml").write_text(snapshot_without_kind(HOSTILE[hostile]))
    (repo / "f.policytest.yaml").write_text(
        FIXTURE.format(cluster="snapshot: ../snapshot.yaml").replace("configs/", "../configs/")
    )
    (repo / "fixtures").mkdir()
    (repo / "f.policytest.yaml").rename(repo / "fixtures" / "f.policytest.yaml")
    code, out, calls = metered(run_line, ["run", "fixtures"])
    assert code == 1 and "PT003" in out and REFUSAL[hostile] in out, out
    assert calls < WORK
    code, out, calls = metered(run_line, ["snapshot", "snapshot.yaml"])
    assert code == 1 and REFUSAL[hostile] in out, out
    assert calls < WORK


@pytest.mark.parametrize("hostile", sorted(HOSTILE))
@pytest.mark.parametrize(
    ("make", "at"),
    [
        pytest.param(wrapped_configmap, "task.yaml:2:", id="beside-a-wrapped-configmap"),
        pytest.param(embedded_in_configmap, "task.yaml:13:", id="inside-the-configmap-value"),
    ],
)
def test_a_configmap_wrapper_is_refused_where_the_bomb_is(
    run_line: RunLine, repo: Path, make: object, at: str, hostile: str
) -> None:
    """The file names Volcano's conf: its refusal is the scheduler's failure to load it
    (VC001), an error at the bomb, in the wrapper or in the ConfigMap's value."""
    assert callable(make)
    (repo / "task.yaml").write_text(make(HOSTILE[hostile]))
    code, out, calls = metered(run_line, ["validate", "task.yaml"])
    assert code == 1 and f"{at}" in out and "VC001 error" in out, out
    assert REFUSAL[hostile] in out, out
    assert calls < WORK


@pytest.mark.parametrize("hostile", sorted(HOSTILE))
def test_both_sides_of_a_diff_are_bounded(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hostile: str
) -> None:
    """The bomb in every kind of file on both sides, while a config changes: the review
    still shows the change, and each side's refusal stays cheap."""
    text = HOSTILE[hostile]
    files = {
        "configs/volcano.yaml": VOLCANO_CONF,
        "fixtures/f.policytest.yaml": FIXTURE.format(cluster=NODES).replace(
            "configs/", "../configs/"
        ),
        "values.yaml": values_file(text),
        "deployment.yaml": deployment(text),
        "snapshot.yaml": snapshot_without_kind(text),
        "task.yaml": wrapped_configmap(text),
        "fixtures/bomb.policytest.yaml": fixture(text),
    }
    repo = committed_repo(tmp_path / "repo", files)
    (repo / "configs" / "volcano.yaml").write_text(VOLCANO_CONF.replace("10", "3"))
    for name in ("values.yaml", "deployment.yaml", "snapshot.yaml", "task.yaml"):
        (repo / name).write_text((repo / name).read_text().replace("x,", "y,", 1))
    bomb_fixture = repo / "fixtures" / "bomb.policytest.yaml"
    bomb_fixture.write_text(bomb_fixture.read_text().replace("name: one", "name: two"))
    git(repo, "commit", "--quiet", "-am", "head")
    monkeypatch.chdir(repo)
    for head in (["--head", "HEAD"], []):  # a commit, and the working tree
        argv = ["diff", "--base", "HEAD~1", *head, "--format", "json"]
        code, out, calls = metered(run_line, argv)
        assert code == 0, out  # the same errors on both sides: none introduced
        assert calls < WORK
        review = json.loads(out)
        assert review["summary"]["configsChanged"] == 1
        (bombed,) = (f for f in review["fixtures"] if f["path"].endswith("bomb.policytest.yaml"))
        (case,) = bombed["cases"]
        for side in ("before", "after"):
            assert case[side]["status"] == "error", case
            assert REFUSAL[hostile] in case[side]["message"], case


@pytest.mark.parametrize("hostile", sorted(HOSTILE))
@pytest.mark.parametrize("composer", ["libyaml", "pure"])
def test_the_reader_refuses_the_expansion_itself(
    monkeypatch: pytest.MonkeyPatch, composer: str, hostile: str
) -> None:
    """Whichever composer reads the text, the expansion is charged as it is composed, and
    the walk that charges it visits each node once plus what the aliases reach again, up
    to ``alias-nodes``: never the expansion."""
    if composer == "pure":
        monkeypatch.setattr(bigload, "available", lambda: False)
    visits = []
    spend = goyaml.Budget.spend

    def counted(budget: goyaml.Budget, node: object, depth: int) -> None:
        visits.append(node)
        spend(budget, node, depth)  # type: ignore[arg-type]

    monkeypatch.setattr(goyaml.Budget, "spend", counted)
    data = values_file(HOSTILE[hostile]).encode()
    result = read_bytes("values.yaml", data, DEFAULT_LIMITS)
    (problem,) = result.problems
    assert problem.rule == "PT001" and REFUSAL[hostile] in problem.message
    distinct = len({id(node) for node in visits})
    assert len(visits) <= distinct + DEFAULT_LIMITS.max_alias_nodes + 1


def test_a_document_sharing_anchors_within_the_budget_reads_and_is_searched_once() -> None:
    """A wrapper that names one ConfigMap twice (an anchor and its alias) yields it once."""
    text = (
        "a: &cm\n  kind: ConfigMap\n  metadata: {name: c}\n  data:\n"
        "    volcano-scheduler.conf: |\n" + textwrap.indent(VOLCANO_CONF, " " * 6) + "b: *cm\n"
    )
    (document,) = read_bytes("w.yaml", text.encode(), DEFAULT_LIMITS).documents
    assert len(expand(document, DEFAULT_LIMITS)) == 1


def test_a_text_without_aliases_is_not_walked_again() -> None:
    """The charge is only for documents that hold an alias: a tree is walked node by node
    by whoever reads it, within the nodes its composer counted."""
    counter = NodeCounter.of(DEFAULT_LIMITS)
    source.compose_all(VOLCANO_CONF + "x: '*not an alias'\n", DEFAULT_LIMITS, counter)
    assert counter.aliases == 0
    source.compose_all("a: &a [1]\nb: *a\n", DEFAULT_LIMITS, counter)
    assert counter.aliases == 1


def test_the_alias_budget_is_the_one_the_limit_sets(run_line: RunLine, repo: Path) -> None:
    """``--limit alias-nodes=N`` sets it for the reader's walk too: seven aliases of a
    four-item list reach 35 nodes again."""
    text = "a: &a [b, c, d, e]\nf: [*a, *a, *a, *a, *a, *a, *a]\n"
    (repo / "f.policytest.yaml").write_text(fixture(text.replace("\n", ", ").join("{}")))
    assert run_line(["validate", "--limit", "alias-nodes=35", "f.policytest.yaml"]).exit_code == 0
    refused = run_line(["validate", "--limit", "alias-nodes=34", "f.policytest.yaml"])
    assert refused.exit_code == 1 and ALIASES in refused.stdout
    assert Limits().max_alias_nodes == DEFAULT_LIMITS.max_alias_nodes


def _walk_everything(node: Node, budget: goyaml.Budget, depth: int = 0) -> None:
    """The reference: a walk that visits every node of the expansion, as a decoder does."""
    budget.spend(node, depth)
    if isinstance(node, SequenceNode):
        for item in node.value:
            _walk_everything(item, budget, depth + 1)
    elif isinstance(node, MappingNode):
        for pair in node.value:
            for item in pair:
                _walk_everything(item, budget, depth + 1)


@st.composite
def anchored_documents(draw: st.DrawFn) -> str:
    """Anchored flow collections of scalars and of aliases to the anchors before them
    (now and then to themselves: a document that never ends)."""
    lines: list[str] = []
    for index in range(draw(st.integers(1, 6))):
        items = []
        for _ in range(draw(st.integers(0, 5))):
            earlier = draw(st.integers(0, index))  # index: a scalar, or the collection itself
            if earlier < index:
                items.append(f"*a{earlier}")
            else:
                items.append(f"*a{index}" if draw(st.integers(0, 20)) == 0 else "x")
        if draw(st.booleans()):
            body = "{" + ", ".join(f"k{n}: {item}" for n, item in enumerate(items)) + "}"
        else:
            body = "[" + ", ".join(items) + "]"
        lines.append(f"a{index}: &a{index} {body}")
    return "\n".join(lines) + "\n"


@given(
    anchored_documents(),
    st.integers(1, 60),
    st.integers(0, 40),
    st.integers(1, 8),
)
def test_the_charge_refuses_exactly_what_walking_the_expansion_refuses(
    text: str, nodes: int, aliased: int, depth: int
) -> None:
    """Counting the paths to each node charges what visiting every node would charge:
    the same documents are refused, for any limits."""
    limits = Limits(max_nodes=nodes, max_alias_nodes=aliased, max_depth=depth)
    roots = bigload.compose_all(text, 200, NodeCounter(10_000))
    assert roots is not None
    (document,) = roots
    try:
        _walk_everything(document, goyaml.Budget.of(limits))
        walked = True
    except goyaml.DecodeLimit:
        walked = False
    try:
        goyaml.charge_expansion(document, limits)
        charged = True
    except goyaml.DecodeLimit:
        charged = False
    assert charged == walked


def test_a_node_is_shown_without_its_items() -> None:
    """A repr that recursed into the items would walk the expansion: a traceback that
    showed the root of an alias bomb (pytest shows the arguments of each frame) took a
    test worker to 5 GB."""
    roots = bigload.compose_all(values_file(bomb()), 200, NodeCounter(10_000))
    assert roots is not None
    assert repr(roots[0]) == "MappingNode(tag='tag:yaml.org,2002:map', 3 items, line 1, column 1)"
