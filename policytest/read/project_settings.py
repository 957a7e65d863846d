"""The project settings file ``.policytest.yaml``: which releases and which scheduler
builds a repository's configs are written for, and which rules apply.

It is found from the working directory upwards (the nearest one wins, up to the root:
``--root``, else the top of the git checkout holding the working directory; without git,
the working directory only: a settings file above the root is never read, as no config
or snapshot above it is; ``--verbose`` names one it left unread), or named
with ``--settings FILE`` (``--policytest-settings`` or the ``policytest_settings`` ini
option in pytest). Every command and the pytest plugin read
it; command-line flags override it. The file is checked here against
``schemas/settings.schema.json``, and by the commands for meaning (a rule id that no rule
has, a release the flags would refuse); any problem is a :class:`SettingsError`, a usage
error that names the file, line and key.
"""

from __future__ import annotations

import os
import re

from policytest.core.errors import PolicytestError
from policytest.core.findings import Finding, Severity
from policytest.core.limits import Limits
from policytest.core.options import CheckOptions, CustomPlugin, RuleFilter
from policytest.core.records import record, replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SETTINGS_FILE = ".policytest.yaml"
SETTINGS_NAMES = (SETTINGS_FILE, ".policytest.yml")
"""The names of the settings file (never a fixture, though fixtures end in ``.policytest.yaml``)."""
SCHEMA_NAME = "settings"
SETTINGS_LIMITS = Limits(max_file_bytes=256 * 1024, max_nodes=20_000, max_documents=1)
"""A settings file is a few lines; these bounds keep one from a pull request cheap (its
size, and what its ``select``/``ignore`` lists make every command do)."""


class SettingsError(PolicytestError):
    """The settings file cannot be used (a usage error: exit code 2)."""

    def __init__(self, path: str, line: int, key: str, message: str) -> None:
        self.path = path
        self.line = line
        self.key = key
        self.message = message
        where = f":{line}" if line > 0 else ""
        named = f" key `{key}`:" if key else ""
        super().__init__(f"settings file {path}{where}:{named} {message}")


@record(frozen=True)
class ProjectSettings:
    """What a settings file says (``None``: not said, so the flag or default applies)."""

    path: str | None = None
    kubernetes_version: str | None = None
    volcano_version: str | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    kube_distribution: str | None = None
    kube_plugins: tuple[CustomPlugin, ...] = ()
    volcano_plugins: tuple[str, ...] = ()
    severity: tuple[tuple[str, Severity], ...] = ()
    """``severity: {VB012: error}``: a rule's (or prefix's) severity in this project."""
    lines: tuple[tuple[str, int], ...] = ()
    """(top-level key, line) for the keys written, to name them in later errors."""

    def line_of(self, key: str) -> int:
        return dict(self.lines).get(key, 0)

    def check_options(self, options: CheckOptions) -> CheckOptions:
        """``options`` with this file's scheduler builds and rule severities (the CLI
        passes the releases through the flags' own fields, so that flags win)."""
        return replace(
            options,
            rules=replace(options.rules, severities=self.severity),
            kube_distribution=self.kube_distribution or options.kube_distribution,
            kube_plugins=(*options.kube_plugins, *self.kube_plugins),
            volcano_plugins=(*options.volcano_plugins, *self.volcano_plugins),
        )


NO_SETTINGS = ProjectSettings()


def options_from(settings: ProjectSettings, base: CheckOptions | None = None) -> CheckOptions:
    """``base`` (default: the defaults) with everything the settings file says: its
    releases, its ``select``/``ignore`` (the rule filter) and its scheduler builds. For
    callers without command-line flags (the pytest plugin); the CLI fills the flags'
    fields instead, so flags win."""
    options = base or CheckOptions()
    if settings.select is not None or settings.ignore is not None:
        rules = RuleFilter(settings.select or (), settings.ignore or ())
        options = replace(options, rules=rules)
    if settings.volcano_version is not None:
        options = replace(options, volcano_version=settings.volcano_version)
    if settings.kubernetes_version is not None:
        options = replace(options, kubernetes_version=settings.kubernetes_version)
    return settings.check_options(options)


def find_settings(start: str, root: str | None = None) -> str | None:
    """The nearest settings file in ``start`` or a directory above it, up to
    :func:`search_boundary`. A name that exists but is not a regular file (a FIFO, a link
    to ``/dev/stdin``) is returned too: reading it is refused with an error, never
    skipped in silence."""
    return _nearest(os.path.abspath(start), search_boundary(start, root))


def search_boundary(start: str, root: str | None = None) -> str:
    """The highest directory the search for a settings file reaches from ``start``: the
    root a fixture's config must stay inside (``root``, else the git checkout holding
    ``start``, else ``start`` itself: without git nothing above the working directory is
    read, as no config or snapshot above it is)."""
    from policytest.read.paths import git_root

    directory = os.path.abspath(start)
    return os.path.realpath(root or git_root(directory) or directory)


def unread_settings(start: str, root: str | None = None) -> str | None:
    """The nearest settings file above :func:`search_boundary`, which the search does not
    read: named by ``--verbose`` so a user sees why it was not used."""
    boundary = search_boundary(start, root)
    parent = os.path.dirname(boundary)
    return None if parent == boundary else _nearest(parent, None)


def _nearest(directory: str, boundary: str | None) -> str | None:
    """The first settings file in ``directory`` and the directories above it, stopping
    after ``boundary`` (``None``: at the filesystem root)."""
    while True:
        for name in SETTINGS_NAMES:
            candidate = os.path.join(directory, name)
            if os.path.lexists(candidate):
                return candidate
        parent = os.path.dirname(directory)
        if parent == directory or os.path.realpath(directory) == boundary:
            return None
        directory = parent


