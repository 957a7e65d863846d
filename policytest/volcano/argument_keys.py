"""Which argument keys each Volcano plugin reads, per release: the model, kept as data.

Volcano hands a plugin its ``arguments`` map and the plugin reads the keys it knows
(``Arguments.GetInt``/``GetBool``/``GetFloat64``/``GetString``, ``framework.Get[T]``,
``args[key]``); every other key is ignored without a word. :data:`TABLE` lists, per
plugin, each key it reads, the type it reads it as, and the releases that read it
(``since``: the first release that reads it; ``until``: the first that no longer does,
``-`` for none). A key with ``<name>`` is read for each resource name listed in another
key (``binpack.resources``, ``predicate.resources``): the plugin reads arbitrary keys
there, and only those.

``from`` says where a row comes from: ``upstream`` rows were read from the release tags'
plugin sources (``tests/volcano/test_argument_keys.py`` compares them with the reads
extracted from every tag, ``tests/data/volcano/argument-reads.txt``); ``transcribed``
rows come from upstream documentation and logs, not from source at hand (overcommit's
``overcommit-factor``, up to 1.15 only: a queue-scoped overcommit design proposes more
keys, and whether 1.16 reads them is not known here). A plugin without a row for a
release is not modelled there: nothing is said about its keys.

The table is parsed on first use only (:func:`rows`), so validating a conf that gives
these plugins no arguments never pays for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from policytest.core.releases import Version

TABLE = """
# plugin               key                                       type      since  until  from
binpack                binpack.weight                            int       1.9    -      upstream
binpack                binpack.cpu                               int       1.9    -      upstream
binpack                binpack.memory                            int       1.9    -      upstream
binpack                binpack.resources                         string    1.9    -      upstream
binpack                binpack.resources.<name>                  int       1.9    -      upstream
deviceshare            deviceshare.GPUSharingEnable              bool      1.9    -      upstream
deviceshare            deviceshare.GPUNumberEnable               bool      1.9    -      upstream
deviceshare            deviceshare.NodeLockEnable                bool      1.9    -      upstream
deviceshare            deviceshare.VGPUEnable                    bool      1.9    -      upstream
deviceshare            deviceshare.SchedulePolicy                string    1.9    -      upstream
deviceshare            deviceshare.ScheduleWeight                int       1.9    -      upstream
deviceshare            deviceshare.KnownGeometriesCMName         string    1.12   -      upstream
deviceshare            deviceshare.KnownGeometriesCMNamespace    string    1.12   -      upstream
deviceshare            deviceshare.AscendMindClusterVNPUEnable   bool      1.14   -      upstream
deviceshare            deviceshare.AscendHAMiVNPUEnable          bool      1.14   -      upstream
nodeorder              nodeaffinity.weight                       int       1.9    -      upstream
nodeorder              podaffinity.weight                        int       1.9    -      upstream
nodeorder              leastrequested.weight                     int       1.9    -      upstream
nodeorder              mostrequested.weight                      int       1.9    -      upstream
nodeorder              balancedresource.weight                   int       1.9    -      upstream
nodeorder              tainttoleration.weight                    int       1.9    -      upstream
nodeorder              imagelocality.weight                      int       1.9    -      upstream
nodeorder              podtopologyspread.weight                  int       1.9    -      upstream
predicates             predicate.NodeAffinityEnable              bool      1.9    -      upstream
predicates             predicate.NodePortsEnable                 bool      1.9    -      upstream
predicates             predicate.TaintTolerationEnable           bool      1.9    -      upstream
predicates             predicate.PodAffinityEnable               bool      1.9    -      upstream
predicates             predicate.NodeVolumeLimitsEnable          bool      1.9    -      upstream
predicates             predicate.VolumeZoneEnable                bool      1.9    -      upstream
predicates             predicate.PodTopologySpreadEnable         bool      1.9    -      upstream
predicates             predicate.CacheEnable                     bool      1.9    -      upstream
predicates             predicate.ProportionalEnable              bool      1.9    1.13   upstream
predicates             predicate.resources                       string    1.9    1.13   upstream
predicates             predicate.resources.<name>.cpu            float     1.9    1.13   upstream
predicates             predicate.resources.<name>.memory         float     1.9    1.13   upstream
predicates             predicate.VolumeBindingEnable             bool      1.12   -      upstream
predicates             predicate.DynamicResourceAllocationEnable bool      1.12   1.15   upstream
predicates             volumebinding.weight                      Get[int]  1.12   -      upstream
predicates             volumebinding.bindTimeoutSeconds          Get[int]  1.12   -      upstream
predicates             volumebinding.shape                       Get[list] 1.12   -      upstream
predicates             dynamicresources.filterTimeoutSeconds     Get[int]  1.14   -      upstream
resource-strategy-fit  resourceStrategyFitWeight                 Get[int]  1.13   -      upstream
resource-strategy-fit  resources                                 Get[map]  1.13   -      upstream
resource-strategy-fit  proportional                              Get[map]  1.13   -      upstream
resource-strategy-fit  sra                                       Get[map]  1.13   -      upstream
overcommit             overcommit-factor                         float     1.9    1.16   transcribed
"""

NAME = "<name>"
_FOREVER: Version = (99, 0)


@dataclass(frozen=True)
class KeyRead:
    """One row of :data:`TABLE`: ``plugin`` reads ``key`` as ``type`` in
    ``since <= release < until``."""

    plugin: str
    key: str
    type: str
    since: Version
    until: Version
    upstream: bool

    def read_in(self, version: Version) -> bool:
        return self.since <= version < self.until

    def name_in(self, key: str) -> str | None:
        """The resource name ``key`` fills ``<name>`` with (``""`` for the key itself),
        or ``None`` when ``key`` is not this row's."""
        if NAME not in self.key:
            return "" if key == self.key else None
        head, tail = self.key.split(NAME)
        if len(key) > len(head) + len(tail) and key.startswith(head) and key.endswith(tail):
            return key[len(head) : len(key) - len(tail)]
        return None

    @property
    def releases(self) -> str:
        """``Volcano 1.9 to 1.12`` or ``Volcano 1.14 and later``."""
        first = _show(self.since)
        if self.until == _FOREVER:
            return f"Volcano {first} and later"
        return f"Volcano {first} to {_show((self.until[0], self.until[1] - 1))}"


def _version(text: str) -> Version:
    if text == "-":
        return _FOREVER
    major, minor = text.split(".")
    return int(major), int(minor)


def _show(version: Version) -> str:
    return f"{version[0]}.{version[1]}"


@cache
def rows() -> tuple[KeyRead, ...]:
    """Every row of :data:`TABLE`, parsed once."""
    parsed = []
    for line in TABLE.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        plugin, key, kind, since, until, source = line.split()
        parsed.append(
            KeyRead(plugin, key, kind, _version(since), _version(until), source == "upstream")
        )
    return tuple(parsed)


def modelled(plugin: str, version: Version) -> bool:
    """Does the table say which keys ``plugin`` reads in release ``version``?"""
    return any(row.plugin == plugin and row.read_in(version) for row in rows())


def reads(plugin: str, version: Version) -> tuple[KeyRead, ...]:
    """The keys ``plugin`` reads in release ``version``."""
    return tuple(row for row in rows() if row.plugin == plugin and row.read_in(version))


def readers(key: str) -> tuple[tuple[KeyRead, str], ...]:
    """Every row that reads ``key`` in some release, with the name it fills in."""
    found = ((row, row.name_in(key)) for row in rows())
    return tuple((row, name) for row, name in found if name is not None)
