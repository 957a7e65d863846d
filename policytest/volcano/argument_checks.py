"""VC012 and VC013: plugin and action arguments nobody reads, or of a type not read.

Judged from the per-release model of :mod:`policytest.volcano.argument_keys`, for the
modelled plugins that have no rules of their own (``TABLE_CHECKED`` of
:mod:`policytest.volcano.arguments`) and for the ``configurations`` entry each action reads
(the first with its name). An unread key gets the key that was probably meant: the same
key of another plugin or action (``predicate.VGPUEnable`` -> deviceshare's
``deviceshare.VGPUEnable``, enqueue's ``overcommit-factor`` -> the overcommit plugin), the
release that read it, a slip of the keyboard, or the few keys the owner reads at all; an
owner that reads arbitrary keys (a prefix) is said to, and nothing is guessed.
"""

from __future__ import annotations

from collections.abc import Iterator

from policytest.core.suggest import closest
from policytest.read.goyaml import Uint64
from policytest.volcano import rules
from policytest.volcano.argument_keys import ANY, NAME, KeyRead, modelled, readers, reads, rows
from policytest.volcano.arguments import (
    ACTIONS_CHECKED,
    OWN_KEYS,
    TABLE_CHECKED,
    describe,
    get_bool,
    get_int,
)
from policytest.volcano.binpack_args import declared_resources
from policytest.volcano.entry_check import EntryCheck

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from policytest.core.findings import Finding
    from policytest.read.source import Document
    from policytest.volcano.conf import VolcanoConf
    from policytest.volcano.entry_check import WithArguments
    from policytest.volcano.versions import Release

FEW = 3
"""A plugin that reads at most this many keys has them all named in the message."""
_PROPORTIONAL = "resource-strategy-fit's `proportional` argument"
_SUCCESSORS = {
    "predicate.ProportionalEnable": _PROPORTIONAL,
    "predicate.resources": _PROPORTIONAL,
    "predicate.resources.<name>.cpu": _PROPORTIONAL,
    "predicate.resources.<name>.memory": _PROPORTIONAL,
    "predicate.DynamicResourceAllocationEnable": "the DynamicResourceAllocation feature gate",
}
"""What took over a key a release stopped reading."""
_NESTED = {
    ("rescheduling", "thresholds"): "strategies",
    ("rescheduling", "targetThresholds"): "strategies",
}
"""Where an owner reads settings that real confs write at the top level."""


def argument_findings(document: Document, conf: VolcanoConf, release: Release) -> Iterator[Finding]:
    """VC012 and VC013 for every registered entry of a ``TABLE_CHECKED`` plugin and the
    ``configurations`` entry each action reads."""
    for entry in conf.plugins:
        if (
            entry.registered
            and entry.name in TABLE_CHECKED
            and entry.arguments
            and modelled(entry.name, release.version)
        ):
            yield from _Arguments(document, entry, release, "plugin").findings()
    read: set[str] = set()
    for configuration in conf.configurations:
        name = configuration.name
        if name in read or name not in ACTIONS_CHECKED:
            continue
        read.add(name)  # the action reads the first entry with its name only
        if configuration.arguments and modelled(name, release.version, "action"):
            yield from _Arguments(document, configuration, release, "action").findings()


