"""``policytest rules [RULE]``: the rule catalogue, or one rule explained."""

from __future__ import annotations

from typing import Any

from policytest.commands.common import usage_error, write


def configure(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rules",
        help="list the rules, or explain one",
        description="List every rule (id, severity, summary), or explain one rule in full.",
    )
    parser.add_argument("rule", nargs="?", metavar="RULE", help="a rule id, e.g. VB002")
    parser.add_argument(
        "--format",
        choices=("text", "markdown"),
        default="text",
        help="markdown renders the catalogue page docs/rules.md",
    )
    parser.set_defaults(execute=execute)


def execute(args: Any) -> int:
    from policytest.reporters.catalogue import all_rules

    rules = list(all_rules())
    if args.format == "markdown":
        from policytest.reporters.catalogue import catalogue_markdown

        write(catalogue_markdown(rules))
        return 0
    if args.rule is None:
        width = max(len(rule.severity.value) for rule in rules)
        write("".join(f"{r.id}  {r.severity.value:<{width}}  {r.summary}\n" for r in rules))
        return 0
    wanted = args.rule.upper()
    for rule in rules:
        if rule.id == wanted:
            from policytest.reporters.catalogue import rule_text

            write(f"{rule.id} ({rule.severity.value}): {rule.summary}\n\n{rule_text(rule.doc)}\n")
            return 0
    return usage_error(f"no rule {args.rule!r}; `policytest rules` lists them all")
