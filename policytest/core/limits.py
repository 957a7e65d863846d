"""Resource limits for untrusted input: every reader and walker is bounded by these.

Each limit has a short name for the command line (``--limit pods=500000``); the table
in ``docs/robustness.md`` lists them with their defaults and the error each one gives.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator

from policytest.core.errors import PolicytestError
from policytest.core.records import field, fields, record, replace

SAFE_MAX_DEPTH = 300
"""The deepest nesting any walk may be asked to follow: the YAML composer and the walks
recurse a few Python frames per level, and Python stops (or, with its limit raised,
crashes) somewhere above 400 levels."""
SAFE_MAX_FILE_BYTES = 1 << 30
"""The most bytes ``--limit file-bytes`` may allow: a file is read into memory whole."""


def _limit(default: int, name: str, summary: str, maximum: int = sys.maxsize) -> int:
    return field(default=default, metadata={"name": name, "summary": summary, "maximum": maximum})


@record(frozen=True)
class Limits:
    """Upper bounds that keep hostile documents cheap to reject.

    ``max_nodes`` counts nodes as the composer builds them (a big flat file is refused
    before its memory is spent: a node costs about 450 bytes) and as a walker visits
    them, so an alias bomb (a small document whose aliases expand exponentially) is
    stopped at the first walk;
    ``max_alias_nodes`` stops it far sooner by counting only the nodes a walk reaches
    again through an alias. The fixture limits bound what a fixture makes the scorers
    do: its nodes, its pods after ``count`` expansion (bound and incoming), and the
    node scores its cases compute (incoming pods times nodes, summed over the cases);
    ``max_topology_checks`` what the topology plugins check in one case (terms against
    label sets and pods, constraints against nodes, ports, Services' selectors: see
    :class:`WorkMeter`).
    """

    max_file_bytes: int = _limit(
        16 * 1024 * 1024, "file-bytes", "bytes read from one file", SAFE_MAX_FILE_BYTES
    )
    max_documents: int = _limit(10_000, "documents", "YAML documents in one file")
    max_nodes: int = _limit(
        600_000, "yaml-nodes", "YAML nodes composed from one file or visited by one walk"
    )
    max_alias_nodes: int = _limit(
        50_000, "alias-nodes", "YAML nodes one walk reaches again through aliases"
    )
    max_depth: int = _limit(200, "depth", "nesting depth of a document", SAFE_MAX_DEPTH)
    max_configs: int = _limit(
        1_000,
        "configs",
        "scheduler configs looked for in one file (documents, List items, ConfigMap values)",
    )
    max_review_paths: int = _limit(
        2_000,
        "review-paths",
        "changed YAML and fixture files one review (diff) reads, counted before any is read",
    )
    max_cluster_nodes: int = _limit(10_000, "cluster-nodes", "nodes in a fixture's cluster")
    max_pods: int = _limit(300_000, "pods", "pods in a fixture, after count expansion")
    max_node_scores: int = _limit(
        20_000_000, "node-scores", "node scores a fixture's cases compute (pods x nodes)"
    )
    max_topology_checks: int = _limit(
        20_000_000,
        "topology-checks",
        "checks the topology plugins make in one case (terms, selectors, constraints, ports)",
    )
    max_profile_plugins: int = _limit(
        1_000_000,
        "profile-plugins",
        "plugins a config's profiles are built with, once per extension point",
    )
    max_total_file_bytes: int = _limit(
        1 << 30, "total-file-bytes", "bytes read from all the files of one invocation"
    )
    max_total_nodes: int = _limit(
        20_000_000, "total-yaml-nodes", "YAML nodes composed from all the files of one invocation"
    )
    max_total_node_scores: int = _limit(
        100_000_000, "total-node-scores", "node scores all the fixtures of one invocation compute"
    )
    max_total_topology_checks: int = _limit(
        100_000_000,
        "total-topology-checks",
        "topology-checks summed over all the cases of one invocation",
    )
    max_total_profile_plugins: int = _limit(
        10_000_000,
        "total-profile-plugins",
        "profile-plugins summed over all the configs of one invocation",
    )

    def overridden(self, settings: Iterable[tuple[str, int]]) -> Limits:
        """A copy with the limits named by their short names (``pods``) changed."""
        return replace(self, **{_ATTRIBUTES[name]: value for name, value in settings})

    def for_invocation(self, invocation: Invocation) -> InvocationLimits:
        """These limits, with ``invocation`` charged by every input read under them."""
        values = {attribute: getattr(self, attribute) for attribute in _ATTRIBUTES.values()}
        return InvocationLimits(**values, invocation=invocation)

    def left(self, meter: str) -> int | None:
        """How much of ``total-<meter>`` the invocation has left (``None``: no invocation
        budget, as in a library call: only the per-file limits apply)."""
        return None

    def charge(self, meter: str, amount: int) -> None:
        """Count ``amount`` of work done against the invocation's ``total-<meter>``."""

    def _total(self, meter: str) -> int:
        return int(getattr(self, _ATTRIBUTES["total-" + meter]))

    def refuse(self, meter: str, what: str, outcome: str = "not read") -> str:
        """Refuse an input because the invocation's budget is spent: the one line that
        says so."""
        total = self._total(meter)
        return (
            f"this run has used up its budget of {total:,} {what} over all its files; "
            f"{outcome} (raise it with --limit total-{meter}=N)"
        )


