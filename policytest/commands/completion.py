"""``policytest completion bash|zsh|fish``: a shell completion script, made from the
argument parser itself (so it cannot drift from the commands and their options).

Each script completes the commands, their options, the choices of an option that has
them (``--format``, ``--color``), rule ids after ``rules``, schema names after
``schema``, and file names elsewhere.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from policytest.commands.common import write

SHELLS = ("bash", "zsh", "fish")


def configure(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "completion",
        help="print a shell completion script",
        description='Print the completion script for SHELL. bash: `eval "$(policytest '
        'completion bash)"` in ~/.bashrc; zsh: `eval "$(policytest completion zsh)"` in '
        "~/.zshrc (after compinit); fish: `policytest completion fish > "
        "~/.config/fish/completions/policytest.fish`.",
    )
    parser.add_argument("shell", choices=SHELLS, metavar="SHELL", help="bash, zsh or fish")
    parser.set_defaults(execute=execute)


@dataclass(frozen=True)
class Option:
    """An option of a command: its spellings, and what its value is (if it takes one)."""

    names: tuple[str, ...]
    help: str
    takes_value: bool
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Command:
    """A command: its options, and the words its arguments are (``()``: file names)."""

    name: str
    help: str
    options: tuple[Option, ...]
    words: tuple[str, ...] = ()


def commands(parser: argparse.ArgumentParser) -> list[Command]:
    """Every command of ``parser`` (the whole ``policytest`` parser), as completion needs
    it."""
    found = []
    for action in parser._actions:  # argparse lists its actions nowhere public
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: str(choice.help or "") for choice in action._choices_actions}
            for name, sub in action.choices.items():
                found.append(Command(name, helps.get(name, ""), _options(sub), _words(name, sub)))
    return found


def _options(parser: argparse.ArgumentParser) -> tuple[Option, ...]:
    return tuple(
        Option(
            tuple(action.option_strings),
            " ".join(str(action.help or "").split()),
            action.nargs != 0,
            tuple(str(choice) for choice in action.choices or ()),
        )
        for action in parser._actions
        if action.option_strings and action.help != argparse.SUPPRESS
    )


def _words(name: str, parser: argparse.ArgumentParser) -> tuple[str, ...]:
    """What the command's arguments are, when they are not file names."""
    if name == "rules":
        from policytest.reporters.catalogue import all_rules

        return tuple(rule.id for rule in all_rules())
    if name == "schema":
        from policytest.read.schema import schema_names

        return tuple(schema_names())
    positional = [a for a in parser._actions if not a.option_strings and a.choices]
    return tuple(str(choice) for action in positional for choice in action.choices or ())


def execute(args: Any) -> int:
    render = {"bash": bash, "zsh": zsh, "fish": fish}[args.shell]
    write(render(commands(args.build_parser())))  # the command line built them all
    return 0


def _quoted(words: Sequence[str]) -> str:
    return " ".join(words)


def bash(found: Sequence[Command]) -> str:
    """A bash completion function for ``complete -F``."""
    lines = [
        '# policytest completion for bash: eval "$(policytest completion bash)"',
        "_policytest() {",
        '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"',
        '    local command="" i',
        "    for ((i = 1; i < COMP_CWORD; i++)); do",
        '        case "${COMP_WORDS[i]}" in -*) ;; *) command="${COMP_WORDS[i]}"; break ;; esac',
        "    done",
        '    if [[ -z "$command" ]]; then',
        f'        COMPREPLY=($(compgen -W "{_quoted([c.name for c in found])} --help --version"'
        ' -- "$cur"))',
        "        return",
        "    fi",
        '    case "$command" in',
    ]
    for command in found:
        lines.append(f"    {command.name})")
        lines.append('        case "$prev" in')
        for option in command.options:
            if option.takes_value:
                offer = (
                    f'compgen -W "{_quoted(option.choices)}"' if option.choices else "compgen -f"
                )
                lines.append(
                    f'            {"|".join(option.names)}) COMPREPLY=($({offer} -- "$cur"));'
                    " return ;;"
                )
        lines.append("        esac")
        names = [name for option in command.options for name in option.names]
        lines.append(
            f'        if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "{_quoted(names)}"'
            ' -- "$cur")); return; fi'
        )
        offer = f'compgen -W "{_quoted(command.words)}"' if command.words else "compgen -f"
        lines.append(f'        COMPREPLY=($({offer} -- "$cur")) ;;')
    lines += ["    esac", "}", "complete -o filenames -F _policytest policytest", ""]
    return "\n".join(lines)


def _zsh_text(text: str) -> str:
    """Text inside a zsh ``_arguments`` spec's brackets or a ``_describe`` item."""
    return (
        text.replace("\\", "\\\\")
        .replace("'", "'\\''")
        .replace(":", "\\:")
        .replace("[", "\\[")
        .replace("]", "\\]")
    )


def zsh(found: Sequence[Command]) -> str:
    """A zsh completion function (``compdef``), with each option's help."""
    lines = [
        "#compdef policytest",
        '# policytest completion for zsh: eval "$(policytest completion zsh)" after compinit',
        "_policytest() {",
        "    local -a commands",
        "    commands=(",
        *(f"        '{c.name}:{_zsh_text(c.help)}'" for c in found),
        "    )",
        "    if (( CURRENT == 2 )); then",
        "        _describe 'command' commands",
        "        return",
        "    fi",
        "    case ${words[2]} in",
    ]
    for command in found:
        specs = []
        for option in command.options:
            value = ""
            if option.takes_value:
                value = f":value:({_quoted(option.choices)})" if option.choices else ":file:_files"
            for name in option.names:
                specs.append(f"'{name}[{_zsh_text(option.help)}]{value}'")
        rest = f"'*:argument:({_quoted(command.words)})'" if command.words else "'*:file:_files'"
        lines.append(f"    {command.name})")
        lines.append(f"        _arguments -s {' '.join(specs)} {rest} ;;")
    lines += [
        "    esac",
        "}",
        'if [[ "${funcstack[1]}" == _policytest ]]; then _policytest "$@";',
        "else compdef _policytest policytest; fi",
        "",
    ]
    return "\n".join(lines)


def _fish_text(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish(found: Sequence[Command]) -> str:
    """fish ``complete`` lines: commands, then each command's options and arguments."""
    lines = [
        "# policytest completion for fish: policytest completion fish > "
        "~/.config/fish/completions/policytest.fish",
        "complete -c policytest -f",
        f"set -l __policytest_commands {_quoted([c.name for c in found])}",
    ]
    for command in found:
        lines.append(
            'complete -c policytest -n "not __fish_seen_subcommand_from $__policytest_commands"'
            f" -a {command.name} -d {_fish_text(command.help)}"
        )
    for command in found:
        when = f"-n '__fish_seen_subcommand_from {command.name}'"
        for option in command.options:
            spelled = " ".join(
                f"-l {name[2:]}" if name.startswith("--") else f"-s {name[1:]}"
                for name in option.names
            )
            value = ""
            if option.takes_value:
                value = (
                    f" -x -a {_fish_text(_quoted(option.choices))}" if option.choices else " -r -F"
                )
            lines.append(
                f"complete -c policytest {when} {spelled}{value} -d {_fish_text(option.help)}"
            )
        offer = f"-a {_fish_text(_quoted(command.words))}" if command.words else "-F"
        lines.append(f"complete -c policytest {when} {offer}")
    return "\n".join(lines) + "\n"
