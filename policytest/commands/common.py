"""Options and output helpers shared by several subcommands."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable, Iterable

from policytest.core.limits import Invocation, Limits, limit_names, maximum
from policytest.core.limits import describe as describe_limits
from policytest.core.options import (
    NEWEST_KUBERNETES,
    NEWEST_VOLCANO,
    CheckOptions,
    RuleFilter,
    rule_ids,
)
from policytest.core.releases import (
    KUBE_RELEASES,
    VOLCANO_RELEASES,
    UnsupportedRelease,
    kube_release,
    supported_range,
    volcano_release,
)


def add_rule_options(parser: argparse.ArgumentParser) -> None:
    """``--select`` / ``--ignore``: the one rule filter of every command."""
    group = parser.add_argument_group("which findings count")
    group.add_argument(
        "--select",
        type=lambda text: rule_list(text),
        default=None,
        metavar="RULES",
        help="only these rules or prefixes, comma-separated (e.g. VB,KS001); "
        "default: the settings file's select",
    )
    group.add_argument(
        "--ignore",
        type=lambda text: rule_list(text),
        default=None,
        metavar="RULES",
        help="skip these rules or prefixes, comma-separated (comments "
        "`# policytest: ignore[RULE]` on a line work too); default: the settings file's "
        "ignore",
    )


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

    from policytest.read.project_settings import ProjectSettings


def add_scheduler_options(parser: argparse.ArgumentParser) -> None:
    """``--settings``, ``--select``/``--ignore``, ``--volcano-version``,
    ``--kubernetes-version`` and the input limits."""
    add_rule_options(parser)
    group = parser.add_argument_group("scheduler versions and limits")
    group.add_argument(
        "--settings",
        default=None,
        metavar="FILE",
        help="the project settings file (default: the nearest .policytest.yaml from the "
        "working directory up to the root: the git checkout's top, else the working "
        "directory); flags override it",
    )
    group.add_argument(
        "--no-settings",
        action="store_true",
        help="read no settings file in this run (its releases, rules and builds do not apply)",
    )
    group.add_argument(
        "--volcano-version",
        type=lambda text: VERSION_TYPES["volcano_version"](text),
        default=None,
        metavar="X.Y",
        help=f"judge Volcano confs as this release would ({_supported('volcano')}; default: "
        f"the settings file's volcanoVersion, else {NEWEST_VOLCANO})",
    )
    group.add_argument(
        "--kubernetes-version",
        type=lambda text: VERSION_TYPES["kubernetes_version"](text),
        default=None,
        metavar="X.Y",
        help="judge KubeSchedulerConfiguration as this release would "
        f"({_supported('kube')}; default: the settings file's kubernetesVersion, else "
        f"{NEWEST_KUBERNETES})",
    )
    group.add_argument(
        "--max-file-bytes",
        type=_file_bytes,
        default=None,
        metavar="N",
        help=f"refuse files larger than N bytes (default {Limits().max_file_bytes}; "
        "the same as --limit file-bytes=N)",
    )
    group.add_argument(
        "--limit",
        action=_LimitAction,
        default=[],
        metavar="NAME=N",
        help="change an input limit (repeatable); `--limit help` lists the limits and "
        "their defaults (docs/robustness.md)",
    )


class _LimitAction(argparse.Action):
    """``--limit NAME=N``, appended to the list of settings; ``--limit help`` prints
    every limit with its default and exits."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        if values == "help":
            write(limits_help())
            parser.exit()
        try:
            setting = limit_setting(str(values))
        except argparse.ArgumentTypeError as error:
            parser.error(f"argument --limit: {error}")
        setattr(namespace, self.dest, [*getattr(namespace, self.dest, []), setting])


