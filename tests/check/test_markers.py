"""Document markers: what a `...` line does where it is.

In a KubeSchedulerConfiguration the fields after it are never read (a topolvm example's
``extenders`` silently vanish), also inside a ConfigMap value; a ``---`` before another
manifest is not a lost part of the config. A Volcano conf that starts with ``...`` does
not load, and the message says the marker is why (it blamed Volcano's trimming before);
a ConfigMap file that starts with ``...`` is refused by kubectl, and the message says so
(it said "the conf starts with `...`" of a conf that did not).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from policytest.check.markers import PT006_AFTER_DOCUMENT_END
from tests.check.helpers import example_rules, validate_json
from tests.conftest import DATA, RunLine

MARKERS = DATA / "realrepos" / "markers"


def _findings(run_line: RunLine, path: Path) -> list[dict[str, object]]:
    return validate_json(run_line, path)[1]


@pytest.mark.parametrize(
    ("name", "rule", "line", "column", "says"),
    [
        pytest.param(
            "topolvm-scheduler-config.yaml",
            "PT006",
            8,
            1,
            "silently drops what follows (fields `extenders`)",
            id="kube-file",
        ),
        pytest.param(
            "scheduler-configmap-with-end-marker.yaml",
            "PT006",
            13,
            5,
            "kube-scheduler reads only the first and silently drops the rest (fields `extenders`)",
            id="kube-configmap",
        ),
        pytest.param(
            "volcano-scheduler.conf",
            "PT006",
            7,
            1,
            "Volcano reads only the first document of its config and silently drops what "
            "follows (fields `configurations`)",
            id="volcano-file",
        ),
        pytest.param(
            "volcano-configmap-leading-end-marker.yaml",
            "VC001",
            9,
            5,
            "the conf starts with a `...` line",
            id="volcano-leading",
        ),
        pytest.param(
            "configmap-starts-with-end-marker.yaml",
            "PT001",
            1,
            1,
            "ends an empty YAML document before the ConfigMap `volcano-scheduler-configmap`: "
            "kubectl refuses the document that holds it",
            id="configmap-wrapper-leading",
        ),
        pytest.param(
            "data-fragment-starts-with-end-marker.yaml",
            "PT001",
            2,
            1,
            "before the `data:` that holds `volcano-scheduler.conf`: kubectl refuses the "
            "document that holds it",
            id="data-fragment-leading",
        ),
    ],
)
def test_the_marker_is_reported_for_what_it_does(
    run_line: RunLine, name: str, rule: str, line: int, column: int, says: str
) -> None:
    (finding,) = _findings(run_line, MARKERS / name)
    assert (finding["rule"], finding["line"], finding["column"]) == (rule, line, column)
    assert says in str(finding["message"])
    assert "trims" not in str(finding["message"])
    if name.endswith("-starts-with-end-marker.yaml"):  # the wrapper, not the conf, starts so
        assert "the conf starts" not in str(finding["message"])


def test_an_empty_document_after_a_dash_line_is_no_refusal(
    run_line: RunLine, tmp_path: Path
) -> None:
    """``---`` then ``...`` is an explicit empty document, which YAML accepts."""
    text = (MARKERS / "configmap-starts-with-end-marker.yaml").read_text(encoding="utf-8")
    path = tmp_path / "configmap.yaml"
    path.write_text("---\n" + text, encoding="utf-8")
    assert _findings(run_line, path) == []


def test_a_manifest_after_a_dash_line_is_not_a_lost_field(run_line: RunLine) -> None:
    assert _findings(run_line, MARKERS / "scheduler-config-and-deployment.yaml") == []


@pytest.mark.parametrize(("label", "expected"), [("Failing", ["PT006"]), ("Passing", [])])
def test_the_rule_examples(
    run_line: RunLine, tmp_path: Path, label: str, expected: list[str]
) -> None:
    found = example_rules(run_line, tmp_path, PT006_AFTER_DOCUMENT_END.doc, label)
    assert found[1] == expected


def test_the_finding_can_be_suppressed_on_its_line(run_line: RunLine, tmp_path: Path) -> None:
    text = (MARKERS / "topolvm-scheduler-config.yaml").read_text(encoding="utf-8")
    config = tmp_path / "scheduler-config.yaml"
    config.write_text(text.replace("\n...\n", "\n...  # policytest: ignore[PT006]\n"), "utf-8")
    assert _findings(run_line, config) == []