@record(frozen=True)
class InvocationLimits(Limits):
    """The limits of one invocation (a command, a pytest session, both sides of a
    ``diff``): the per-file limits, and the budget every input of the invocation
    charges, shared by every copy (``overridden`` keeps it), which the ``total-*``
    limits bound."""

    invocation: Invocation = field(default_factory=lambda: Invocation(), compare=False)

    def left(self, meter: str) -> int | None:
        return max(0, self._total(meter) - self.invocation.spent.get(meter, 0))

    def charge(self, meter: str, amount: int) -> None:
        """Callers check :meth:`left` before the work, so a charge past the total only
        records it."""
        self.invocation.spent[meter] = self.invocation.spent.get(meter, 0) + amount

    def refuse(self, meter: str, what: str, outcome: str = "not read") -> str:
        """Also counts the input refused (see :attr:`Invocation.refused`)."""
        self.invocation.refused += 1
        return super().refuse(meter, what, outcome)


@record
class Invocation:
    """The work one invocation (a command, a pytest session, both sides of a ``diff``) has
    done so far, per meter (``yaml-nodes``, ``file-bytes``, ``node-scores``,
    ``topology-checks``, ``profile-plugins``): the per-file limits keep each input
    cheap, this keeps N inputs each just under them from multiplying the work."""

    spent: dict[str, int] = field(default_factory=dict)
    refused: int = 0
    """Inputs refused because a ``total-*`` limit was reached: a review that could not
    read all of its inputs is incomplete (``diff`` exits 1)."""


class WorkRefused(PolicytestError):
    """A case's topology plugins would pass ``topology-checks``, or the invocation's
    ``total-topology-checks``, with the step they are about to take: refused before
    that step is done (the message names the limit and how to raise it)."""