def limits_help() -> str:
    """The input limits, one a line: name, default, what it bounds."""
    defaults = Limits()
    rows = [
        (name, f"{getattr(defaults, attribute):,}", summary)
        for attribute, name, summary in describe_limits()
    ]
    width = max(len(name) for name, _, _ in rows)
    number = max(len(value) for _, value, _ in rows)
    lines = [
        "Input limits (--limit NAME=N; docs/robustness.md says what each refusal says):",
        *(f"  {n:<{width}}  {v:>{number}}  {s}" for n, v, s in rows),
    ]
    return "\n".join(lines) + "\n"


def add_output_format(parser: argparse.ArgumentParser, formats: Iterable[str]) -> None:
    """``--format``, one of the reporters' table (so the choices cannot drift)."""
    parser.add_argument(
        "--format",
        choices=tuple(formats),
        default=None,
        help="output format (default: text, or github under GitHub Actions)",
    )


def add_top_options(parser: argparse.ArgumentParser) -> None:
    """``--top N`` / ``--all-nodes``: how many scored nodes a text report lists per case."""
    from policytest.reporters.run import DEFAULT_TOP

    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--top",
        type=_positive,
        default=DEFAULT_TOP,
        metavar="N",
        help=f"list the best N nodes of a case (default {DEFAULT_TOP}); the filtered nodes "
        "are summed up by reason when there are more than N",
    )
    group.add_argument(
        "--all-nodes",
        action="store_const",
        const=None,
        dest="top",
        help="list every node of a case",
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
        "else the working directory if the fixture is below it, else the fixture's own "
        "directory)",
    )
    add_scheduler_options(parser)


def _supported(scheduler: str) -> str:
    return supported_range(KUBE_RELEASES if scheduler == "kube" else VOLCANO_RELEASES)


def _release(text: str, select: Callable[[str], object]) -> str:
    """A release of the table (``1.36``, ``v1.16.0-alpha.1``), kept as written."""
    try:
        select(text)
    except UnsupportedRelease as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _kube_release(text: str) -> str:
    return _release(text, kube_release)


def _volcano_release(text: str) -> str:
    return _release(text, volcano_release)


VERSION_TYPES: dict[str, Callable[[str], str]] = {
    "kubernetes_version": _kube_release,
    "volcano_version": _volcano_release,
}
"""How ``--kubernetes-version`` / ``--volcano-version`` check a release; the settings
file's ``kubernetesVersion`` / ``volcanoVersion`` go through the same functions."""


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return value


def limit_setting(text: str) -> tuple[str, int]:
    """``NAME=N`` for ``--limit``: a known limit name and a positive whole number."""
    name, equals, value = text.partition("=")
    name = name.strip()
    if not equals or name not in limit_names():
        raise argparse.ArgumentTypeError(
            f"expected NAME=N with NAME one of {', '.join(limit_names())}: {text!r}"
        )
    return name, _at_most(_positive(value.strip().replace("_", "")), name)


def _at_most(value: int, name: str) -> int:
    """``value``, unless it is above what the limit ``name`` can safely be (a usage error)."""
    largest = maximum(name)
    if value > largest:
        raise argparse.ArgumentTypeError(
            f"{name}={value} is more than policytest can safely allow (at most {largest:,})"
        )
    return value


def _file_bytes(text: str) -> int:
    return _at_most(_positive(text), "file-bytes")


def apply_settings(args: Any) -> None:
    """Fill in what the command line left unsaid from the project settings file
    (``--settings FILE``, else the nearest ``.policytest.yaml``): the releases, and
    ``select``/``ignore`` for commands that filter rules. Flags win over the file.
    Raises :class:`~policytest.read.project_settings.SettingsError` (a usage error)."""
    from policytest.read.project_settings import NO_SETTINGS, project_settings

    if getattr(args, "no_settings", False):
        settings = NO_SETTINGS
    else:
        root = getattr(args, "root", None)
        settings = checked_versions(project_settings(args.settings, root=root))
    args.project_settings = settings
    args.release_flags = frozenset(
        dest for dest in VERSION_TYPES if getattr(args, dest, None) is not None
    )
    args.rule_flags = frozenset(key for key in ("select", "ignore") if getattr(args, key, None))
    if args.volcano_version is None:
        args.volcano_version = settings.volcano_version or NEWEST_VOLCANO
    if args.kubernetes_version is None:
        args.kubernetes_version = settings.kubernetes_version or NEWEST_KUBERNETES
    for key in ("select", "ignore"):
        if hasattr(args, key) and not getattr(args, key):  # not given on the command line
            setattr(args, key, getattr(settings, key) or ())


