"""``policytest run [PATH...]``: run fixture cases through the reference scorers."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any, TextIO

from policytest.commands.common import (
    add_fixture_options,
    add_output_format,
    check_options,
    output_format,
    usage_error,
    use_color,
    write,
)
from policytest.reporters import RUN_FORMATS


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
    add_fixture_options(parser)
    parser.set_defaults(execute=execute)


PROGRESS_AFTER_FILES = 20
DEFAULT_PATH = "fixtures"


def progress_line(stream: TextIO) -> Callable[[int, int, str], None]:
    """A one-line ``[12/340] path`` counter on a terminal, for suites of many files."""

    def show(done: int, total: int, path: str) -> None:
        if total < PROGRESS_AFTER_FILES:
            return
        from policytest.reporters.quoting import text

        line = f"[{done}/{total}] {text(path)}"[:78]
        stream.write(f"\r{line:<78}" if done < total else "\r" + " " * 78 + "\r")
        stream.flush()

    return show


def execute(args: Any) -> int:
    from policytest.core.errors import PathNotFound
    from policytest.core.exitcodes import ExitCode
    from policytest.fixtures.suite import run_paths
    from policytest.reporters import render_run
    from policytest.reporters.quoting import text

    chosen = output_format(args)
    progress = progress_line(sys.stderr) if sys.stderr.isatty() else None
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
        report = run_paths(paths, check_options(args), progress)
    except PathNotFound as missing:
        return usage_error(f"path does not exist: {missing}")
    if args.update:
        from policytest.fixtures.golden import update_expectations

        written, refused = update_expectations(report.results, args.root)
        for path in written:
            sys.stderr.write(f"updated {text(path)}\n")
        for refusal in refused:
            sys.stderr.write(f"policytest: error: {text(refusal)}\n")
        report = run_paths(paths, check_options(args), progress)
    write(render_run(chosen, report, color=chosen == "text" and use_color(sys.stdout)))
    return int(ExitCode.OK if report.ok else ExitCode.FINDINGS)