def project_settings(
    explicit: str | None, start: str | None = None, root: str | None = None
) -> ProjectSettings:
    """The settings named by ``explicit`` (which must exist), else the nearest file
    above ``start`` (default: the working directory) inside ``root``, else none."""
    if explicit is not None:
        if not os.path.lexists(explicit) or os.path.isdir(explicit):
            raise SettingsError(explicit, 0, "", "no such file")
        return load_settings(explicit)
    found = find_settings(start if start is not None else os.getcwd(), root)
    return load_settings(_shown(found), root=root) if found is not None else NO_SETTINGS


def _shown(path: str) -> str:
    """A path relative to the working directory when it is below it."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def load_settings(
    path: str, limits: Limits = SETTINGS_LIMITS, root: str | None = None
) -> ProjectSettings:
    """Read and check one settings file (under the one path rule: inside ``root``, a
    regular file); raise :class:`SettingsError`."""
    from policytest.read.goyaml import DecodeError, decode
    from policytest.read.schema import locate, schema_findings
    from policytest.read.source import Document, read_file

    source = read_file(path, limits, root)
    if source.problems:
        problem = source.problems[0]
        # The limits of a settings file are fixed: no flag raises them.
        message = problem.message.split(" (raise the limit")[0]
        raise SettingsError(path, problem.line, "", message)
    if not source.documents:
        return ProjectSettings(path=path)  # empty or comments only
    if len(source.documents) > 1:
        extra = source.documents[1]
        raise SettingsError(
            path, extra.position(extra.root).line, "", "holds more than one YAML document"
        )
    document: Document = source.documents[0]
    duplicates: list[Any] = []
    try:
        value = decode(
            document.root,
            document.text,
            limits=limits,
            on_duplicate=lambda mapping, key: duplicates.append(key),
        )
    except DecodeError as error:
        raise SettingsError(path, document.position(error.node).line, "", str(error)) from None
    if duplicates:
        key = duplicates[0]
        raise SettingsError(
            path, document.position(key).line, str(key.value), "is written twice; keep one"
        )
    if not isinstance(value, dict):
        raise SettingsError(
            path, document.position(document.root).line, "", "must be a mapping of settings"
        )
    findings = schema_findings(document, SCHEMA_NAME, value)
    if findings:  # every mistake at once: the first where it is, the others after it
        (line, key, message), *others = [_mistake(finding) for finding in findings]
        message += "".join(f"; also line {n}: key `{k}`: {m}" for n, k, m in others)
        raise SettingsError(path, line, key, message)

    def line_of(*steps: str | int) -> int:
        key_node, value_node = locate(document, steps)
        node = key_node or value_node or document.root
        return document.position(node).line

    rules: dict[str, tuple[str, ...]] = {}
    lines = [(str(key), line_of(str(key))) for key in value]
    for key in ("select", "ignore"):
        if key in value:
            rules[key] = tuple(str(item).strip().upper() for item in value[key])
            for index, item in enumerate(rules[key]):
                if not item:
                    raise SettingsError(
                        path,
                        line_of(key, index),
                        f"{key}[{index}]",
                        "is blank; write a rule id or a prefix of one (VB, KS001)",
                    )
            lines += [(f"{key}[{index}]", line_of(key, index)) for index in range(len(value[key]))]
    severity = tuple(
        (str(rule).strip().upper(), Severity(level))
        for rule, level in (value.get("severity") or {}).items()
    )
    for rule_id, _ in severity:
        if not rule_id:  # a blank key would be a prefix of every rule
            raise SettingsError(
                path, line_of("severity"), "severity", "a key is blank; write a rule id or prefix"
            )
    lines += [
        (f"severity.{rule}", line_of("severity", str(rule))) for rule in value.get("severity") or {}
    ]
    kube = value.get("kubeScheduler") or {}
    declared = tuple(
        CustomPlugin(
            str(plugin["name"]),
            frozenset(plugin["extensionPoints"]) if "extensionPoints" in plugin else None,
        )
        for plugin in kube.get("plugins") or ()
    )
    return ProjectSettings(
        path=path,
        lines=tuple(lines),
        kubernetes_version=value.get("kubernetesVersion"),
        volcano_version=value.get("volcanoVersion"),
        select=rules.get("select"),
        ignore=rules.get("ignore"),
        severity=severity,
        kube_distribution=kube.get("distribution"),
        kube_plugins=declared,
        volcano_plugins=tuple(
            str(name) for name in (value.get("volcano") or {}).get("plugins", ())
        ),
    )


_KEY = r"`([^`]+)`"
_WHERE = r" in `([^`]+)`"


def _mistake(finding: Finding) -> tuple[int, str, str]:
    """(line, key, what is wrong) of a schema finding, in the settings file's words."""
    key = _key_of(finding.message)
    message = finding.message.replace(f" in `{key}`", "") if key else finding.message
    return finding.line, key, _fix(message)


def _key_of(message: str) -> str:
    """The key a schema message is about (``unknown key `x` in `a.b``` -> ``a.b.x``)."""
    keys = re.findall(_KEY, message)
    where = re.search(_WHERE, message)
    if message.startswith("unknown key") and keys:
        return f"{where.group(1)}.{keys[0]}" if where else keys[0]
    if where:
        return where.group(1)
    return keys[0] if keys else ""


def _fix(message: str) -> str:
    """Say how to write a version that YAML read as a number."""
    if "Version` must be a string, not" in message:
        return message + ' (quote it: "1.30", as YAML reads 1.30 as the number 1.3)'
    return message
