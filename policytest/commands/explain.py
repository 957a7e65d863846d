"""``policytest explain FIXTURE [--case NAME]``: the score breakdown behind a ranking."""

from __future__ import annotations

from typing import Any

from policytest.commands.common import (
    add_color_option,
    add_fixture_options,
    add_top_options,
    check_options,
    missing_file,
    unknown_case,
    usage_error,
    use_color,
    write,
)
from policytest.commands.progress import add_quiet_option

FORMATS = ("text", "html")
FAIL_ON = ("never", "failure")
"""When ``explain`` exits 1 although it wrote its report: only when a case errors (its
input cannot be explained), or also when a case fails (``--fail-on failure``)."""


def configure(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "explain",
        help="show why nodes rank as they do",
        description="Per case: nodes in rank order, each plugin's weighted score, each "
        "resource's utilisation and contribution, filtered nodes and why.",
    )
    parser.add_argument("fixture", metavar="FIXTURE", help="a fixture file (*.policytest.yaml)")
    parser.add_argument("--case", default=None, metavar="NAME", help="only this case")
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="text for terminals, html for a self-contained page that draws the packing "
        "(default: text)",
    )
    parser.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="never",
        help="exit 1 also when a case it explains fails (failure), or only when a case "
        "cannot be explained: it errors, on input no scheduler would take (never, the "
        "default: a report, not a test; `run` is the test)",
    )
    add_top_options(parser)
    add_color_option(parser)
    add_fixture_options(parser)
    add_quiet_option(parser)
    parser.set_defaults(execute=execute)


def execute(args: Any) -> int:
    import sys

    from policytest.commands.run import progress_line
    from policytest.core.exitcodes import ExitCode
    from policytest.harness.load import root_for
    from policytest.harness.suite import run_file
    from policytest.reporters.run.explain import render_case

    problem = missing_file(args.fixture)
    if problem is not None:
        return usage_error(problem)
    options = check_options(args)
    line, _, placed = progress_line(sys.stderr, quiet=args.quiet)
    try:
        results = run_file(args.fixture, options, root_for(args.fixture, options), placed)
    finally:
        line.close()
    if not results:
        from policytest.reporters.quoting import text

        sys.stderr.write(
            f"policytest: {text(args.fixture)}: no fixture cases (looked for documents with "
            "`apiVersion: policytest/v1`); nothing to explain\n"
        )
        return int(ExitCode.FINDINGS)
    if args.case is not None:
        names = [result.case for result in results]
        results = [result for result in results if result.case == args.case]
        if not results:
            return unknown_case(args.case, args.fixture, names)
    if args.format == "html":
        from policytest.reporters.html.run import render_cases

        write(render_cases("policytest explain", results, args.fixture))
    else:
        color = use_color(sys.stdout, args.color)
        write("\n".join(render_case(result, args.top, color=color) for result in results))
    from policytest.harness.suite import RunReport

    unexplained = any(result.status == "error" for result in results)  # bad input
    failed = args.fail_on == "failure" and not RunReport(tuple(results)).ok
    return int(ExitCode.FINDINGS if unexplained or failed else ExitCode.OK)
