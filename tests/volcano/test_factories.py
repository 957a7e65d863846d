"""The Volcano action and plugin table, row by row, against each tag's registrations.

``data/volcano/factories.json`` lists the ``RegisterAction`` / ``RegisterPluginBuilder``
calls of ``pkg/scheduler/actions/factory.go`` and ``plugins/factory.go`` at every tag
policytest judges. Each row of :mod:`policytest.volcano.versions` must name exactly the
releases that register it; at its first judged release the name is known, and the
release before calls it "added in" that release (through the real checks).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from policytest.core.options import CheckOptions
from policytest.core.releases import VOLCANO_RELEASES, parse_release, show
from policytest.volcano.versions import ACTIONS, PLUGINS, release
from tests.volcano.helpers import documents

DATA = json.loads(
    (Path(__file__).parent.parent / "data" / "volcano" / "factories.json").read_text()
)
TAGS: dict[str, dict[str, list[str]]] = DATA["tags"]
JUDGED = [row.name for row in VOLCANO_RELEASES]


def _registered(kind: str) -> dict[str, list[str]]:
    """Release (``1.12``) -> the names its tag registers."""
    return {show(parse_release(tag) or (0, 0)): names[kind] for tag, names in TAGS.items()}


def test_every_judged_release_has_its_tag() -> None:
    assert sorted(_registered("plugins"), key=parse_release) == JUDGED


@pytest.mark.parametrize("kind", ["actions", "plugins"])
def test_each_release_knows_exactly_what_its_tag_registers(kind: str) -> None:
    for name, listed in _registered(kind).items():
        assert sorted(getattr(release(name), kind)) == listed, name


def _first(kind: str, name: str) -> str | None:
    return next((rel for rel in JUDGED if name in _registered(kind)[rel]), None)


def _rows(table: dict[str, tuple[tuple[int, int], tuple[int, int]]], kind: str) -> list[object]:
    return [pytest.param(kind, name, id=f"{kind}-{name}") for name in sorted(table)]


CONF = """
actions: "{actions}"
tiers:
- plugins:
  - name: {plugin}
"""


@pytest.mark.parametrize(("kind", "name"), [*_rows(ACTIONS, "actions"), *_rows(PLUGINS, "plugins")])
def test_a_row_at_its_first_release(kind: str, name: str) -> None:
    """Known from the first tag that registers it; the release before says when it
    arrives; a row no judged tag registers is unknown to every judged release."""
    from policytest.volcano.check import load

    first = _first(kind, name)
    rule = "VC002" if kind == "actions" else "VC004"

    def problems(version: str) -> list[str]:
        text = CONF.format(
            actions=name if kind == "actions" else "enqueue, allocate",
            plugin="gang" if kind == "actions" else name,
        )
        _, found = load(documents(text)[0], CheckOptions(volcano_version=version))
        return [f.message for f in found if f.rule == rule]

    if first is None:  # removed before the oldest judged release
        assert name not in getattr(release(JUDGED[0]), kind)
        assert "removed in Volcano" in " ".join(problems(JUDGED[0]))
        return
    assert problems(first) == [], (first, problems(first))
    index = JUDGED.index(first)
    if index:
        earlier = JUDGED[index - 1]
        said = " ".join(problems(earlier))
        assert f"does not exist in Volcano {earlier} (added in Volcano {first})" in said, said
