"""``policytest explain``: why each node ranks where it does, for a reviewer to read.

Per case: the nodes in rank order with their totals and each plugin's weighted share,
then each resource's utilisation after placement and its contribution, the parts of a
plugin made of several scores (Volcano's nodeorder), the nodes that were filtered out
and why, the score plugins not computed (with what each reads), and for sequences a
utilisation bar per node at the end of the sequence.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Final

from policytest.core.amounts import format_amount
from policytest.harness.runner import MESSAGE_LINE_BREAK, CaseResult, format_ranking, format_score
from policytest.reporters.quoting import text
from policytest.reporters.run import DEFAULT_TOP
from policytest.reporters.run.jobs import jobs_lines, stranded_lines
from policytest.reporters.run.scheduling import not_simulated_lines, pending_line, queue_lines
from policytest.reporters.run.text import MARK, node_table, placement_lines, repack_line
from policytest.reporters.validate.text import format_finding, paint, plural
from policytest.scoring.protocol import NodeScore, ResourceDetail

BAR_WIDTH = 20


def render_case(result: CaseResult, top: int | None = DEFAULT_TOP, *, color: bool = False) -> str:
    """The explanation of one case: the best ``top`` nodes in detail (all when ``None``),
    the filtered ones summed up when there are many."""
    _, code = MARK[result.status]
    status = paint(f"[{result.status}]", code, color)
    under = f"  (judged as {result.release})" if result.release else ""
    lines = [f"{paint(text(result.file), '1', color)} :: {text(result.case)}  {status}{under}"]
    if result.message:
        lines += [f"  {text(line)}" for line in result.message.split(MESSAGE_LINE_BREAK)]
    if result.status == "error":
        return "\n".join(lines) + "\n"
    if result.corrections:
        lines += ["", "  As the scheduler loads the config (scored this way):"]
        lines += [f"    {text(correction)}" for correction in result.corrections]
    if result.sessions is not None:
        return "\n".join(_session_case(lines, result, top)) + "\n"
    title = "first pod" if result.steps else "pod"
    lines += ["", f"  Scores for the {title}, best first: {text(format_ranking(result.ranking))}"]
    lines += [f"    {row}" for row in node_table(result.nodes, top)]
    best = sorted((n for n in result.nodes if n.feasible), key=lambda n: -n.total)[:top]
    details = list(_resource_lines(best))
    if details:
        lines += [
            "",
            "  Resources (utilisation after placement; each resource's score x its weight, "
            "then the plugin's arithmetic up to its contribution to the total):",
            *details,
        ]
    parts = _part_lines(best)
    if parts:
        lines += ["", "  Parts of a plugin's score (each part's score x its weight):", *parts]
    balance = _balance_lines(best)
    if balance:
        lines += ["", *balance]
    notes = _note_lines(result.nodes)
    if notes:
        lines += [
            "",
            "  Why each topology plugin scored the node so (weighted score: reason):",
            *notes,
        ]
    if result.not_modelled:
        lines += [
            "",
            "  Not scored (score plugins of this config that policytest does not compute; "
            "each gives every node the same score unless the cluster has what it reads):",
            *(f"    {text(name)}: {_reads(name)}" for name in result.not_modelled),
        ]
    unsimulated = not_simulated_lines(result.not_simulated)
    if unsimulated:
        lines += ["", *(f"  {line}" for line in unsimulated)]
    if result.steps:
        lines += ["", *_sequence_lines(result, top)]
    if result.findings:
        lines.append("")
    lines += [f"  config: {format_finding(f, color=False)}" for f in result.findings]
    return "\n".join(lines) + "\n"


# What each score plugin policytest does not compute reads (kube-scheduler names; Volcano's
# nodeorder parts are the same plugins).
_READS: Final[Mapping[str, str]] = {
    "tainttoleration": "PreferNoSchedule taints the pod does not tolerate",
    "nodeaffinity": "the pod's preferred node affinity",
    "interpodaffinity": "pod affinity and anti-affinity of the pod and of the bound pods",
    "podaffinity": "pod affinity and anti-affinity of the pod and of the bound pods",
    "podtopologyspread": "topology spread constraints, and the default spreading of pods "
    "owned by a Service, ReplicaSet or StatefulSet",
    "imagelocality": "container images already on the nodes",
    "volumebinding": "persistent volumes",
    "dynamicresources": "resource claims",
    "deviceshare": "shared GPU devices (vGPU) on the nodes",
    "network-topology-aware": "HyperNodes (the network topology)",
}


def _session_case(lines: list[str], result: CaseResult, top: int | None) -> list[str]:
    """A Volcano session case: per job what happened and why, per session the binds and
    what a gang gave back, then placements and what was not simulated."""
    lines += ["", *(f"  {line}" for line in jobs_lines(result, top))]
    lines += ["", *(f"  {line}" for line in placement_lines(result.placements or {}, top))]
    unsimulated = not_simulated_lines(result.not_simulated)
    if unsimulated:
        lines += ["", *(f"  {line}" for line in unsimulated)]
    if result.findings:
        lines.append("")
    lines += [f"  config: {format_finding(f, color=False)}" for f in result.findings]
    return lines


def _reads(plugin: str) -> str:
    key = plugin.rpartition(".")[2].lower()
    return _READS.get(key, "what this plugin reads")


def _resource_lines(best: Sequence[NodeScore]) -> list[str]:
    lines: list[str] = []
    for node in best:
        for plugin, resources in node.resources.items():
            if not resources:
                continue
            lines.append(f"    {text(node.name)} / {text(plugin)}:")
            for item in resources:
                share = _percent(item.requested, item.allocatable)
                amount = (
                    f"{format_amount(item.requested, item.milli, item.name)} / "
                    f"{format_amount(item.allocatable, item.milli, item.name)}"
                )
                note = f"  ({text(item.note)})" if item.note else ""
                product = _product(item) + note
                lines.append(
                    f"      {text(item.name):<16} {amount:>16} {share:>7}  {product}".rstrip()
                )
            lines += [f"      {line}" for line in _sum_lines(plugin, resources, node)]
    return lines


def _product(item: ResourceDetail) -> str:
    """``score 56 x weight 3 = 168`` (kube-scheduler), ``weight 1 -> 0.8125`` (Volcano)."""
    if item.score is None:
        return f"weight {item.weight:<3} (left out: nothing to score on this node)"
    if item.own_score is not None:
        return (
            f"score {format_score(item.own_score)} x weight {item.weight} = "
            f"{format_score(item.score)}"
        )
    return f"weight {item.weight:<3} -> {format_score(item.score)}"


def _sum_lines(plugin: str, resources: Sequence[ResourceDetail], node: NodeScore) -> list[str]:
    """From the resources' weighted scores to the plugin's contribution to the total,
    every step shown (shown only when it reproduces the scorer's own number)."""
    counted = [item for item in resources if item.score is not None]
    first = resources[0]
    contribution = node.plugins.get(plugin)
    if not counted or first.plugin_weight is None or contribution is None:
        return []
    total = sum(item.score or 0.0 for item in counted)
    weights = sum(item.weight for item in counted)
    scores = " + ".join(format_score(item.score or 0.0) for item in counted)
    sums = f"({scores}) / ({' + '.join(str(item.weight) for item in counted)})"
    if first.division == "float":  # Volcano binpack: float64, scaled by 100 x binpack.weight
        mean = total / weights if weights > 0 else total
        value = mean * 100 * first.plugin_weight
        if not _close(value, contribution):
            return []
        if weights <= 0:  # Volcano divides only by a positive sum of weights
            sums = f"{' + '.join(format_score(i.score or 0.0) for i in counted)} (weights sum to 0)"
        return [
            f"= {sums} = {format_score(mean)}; x 100 x binpack.weight "
            f"{first.plugin_weight} = {format_score(contribution)}"
        ]
    whole = int(total)
    if weights == 0:
        return []
    if first.division == "round":
        mean_int = math.floor(whole / weights + 0.5)
        how = "rounded half away from zero"
    else:
        mean_int = int(whole / weights)  # int64 division truncates toward zero
        how = "int64 division truncates"
    if mean_int * first.plugin_weight != contribution:
        return []
    return [
        f"= {sums} = {format_score(total)} / {weights} = {mean_int} ({how})",
        f"x plugin weight {first.plugin_weight} = {format_score(contribution)} "
        f"({plugin}'s contribution to the total)",
    ]


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def _part_lines(best: Sequence[NodeScore]) -> list[str]:
    """``node / nodeorder: leastrequested 40, balancedresource 79``: what a plugin made of
    several scores adds up (where packing and spreading cancel, this shows it)."""
    return [
        f"    {text(node.name)} / {text(plugin)}: "
        + ", ".join(f"{text(part)} {format_score(value)}" for part, value in values.items())
        for node in best
        for plugin, values in node.parts.items()
        if values
    ]


def _note_lines(nodes: Sequence[NodeScore]) -> list[str]:
    """``node / PodTopologySpread 144: default kubernetes.io/hostname maxSkew 3: ...``
    (a Volcano term: ``node / nodeorder.podtopologyspread 200: ...``)."""
    return [
        f"    {text(node.name)} / {text(plugin)} {format_score(_weighted(node, plugin))}: "
        f"{text(note)}"
        for node in sorted((n for n in nodes if n.feasible), key=lambda n: -n.total)
        for plugin, note in node.notes.items()
    ]


def _weighted(node: NodeScore, plugin: str) -> float:
    """A plugin's weighted score on the node, or a plugin's part's (``nodeorder.x``)."""
    owner, dot, part = plugin.partition(".")
    if dot and owner in node.parts:
        return node.parts[owner].get(part, 0)
    return node.plugins.get(plugin, 0)


_FORMULAS = {
    "with-pod": "score = S(with pod), up to kube-scheduler 1.35 and Volcano 1.15",
    "balance-change": "score = 50 + (50 + S(with pod) - S(without pod)) / 2 (int64), from "
    "kube-scheduler 1.36 and Volcano 1.16",
}


def _balance_lines(best: Sequence[NodeScore]) -> list[str]:
    """BalancedAllocation's two S terms and the score the release makes of them, where
    S = int64((1 - std of the requested fractions) x 100), so the numbers add up."""
    rows: list[str] = []
    formulas: set[str] = set()
    for node in best:
        for plugin, detail in node.balance.items():
            formulas.add(detail.formula)
            rows.append(
                f"    {text(node.name)} / {text(plugin)}: S(with pod) {detail.with_pod}, "
                f"S(without pod) {detail.without_pod} -> {detail.score}"
            )
    if not rows:
        return []
    heading = "; ".join(_FORMULAS.get(formula, formula) for formula in sorted(formulas))
    return [f"  Balance (unweighted; {heading}):", *rows]


def _sequence_lines(result: CaseResult, top: int | None) -> list[str]:
    lines = [
        f"  Sequence: {plural(len(result.steps), 'pod')}; nodes used {result.nodes_used}; "
        f"pending {result.pending}"
    ]
    lines += [f"    {line}" for line in placement_lines(result.placements or {}, top)]
    lines += [f"    {line}" for line in pending_line(result.steps)]
    lines += [f"    {line}" for line in queue_lines(result.queue)]
    if result.repack is not None:
        lines.append(f"    {repack_line(result.repack)}")
        lines += [f"    note: {text(note)}" for note in result.repack.notes]
    lines += [f"    {line}" for line in stranded_lines(result.stranded, top)]
    ties = [step for step in result.steps if step.tied_with]
    for step in ties[:10]:
        lines.append(
            f"    pod {step.index + 1}: tie, went to {text(step.node)} "
            f"(also best: {text(', '.join(step.tied_with))}"
            f"{'; identical nodes' if step.identical else ''})"
        )
    if len(ties) > 10:
        lines.append(f"    ... {len(ties) - 10} more ties")
    lines.append("  Utilisation at the end (the nodes that received most pods first):")
    placed = result.placements or {}
    order = sorted(result.utilisation, key=lambda name: -placed.get(name, 0))
    shown = order[:top]
    lines += [f"    {line}" for line in utilisation_bars({n: result.utilisation[n] for n in shown})]
    if len(shown) < len(order):
        lines.append(f"    ... {len(order) - len(shown):,} more nodes")
    return lines


def utilisation_bars(utilisation: Mapping[str, Mapping[str, tuple[int, int]]]) -> list[str]:
    """``node-a  cpu [#########.....]  62%`` per node and resource."""
    width = max((len(text(name)) for name in utilisation), default=0)
    lines = []
    for name, resources in utilisation.items():
        for resource, (used, allocatable) in resources.items():
            fraction = min(1.0, used / allocatable) if allocatable else 0.0
            filled = round(fraction * BAR_WIDTH)
            bar = "#" * filled + "." * (BAR_WIDTH - filled)
            lines.append(
                f"{text(name):<{width}}  {text(resource):<16} [{bar}] {_percent(used, allocatable)}"
            )
    return lines


def _percent(used: int, allocatable: int) -> str:
    return f"{used * 100 / allocatable:.1f}%" if allocatable else "n/a"
