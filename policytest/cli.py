"""The ``policytest`` command: a thin shell over the library.

``build_parser()`` declares every subcommand (each lives in ``policytest.commands``
and imports its heavy machinery only when it runs); ``main(argv)`` parses, runs, and
turns any unexpected exception into one line on stderr and exit code 3.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from policytest.core.exitcodes import ExitCode
from policytest.core.gctuning import young_collections_only
from policytest.core.version import __version__

COMMANDS = (
    "validate",
    "run",
    "explain",
    "diff",
    "simulate",
    "snapshot",
    "init",
    "schema",
    "rules",
)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full argument parser (used by ``main`` and by the docs and tests); with
    ``only``, just that subcommand (``main`` builds no other: the hook runs one
    command on every commit, and each command imports what it needs)."""
    parser = argparse.ArgumentParser(
        prog="policytest",
        description="Validate and test Kubernetes scheduler bin-packing configuration.",
        formatter_class=argparse.RawDescriptionHelpFormatter,  # keeps --version's lines
    )
    parser.add_argument("--version", action="version", version=_version())
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in (only,) if only in COMMANDS else COMMANDS:
        importlib.import_module(f"policytest.commands.{name}").configure(subparsers)
    for command in subparsers.choices.values():  # its own usage for its own mistakes
        command.set_defaults(command_parser=command)
    return parser


def _version() -> str:
    """``policytest X``, then the releases judged and the defaults."""
    from policytest.core.releases import summary

    return f"policytest {__version__}\njudges {summary()}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``policytest`` with ``argv``; return the exit code (never raises)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(arguments[0] if arguments else None)
    try:
        args, unknown = parser.parse_known_args(arguments)
        if unknown:  # `validate --foo`: the usage of validate, not of policytest
            args.command_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    except SystemExit as exit_:  # argparse: --help, --version, usage errors
        return int(exit_.code or 0)
    if hasattr(args, "settings"):  # the commands that read the project settings file
        from policytest.commands.common import apply_settings, usage_error
        from policytest.read.project_settings import SettingsError

        try:
            apply_settings(args)
        except SettingsError as error:
            return usage_error(str(error))
    try:
        with young_collections_only():
            return int(args.execute(args))
    except KeyboardInterrupt:
        print("policytest: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return int(ExitCode.OK)
    except Exception as exc:  # the outermost boundary: never a traceback for the user
        print(f"policytest: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return int(ExitCode.INTERNAL)
