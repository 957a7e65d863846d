"""``policytest diff``: what a config change does to rankings and placements.

Two forms::

    policytest diff [--base REV] [--head REV] [PATH...]    # two git revisions
    policytest diff OLD_FILE NEW_FILE --fixtures DIR       # two files outside git
"""

from __future__ import annotations

import argparse
import os
import sys

from policytest.commands.common import (
    add_color_option,
    add_scheduler_options,
    check_options,
    checked_versions,
    usage_error,
    use_color,
    write,
)
from policytest.core.exitcodes import ExitCode
from policytest.core.options import NEWEST_KUBERNETES, NEWEST_VOLCANO
from policytest.reporters import DIFF_FORMATS, render_diff

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from policytest.diff.model import DiffReport
    from policytest.diff.settings import CommandLine

FAIL_ON = ("findings", "ranking-change", "never")
USAGE = """policytest diff [--base REV] [--head REV] [options] [PATH ...]
       policytest diff OLD_FILE NEW_FILE --fixtures DIR [--all] [options]"""
"""Both forms, the second aligned under the first after argparse's ``usage: ``."""


def configure(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "diff",
        help="show how a config change moves rankings and placements",
        usage=USAGE,
        description="Compare scheduler configs and their effect between two git revisions "
        "(default: the merge-base with the default branch, and the working tree), or "
        "between two config files with --fixtures. Fixtures that use a changed config are "
        "run on both sides: new winners, rank moves, score deltas, placement changes, "
        "findings introduced and resolved, and each changed config's effective settings.",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="git mode: fixtures and configs to consider (default: the whole repository); "
        "with --fixtures: OLD_FILE NEW_FILE",
    )
    parser.add_argument(
        "--base",
        metavar="REV",
        help="the revision to compare with: a branch, tag, commit or HEAD~1 (default: "
        "the merge-base of HEAD with origin/HEAD, main or master)",
    )
    parser.add_argument(
        "--head",
        metavar="REV",
        help="the revision under review (default: the working tree)",
    )
    parser.add_argument(
        "--fixtures",
        action="append",
        metavar="DIR",
        help="compare the two config files OLD_FILE NEW_FILE, running the fixtures in "
        "DIR (file or directory; repeatable) that use OLD_FILE",
    )
    parser.add_argument(
        "--all",
        action="store_true",
        dest="run_all",
        help="run every fixture, not only those whose fixture or config changed",
    )
    add_review_options(parser, "the head")
    parser.add_argument(
        "--head-settings",
        action="store_true",
        help="judge findings with the head's settings file (select, ignore, declared "
        "plugins); default: the base's, so a change cannot silence its own findings. "
        "Releases and the distribution always come from each side's own settings file",
    )
    add_scheduler_options(parser)
    parser.set_defaults(execute=execute)


def add_review_options(parser: argparse.ArgumentParser, introducer: str) -> None:
    """``--format`` and ``--fail-on``: a review's output and when it fails (``diff``,
    ``upgrade``)."""
    parser.add_argument(
        "--format",
        choices=tuple(DIFF_FORMATS),
        default="text",
        help="text for terminals, markdown for a pull-request comment, html for a "
        "self-contained page, json for automation (default: text)",
    )
    parser.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="findings",
        help=f"exit 1 when {introducer} introduces error findings (findings, the default), "
        "also when any ranking or placement changes (ranking-change), or never",
    )
    add_color_option(parser)


def show_review(args: Any, report: DiffReport) -> int:
    """Print a review in the format asked for; its exit code for ``--fail-on``."""
    color = args.format == "text" and use_color(sys.stdout, args.color)
    write(render_diff(args.format, report, color=color))
    code = report.exit_code(args.fail_on)
    invocation = getattr(args, "invocation", None)
    if invocation is not None and invocation.refused and args.fail_on != "never":
        code = ExitCode.FINDINGS  # the budget ran out: what was not run is not judged
    return int(code)


def command_line(args: Any) -> CommandLine:
    """What the command line said before any settings file: each side of a git diff
    reads its own (``policytest.diff.settings``)."""
    from policytest.diff.settings import CommandLine
    from policytest.read.project_settings import NO_SETTINGS

    plain = argparse.Namespace(**vars(args))
    plain.project_settings = NO_SETTINGS
    for dest, default in (
        ("kubernetes_version", NEWEST_KUBERNETES),
        ("volcano_version", NEWEST_VOLCANO),
    ):
        if dest not in args.release_flags:
            setattr(plain, dest, default)
    for key in ("select", "ignore"):
        if key not in args.rule_flags:
            setattr(plain, key, ())
    return CommandLine(
        check_options(plain),
        checked_versions,
        args.rule_flags,
        args.settings,
        args.head_settings,
    )


def execute(args: Any) -> int:
    from policytest.diff.compare import (
        DiffError,
        PathNotFound,
        ReviewRefused,
        diff_files,
        diff_revisions,
    )

    options = check_options(args)
    try:
        if args.fixtures:
            if args.base or args.head:
                return usage_error(
                    "--base/--head compare git revisions and --fixtures compares two files; "
                    "use one or the other"
                )
            if len(args.paths) != 2:
                return usage_error(
                    "with --fixtures, name exactly two config files: OLD_FILE NEW_FILE"
                )
            old, new = args.paths
            report = diff_files(old, new, args.fixtures, options, run_all=args.run_all)
        else:
            report = diff_revisions(
                args.paths,
                options,
                base=args.base,
                head=args.head,
                run_all=args.run_all,
                command=command_line(args),
            )
    except PathNotFound as missing:
        return usage_error(f"path does not exist: {missing}")
    except ReviewRefused as refused:  # an input too large, not a usage error: as a limit
        sys.stderr.write(f"policytest: error: {refused}\n")
        return int(ExitCode.FINDINGS)
    except DiffError as error:
        return usage_error(relative_to_checkout(str(error)))
    return show_review(args, report)


def relative_to_checkout(message: str) -> str:
    """``message`` without the directory the command runs in (a CI runner's checkout,
    ``/home/runner/work/...``): paths below it as the repository names them. git's own
    words in an error may name it."""
    here = os.getcwd()
    for prefix in sorted({here, os.path.realpath(here)}, key=len, reverse=True):
        message = message.replace(prefix + os.sep, "").replace(prefix, os.curdir)
    return message
