"""``policytest upgrade``: preview a release upgrade on the fixtures, as a review.

    policytest upgrade [PATH...] --to-kubernetes X.Y [--to-volcano X.Y]

The fixtures run as the release they are judged as today and as the target; the report
is the one ``diff`` prints (text, Markdown, JSON), with the release fact behind each
changed case.
"""

from __future__ import annotations

import argparse
from typing import Any

from policytest.commands.common import (
    VERSION_TYPES,
    add_fixture_options,
    check_options,
    usage_error,
)
from policytest.commands.diff import add_review_options, show_review

DEFAULT_PATH = "fixtures"
TARGET_FLAGS = (
    ("--to-kubernetes", "kubernetes_version", "kube-scheduler"),
    ("--to-volcano", "volcano_version", "Volcano"),
)
"""(flag, ``CheckOptions`` field, scheduler) for each release an upgrade can move."""


def configure(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "upgrade",
        help="preview a scheduler release upgrade: what changes, and why",
        usage="policytest upgrade [PATH ...] --to-kubernetes X.Y [--to-volcano X.Y] [options]",
        description="Run the fixtures as the release they are judged as today (each "
        "fixture's own, else --kubernetes-version / --volcano-version, the settings file "
        "or the default) and as the target release, and review the difference as "
        "`policytest diff` does: new winners, rank moves, score deltas, placement "
        "changes, config findings the new release introduces or resolves, and for each "
        "changed case the release fact behind it (a plugin's formula, a validation that "
        "now refuses the config). Every fixture is judged as the target, also one that "
        "states its own release. Nothing is written.",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="fixture files or directories (default: fixtures/)",
    )
    for flag, field, scheduler in TARGET_FLAGS:
        parser.add_argument(
            flag,
            type=VERSION_TYPES[field],
            default=None,
            metavar="X.Y",
            help=f"the {scheduler} release to upgrade to",
        )
    add_review_options(parser, "the target release")
    add_fixture_options(parser)
    parser.set_defaults(execute=execute)


def execute(args: Any) -> int:
    from policytest.diff.upgrade import PathNotFound, preview_upgrade

    targets = {
        field: getattr(args, flag[2:].replace("-", "_"))
        for flag, field, _ in TARGET_FLAGS
        if getattr(args, flag[2:].replace("-", "_")) is not None
    }
    if not targets:
        return usage_error("name the release to upgrade to: --to-kubernetes X.Y, --to-volcano X.Y")
    try:
        report = preview_upgrade(args.paths or [DEFAULT_PATH], check_options(args), targets)
    except PathNotFound as missing:
        return usage_error(f"path does not exist: {missing}")
    return show_review(args, report)