def describe_settings(args: Any) -> str:
    """Which settings file this run read and what it changes, for ``--verbose``."""
    settings: ProjectSettings = args.project_settings
    if settings.path is None:
        why = "--no-settings" if args.no_settings else _not_found(getattr(args, "root", None))
        return f"settings: none read ({why})"
    said = [
        f"{key} {', '.join(value) if isinstance(value, tuple) else value}"
        for key, value in (
            ("kubernetesVersion", settings.kubernetes_version),
            ("volcanoVersion", settings.volcano_version),
            ("select", settings.select),
            ("ignore", settings.ignore),
            ("kubeScheduler.distribution", settings.kube_distribution),
        )
        if value
    ]
    said += [f"severity {rule}: {level.value}" for rule, level in settings.severity]
    said += [f"kubeScheduler.plugins {', '.join(p.name for p in settings.kube_plugins)}"] * bool(
        settings.kube_plugins
    )
    said += [f"volcano.plugins {', '.join(settings.volcano_plugins)}"] * bool(
        settings.volcano_plugins
    )
    return f"settings: {settings.path} ({'; '.join(said) or 'nothing set'})"


def _not_found(root: str | None) -> str:
    """Where the search for ``.policytest.yaml`` looked, and the nearest file above that it
    does not read (the rule is :func:`~policytest.read.project_settings.search_boundary`'s)."""
    from policytest.read.project_settings import search_boundary, unread_settings

    start = os.getcwd()
    boundary = search_boundary(start, root)
    if boundary == os.path.realpath(start):
        looked = "in the working directory"
        if root is None:
            looked += ", which is in no git checkout: nothing above it is read"
    else:
        top = "--root" if root is not None else "the top of the git checkout"
        looked = f"from the working directory up to {top}, {boundary}"
    unread = unread_settings(start, root)
    if unread is not None:
        looked += f"; {unread} is above that, not read (--settings FILE or --root DIR reads it)"
    return f"no .policytest.yaml {looked}"


def checked_versions(settings: ProjectSettings) -> ProjectSettings:
    """The settings file checked for meaning, as the flags check theirs: its releases
    through the flags' own type functions (:data:`VERSION_TYPES`), its ``select`` and
    ``ignore`` against the rule catalogue. A refusal is a usage error naming the key."""
    from policytest.read.project_settings import SettingsError

    def refuse(key: str, message: str) -> SettingsError:
        return SettingsError(settings.path or "", settings.line_of(key), key, message)

    for key, dest in (
        ("kubernetesVersion", "kubernetes_version"),
        ("volcanoVersion", "volcano_version"),
    ):
        value = getattr(settings, dest)
        if value is None:
            continue
        try:
            VERSION_TYPES[dest](value)
        except argparse.ArgumentTypeError as refused:
            raise refuse(key, str(refused)) from None
    for key in ("select", "ignore"):
        for index, item in enumerate(getattr(settings, key) or ()):
            if unknown_rule(item):
                raise refuse(f"{key}[{index}]", unknown_rule_message(item))
    for item, _ in settings.severity:
        if unknown_rule(item):
            raise refuse(f"severity.{item}", unknown_rule_message(item))
    return settings


def known_rule_ids() -> frozenset[str]:
    """Every rule id of the catalogue (imports the modules that declare rules)."""
    from policytest.reporters.catalogue import all_rules

    return frozenset(rule.id for rule in all_rules())


