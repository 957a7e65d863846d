"""Which argument keys each Volcano plugin and action reads, per release: the model, as data.

Volcano hands a plugin its ``arguments`` map, and an action the ``arguments`` of the first
``configurations`` entry with its name; each reads the keys it knows
(``Arguments.GetInt``/``GetBool``/``GetFloat64``/``GetString``, ``framework.Get[T]``,
``args[key]``) and ignores every other key without a word. :data:`TABLE` lists, per plugin
(``of`` = ``plugin``) and per action (``action``), each key read, the type it is read as,
and the releases that read it (``since``: the first release that reads it; ``until``: the
first that no longer does, ``-`` for none). A key ``-`` says the owner reads no argument at
all in those releases. A key with ``<name>`` is read for each resource name listed in
another key (``binpack.resources``): only those names. A key with ``<any>`` is read whatever
stands there (tdm keeps every key containing ``tdm.revocable-zone.``): the owner reads
arbitrary keys, so nothing is guessed for them. A type ``map``, ``list`` or ``any`` is a
value read whole; its inner keys are the plugin's business, not arguments.

Every row was read from the release tags' sources (``tests/volcano/test_argument_keys.py``
compares the table with the reads extracted from every tag,
``tests/data/volcano/argument-reads.txt``). An owner without a row for a release is not
modelled there: nothing is said about its keys.

The table is parsed on first use only (:func:`rows`), so validating a conf that gives no
plugin or action arguments never pays for it.
"""

from __future__ import annotations

from functools import cache

from policytest.core.records import record
from policytest.core.releases import Version

