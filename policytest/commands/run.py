"""``policytest run [PATH...]``: run fixture cases through the reference scorers."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

from policytest.commands.common import (
    add_color_option,
    add_fixture_options,
    add_output_format,
    add_top_options,
    check_options,
    output_format,
    usage_error,
    use_color,
    write,
)
from policytest.commands.progress import Progress, add_quiet_option
from policytest.reporters import RUN_FORMATS, render_run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

    from policytest.harness.suite import RunReport


def configure(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "run",
        help="run fixture cases (golden tests)",
        description="Run the cases of policytest fixtures (*.policytest.yaml) through the "
        "reference scorers and compare with their expectations.",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        default=None,
        metavar="PATH",
        help="fixture files or directories (default: fixtures/)",
    )
    add_output_format(parser, RUN_FORMATS)
    parser.add_argument(
        "--update",
        action="store_true",
        help="rewrite the expectations of failing cases from the actual "
        "results (comments and formatting kept)",
    )
    parser.add_argument(
        "--cases-only",
        action="store_true",
        help="judge the cases alone: the configs' own findings are neither listed nor "
        "counted (`policytest validate` reports them: the policytest-run hook runs beside "
        "policytest-validate); a config the scheduler refuses still errors its cases",
    )
    add_top_options(parser)
    add_color_option(parser)
    add_fixture_options(parser)
    add_quiet_option(parser)
    parser.set_defaults(execute=execute)


DEFAULT_PATH = "fixtures"


def progress_line(
    stream: TextIO, *, quiet: bool = False
) -> tuple[Progress, Callable[[int, int, str], None] | None, Callable[[str, int], None] | None]:
    """A one-line progress line on a terminal once a run has taken more than about two
    seconds: files done (a bar), and the pods a long sequence has placed so far."""
    progress = Progress(stream, "running fixtures", None, "files", quiet=quiet)
    done_files = [0]

    def show(done: int, total: int, path: str) -> None:
        done_files[0] = done
        progress.total = total
        progress.unit = "files"
        progress.update(done)

    def placed(path: str, pods: int) -> None:
        from policytest.reporters.quoting import text

        progress.unit = f"files; {text(path)}: {pods:,} pods placed"
        progress.update(done_files[0])

    if not progress.enabled:
        return progress, None, None  # nothing will be drawn: no work per pod
    return progress, show, placed


def marked_updated(before: RunReport, after: RunReport, written: list[str]) -> RunReport:
    """The run after ``--update``: a case that failed before, in a file that was
    rewritten, and passes now shows as updated, not passed."""
    from dataclasses import replace

    rewritten = {(r.file, r.case) for r in before.results if r.status == "failed"}
    rewritten = {(file, case) for file, case in rewritten if file in written}
    return replace(
        after,
        results=tuple(
            replace(r, status="updated")
            if (r.file, r.case) in rewritten and r.status == "passed"
            else r
            for r in after.results
        ),
    )


def cases_only(report: RunReport) -> RunReport:
    """The report without the configs' own findings, except where they are why a case
    errors (the scheduler refuses the config)."""
    from dataclasses import replace

    return replace(
        report,
        results=tuple(
            r if r.status == "error" else replace(r, findings=()) for r in report.results
        ),
    )


def execute(args: Any) -> int:
    from policytest.core.errors import PathNotFound
    from policytest.core.exitcodes import ExitCode
    from policytest.harness.suite import run_paths
    from policytest.reporters.quoting import text

    chosen = output_format(args)
    line, progress, placed = progress_line(sys.stderr, quiet=args.quiet)
    paths = args.paths or [DEFAULT_PATH]
    if not args.paths and not os.path.exists(DEFAULT_PATH):
        # the default, not a path the user typed: nothing to run (exit 1), not a usage error
        sys.stderr.write(
            f"policytest: no fixture cases: there is no {DEFAULT_PATH}/ directory here (the "
            "default); name the files or directories that hold your *.policytest.yaml "
            "fixtures: `policytest run DIR` (pre-commit: `args: [DIR]` on the "
            "policytest-run hook)\n"
        )
        return int(ExitCode.FINDINGS)
    try:
        report = run_paths(paths, check_options(args), progress, placed)
    except PathNotFound as missing:
        return usage_error(f"path does not exist: {missing}")
    finally:
        line.close()
    if args.update:
        from policytest.harness.golden import update_expectations

        written, refused = update_expectations(report.results, args.root)
        for path in written:
            sys.stderr.write(f"policytest: updated {text(path)}\n")
        for refusal in refused:
            sys.stderr.write(f"policytest: error: {text(refusal)}\n")
        args.invocation = None  # the run after the update reads and runs it all again:
        again = run_paths(paths, check_options(args), progress, placed)  # a budget of its own
        report = marked_updated(report, again, written)
        line.close()
    if args.cases_only:
        report = cases_only(report)
    if chosen == "text":
        from policytest.reporters.run.text import render

        write(render(report, color=use_color(sys.stdout, args.color), top=args.top))
    else:
        write(render_run(chosen, report, color=False))
    return int(ExitCode.OK if report.ok else ExitCode.FINDINGS)
