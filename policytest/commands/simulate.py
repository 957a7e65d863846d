"""``policytest simulate FIXTURE [--config CONFIG]...``: packing metrics for a workload."""

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
    parser.add_argument("fixture", metavar="FIXTURE", help="a fixture file (*.policytest.yaml)")
    parser.add_argument("--case", default=None, metavar="NAME", help="only this case")
    parser.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="CONFIG",
        help="simulate with this scheduler config instead of the fixture's own "
        "(repeat to compare; 'fixture' names the fixture's own config)",
    )
    parser.add_argument("--profile", default=None, metavar="NAME", help="kube-scheduler profile")
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format")
    add_fixture_options(parser)
    add_quiet_option(parser)
    parser.set_defaults(execute=execute)


def execute(args: Any) -> int:
    from policytest.check.suppress import visible
    from policytest.core.exitcodes import ExitCode
    from policytest.harness.load import config_scheduler, root_for
    from policytest.harness.releases import release_label
    from policytest.harness.simulate import (
        NoSuchCase,
        SimulationError,
        load_workloads,
        simulate,
    )
    from policytest.harness.suite import refusal
    from policytest.reporters.quoting import text
    from policytest.reporters.run.packing import render_json, render_text
    from policytest.reporters.validate.text import format_finding

    for path in [args.fixture, *(c for c in args.config if c != "fixture")]:
        problem = missing_file(path)
        if problem is not None:
            return usage_error(problem)
    from policytest.core.findings import Severity
    from policytest.kube.scheduler import UnknownProfile
    from policytest.scoring.protocol import Scheduler

    options = check_options(args)
    try:
        workloads = load_workloads(
            args.fixture, options, root_for(args.fixture, options), args.case
        )
    except NoSuchCase as error:
        return unknown_case(error.case, args.fixture, error.names)
    except SimulationError as error:
        sys.stderr.write(f"policytest: {text(args.fixture)}: {text(error)}\n")
        return int(ExitCode.FINDINGS)
    # each config as the scheduler loads it; its findings are shown, and only a config
    # the scheduler refuses stops the simulation
    schedulers: dict[str, Scheduler | None] = {}
    findings = {f for workload in workloads for f in workload.findings}
    for label in args.config or ["fixture"]:
        if label == "fixture":
            schedulers[label] = None
            continue
        try:
            loaded, found = config_scheduler(label, args.profile, options)
        except UnknownProfile as unknown:
            sys.stderr.write(f"policytest: {label}: {unknown}\n")
            return int(ExitCode.FINDINGS)
        if loaded is None:
            errors = [f for f in found if f.severity is Severity.ERROR]
            sys.stderr.write(f"policytest: {label}: {refusal(errors)}\n")
            for finding in errors:
                sys.stderr.write(f"  {format_finding(finding, color=False)}\n")
            return int(ExitCode.FINDINGS)
        schedulers[label] = loaded
        findings.update(visible(found, options))
    for finding in sorted(findings):
        sys.stderr.write(f"config: {format_finding(finding, color=False)}\n")
    reports = []
    for workload in workloads:
        for label, scheduler in schedulers.items():
            chosen = scheduler or workload.scheduler
            if chosen is None:
                sys.stderr.write(f"policytest: {text(args.fixture)}: {text(workload.refusal)}\n")
                return int(ExitCode.FINDINGS)
            bar = Progress(
                sys.stderr,
                f"{text(workload.case)} [{text(label)}]",
                len(workload.pods),
                "pods",
                quiet=args.quiet,
            )
            release = workload.release if scheduler is None else release_label(chosen.name, options)
            progress = bar.update if bar.enabled else None
            reports.append(simulate(chosen, workload, label, progress, release))
            bar.close()
    if args.format == "html":
        from policytest.reporters.html.simulate import render

        write(render(reports))
    else:
        write((render_json if args.format == "json" else render_text)(reports))
    return int(ExitCode.OK)
