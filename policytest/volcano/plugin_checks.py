"""Arguments of resource-strategy-fit, deviceshare and network-topology-aware: findings,
and whether one of them stops the scheduler.

deviceshare (``plugins/deviceshare/deviceshare.go``) reads its flags with ``GetBool``
(a string is parsed with ``strconv.ParseBool`` from Volcano 1.15, ignored before), the
schedule policy with ``GetString`` and the schedule weight with ``GetInt`` (default 0:
no device scoring), and exits (``klog.Fatal``) when GPU sharing and GPU number are both
on, or either of them with vGPU. network-topology-aware (from 1.14) reads its HyperNode
bin-packing weights like ``binpack`` (``GetInt``; a negative weight becomes 1), the
normal-pod switch with ``GetBool`` and the fading with ``GetFloat64`` (negative -> 0.8).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from policytest.core.findings import Finding, Severity
from policytest.core.rules import Rule
from policytest.core.suggest import did_you_mean
from policytest.read.goyaml import Uint64
from policytest.scoring.weights import RSF, ResourceStrategyFitArgs
from policytest.volcano import plugin_rules as rules
from policytest.volcano.arguments import describe, get_bool, get_int
from policytest.volcano.binpack_args import declared_resources
from policytest.volcano.entry_check import EntryCheck
from policytest.volcano.gotext import trim_space

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from policytest.read.source import Document
    from policytest.volcano.conf import VolcanoConf
    from policytest.volcano.entry import PluginEntry
    from policytest.volcano.versions import Release

DEVICESHARE = "deviceshare"
TOPOLOGY = "network-topology-aware"
SHARING = "deviceshare.GPUSharingEnable"
NUMBER = "deviceshare.GPUNumberEnable"
VGPU = "deviceshare.VGPUEnable"
POLICY = "deviceshare.SchedulePolicy"
WEIGHT = "deviceshare.ScheduleWeight"
ASCEND = ("deviceshare.AscendMindClusterVNPUEnable", "deviceshare.AscendHAMiVNPUEnable")
DEVICESHARE_FLAGS = (SHARING, NUMBER, "deviceshare.NodeLockEnable", VGPU, *ASCEND)
POLICIES = ("binpack", "spread")

HN = "hypernode.binpack."
HN_RESOURCES = HN + "resources"
HN_ENABLE = HN + "normal-pod.enable"
HN_FADING = HN + "normal-pod.fading"
HN_KEYS = (HN + "cpu", HN + "memory", HN_RESOURCES, HN_ENABLE, HN_FADING)


def plugin_argument_findings(
    document: Document, conf: VolcanoConf, release: Release
) -> Iterator[Finding]:
    """The VR, VD and VT findings of every registered entry of these plugins."""
    for entry in conf.plugins:
        if not entry.registered:
            continue
        if entry.name == RSF:
            from policytest.volcano.rsf_checks import rsf_findings  # only where it is used

            yield from rsf_findings(document, entry)
        elif entry.name == DEVICESHARE:
            yield from _DeviceShare(document, entry, release).findings()
        elif entry.name == TOPOLOGY:
            yield from _HyperNode(document, entry, release).findings()
    yield from cancellation_findings(document, conf)


def cancellation_findings(document: Document, conf: VolcanoConf) -> Iterator[Finding]:
    """VR015: nodeorder's leastrequested as heavy as resource-strategy-fit's packing."""
    from policytest.scoring.weights import NodeOrderWeights

    calls = conf.calls(RSF)
    packing = sum(
        c.weights.weight
        for c in calls
        if isinstance(c.weights, ResourceStrategyFitArgs)
        and any(s.type == "MostAllocated" for s in c.weights.resources.values())
    )
    spreading = sum(
        c.weights.leastrequested
        for c in conf.calls("nodeorder")
        if isinstance(c.weights, NodeOrderWeights)
    )
    if packing <= 0 or spreading <= 0 or spreading < packing:
        return
    source = calls[-1].source
    node = source.argument_nodes.get("resourceStrategyFitWeight", (None, source.anchor))[1]
    assert node is not None
    yield rules.VR015_RSF_CANCELLED.at(
        document,
        node,
        f"resourceStrategyFitWeight is {packing} and nodeorder's leastrequested.weight is "
        f"{spreading}: Volcano adds both scores (up to {100 * packing} and {100 * spreading} "
        "points), and leastrequested prefers the emptiest nodes, so it cancels (or outweighs) "
        "the MostAllocated packing; use `resourceStrategyFitWeight: 10` (the default) or "
        "`leastrequested.weight: 0` on nodeorder",
    )


def deviceshare_fatal(arguments: Mapping[str, Any] | None, release: Release) -> str | None:
    """The ``klog.Fatal`` message deviceshare's ``New`` ends with, if any."""
    args = arguments or {}
    parse = release.getbool_parses_strings
    sharing, number, vgpu = (
        bool(get_bool(args, key, parse_strings=parse).value) for key in (SHARING, NUMBER, VGPU)
    )
    if sharing and number:
        return "can not define true in both gpu sharing and gpu number"
    if (sharing or number) and vgpu:
        return "gpu-share and vgpu can't be used together"
    return None


