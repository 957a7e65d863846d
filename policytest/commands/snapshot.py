"""``policytest snapshot [FILE|-] [-o OUT] [--anonymize]``: a compact cluster file.

Reads ``kubectl get nodes,pods -A -o json`` (or ``-o yaml``) and writes only what
scheduling reads, for a fixture's ``cluster: {snapshot: FILE}``; the counts kept and
dropped go to standard error.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from policytest.commands.common import limit_setting, missing_file, usage_error, write
from policytest.commands.progress import Progress, add_quiet_option, megabytes
from policytest.core.limits import Limits


def configure(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "snapshot",
        help="reduce kubectl's Nodes and Pods to a compact cluster file for fixtures",
        description="Read the output of `kubectl get nodes,pods -A -o json` (or -o yaml; "
        "a List or several documents) and write a compact cluster snapshot that a "
        "fixture names in `cluster: {snapshot: FILE}`: each node's allocatable resources, "
        "labels, taints and cordon; the requests of the pods bound to it (Succeeded and "
        "Failed pods dropped, identical pods counted); and the pending pods.",
    )
    parser.add_argument(
        "input",
        nargs="?",
        default="-",
        metavar="FILE",
        help="kubectl output, or - for standard input (the default)",
    )
    parser.add_argument(
        "-o", "--output", default=None, metavar="OUT", help="write here (default: stdout)"
    )
    parser.add_argument(
        "--anonymize",
        action="store_true",
        help="replace every identifier (names, label keys and values, taints) by an "
        "unsalted stable hash wherever it appears, keeping selectors matching, so the file "
        "can be committed",
    )
    parser.add_argument(
        "--limit",
        type=_pods_limit,
        action="append",
        default=[],
        metavar="pods=N",
        help=f"keep at most N pods, bound and pending (default {Limits().max_pods:,}, the "
        "most a fixture may hold): a larger dump is refused, so its memory stays bounded",
    )
    add_quiet_option(parser)
    parser.set_defaults(execute=execute)


def _pods_limit(text: str) -> tuple[str, int]:
    """``--limit pods=N``: the one limit this command applies."""
    name, value = limit_setting(text)
    if name != "pods":
        raise argparse.ArgumentTypeError(f"only pods=N applies to snapshot: {text!r}")
    return name, value


def execute(args: Any) -> int:
    import os

    from policytest.core.exitcodes import ExitCode
    from policytest.reporters.quoting import text
    from policytest.scoring.snapshot import SnapshotError, anonymize, compact_json, read_snapshot

    problem = None if args.input == "-" else missing_file(args.input)
    if problem is not None:
        return usage_error(problem)
    total = os.path.getsize(args.input) if args.input != "-" else None
    progress = Progress(
        sys.stderr,
        f"reading {text(args.input)}",
        total,
        "MB",
        quiet=args.quiet,
        format_count=megabytes,
    )
    try:
        max_pods = Limits().overridden(args.limit).max_pods
        snapshot = read_snapshot(args.input, progress.update, max_pods=max_pods)
    except SnapshotError as error:
        progress.close()
        sys.stderr.write(f"policytest: {text(error)}\n")  # it names what the input holds
        return int(ExitCode.FINDINGS)
    progress.close()
    if args.anonymize:
        snapshot = anonymize(snapshot)
    compact = compact_json(snapshot)
    if args.output is None:
        write(compact)
    else:
        try:
            os.makedirs(os.path.dirname(args.output) or ".", exist_ok=True)
            with open(args.output, "w", encoding="utf-8") as handle:
                handle.write(compact)
        except OSError as error:
            return usage_error(f"cannot write {args.output}: {error.strerror or error}")
    sys.stderr.write(summary(snapshot.counts.as_dict()) + "\n")
    return int(ExitCode.OK)


def summary(counts: dict[str, int]) -> str:
    """``kept 12 nodes, 340 bound pods, 5 pending pods; dropped ...`` for standard error."""
    kept = (
        f"kept {_count(counts['nodes'], 'node')}, {_count(counts['boundPods'], 'bound pod')}, "
        f"{_count(counts['pendingPods'], 'pending pod')}"
    )
    dropped = [  # (count, what one is, what several are)
        (
            counts["droppedCompletedPods"],
            "completed pod (Succeeded or Failed)",
            "completed pods (Succeeded or Failed)",
        ),
        (
            counts["droppedPodsOnUnknownNodes"],
            "pod bound to a node not in the input",
            "pods bound to nodes not in the input",
        ),
        (
            counts["droppedOtherPods"],
            "other pod (neither bound nor Pending)",
            "other pods (neither bound nor Pending)",
        ),
        (
            counts["droppedOtherObjects"],
            "object that is not a Node or Pod",
            "objects that are not Nodes or Pods",
        ),
    ]
    shown = ", ".join(
        f"{count:,} {one if count == 1 else many}" for count, one, many in dropped if count
    )
    line = f"policytest: {kept}; dropped {shown or 'nothing'}"
    unsimulated = counts["pendingPodsWithUnsimulatedFeatures"]
    if unsimulated:
        verb = "uses" if unsimulated == 1 else "use"
        line += (
            f"\npolicytest: {_count(unsimulated, 'pending pod')} {verb} pod affinity, topology "
            "spread, volumes, host ports, scheduling gates or resource claims, which "
            "policytest does not simulate: a case replaying them is an error (PT003)"
        )
    return line


def _count(count: int, noun: str) -> str:
    """``1 node``, ``1,200 nodes``."""
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"