TABLE = """
# of    owner                  key                                       type      since  until
plugin binpack                binpack.cpu                               int       1.9    -
plugin binpack                binpack.memory                            int       1.9    -
plugin binpack                binpack.resources                         string    1.9    -
plugin binpack                binpack.resources.<name>                  int       1.9    -
plugin binpack                binpack.weight                            int       1.9    -
plugin capacity               -                                         -         1.9    1.15
plugin capacity               ancestorReclaimLevel                      int       1.15   -
plugin capacity               capacity.DRAConsumableCapacityEnable      bool      1.15   -
plugin capacity               capacity.DynamicResourceAllocationEnable  bool      1.15   -
plugin cdp                    -                                         -         1.9    -
plugin conformance            -                                         -         1.9    -
plugin deviceshare            deviceshare.AscendHAMiVNPUEnable          bool      1.14   -
plugin deviceshare            deviceshare.AscendMindClusterVNPUEnable   bool      1.14   -
plugin deviceshare            deviceshare.GPUExclusiveRules             any       1.15   -
plugin deviceshare            deviceshare.GPUNumberEnable               bool      1.9    -
plugin deviceshare            deviceshare.GPUSharingEnable              bool      1.9    -
plugin deviceshare            deviceshare.KnownGeometriesCMName         string    1.12   -
plugin deviceshare            deviceshare.KnownGeometriesCMNamespace    string    1.12   -
plugin deviceshare            deviceshare.NodeLockEnable                bool      1.9    -
plugin deviceshare            deviceshare.SchedulePolicy                string    1.9    -
plugin deviceshare            deviceshare.ScheduleWeight                int       1.9    -
plugin deviceshare            deviceshare.VGPUEnable                    bool      1.9    -
plugin drf                    -                                         -         1.9    -
plugin extender               extender.allocateFuncVerb                 string    1.13   -
plugin extender               extender.deallocateFuncVerb               string    1.13   -
plugin extender               extender.httpTimeout                      string    1.9    -
plugin extender               extender.ignorable                        bool      1.9    -
plugin extender               extender.jobEnqueueableVerb               string    1.9    -
plugin extender               extender.jobEnqueuedVerb                  string    1.16   -
plugin extender               extender.jobReadyVerb                     string    1.9    -
plugin extender               extender.managedResources                 Get[list] 1.13   -
plugin extender               extender.onSessionCloseVerb               string    1.9    -
plugin extender               extender.onSessionOpenVerb                string    1.9    -
plugin extender               extender.predicateVerb                    string    1.9    -
plugin extender               extender.preemptableVerb                  string    1.9    -
plugin extender               extender.prioritizeVerb                   string    1.9    -
plugin extender               extender.queueOverusedVerb                string    1.9    -
plugin extender               extender.reclaimableVerb                  string    1.9    -
plugin extender               extender.urlPrefix                        string    1.9    -
plugin gang                   -                                         -         1.9    -
plugin network-topology-aware hypernode.binpack.cpu                     int       1.14   -
plugin network-topology-aware hypernode.binpack.memory                  int       1.14   -
plugin network-topology-aware hypernode.binpack.normal-pod.enable       bool      1.14   -
plugin network-topology-aware hypernode.binpack.normal-pod.fading       float     1.14   -
plugin network-topology-aware hypernode.binpack.resources               string    1.14   -
plugin network-topology-aware hypernode.binpack.resources.<name>        int       1.14   -
plugin network-topology-aware hypernode.gradient.evict.max-hypernodes   int       1.15   -
plugin network-topology-aware weight                                    int       1.12   -
plugin nodegroup              -                                         -         1.9    1.13
plugin nodegroup              enablePreferredOrder                      bool      1.15   -
plugin nodegroup              strict                                    bool      1.13   -
plugin nodeorder              balancedresource.weight                   int       1.9    -
plugin nodeorder              imagelocality.weight                      int       1.9    -
plugin nodeorder              leastrequested.weight                     int       1.9    -
plugin nodeorder              mostrequested.weight                      int       1.9    -
plugin nodeorder              nodeaffinity.weight                       int       1.9    -
plugin nodeorder              podaffinity.weight                        int       1.9    -
plugin nodeorder              podtopologyspread.weight                  int       1.9    -
plugin nodeorder              tainttoleration.weight                    int       1.9    -
plugin numa-aware             weight                                    int       1.9    -
plugin overcommit             overcommit-factor                         float     1.9    -
plugin pdb                    -                                         -         1.9    -
plugin predicates             dynamicresources.filterTimeoutSeconds     Get[int]  1.14   -
plugin predicates             predicate.CacheEnable                     bool      1.9    -
plugin predicates             predicate.DynamicResourceAllocationEnable bool      1.12   1.15
plugin predicates             predicate.NodeAffinityEnable              bool      1.9    -
plugin predicates             predicate.NodePortsEnable                 bool      1.9    -
plugin predicates             predicate.NodeVolumeLimitsEnable          bool      1.9    -
plugin predicates             predicate.PodAffinityEnable               bool      1.9    -
plugin predicates             predicate.PodTopologySpreadEnable         bool      1.9    -
plugin predicates             predicate.ProportionalEnable              bool      1.9    1.13
plugin predicates             predicate.TaintTolerationEnable           bool      1.9    -
plugin predicates             predicate.VolumeBindingEnable             bool      1.12   -
plugin predicates             predicate.VolumeZoneEnable                bool      1.9    -
plugin predicates             predicate.resources                       string    1.9    1.13
plugin predicates             predicate.resources.<name>.cpu            float     1.9    1.13
plugin predicates             predicate.resources.<name>.memory         float     1.9    1.13
plugin predicates             volumebinding.bindTimeoutSeconds          Get[int]  1.12   -
plugin predicates             volumebinding.shape                       Get[list] 1.12   -
plugin predicates             volumebinding.weight                      Get[int]  1.12   -
plugin priority               -                                         -         1.9    -
plugin proportion             -                                         -         1.9    -
plugin rescheduling           interval                                  any       1.9    -
plugin rescheduling           metricsPeriod                             any       1.9    -
plugin rescheduling           strategies                                list      1.9    -
plugin resource-strategy-fit  proportional                              Get[map]  1.13   -
plugin resource-strategy-fit  resourceStrategyFitWeight                 Get[int]  1.13   -
plugin resource-strategy-fit  resources                                 Get[map]  1.13   -
plugin resource-strategy-fit  sra                                       Get[map]  1.13   -
plugin resourcequota          -                                         -         1.9    -
plugin sla                    sla-waiting-time                          string    1.9    -
plugin task-topology          task-topology.weight                      int       1.9    -
plugin tdm                    tdm.evict.period                          any       1.9    -
plugin tdm                    tdm.revocable-zone.<any>                  any       1.9    -
plugin usage                  cpu.weight                                int       1.9    -
plugin usage                  estimator                                 map       1.16   -
plugin usage                  memory.weight                             int       1.9    -
plugin usage                  thresholds                                map       1.9    1.16
plugin usage                  usage.weight                              int       1.9    -
action allocate               -                                         -         1.9    1.10
action allocate               predicateErrorCacheEnable                 bool      1.10   -
action backfill               -                                         -         1.9    1.10
action backfill               predicateErrorCacheEnable                 bool      1.10   -
action enqueue                -                                         -         1.9    -
action gangpreempt            allowWholeBundle                          bool      1.15   -
action gangpreempt            maxDomains                                int       1.15   -
action gangreclaim            allowWholeBundle                          bool      1.15   -
action gangreclaim            maxDomains                                int       1.15   -
action preempt                -                                         -         1.9    1.10
action preempt                enableTopologyAwarePreemption             bool      1.13   -
action preempt                maxCandidateNodesAbsolute                 int       1.13   -
action preempt                minCandidateNodesAbsolute                 int       1.13   -
action preempt                minCandidateNodesPercentage               int       1.13   -
action preempt                predicateErrorCacheEnable                 bool      1.10   -
action preempt                topologyAwarePreemptWorkerNum             int       1.13   -
action reclaim                -                                         -         1.9    1.14
action reclaim                predicateErrorCacheEnable                 bool      1.14   -
action shuffle                -                                         -         1.9    -
"""

