"""The ``policytest`` command: a thin shell over the library.

``build_parser()`` declares every subcommand (each lives in ``policytest.commands``
and imports its heavy machinery only when it runs); ``main(argv)`` parses, runs, and
turns any unexpected exception into one line on stderr and exit code 3.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Sequence

from policytest.core.exitcodes import ExitCode
from policytest.core.gctuning import young_collections_only
from policytest.core.version import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

COMMANDS = (
    "validate",
    "run",
    "explain",
    "diff",
    "upgrade",
    "simulate",
    "snapshot",
    "init",
    "schema",
    "rules",
    "completion",
)

DOCS = "https://github.com/policytest/policytest/blob/main/docs"
"""Where the documentation lives: every help page ends with its page there."""
DOCS_PAGES = {
    "validate": "validating.md",
    "run": "fixtures.md",
    "explain": "fixtures.md",
    "diff": "ci.md#policytest-diff",
    "upgrade": "ci.md#policytest-upgrade",
    "simulate": "fixtures.md",
    "snapshot": "fixtures.md#real-clusters-snapshots",
    "init": "fixtures.md",
    "schema": "editors.md",
    "rules": "rules.md",
    "completion": "cli.md#shell-completion",
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full argument parser (used by ``main`` and by the docs and tests); with
    ``only``, just that subcommand (``main`` builds no other: the hook runs one
    command on every commit, and each command imports what it needs)."""
    parser = _Parser(
        prog="policytest",
        description="Validate and test Kubernetes scheduler bin-packing configuration.",
        epilog=f"docs: {DOCS}/cli.md (`policytest COMMAND --help` for one command)",
        formatter_class=_RawDescriptionFormatter,  # keeps --version's lines
    )
    parser.add_argument("--version", action="version", version=_version())
    subparsers = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True, parser_class=_Parser
    )
    for name in (only,) if only in COMMANDS else COMMANDS:
        importlib.import_module(f"policytest.commands.{name}").configure(subparsers)
    for name, command in subparsers.choices.items():  # its own usage for its own mistakes
        command.set_defaults(command_parser=command, build_parser=build_parser)
        command.epilog = f"docs: {DOCS}/{DOCS_PAGES[name]}"
    return parser


def _terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``, without importing ``shutil`` (and the
    ``bz2``, ``lzma`` and ``fnmatch`` it loads for archives: 1.4 ms of every hook run,
    as argparse sizes a formatter for every argument it declares): ``COLUMNS``, else the
    terminal on standard output, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    stdout = sys.__stdout__
    if columns <= 0 and stdout is not None:
        try:
            columns = os.get_terminal_size(stdout.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, as wide as the terminal, measured by :func:`_terminal_columns`,
    that never breaks a word at a hyphen or a word longer than a line: a help page's docs
    link (``.../ci.md#policytest-diff``) and flags (``--kubernetes-version``) stay whole,
    so they can be clicked and copied."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        width = _terminal_columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap

        text = " ".join(text.split())
        return textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        text = " ".join(text.split())
        return textwrap.fill(
            text,
            width,
            initial_indent=indent,
            subsequent_indent=indent,
            break_on_hyphens=False,
            break_long_words=False,
        )


class _RawDescriptionFormatter(argparse.RawDescriptionHelpFormatter, _HelpFormatter):
    """The top-level help keeps its description's line breaks."""


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose help is formatted by :class:`_HelpFormatter`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)


def _version() -> str:
    """``policytest X``, then the releases judged and the defaults."""
    from policytest.core.releases import summary

    return f"policytest {__version__}\njudges {summary()}"


def console_main() -> int:
    """The ``policytest`` command: :func:`main` on the command line's arguments, then
    the process's objects left to the operating system. The interpreter's exit would
    otherwise run one last collection over every object still alive and free the
    cycles the run left (a 5,000-node repack leaves its cluster's 200,000 objects
    so): 1.7 s of a 12 s repack. Atexit handlers and stream flushing still run."""
    code = main()
    gc.freeze()
    return code


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
