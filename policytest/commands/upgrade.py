"""``policytest upgrade``: preview a release upgrade on the fixtures, as a review.

    policytest upgrade [PATH...] --to-kubernetes X.Y [--to-volcano X.Y]

The fixtures run as the release they are judged as today and as the target; the report
is the one ``diff`` prints (text, Markdown, JSON), with the release fact behind each
changed case.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from policytest.commands.common import (
    VERSION_TYPES,
    add_fixture_options,
    check_options,
    usage_error,
    use_color,
    write,
)
from policytest.reporters import DIFF_FORMATS, render_diff

FAIL_ON = ("findings", "ranking-change", "never")
DEFAULT_PATH = "fixtures"


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
    parser.add_argument(
        "--to-kubernetes",
        type=lambda text: VERSION_TYPES["kubernetes_version"](text),
        default=None,
        metavar="X.Y",
        help="the kube-scheduler release to upgrade to",
    )
    parser.add_argument(
        "--to-volcano",
        type=lambda text: VERSION_TYPES["volcano_version"](text),
        default=None,
        metavar="X.Y",
        help="the Volcano release to upgrade to",
    )
    parser.add_argument(
        "--format",
        choices=tuple(DIFF_FORMATS),
        default="text",
        help="text for terminals, markdown for a pull-request comment, json for "
        "automation (default: text)",
    )
    parser.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="findings",
        help="exit 1 when the target release introduces error findings (findings, the "
        "default), also when any ranking or placement changes (ranking-change), or never",
    )
    add_fixture_options(parser)
    parser.set_defaults(execute=execute)


def execute(args: Any) -> int:
    from policytest.diff.upgrade import PathNotFound, preview_upgrade

    targets = {
        field: value
        for field, value in (
            ("kubernetes_version", args.to_kubernetes),
            ("volcano_version", args.to_volcano),
        )
        if value is not None
    }
    if not targets:
        return usage_error("name the release to upgrade to: --to-kubernetes X.Y, --to-volcano X.Y")
    try:
        report = preview_upgrade(args.paths or [DEFAULT_PATH], check_options(args), targets)
    except PathNotFound as missing:
        return usage_error(f"path does not exist: {missing}")
    color = args.format == "text" and use_color(sys.stdout)
    write(render_diff(args.format, report, color=color))
    return int(report.exit_code(args.fail_on))
