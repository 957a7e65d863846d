"""``policytest validate PATH...``: schema and semantic rules for scheduler configs."""

from __future__ import annotations

import argparse
import sys

from policytest.commands.common import (
    add_color_option,
    add_fixture_options,
    add_output_format,
    check_options,
    describe_settings,
    output_format,
    usage_error,
    use_color,
    write,
)
from policytest.reporters import VALIDATE_FORMATS, render_validation

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def configure(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "validate",
        help="check scheduler configs and fixtures",
        description="Check Volcano confs, KubeSchedulerConfigurations (raw or inside "
        "ConfigMaps) and policytest fixtures. Directories are walked; files "
        "that are not scheduler configs are skipped. '-' reads standard input.",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="files or directories (walked recursively; default: ., as ruff and yamllint "
        "do); - reads standard input",
    )
    add_output_format(parser, VALIDATE_FORMATS)
    parser.add_argument("--strict", action="store_true", help="warnings also fail (exit 1)")
    add_color_option(parser)
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also say which settings file was read and what it sets, which scheduler "
        "releases are judged, and list the files that were skipped as not ours",
    )
    add_fixture_options(parser)
    parser.set_defaults(execute=execute)


def execute(args: Any) -> int:
    from policytest.api import validate_paths
    from policytest.core.errors import PathNotFound
    from policytest.core.exitcodes import ExitCode
    from policytest.core.findings import Severity
    from policytest.reporters.quoting import text

    chosen = output_format(args)
    options = check_options(args)
    try:
        report = validate_paths(args.paths or ["."], options)
    except PathNotFound as missing:
        return usage_error(f"path does not exist: {missing}")
    color = chosen == "text" and use_color(sys.stdout, args.color)
    write(render_validation(chosen, report, color=color))
    if args.verbose:
        from policytest.core.options import kube_release, volcano_release
        from policytest.core.releases import describe

        sys.stderr.write(f"{text(describe_settings(args))}\n")
        for line in describe(kube_release(options), volcano_release(options)):
            sys.stderr.write(f"{line}\n")
        for path, release in report.judged:
            sys.stderr.write(f"judged as {text(release)}: {text(path)}\n")
        noted = dict(report.notes)
        for skipped in report.skipped:
            why = noted.get(skipped, "not a scheduler config or fixture")
            sys.stderr.write(f"skipped ({text(why)}): {text(skipped)}\n")
    failing = report.count(Severity.ERROR) + (report.count(Severity.WARNING) if args.strict else 0)
    return int(ExitCode.FINDINGS if failing else ExitCode.OK)