@functools.cache
def _known_prefixes() -> frozenset[str]:
    """Every non-empty prefix of every rule id: one set lookup per item, however long
    the list a settings file gives."""
    return frozenset(rule[:end] for rule in known_rule_ids() for end in range(1, len(rule) + 1))


def unknown_rule(token: str) -> bool:
    """A ``--select``/``--ignore`` item that is neither a rule id nor a prefix of one
    (a blank item is neither: as a prefix it would match every rule)."""
    return token not in _known_prefixes()


def unknown_rule_message(token: str) -> str:
    from policytest.core.suggest import did_you_mean

    return (
        f"no such rule: {token!r} (not a rule id or a prefix of one; `policytest rules` "
        f"lists them){did_you_mean(token, known_rule_ids())}"
    )


def check_options(args: Any) -> CheckOptions:
    """The frozen check options the parsed arguments (and the settings file) describe."""
    if not hasattr(args, "project_settings"):
        apply_settings(args)
    settings = list(args.limit)
    if args.max_file_bytes is not None:
        settings.insert(0, ("file-bytes", args.max_file_bytes))
    if getattr(args, "invocation", None) is None:  # once per command: every read charges it
        args.invocation = Invocation()
    options = CheckOptions(
        volcano_version=args.volcano_version,
        kubernetes_version=args.kubernetes_version,
        limits=Limits().overridden(settings).for_invocation(args.invocation),
        root=getattr(args, "root", None),
        rules=RuleFilter(tuple(args.select or ()), tuple(args.ignore or ())),
        release_flags=args.release_flags,
    )
    project: ProjectSettings = args.project_settings
    return project.check_options(options)


def rule_list(text: str) -> tuple[str, ...]:
    """``--select``/``--ignore``: comma-separated rule ids or prefixes, each one known."""
    listed = rule_ids(text)
    for item in listed:
        if unknown_rule(item):
            raise argparse.ArgumentTypeError(unknown_rule_message(item))
    return listed


COLOR_CHOICES = ("auto", "always", "never")


def add_color_option(parser: argparse.ArgumentParser) -> None:
    """``--color auto|always|never``: colour in text output."""
    parser.add_argument(
        "--color",
        choices=COLOR_CHOICES,
        default="auto",
        help="colour the text output: auto (the default) colours it on a terminal, unless "
        "NO_COLOR is set (FORCE_COLOR colours it anywhere); always and never override both",
    )


def use_color(stream: TextIO, choice: str = "auto") -> bool:
    """Whether to colour what goes to ``stream``: as ``--color`` says (``choice``); for
    ``auto``, never when ``NO_COLOR`` is set, always when ``FORCE_COLOR`` is, else on a
    terminal only (https://no-color.org, https://force-color.org)."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


def write(text: str, stream: TextIO | None = None) -> None:
    """Write command output (stdout by default)."""
    (stream or sys.stdout).write(text)


def missing_file(path: str) -> str | None:
    """Why ``path`` cannot be the file a command was given, or ``None`` when it can."""
    import os

    if not os.path.lexists(path):
        return f"path does not exist: {path}"
    if os.path.isdir(path):
        return f"not a file: {path} is a directory"
    return None


def unknown_case(case: str, path: str, names: list[str]) -> int:
    """The usage error for ``--case`` naming no case of the fixture: the names it has."""
    from policytest.core.suggest import did_you_mean

    listed = " Its cases: " + ", ".join(repr(n) for n in names) if names else ""
    return usage_error(f"no case named {case!r} in {path}{did_you_mean(case, names)}{listed}")


def usage_error(message: str) -> int:
    """One line on stderr (quoted: it names what the user gave); exit code 2."""
    from policytest.core.exitcodes import ExitCode
    from policytest.reporters.quoting import text

    sys.stderr.write(f"policytest: error: {text(message)}\n")
    return int(ExitCode.USAGE)
