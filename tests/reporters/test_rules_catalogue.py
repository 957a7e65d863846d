"""The rule catalogue: unique ids, documented rules, and docs/rules.md kept in sync."""

from __future__ import annotations

import re
from pathlib import Path

from policytest.reporters.catalogue import RULE_MODULES, all_rules, catalogue_markdown
from tests.conftest import RunLine

DOCS = Path(__file__).parent.parent.parent / "docs" / "rules.md"


def test_every_rule_is_documented_with_examples() -> None:
    for declared in all_rules():
        assert re.fullmatch(r"[A-Z]{2}\d{3}", declared.id), declared.id
        assert declared.summary and not declared.summary.endswith("."), declared.id
        assert "Failing" in declared.doc and "Passing" in declared.doc, declared.id


def test_every_module_that_declares_rules_is_in_the_catalogue() -> None:
    package = Path(__file__).parent.parent.parent / "policytest"
    declaring = {
        ".".join(path.relative_to(package.parent).with_suffix("").parts)
        for path in package.rglob("*.py")
        if re.search(r"^\w+ = rule\($", path.read_text(encoding="utf-8"), re.MULTILINE)
    }
    assert declaring <= {module.__name__ for module in RULE_MODULES}


def test_docs_rules_md_matches_the_catalogue() -> None:
    expected = catalogue_markdown(list(all_rules()))
    assert DOCS.read_text(encoding="utf-8") == expected, (
        "docs/rules.md is stale: run `policytest rules --format markdown > docs/rules.md`"
    )


def test_rules_command_lists_and_explains(run_line: RunLine) -> None:
    listing = run_line(["rules"])
    assert listing.exit_code == 0 and "PT001  error" in listing.stdout
    one = run_line(["rules", "pt002"])
    assert one.exit_code == 0 and one.stdout.startswith("PT002 (error): ")
    assert run_line(["rules", "XX999"]).exit_code == 2


def test_rules_explains_one_rule_as_plain_text(run_line: RunLine) -> None:
    """issue 37: `rules VB003` printed reStructuredText (``code``, `Failing::`)."""
    one = run_line(["rules", "VB003"])
    assert "``" not in one.stdout and "::" not in one.stdout, one
    assert "With `binpack.weight` 0 the plugin" in one.stdout
    assert "\nFailing:\n\n    - name: binpack\n" in one.stdout