class WorkMeter:
    """The checks the topology plugins make in one case, charged by each step before it
    is done (a term matched against a label set or a group of equal pods, a constraint
    counted or checked on a node, a port compared, a Service's selector matched against
    a pod's labels, ...: docs/robustness.md lists what each plugin charges), against
    ``topology-checks`` and what the invocation has left of ``total-topology-checks``
    (:meth:`settle` charges the invocation with what was spent)."""

    __slots__ = ("_total", "left", "limits", "spent")

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.spent = 0
        limit = limits.max_topology_checks
        total = limits.left("topology-checks")
        self._total = total is not None and total < limit
        self.left = limit if total is None else min(limit, total)

    def charge(self, amount: int, step: str) -> None:
        """Count ``amount`` checks of ``step`` (what they are, for the refusal) that are
        about to be made; :class:`WorkRefused` if they would pass what is left."""
        if amount > self.left:
            raise WorkRefused(self._refusal(amount, step))
        self.left -= amount
        self.spent += amount

    def settle(self) -> None:
        """Charge the invocation's ``total-topology-checks`` with the checks made."""
        self.limits.charge("topology-checks", self.spent)
        self.spent = 0

    def _refusal(self, amount: int, step: str) -> str:
        if self._total:
            return self.limits.refuse("topology-checks", "topology plugin checks", "not run")
        limit = self.limits.max_topology_checks
        return (
            f"the topology plugins would make more than {limit:,} checks, the limit for one "
            f"case ({step} would add {amount:,} to the {self.spent:,} made); not run (raise "
            "it with --limit topology-checks=N)"
        )


class TooManyNodes(PolicytestError):
    """Composing stopped: the file holds more YAML nodes than ``max_nodes``, or (``spent``)
    the invocation's ``total-yaml-nodes`` ran out first."""

    def __init__(self, limit: int, *, spent: bool = False) -> None:
        super().__init__(limit)
        self.spent = spent


class TooDeep(PolicytestError):
    """Composing stopped: the text nests deeper than ``max_depth`` (libyaml composes
    recursively in C, so it is stopped before a deep text could overflow its stack)."""


class ConfigCounter:
    """The scheduler configs looked for in one file (its documents, the items of a
    ``kind: List``, the ConfigMap values that may hold one), counted before each is
    composed or checked: each costs a parse and a check (a ConfigMap of 30,000 small
    confs took seconds per thousand), which ``yaml-nodes`` alone lets a small file
    multiply."""

    __slots__ = ("left", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.left = limit

    def take(self) -> bool:
        """Count one more; ``False`` when it is past the limit (refuse it, and the rest)."""
        self.left -= 1
        return self.left >= 0

    def refusal(self) -> str:
        return (
            f"more than {self.limit:,} scheduler configs looked for in one file; this one "
            "and the rest are not checked (raise it with --limit configs=N)"
        )


class NodeCounter:
    """Called once per node as it is composed; raises :class:`TooManyNodes` past the
    file's limit or past what the invocation has left, whichever comes first (one
    comparison per node: the invocation is charged by whoever composes, afterwards).

    ``aliases`` counts the aliases composed (a composer that cannot tell counts one for
    a text that may hold any): a tree without them is a tree, which every walk visits
    node by node, and one with them has its expansion charged once it is composed."""

    def __init__(self, limit: int, invocation_left: int | None = None) -> None:
        self.limit = limit
        self.left = limit if invocation_left is None else min(limit, invocation_left)
        self._spent = invocation_left is not None and invocation_left < limit
        self.aliases = 0

    @classmethod
    def of(cls, limits: Limits) -> NodeCounter:
        """The node budget of one file read under ``limits``."""
        return cls(limits.max_nodes, limits.left("yaml-nodes"))

    def __call__(self, *_: object) -> None:
        self.left -= 1
        if self.left < 0:
            raise TooManyNodes(self.limit, spent=self._spent)


def describe() -> Iterator[tuple[str, str, str]]:
    """``(attribute, short name, summary)`` of every limit, in declaration order."""
    for item in fields(Limits):
        yield item.name, item.metadata["name"], item.metadata["summary"]


def maximum(name: str) -> int:
    """The largest value the limit called ``name`` (``depth``) may be given."""
    by_name = {item.metadata["name"]: item for item in fields(Limits)}
    return int(by_name[name].metadata["maximum"])


def limit_names() -> tuple[str, ...]:
    """The short names ``--limit`` accepts."""
    return tuple(name for _, name, _ in describe())


_ATTRIBUTES = {name: attribute for attribute, name, _ in describe()}

DEFAULT_LIMITS = Limits()