class _Arguments(EntryCheck["WithArguments"]):
    def __init__(self, document: Document, entry: WithArguments, release: Release, of: str) -> None:
        super().__init__(document, entry)
        self.release = release
        self.of = of
        self.reads = reads(entry.name, release.version, of)

    def findings(self) -> Iterator[Finding]:
        own = OWN_KEYS.get(self.entry.name, ()) if self.of == "plugin" else ()
        for key in self.ordered():
            if any(key == k or (k.endswith(".") and key.startswith(k)) for k in own):
                continue  # judged by the plugin's own rules
            row = next((r for r in self.reads if r.name_in(key) is not None), None)
            if row is None:
                yield rules.VC012_UNREAD_ARGUMENT.at(
                    self.document, self.key_node(key), self.unread(key)
                )
                continue
            name = row.name_in(key)
            if name and not row.arbitrary:
                listing = row.key.split(NAME)[0].rstrip(".")
                listed = declared_resources(self.arguments, listing) or ()
                if name not in listed:
                    yield rules.VC012_UNREAD_ARGUMENT.at(
                        self.document,
                        self.key_node(key),
                        f"`{key}` is read only for a resource listed in `{listing}` "
                        f"(the plugin reads a key per listed name), and `{name}` is not "
                        f"listed: Volcano ignores it; add `{name}` to `{listing}`",
                    )
                    continue
            problem = self.type_problem(key, row)
            if problem is not None:
                yield rules.VC013_ARGUMENT_TYPE.at(self.document, self.value_node(key), problem)

    @property
    def who(self) -> str:
        return self.entry.name if self.of == "plugin" else f"the {self.entry.name} action"

    def unread(self, key: str) -> str:
        owner, version = self.entry.name, self.release.name
        start = (
            f"{self.who} does not read `{key}` in Volcano {version} and ignores it without a word"
        )
        own = [row.key for row in self.reads]
        if (owner, key) in _NESTED and self.of == "plugin":
            return (
                f"{start}; a strategy's `{key}` is read only inside an item of "
                f"`{_NESTED[owner, key]}`, under its `params` (`- name: lowNodeUtilization`, "
                f"`params: {{{key}: ...}}`)"
            )
        elsewhere = readers(key)
        other = [row for row, _ in elsewhere if row.read_in(self.release.version)]
        if other:
            return f"{start}; it is {_whose(other[0])} argument: {_move(other[0])}"
        earlier = [row for row, _ in elsewhere if (row.owner, row.of) == (owner, self.of)]
        if earlier:
            successor = _SUCCESSORS.get(earlier[0].key)
            after = f"; {successor} does this now" if successor else ""
            return f"{start}; {self.who} reads it in {earlier[0].releases} only{after}"
        arbitrary = [row.key.split(ANY)[0] for row in self.reads if row.arbitrary]
        if arbitrary:
            return (
                f"{start}; {owner} reads any key containing `{arbitrary[0]}` (and "
                f"{', '.join(f'`{k}`' for k in own if ANY not in k) or 'nothing else'}), so "
                "which key was meant cannot be told: write the prefix exactly"
            )
        meant = _same_leaf(key, self.release)
        if meant is not None:
            return f"{start}; {_whose(meant)[:-2]} reads `{meant.key}`: {_move(meant)}"
        slip = closest(key, [k for k in own if NAME not in k])
        if slip is not None:
            return f"{start}; did you mean `{slip}`?"
        if not own:
            return f"{start}; {self.who} reads no argument at all in Volcano {version}: remove them"
        if len(own) <= FEW:
            named = ", ".join(f"`{k}`" for k in own)
            return (
                f"{start}; {self.who} reads only {named}: use {'it' if len(own) == 1 else 'them'}"
            )
        return start

    def type_problem(self, key: str, row: KeyRead) -> str | None:
        """Why ``GetBool``/``GetInt``/``GetFloat64``/``GetString`` ignores the value."""
        value = self.arguments[key]
        if row.type == "bool":
            read = get_bool(self.arguments, key, parse_strings=self.release.getbool_parses_strings)
            ignored, write = read.ignored, "`true` or `false`"
        elif row.type == "int":
            ignored, write = (
                get_int(self.arguments, key, string_arguments=False).ignored,
                "an integer",
            )
        elif row.type == "float":
            ignored, write = _float_problem(value), "a number such as 1.5"
        elif row.type == "string":
            ignored = None if isinstance(value, str) else describe(value)
            write = "a string"
        else:
            return None  # decoded as a whole (framework.Get): not modelled here
        if ignored is None:
            return None
        return (
            f"`{key}`: {ignored}; {self.who} reads it as {row.type} and Volcano "
            f"{self.release.name} ignores this value (only a log line), keeping the default; "
            f"write {write}"
        )


def _whose(row: KeyRead) -> str:
    return f"{row.owner}'s" if row.of == "plugin" else f"the {row.owner} action's"


def _move(row: KeyRead) -> str:
    if row.of == "action":
        return f"set it in the `configurations` entry named `{row.owner}` (add one if none)"
    return f"set it on the `{row.owner}` plugin's entry (add one if the conf has none)"


def _float_problem(value: Any) -> str | None:
    """``GetFloat64`` takes a float or an int, nothing else."""
    if isinstance(value, (int, float)) and not isinstance(value, (bool, Uint64)):
        return None
    return describe(value)


def _same_leaf(key: str, release: Release) -> KeyRead | None:
    """The one key of this release with the same last part (``VGPUEnable``), if one."""
    leaf = key.rsplit(".", 1)[-1].lower()
    if not leaf or leaf == key.lower():
        return None
    found = [
        row
        for row in rows()
        if row.read_in(release.version)
        and not row.arbitrary
        and row.key.rsplit(".", 1)[-1].lower() == leaf
    ]
    return found[0] if len(found) == 1 else None  # `weight` is everybody's: no guess
