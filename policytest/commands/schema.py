"""``policytest schema [NAME]``: print a bundled JSON Schema (or list them)."""

from __future__ import annotations

from typing import Any

from policytest.commands.common import usage_error, write


def configure(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "schema",
        help="print a bundled JSON Schema",
        description="Print a bundled JSON Schema, or list their names when NAME is omitted.",
    )
    parser.add_argument(
        "name", nargs="?", metavar="NAME", help="the schema to print (without it: their names)"
    )
    parser.set_defaults(execute=execute)


def execute(args: Any) -> int:
    from policytest.read.schema import schema_names, schema_text

    if args.name is None:
        write("".join(f"{name}\n" for name in schema_names()))
        return 0
    try:
        write(schema_text(args.name.removesuffix(".schema.json")))
    except KeyError:
        return usage_error(
            f"no schema named {args.name!r}; choose from: {', '.join(schema_names())}"
        )
    return 0
