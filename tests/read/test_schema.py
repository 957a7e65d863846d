"""Schema violations become findings at the offending key or value, in plain words."""

from __future__ import annotations

import json

import pytest

from policytest.core.findings import Finding
from policytest.core.options import DEFAULT_OPTIONS
from policytest.read.schema import schema_findings, schema_names, schema_text
from policytest.read.source import decoded, read_bytes

FIXTURE = """\
apiVersion: policytest/v1
kind: PolicyTest
metadata: {name: demo}
scheduler:
  config: configs/volcano.yaml
cluster:
  nodes:
  - name: node-a
    allocatable: {cpu: "8", memory: 16Gi}
cases:
- name: small pod
  pod: {requests: {cpu: "1"}}
  expect:
    ranking: [node-a]
"""


def findings_for(text: str) -> list[Finding]:
    (document,) = read_bytes("f.yaml", text.encode(), DEFAULT_OPTIONS.limits).documents
    value = decoded(document, DEFAULT_OPTIONS.limits)
    return (
        [value]
        if isinstance(value, Finding)
        else schema_findings(document, "policytest-fixture", value)
    )


def test_every_bundled_schema_is_valid_draft_2020_12_with_an_id() -> None:
    from jsonschema import Draft202012Validator

    assert "policytest-fixture" in schema_names()
    for name in schema_names():
        schema = json.loads(schema_text(name))
        Draft202012Validator.check_schema(schema)
        assert schema["$id"].endswith(f"/{name}.schema.json")


def test_valid_fixture_has_no_findings() -> None:
    assert findings_for(FIXTURE) == []


def test_unknown_key_points_at_the_key_and_suggests_the_spelling() -> None:
    (finding,) = findings_for(FIXTURE.replace("    ranking:", "    rankin:"))
    assert (finding.line, finding.column) == (14, 5)
    assert finding.rule == "PT002"
    assert "unknown key `rankin`" in finding.message and "did you mean `ranking`" in finding.message


def test_wrong_type_points_at_the_value() -> None:
    (finding,) = findings_for(FIXTURE.replace("name: node-a", "name: [node-a]"))
    assert (finding.line, finding.column) == (8, 11)
    assert "`name` must be a string, not a list" in finding.message
    assert "cluster.nodes[0].name" in finding.message


def test_missing_required_key_points_at_its_mapping() -> None:
    (finding,) = findings_for(
        FIXTURE.replace("  - name: node-a\n    allocatable", "  - allocatable")
    )
    assert finding.line == 8
    assert "required key `name` is missing" in finding.message


@pytest.mark.parametrize("value", ["0", "-1"])
def test_out_of_range_value(value: str) -> None:
    text = FIXTURE.replace("pod: {requests", f"pod: {{count: {value}, requests")
    (finding,) = findings_for(text)
    assert f"`count` must be at least 1, not {value}" in finding.message
    assert (finding.line, finding.column) == (12, 16)


def test_schema_error_inside_a_yaml_v2_typed_value() -> None:
    # `yes` is a boolean for yaml.v2, so it is not a valid node name.
    (finding,) = findings_for(FIXTURE.replace("name: node-a", "name: yes"))
    assert "not the boolean true" in finding.message


def test_a_top_level_key_is_named_once() -> None:
    """``cases` must not be empty``, not ``... in `cases```: the key already says where."""
    head = FIXTURE[: FIXTURE.index("cases:")]
    (finding,) = findings_for(head + "cases: []\n")
    assert finding.message == "`cases` must not be empty"