def plugin_stops_scheduler(conf: VolcanoConf, release: Release) -> bool:
    """Does some plugin's ``New`` exit the scheduler (every session: a crash loop)?"""
    for entry in conf.plugins:
        if not entry.registered:
            continue
        if isinstance(entry.weights, ResourceStrategyFitArgs) and entry.weights.fatal:
            return True
        if entry.name == DEVICESHARE and deviceshare_fatal(entry.arguments, release):
            return True
    return False


class _Entry(EntryCheck["PluginEntry"]):
    def __init__(self, document: Document, entry: PluginEntry, release: Release) -> None:
        super().__init__(document, entry)
        self.release = release
        self.parse_strings = release.getbool_parses_strings

    def ignored_bool(self, rule: Rule, key: str, outcome: str) -> Iterator[Finding]:
        """``key`` when ``GetBool`` ignores its value; ``outcome``: what Volcano keeps."""
        read = get_bool(self.arguments, key, parse_strings=self.parse_strings)
        if read.ignored is not None:
            yield rule.at(
                self.document,
                self.value_node(key),
                f"`{key}`: {read.ignored}; Volcano {self.release.name} ignores it{outcome}; "
                "write `true` or `false`",
            )


class _DeviceShare(_Entry):
    def known(self) -> tuple[str, ...]:
        """The keys this release reads (the per-release table)."""
        from policytest.volcano.argument_keys import reads

        return tuple(row.key for row in reads(DEVICESHARE, self.release.version))

    def findings(self) -> Iterator[Finding]:
        known = self.known()
        for key in self.ordered():
            if key not in known:
                yield self.unknown(key, known)
            elif key in DEVICESHARE_FLAGS:
                yield from self.ignored_bool(
                    rules.VD002_DEVICESHARE_NOT_BOOL,
                    key,
                    " (only a log line) and the flag stays false",
                )
        yield from self.fatal()
        yield from self.scoring()

    def unknown(self, key: str, known: tuple[str, ...]) -> Finding:
        message = f"`{key}` is not a deviceshare argument; Volcano ignores it"
        from policytest.volcano.argument_keys import readers

        other = [row for row, _ in readers(key) if row.of == "plugin" and row.owner == DEVICESHARE]
        if other:
            message = (
                f"`{key}` does not exist in Volcano {self.release.name} (deviceshare reads "
                f"it in {other[0].releases}): it is ignored"
            )
        else:
            exact = next((k for k in known if k.lower() == key.lower()), None)
            if exact is not None:
                message += f" (names are case-sensitive): write `{exact}`"
            else:
                message += did_you_mean(key, known) or did_you_mean("deviceshare." + key, known)
        return rules.VD004_DEVICESHARE_UNKNOWN_KEY.at(self.document, self.key_node(key), message)

    def fatal(self) -> Iterator[Finding]:
        message = deviceshare_fatal(self.arguments, self.release)
        if message is None:
            return
        second = VGPU if "vgpu" in message else NUMBER
        yield rules.VD001_DEVICESHARE_FATAL.at(
            self.document,
            self.value_node(second),
            f'deviceshare calls klog.Fatal("{message}"): the scheduler exits at its first '
            "scheduling cycle and crash-loops; enable only one of GPU sharing, GPU number "
            "and vGPU",
        )

    def scoring(self) -> Iterator[Finding]:
        weight_read = get_int(self.arguments, WEIGHT, string_arguments=False)
        weight = weight_read.value or 0
        policy_value = self.arguments.get(POLICY)
        policy = policy_value if isinstance(policy_value, str) else None
        if weight_read.ignored is not None:
            yield rules.VD003_DEVICESHARE_SCORING.at(
                self.document,
                self.value_node(WEIGHT),
                f"`{WEIGHT}`: {weight_read.ignored}; Volcano ignores it and keeps 0, so "
                "devices are not scored; write a plain integer such as 10",
            )
        elif WEIGHT in self.arguments and weight <= 0:
            yield rules.VD003_DEVICESHARE_SCORING.at(
                self.document,
                self.value_node(WEIGHT),
                f"`{WEIGHT}: {weight}` is not positive: deviceshare scores no device; "
                "use a positive weight such as 10",
            )
        if POLICY in self.arguments and policy is None:
            yield rules.VD003_DEVICESHARE_SCORING.at(
                self.document,
                self.value_node(POLICY),
                f"`{POLICY}` must be a string, but it is {describe(policy_value)}; "
                "Volcano ignores it (no policy); write `binpack` or `spread`",
            )
        elif policy is not None and policy not in POLICIES:
            exact = next((p for p in POLICIES if p == trim_space(policy).lower()), None)
            hint = f"; write `{exact}`" if exact else did_you_mean(policy, POLICIES)
            yield rules.VD003_DEVICESHARE_SCORING.at(
                self.document,
                self.value_node(POLICY),
                f"`{POLICY}: {policy}` is neither binpack nor spread (case-sensitive): "
                f"devices get no packing or spreading preference{hint}",
            )
        elif policy is not None and weight <= 0 and weight_read.ignored is None:
            yield rules.VD003_DEVICESHARE_SCORING.at(
                self.document,
                self.value_node(POLICY),
                f"`{POLICY}: {policy}` only orders the devices within a node: without a "
                f"positive `{WEIGHT}` (default 0) nodes are not scored by their devices at "
                f"all, so the policy does not pack or spread pods across nodes; add "
                f"`{WEIGHT}: 10`",
            )
        if weight > 0 and POLICY not in self.arguments:
            yield rules.VD003_DEVICESHARE_SCORING.at(
                self.document,
                self.value_node(WEIGHT),
                f"`{WEIGHT}: {weight}` without `{POLICY}`: devices are scored with no "
                f"policy, which prefers no node; add `{POLICY}: binpack` (or spread)",
            )


