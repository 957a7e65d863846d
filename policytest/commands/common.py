"""Options and output helpers shared by several subcommands."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, TextIO

from policytest.limits import Limits
from policytest.options import NEWEST_KUBERNETES, NEWEST_VOLCANO, CheckOptions


def add_scheduler_options(parser: argparse.ArgumentParser) -> None:
    """``--volcano-version``, ``--kubernetes-version`` and the input limits."""
    group = parser.add_argument_group("scheduler versions and limits")
    group.add_argument(
        "--volcano-version",
        type=_release,
        default=NEWEST_VOLCANO,
        metavar="X.Y",
        help=f"judge Volcano confs as this release would (default {NEWEST_VOLCANO})",
    )
    group.add_argument(
        "--kubernetes-version",
        type=_release,
        default=NEWEST_KUBERNETES,
        metavar="X.Y",
        help="judge KubeSchedulerConfiguration as this release would "
        f"(default {NEWEST_KUBERNETES})",
    )
    group.add_argument(
        "--max-file-bytes",
        type=_positive,
        default=Limits().max_file_bytes,
        metavar="N",
        help="refuse files larger than N bytes (default %(default)s)",
    )


def add_fixture_options(parser: argparse.ArgumentParser) -> None:
    """``--root`` and the scheduler options, for commands that run fixtures."""
    parser.add_argument(
        "--root",
        default=None,
        metavar="DIR",
        help="configs must live inside DIR (default: the git repository root)",
    )
    add_scheduler_options(parser)


def _release(text: str) -> str:
    """A release number such as ``1.16`` or ``v1.35.2`` (checked, kept as written)."""
    from policytest.volcano.versions import VersionError, parse_version

    try:
        parse_version(text)
    except VersionError:
        raise argparse.ArgumentTypeError(f"not a release number: {text!r} (e.g. 1.16)") from None
    return text


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return value


def check_options(args: Any) -> CheckOptions:
    """The frozen check options the parsed arguments describe."""
    return CheckOptions(
        volcano_version=args.volcano_version,
        kubernetes_version=args.kubernetes_version,
        limits=Limits(max_file_bytes=args.max_file_bytes),
    )


def use_color(stream: TextIO) -> bool:
    """Colour only on a terminal, and never when ``NO_COLOR`` is set."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


def write(text: str, stream: TextIO | None = None) -> None:
    """Write command output (stdout by default)."""
    (stream or sys.stdout).write(text)


def usage_error(message: str) -> int:
    """One line on stderr; exit code 2."""
    from policytest.exitcodes import ExitCode

    sys.stderr.write(f"policytest: error: {message}\n")
    return int(ExitCode.USAGE)
