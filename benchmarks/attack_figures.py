"""Time and memory of every attack of the third attack run (issue 34), through the real CLI.

Usage (from the repository root)::

    python benchmarks/attack_figures.py [--only PART] [--timeout 300] [--topology-commands run,diff]

Each attack is generated at the size the attack run used and given to a fresh ``python -m
policytest`` process (through ``timeout --foreground -s KILL``, so a runaway is killed and
its row says so), measured by a small launcher with ``os.wait4``: wall time of the whole
process (interpreter start-up included), CPU time (user and system, children included)
and peak resident set size. The parts (``--only``):

- ``topology``: item 1, the seven topology attacks (``tests/topology_attacks.py``) for
  kube-scheduler's default profile and Volcano's predicates and nodeorder, through ``run``
  and ``diff`` (file mode, the fixture's config against a changed one: it runs twice);
- ``walks``: item 2, the 306-byte billion-laughs document of no known kind (a values file,
  a Deployment, a snapshot without ``kind``) through ``validate`` (what the pre-commit
  hook runs: its entry is ``policytest validate FILE``) and ``diff`` of a commit that
  changes all three;
- ``paths``: item 4, a commit of 250,000 paths (one blob through a tree used 250 times)
  through ``diff``;
- ``configmap``: item 5, a ConfigMap of 30,000 small Volcano confs (2.6 MB) through
  ``validate`` and ``diff`` of a commit that changes every value.

Items 3 and 6 (a suppression the change adds, ``init`` through a link, a file name that
is not UTF-8) are about what is done, not what it costs: their tests say so. The machine's
load average is printed before and after, as every figure depends on it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.diff.test_diff_many_paths import commit_many_paths  # noqa: E402
from tests.read.test_bounded_walks import (  # noqa: E402
    bomb,
    deployment,
    snapshot_without_kind,
    values_file,
)
from tests.read.test_config_count import configmap  # noqa: E402
from tests.read.test_limits import measure_command  # noqa: E402
from tests.topology_attacks import ATTACKS, write_attack  # noqa: E402

Row = tuple[str, list[str], str]
"""(label, policytest arguments, working directory)."""
VOLCANO_CONF = 'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: binpack\n'


def _git(repo: Path, *args: str) -> None:
    environment = {
        **os.environ,
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@policytest.invalid",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@policytest.invalid",
    }
    subprocess.run(["git", *args], cwd=repo, env=environment, check=True, capture_output=True)


def _repository(path: Path, files: dict[str, str]) -> Path:
    """A git repository at ``path`` holding ``files``, committed on ``main``."""
    path.mkdir(parents=True)
    _git(path, "init", "--quiet", "--initial-branch=main")
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    _git(path, "add", ".")
    _git(path, "commit", "--quiet", "-m", "base")
    return path


def _head(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (repo / name).write_text(text)
    _git(repo, "commit", "--quiet", "-am", "head")


REVIEW = ["diff", "--base", "HEAD~1", "--head", "HEAD"]


def topology(directory: Path, commands: list[str]) -> Iterator[Row]:
    (directory / ".git").mkdir(exist_ok=True)
    for attack in ATTACKS:
        for scheduler in ("kube", "volcano"):
            path = write_attack(directory, attack, scheduler)
            label = f"{attack.summary} ({scheduler}, {path.stat().st_size / 1e6:.2f} MB)"
            configs = directory / "configs"
            argv = {
                "run": ["run", str(path)],
                "diff": [
                    "diff",
                    str(configs / f"{scheduler}.yaml"),
                    str(configs / f"{scheduler}-head.yaml"),
                    "--fixtures",
                    str(path),
                ],
                "simulate": ["simulate", str(path)],
            }
            for command in commands:
                yield f"{label}, {command}", argv[command], str(directory)


def walks(directory: Path) -> Iterator[Row]:
    makers = {"values.yaml": values_file, "deployment.yaml": deployment}
    makers["snapshot.yaml"] = snapshot_without_kind
    files = {name: make(bomb()) for name, make in makers.items()}
    size = len(files["values.yaml"])
    repo = _repository(directory / "walks", files)
    _head(repo, {name: text.replace("x,", "y,", 1) for name, text in files.items()})
    for name in files:
        yield (
            f"billion laughs ({size} bytes), {name}, validate (the hook)",
            [
                "validate",
                name,
            ],
            str(repo),
        )
    yield "billion laughs in all three files, diff of a commit changing them", REVIEW, str(repo)


def paths(directory: Path) -> Iterator[Row]:
    repo = _repository(directory / "paths", {"configs/volcano.yaml": VOLCANO_CONF})
    commit_many_paths(repo, directories=250, files=1_000)
    yield "250,000 paths (one blob, a tree used 250 times), diff", REVIEW, str(repo)


def configmap_values(directory: Path) -> Iterator[Row]:
    text = configmap(30_000)
    repo = _repository(directory / "configmap", {"many.yaml": text})
    _head(repo, {"many.yaml": text.replace("enqueue, ", "")})
    label = f"ConfigMap of 30,000 small confs ({len(text) / 1e6:.1f} MB)"
    yield f"{label}, validate", ["validate", "many.yaml"], str(repo)
    yield f"{label}, diff of a commit changing every value", REVIEW, str(repo)


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=["topology", "walks", "paths", "configmap"])
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per process")
    parser.add_argument(
        "--topology-commands",
        default="run,diff",
        help="the commands each topology attack goes through (run, diff, simulate)",
    )
    args = parser.parse_args(argv)
    killer = ["timeout", "--foreground", "-s", "KILL", str(args.timeout)]
    parts: dict[str, Callable[[Path], Iterator[Row]]] = {
        "topology": lambda d: topology(d, args.topology_commands.split(",")),
        "walks": walks,
        "paths": paths,
        "configmap": configmap_values,
    }
    print(f"load average before: {_load()}")
    print("| attack | exit | wall (s) | CPU (s) | peak RSS (MB) |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="policytest-attacks-") as scratch:
        for name, part in parts.items():
            if args.only not in (None, name):
                continue
            directory = Path(scratch) / name
            directory.mkdir()
            for label, command, cwd in part(directory):
                python = [sys.executable, "-m", "policytest", *command]
                measured = measure_command([*killer, *python], cwd=cwd)
                code = "killed" if measured.exit_code == -9 or measured.exit_code == 137 else ""
                print(
                    f"| {label} | {code or measured.exit_code} | {measured.seconds:.1f} | "
                    f"{measured.cpu_seconds:.1f} | {measured.peak_mb:.0f} |",
                    flush=True,
                )
    print(f"load average after: {_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