class _HyperNode(_Entry):
    def findings(self) -> Iterator[Finding]:
        supported = self.release.hypernode_binpack
        declared = declared_resources(self.arguments, HN_RESOURCES)
        for key in self.ordered():
            if not key.startswith(HN):
                if key == "weight" and supported:
                    yield from self.integer(key)
                continue
            if not supported:
                yield rules.VT003_HYPERNODE_UNKNOWN_KEY.at(
                    self.document,
                    self.key_node(key),
                    f"`{key}` is not read by Volcano {self.release.name}: HyperNode "
                    "bin-packing arguments exist from Volcano 1.14",
                )
            elif key in (HN + "cpu", HN + "memory"):
                yield from self.integer(key)
            elif key == HN_RESOURCES:
                yield from self.resources(declared)
            elif key.startswith(HN_RESOURCES + "."):
                yield from self.resource_weight(key, key[len(HN_RESOURCES) + 1 :], declared)
            elif key == HN_ENABLE:
                yield from self.ignored_bool(
                    rules.VT001_HYPERNODE_VALUE, HN_ENABLE, " and keeps the default true"
                )
            elif key == HN_FADING:
                yield from self.fading()
            else:
                yield rules.VT003_HYPERNODE_UNKNOWN_KEY.at(
                    self.document,
                    self.key_node(key),
                    f"`{key}` is not a HyperNode bin-packing argument; Volcano ignores it"
                    + (did_you_mean(key, HN_KEYS) or f" (it reads {', '.join(HN_KEYS)})"),
                )

    def integer(self, key: str) -> Iterator[Finding]:
        read = get_int(self.arguments, key, string_arguments=False)
        if read.ignored is not None:
            yield rules.VT001_HYPERNODE_VALUE.at(
                self.document,
                self.value_node(key),
                f"`{key}`: {read.ignored}; Volcano ignores it (only a log line) and keeps "
                "1; write a plain integer",
            )
        elif read.value is not None and read.value < 0:
            yield rules.VT001_HYPERNODE_VALUE.at(
                self.document,
                self.value_node(key),
                f"`{key}: {read.value}` is negative: Volcano silently uses 1 instead; use 0 "
                "to leave it out, or a positive weight",
            )

    def resources(self, declared: tuple[str, ...] | None) -> Iterator[Finding]:
        node = self.value_node(HN_RESOURCES)
        if declared is None:
            yield rules.VT002_HYPERNODE_RESOURCES.at(
                self.document,
                node,
                f"`{HN_RESOURCES}` must be one comma-separated string, but it is "
                f"{describe(self.arguments[HN_RESOURCES])}: Volcano treats it as empty; "
                f'write e.g. `{HN_RESOURCES}: "nvidia.com/gpu"`',
            )
            return
        for name in declared:
            if name in ("cpu", "memory"):
                yield rules.VT002_HYPERNODE_RESOURCES.at(
                    self.document,
                    node,
                    f"`{name}` in `{HN_RESOURCES}` adds nothing: {name} always counts with "
                    f"weight `{HN}{name}`; remove it from the list",
                    Severity.INFO,
                )

    def resource_weight(
        self, key: str, name: str, declared: tuple[str, ...] | None
    ) -> Iterator[Finding]:
        if declared is not None and name in declared and name not in ("cpu", "memory"):
            yield from self.integer(key)
            return
        why = (
            f"`{name}` always counts with `{HN}{name}`"
            if name in ("cpu", "memory")
            else f"`{name}` is not declared in `{HN_RESOURCES}`"
        )
        yield rules.VT002_HYPERNODE_RESOURCES.at(
            self.document, self.key_node(key), f"`{key}` is ignored: {why}"
        )

    def fading(self) -> Iterator[Finding]:
        value = self.arguments[HN_FADING]
        number = isinstance(value, (int, float)) and not isinstance(value, (bool, Uint64))
        if not number:
            yield rules.VT001_HYPERNODE_VALUE.at(
                self.document,
                self.value_node(HN_FADING),
                f"`{HN_FADING}`: {describe(value)}; GetFloat64 ignores it and Volcano "
                "keeps 0.8; write a number such as 0.8",
            )
        elif value < 0:
            yield rules.VT001_HYPERNODE_VALUE.at(
                self.document,
                self.value_node(HN_FADING),
                f"`{HN_FADING}: {value}` is negative: Volcano silently uses 0.8 instead; "
                "use 0 to count only tier-1 HyperNodes",
            )
