"""``policytest simulate FIXTURE [--config CONFIG]...``: packing metrics for a workload;
``policytest simulate --snapshot FILE --config CONFIG... [--repack]``: the same for a
cluster's snapshot, no fixture written."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from policytest.commands.common import (
    add_fixture_options,
    check_options,
    missing_file,
    unknown_case,
    usage_error,
    write,
)
from policytest.commands.progress import Progress, add_quiet_option

FORMATS = ("text", "json", "html")


def configure(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "simulate",
        help="replay a fixture's pods and report how they pack",
        description="Place every case's pods one by one (as `run` does) and report the "
        "packing: nodes used, utilisation per resource, capacity stranded on full nodes "
        "(free capacity on nodes where a pod of the workload fitted before and none fits "
        "any more), pending pods. Give --config more than once to compare configs on one workload.",
    )
    parser.add_argument(
        "fixture", nargs="?", metavar="FIXTURE", help="a fixture file (*.policytest.yaml)"
    )
    parser.add_argument(
        "--snapshot",
        default=None,
        metavar="FILE",
        help="instead of a fixture: a cluster snapshot (`kubectl get nodes,pods,... -A -o "
        "json` output, or a `policytest snapshot` file); its pending pods are placed, or "
        "with --repack its bound pods are placed again",
    )
    parser.add_argument(
        "--repack",
        action="store_true",
        help="with --snapshot: take the bound pods that can move off their nodes and place "
        "them again in creation order: how many nodes each config needs, and frees",
    )
    parser.add_argument(
        "--keep",
        action="append",
        default=[],
        type=keep_selector,
        metavar="SELECTOR",
        help="with --repack: leave these pods where they are (repeatable); "
        "namespace=NS, owner=KIND[/NAME] and LABEL=VALUE, comma-separated, all must match",
    )
    parser.add_argument("--case", default=None, metavar="NAME", help="only this case")
    parser.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="CONFIG",
        help="simulate with this scheduler config instead of the fixture's own "
        "(repeat to compare; 'fixture' names the fixture's own config; LABEL=FILE names "
        "the config LABEL in the report)",
    )
    parser.add_argument("--profile", default=None, metavar="NAME", help="kube-scheduler profile")
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format")
    group = parser.add_argument_group("orders, sweeps and parallel runs")
    group.add_argument(
        "--orders",
        type=_count,
        default=0,
        metavar="N",
        help="also replay N random arrival orders of each case's pods (seeded: the same N "
        "orders every time) and report nodes in use over them: min, median, max",
    )
    group.add_argument(
        "--seed", type=int, default=0, metavar="S", help="the random orders' seed (default 0)"
    )
    group.add_argument(
        "--vary",
        action="append",
        default=[],
        type=_axis,
        metavar="KEY=V1,V2",
        help="sweep the one --config over these values (repeatable: every combination); "
        "KEY is a Volcano plugin argument (binpack.weight, leastrequested.weight, "
        "PLUGIN:ARG) or a kube-scheduler PLUGIN.weight or PLUGIN.FIELD... of its args "
        "(NodeResourcesFit.scoringStrategy.type); see docs/fixtures.md",
    )
    group.add_argument(
        "--workers",
        type=_count,
        default=None,
        metavar="N",
        help="run the runs in N local worker processes (default: the machine's cores; 1: "
        "in this process)",
    )
    group.add_argument(
        "--dask",
        default=None,
        metavar="ADDRESS",
        help="run them on the Dask cluster at ADDRESS (tcp://host:8786), or 'local' for a "
        "LocalCluster of --workers processes (pip install 'policytest[dask]')",
    )
    add_fixture_options(parser)
    add_quiet_option(parser)
    parser.set_defaults(execute=execute)


def keep_selector(text: str) -> dict[str, Any]:
    """``--keep namespace=data,owner=StatefulSet/db,tier=db`` as a fixture's ``keep:``
    selector (``namespace``, ``owner: {kind, name}``, ``labelSelector.matchLabels``)."""
    selector: dict[str, Any] = {}
    for part in text.split(","):
        key, equals, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not equals or not key or not value:
            raise argparse.ArgumentTypeError(
                f"{text!r}: expected KEY=VALUE pairs, comma-separated (namespace=NS, "
                "owner=KIND[/NAME], or a label)"
            )
        if key == "namespace":
            selector["namespace"] = value
        elif key == "owner":
            kind, _, name = value.partition("/")
            selector["owner"] = {"kind": kind, **({"name": name} if name else {})}
        else:
            labels = selector.setdefault("labelSelector", {"matchLabels": {}})
            labels["matchLabels"][key] = value
    return selector


def _axis(text: str) -> Any:
    """``--vary KEY=V1,V2`` as a sweep's axis."""
    from policytest.harness.sweep import SweepError, axis

    try:
        return axis(text)
    except SweepError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _count(text: str) -> int:
    """A count given on the command line (0 or more)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a count (0 or more), got {text!r}")
    return value


def _labelled(config: str) -> tuple[str, str]:
    """``LABEL=FILE`` (a file that exists, named by something that is not one) as
    (LABEL, FILE); else the config names itself."""
    import os

    label, equals, path = config.partition("=")
    if equals and label and os.path.isfile(path) and not os.path.lexists(config):
        return label, path
    return config, config


def _inputs_problem(args: Any) -> str | None:
    """What is wrong with the inputs named (``None``: nothing)."""
    if (args.fixture is None) == (args.snapshot is None):
        return "give a fixture, or --snapshot FILE (not both)"
    if args.snapshot is None and (args.repack or args.keep):
        return (
            "--repack and --keep take --snapshot FILE (a fixture repacks with "
            "`pods: {fromSnapshot: bound}`)"
        )
    if args.keep and not args.repack:
        return "--keep chooses the pods a repack leaves where they are: add --repack"
    if args.snapshot is not None and not args.config:
        return "--snapshot needs the configs to compare: --config FILE (repeatable)"
    if args.snapshot is not None and "fixture" in args.config:
        return "--config fixture names a fixture's own config; with --snapshot, name files"
    if args.vary and (len(args.config) != 1 or args.config == ["fixture"]):
        return "--vary sweeps one config: name it with one --config FILE"
    if args.workers == 0:
        return "--workers needs at least 1"
    return None


def execute(args: Any) -> int:
    from policytest.check.suppress import visible
    from policytest.core.exitcodes import ExitCode
    from policytest.harness.load import config_scheduler, root_for
    from policytest.harness.releases import release_label
    from policytest.harness.simulate import NoSuchCase, SimulationError, load_workloads
    from policytest.harness.suite import refusal
    from policytest.reporters.quoting import text
    from policytest.reporters.run.packing import render_json, render_text
    from policytest.reporters.validate.text import format_finding

    wrong = _inputs_problem(args)
    if wrong is not None:
        return usage_error(wrong)
    configs = {label: path for label, path in map(_labelled, args.config)}
    if len(configs) < len(args.config):
        return usage_error("each --config needs a label of its own")
    for path in [args.fixture or args.snapshot, *(p for p in configs.values() if p != "fixture")]:
        problem = missing_file(path)
        if problem is not None:
            return usage_error(problem)
    from policytest.core.findings import Severity
    from policytest.harness.runs import PackingJob
    from policytest.kube.scheduler import UnknownProfile
    from policytest.scoring.protocol import Scheduler

    options = check_options(args)
    try:
        if args.snapshot is not None:
            workloads = _snapshot_workloads(args, options)
        else:
            workloads = load_workloads(
                args.fixture, options, root_for(args.fixture, options), args.case
            )
    except NoSuchCase as error:
        return unknown_case(error.case, args.fixture, error.names)
    except SimulationError as error:
        sys.stderr.writelines(f"policytest: {text(line)}\n" for line in str(error).splitlines())
        return int(ExitCode.FINDINGS)
    # each config as the scheduler loads it; its findings are shown, and only a config
    # the scheduler refuses stops the simulation
    schedulers: list[tuple[str, Scheduler | None]] = []
    findings = {f for workload in workloads for f in workload.findings}
    variants: list[Any] = []
    if args.vary:
        from policytest.harness.sweep import SweepError, variants_of

        try:
            variants = variants_of(next(iter(configs.values())), args.vary, args.profile, options)
        except SweepError as error:
            sys.stderr.write(f"policytest: {text(error)}\n")
            return int(ExitCode.FINDINGS)
        schedulers = [(variant.name, variant.scheduler) for variant in variants]
    for label, path in (configs or {"fixture": "fixture"}).items():
        if variants:
            break
        if path == "fixture":
            schedulers.append((label, None))
            continue
        try:
            loaded, found = config_scheduler(path, args.profile, options)
        except UnknownProfile as unknown:
            sys.stderr.write(f"policytest: {label}: {unknown}\n")
            return int(ExitCode.FINDINGS)
        if loaded is None:
            errors = [f for f in found if f.severity is Severity.ERROR]
            sys.stderr.write(f"policytest: {label}: {refusal(errors)}\n")
            for finding in errors:
                sys.stderr.write(f"  {format_finding(finding, color=False)}\n")
            return int(ExitCode.FINDINGS)
        schedulers.append((label, loaded))
        findings.update(visible(found, options))
    for finding in sorted(findings):
        sys.stderr.write(f"config: {format_finding(finding, color=False)}\n")
    for finding in sorted({f for workload in workloads for f in workload.cluster_findings}):
        sys.stderr.write(f"cluster: {format_finding(finding, color=False)}\n")
    jobs = []
    for index, workload in enumerate(workloads):
        for label, scheduler in schedulers:
            chosen = scheduler or workload.scheduler
            if chosen is None:
                sys.stderr.write(f"policytest: {text(args.fixture)}: {text(workload.refusal)}\n")
                return int(ExitCode.FINDINGS)
            sessions = workload.runs_sessions(chosen)
            if sessions and getattr(chosen, "session", None) is None:
                sys.stderr.write(
                    f"policytest: {text(args.fixture)}: case `{text(workload.case)}` schedules "
                    f"Volcano jobs, and config `{text(label)}` is not a Volcano conf\n"
                )
                return int(ExitCode.FINDINGS)
            if sessions and args.orders:
                sys.stderr.write(
                    f"policytest: --orders replays the pods' arrival orders, and case "
                    f"`{text(workload.case)}` runs Volcano's sessions under config "
                    f"`{text(label)}`, which take its jobs in Volcano's own order (queue, "
                    "priority, creation time): compare it without --orders\n"
                )
                return int(ExitCode.USAGE)
            release = workload.release if scheduler is None else release_label(chosen.name, options)
            jobs.append(PackingJob(index, label, chosen, release, limits=options.limits))
            if not sessions:
                jobs += [
                    PackingJob(index, label, chosen, release, order, args.seed, options.limits)
                    for order in range(args.orders)
                ]
    outcomes = _run(args, workloads, jobs)
    if isinstance(outcomes, int):
        return outcomes
    reports = [outcome.result for outcome in outcomes if outcome.result is not None]
    if args.format == "html":
        from policytest.reporters.html.simulate import render

        write(render(reports, variants))
    else:
        write((render_json if args.format == "json" else render_text)(reports, variants))
    failed = [outcome for outcome in outcomes if outcome.error and not outcome.refused]
    refused = [outcome for outcome in outcomes if outcome.refused]
    for outcome in refused:
        workload = workloads[outcome.job.workload]
        sys.stderr.write(
            f"policytest: {text(args.fixture)}: case `{text(workload.case)}` "
            f"[{text(str(outcome.job))}]: {text(outcome.error)}\n"
        )
    for outcome in failed:
        sys.stderr.write(
            f"policytest: run failed: {text(str(outcome.job))}: {text(outcome.error)}\n"
        )
    if failed:
        return int(ExitCode.INTERNAL)
    return int(ExitCode.FINDINGS if refused else ExitCode.OK)


def _run(args: Any, workloads: list[Any], jobs: list[Any]) -> list[Any] | int:
    """Every job's outcome: one run in this process (a progress line counting its pods),
    several on the engine the options name (a progress line counting runs); an exit code
    when the engine cannot start (before anything is written)."""
    from policytest.core.exitcodes import ExitCode
    from policytest.core.limits import WorkRefused
    from policytest.harness.parallel import EngineError, Outcome, engine_for, worker_count
    from policytest.harness.runs import run_all
    from policytest.harness.simulate import simulate
    from policytest.reporters.quoting import text

    if len(jobs) == 1 and args.dask is None:
        (job,) = jobs
        workload = workloads[job.workload]
        bar = Progress(
            sys.stderr,
            f"{text(workload.case)} [{text(job.label)}]",
            len(workload.pods),
            "pods",
            quiet=args.quiet,
        )
        try:
            report = simulate(
                job.scheduler, workload, job.label, bar.update, job.release, limits=job.limits
            )
        except WorkRefused as refused:
            return [Outcome(job, None, str(refused), refused=True)]
        finally:
            bar.close()
        return [Outcome(job, report)]
    try:
        if args.dask is None:
            engine = engine_for(args.workers)
        else:
            from policytest.harness.daskengine import DaskEngine

            engine = DaskEngine(args.dask, worker_count(args.workers))
    except EngineError as error:
        sys.stderr.write(f"policytest: error: {text(error)}\n")
        return int(ExitCode.USAGE)
    bar = Progress(sys.stderr, "simulate", len(jobs), "runs", quiet=args.quiet)
    try:
        return run_all(engine, workloads, jobs, bar.update)
    finally:
        bar.close()
        engine.close()


def _snapshot_workloads(args: Any, options: Any) -> list[Any]:
    """The workload of ``--snapshot FILE``: a fixture made beside the snapshot. The file
    is named on the command line and streamed, so neither the file-bytes limit nor the
    node-scores limits apply to it: its work is bounded by the pods and nodes limits
    (every pod placed once, on at most every node)."""
    import os

    from policytest.core.records import replace
    from policytest.harness.load import Root
    from policytest.harness.simulate import load_workloads, snapshot_fixture
    from policytest.harness.snapshot import BOUND, PENDING

    limits = options.limits
    scores = limits.max_pods * limits.max_cluster_nodes
    size = os.path.getsize(args.snapshot)
    options = replace(
        options,
        limits=limits.overridden(
            [
                ("file-bytes", max(size, limits.max_file_bytes)),
                ("node-scores", max(scores, limits.max_node_scores)),
                ("total-node-scores", max(scores, limits.max_total_node_scores)),
            ]
        ),
    )
    made = snapshot_fixture(args.snapshot, BOUND if args.repack else PENDING, args.keep)
    root = Root(os.path.dirname(os.path.realpath(args.snapshot)), "the snapshot's directory")
    return load_workloads(args.snapshot, options, root, text=made)
