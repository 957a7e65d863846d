"""``policytest completion SHELL``: the scripts complete commands, options, option choices,
rule ids and file names, in the real shells (each test is skipped where its shell is not
installed)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from policytest.cli import build_parser
from policytest.commands.completion import commands
from policytest.reporters.catalogue import all_rules
from tests.conftest import RunLine


def script(run_line: RunLine, shell: str, tmp_path: Path) -> Path:
    result = run_line(["completion", shell])
    assert result.exit_code == 0, result
    path = tmp_path / f"policytest.{shell}"
    path.write_text(result.stdout)
    return path


def shell(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed")
    return found


def test_every_command_and_option_is_in_the_scripts(run_line: RunLine) -> None:
    found = commands(build_parser())
    assert {c.name for c in found} >= {"validate", "run", "explain", "rules", "completion"}
    for name in ("bash", "zsh", "fish"):
        text = run_line(["completion", name]).stdout
        for command in found:
            assert command.name in text
            for option in command.options:
                assert option.names[-1].lstrip("-") in text, (name, option.names)


BASH_CASES = [
    (["policytest", "va"], "validate"),
    (["policytest", "validate", "--form"], "--format"),
    (["policytest", "validate", "--format", ""], "text json github sarif"),
    (["policytest", "run", "--color", "a"], "auto always"),
    (
        ["policytest", "rules", "PT00"],
        " ".join(rule.id for rule in all_rules() if rule.id.startswith("PT00")),
    ),
    (["policytest", "completion", ""], "bash zsh fish"),
    (["policytest", "validate", "conf"], "configs"),
]


@pytest.mark.parametrize(("words", "offered"), BASH_CASES, ids=lambda v: str(v)[:30])
def test_bash_completes(run_line: RunLine, tmp_path: Path, words: list[str], offered: str) -> None:
    bash = shell("bash")
    path = script(run_line, "bash", tmp_path)
    (tmp_path / "configs").mkdir()
    quoted = " ".join(f"'{word}'" for word in words)
    program = (
        f"source {path}\nCOMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}\n"
        '_policytest; echo "${COMPREPLY[*]}"\n'
    )
    done = subprocess.run(
        [bash, "--norc", "--noprofile", "-c", program],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert done.stdout.strip() == offered, done.stderr


@pytest.mark.parametrize(
    ("line", "offered"),
    [
        ("policytest va", ["validate\tcheck scheduler configs and fixtures"]),
        ("policytest explain --fail-on ", ["failure", "never"]),
        ("policytest rules VB00", [f"VB00{n}" for n in range(1, 10)]),
    ],
)
def test_fish_completes(run_line: RunLine, tmp_path: Path, line: str, offered: list[str]) -> None:
    fish = shell("fish")
    path = script(run_line, "fish", tmp_path)
    done = subprocess.run(
        [fish, "--no-config", "-c", f"source {path}; complete -C '{line}'"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    got = [
        row.split("\t")[0] if "\t" not in offered[0] else row for row in done.stdout.splitlines()
    ]
    assert got == offered, done.stdout + done.stderr


def test_zsh_registers_the_completion(run_line: RunLine, tmp_path: Path) -> None:
    zsh = shell("zsh")
    path = script(run_line, "zsh", tmp_path)
    program = (
        "autoload -U compinit; compinit -u -D; "
        f'eval "$(<{path})"; print -r -- ${{_comps[policytest]}}'
    )
    done = subprocess.run(
        [zsh, "-f", "-c", program],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert done.stdout.strip() == "_policytest", done.stderr
    assert subprocess.run([zsh, "-n", str(path)], check=False).returncode == 0
