"""Options and output helpers shared by several subcommands."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable
from typing import Any, TextIO

from policytest.core.limits import Limits, limit_names
from policytest.core.limits import describe as describe_limits
from policytest.core.options import (
    NEWEST_KUBERNETES,
    NEWEST_VOLCANO,
    CheckOptions,
    RuleFilter,
    rule_list,
)


def add_rule_options(parser: argparse.ArgumentParser) -> None:
    """``--select`` / ``--ignore``: the one rule filter of every command."""
    group = parser.add_argument_group("which findings count")
    group.add_argument(
        "--select",
        type=rule_list,
        default=(),
        metavar="RULES",
        help="only these rules or prefixes, comma-separated (e.g. VB,KS001)",
    )
    group.add_argument(
        "--ignore",
        type=rule_list,
        default=(),
        metavar="RULES",
        help="skip these rules or prefixes, comma-separated (comments "
        "`# policytest: ignore[RULE]` on a line work too)",
    )


def add_scheduler_options(parser: argparse.ArgumentParser) -> None:
    """``--select``/``--ignore``, ``--volcano-version``, ``--kubernetes-version`` and the
    input limits."""
    add_rule_options(parser)
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
        default=None,
        metavar="N",
        help=f"refuse files larger than N bytes (default {Limits().max_file_bytes}; "
        "the same as --limit file-bytes=N)",
    )
    defaults = Limits()
    group.add_argument(
        "--limit",
        type=_limit_setting,
        action="append",
        default=[],
        metavar="NAME=N",
        help="change an input limit (repeatable; see docs/robustness.md); the defaults: "
        + ", ".join(
            f"{name}={getattr(defaults, attribute)}" for attribute, name, _ in describe_limits()
        ),
    )


def add_output_format(parser: argparse.ArgumentParser, formats: Iterable[str]) -> None:
    """``--format``, one of the reporters' table (so the choices cannot drift)."""
    parser.add_argument(
        "--format",
        choices=tuple(formats),
        default=None,
        help="output format (default: text, or github under GitHub Actions)",
    )


def output_format(args: Any) -> str:
    """The format asked for, else ``github`` under GitHub Actions, else ``text``."""
    chosen: str | None = args.format
    return chosen or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")


def add_fixture_options(parser: argparse.ArgumentParser) -> None:
    """``--root`` and the scheduler options, for commands that run fixtures."""
    parser.add_argument(
        "--root",
        default=None,
        metavar="DIR",
        help="configs must live inside DIR (default: the git checkout's top directory, "
        "else the working directory)",
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


def _limit_setting(text: str) -> tuple[str, int]:
    """``NAME=N`` for ``--limit``: a known limit name and a positive whole number."""
    name, equals, value = text.partition("=")
    name = name.strip()
    if not equals or name not in limit_names():
        raise argparse.ArgumentTypeError(
            f"expected NAME=N with NAME one of {', '.join(limit_names())}: {text!r}"
        )
    return name, _positive(value.strip().replace("_", ""))


def check_options(args: Any) -> CheckOptions:
    """The frozen check options the parsed arguments describe."""
    settings = list(args.limit)
    if args.max_file_bytes is not None:
        settings.insert(0, ("file-bytes", args.max_file_bytes))
    return CheckOptions(
        volcano_version=args.volcano_version,
        kubernetes_version=args.kubernetes_version,
        limits=Limits().overridden(settings),
        root=getattr(args, "root", None),
        rules=RuleFilter(tuple(args.select), tuple(args.ignore)),
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
    from policytest.core.exitcodes import ExitCode

    sys.stderr.write(f"policytest: error: {message}\n")
    return int(ExitCode.USAGE)
