"""``policytest init CONFIG --node NODE:RESOURCES...``: write a first fixture for a config."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from policytest.commands.common import add_scheduler_options, check_options, usage_error


def configure(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "init",
        help="write a first fixture for a scheduler config",
        description="Write a first fixture (*.policytest.yaml) for an existing scheduler "
        "config: the nodes you name, one pod, and a sequence of ten. Its expectations are "
        "empty; `policytest run --update FILE` records what the scheduler does with them.",
    )
    parser.add_argument(
        "config",
        metavar="CONFIG",
        help="the scheduler config (a Volcano conf, a "
        "KubeSchedulerConfiguration, or a ConfigMap holding one)",
    )
    parser.add_argument(
        "--node",
        action="append",
        required=True,
        metavar="NODE:RESOURCES",
        help="a node and its allocatable, e.g. gpu-1:cpu=64,memory=256Gi,nvidia.com/gpu=8 "
        "(repeatable; pods defaults to 110)",
    )
    parser.add_argument(
        "--used",
        action="append",
        default=[],
        metavar="NODE:RESOURCES",
        help="what the pods already on a node request, e.g. gpu-1:cpu=32,nvidia.com/gpu=4",
    )
    parser.add_argument(
        "--pod",
        default=None,
        metavar="RESOURCES",
        help="the incoming pod's requests (default: cpu=1,memory=1Gi)",
    )
    parser.add_argument(
        "-o",
        "--output",
        default=None,
        metavar="FILE",
        help="the fixture to write (default: fixtures/<config name>.policytest.yaml); an "
        "existing file is never replaced; - prints it (its config path as from fixtures/)",
    )
    add_scheduler_options(parser)
    parser.set_defaults(execute=execute)


def execute(args: Any) -> int:
    from policytest.commands.common import missing_file
    from policytest.core.exitcodes import ExitCode
    from policytest.core.findings import Severity
    from policytest.harness import scaffold
    from policytest.harness.load import config_scheduler, describe, root_for
    from policytest.reporters.quoting import text

    missing = missing_file(args.config)
    if missing:
        return usage_error(missing)
    try:
        nodes = scaffold.sketch_nodes(args.node, args.used)
    except scaffold.ScaffoldError as error:
        return usage_error(str(error))
    try:
        pod = scaffold.resources(args.pod or scaffold.DEFAULT_POD)
    except scaffold.ScaffoldError as error:
        return usage_error(f"--pod: {error}")
    name = os.path.basename(args.config).split(".")[0]
    default = os.path.join("fixtures", f"{name}.policytest.yaml")
    output = args.output or default
    printed = output == "-"
    options = check_options(args)
    scheduler, findings = config_scheduler(args.config, None, options)
    if scheduler is None:
        refused = [f for f in findings if f.severity is Severity.ERROR] or findings
        for finding in refused:
            sys.stderr.write(f"policytest: error: {text(describe(finding))}\n")
        sys.stderr.write(f"policytest: no fixture written: {text(args.config)} is not usable\n")
        return int(ExitCode.FINDINGS)
    reference = scaffold.config_reference(args.config, default if printed else output)
    fixture = scaffold.fixture_text(name, reference, nodes, pod)
    if printed:
        sys.stdout.write(fixture)
        sys.stderr.write(
            f"policytest: its config path is relative to {text(os.path.dirname(default))}/; "
            "save it there, then `policytest run --update FILE` records what the scheduler "
            "does, for you to review\n"
        )
        return int(ExitCode.OK)
    try:
        scaffold.write_new(output, fixture, root_for(output, options))
    except FileExistsError:
        return usage_error(f"{output} exists; name another file with -o")
    except scaffold.UnsafeOutput as refusal:
        sys.stderr.write(f"policytest: error: {text(str(refusal))}\n")
        return int(ExitCode.FINDINGS)
    except OSError as error:
        sys.stderr.write(f"policytest: error: cannot write {text(output)}: {error.strerror}\n")
        return int(ExitCode.FINDINGS)
    sys.stderr.write(
        f"policytest: wrote {text(output)}; its expectations are empty: "
        f"`policytest run --update {text(output)}` records what the scheduler does, "
        "for you to review\n"
    )
    return int(ExitCode.OK)