NAME = "<name>"
ANY = "<any>"
NOTHING = "-"
_FOREVER: Version = (99, 0)


@record(frozen=True)
class KeyRead:
    """One row of :data:`TABLE`: the plugin or action ``owner`` reads ``key`` as ``type``
    in ``since <= release < until`` (``key`` ``-``: it reads no argument there)."""

    of: str
    owner: str
    key: str
    type: str
    since: Version
    until: Version

    def read_in(self, version: Version) -> bool:
        return self.since <= version < self.until

    @property
    def arbitrary(self) -> bool:
        """Does this row read keys whatever they hold after a prefix?"""
        return ANY in self.key

    def name_in(self, key: str) -> str | None:
        """The part of ``key`` that fills ``<name>``/``<any>`` (``""`` for the key itself),
        or ``None`` when ``key`` is not this row's."""
        if self.arbitrary:  # tdm: any key containing the prefix, wherever it stands
            head = self.key.split(ANY)[0]
            return key.replace(head, "", 1) if head in key else None
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
        of, owner, key, kind, since, until = line.split()
        parsed.append(KeyRead(of, owner, key, kind, _version(since), _version(until)))
    return tuple(parsed)


def modelled(owner: str, version: Version, of: str = "plugin") -> bool:
    """Does the table say which keys the plugin (or action) ``owner`` reads in ``version``?"""
    return any(r.of == of and r.owner == owner and r.read_in(version) for r in rows())


def reads(owner: str, version: Version, of: str = "plugin") -> tuple[KeyRead, ...]:
    """The keys the plugin (or action) ``owner`` reads in release ``version``."""
    return tuple(
        r
        for r in rows()
        if r.of == of and r.owner == owner and r.key != NOTHING and r.read_in(version)
    )


def readers(key: str) -> tuple[tuple[KeyRead, str], ...]:
    """Every row that reads ``key`` in some release, with the part it fills in (rows that
    read arbitrary keys are left out: they would claim every key)."""
    found = ((row, row.name_in(key)) for row in rows() if not row.arbitrary)
    return tuple((row, name) for row, name in found if name is not None)
