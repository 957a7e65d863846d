"""The one file walker: which files under the paths a command is given it reads.

Every command walks the same way, so ``validate`` and ``run`` never disagree about a
directory: tool and dependency directories are skipped (``.git``, virtualenvs under any
name, ``node_modules``, caches), walks are sorted, and a path named on the command line
is always read, whatever its name.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence

from policytest.core.errors import PathNotFound
from policytest.read.source import STDIN

SKIPPED_DIRECTORIES = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        ".tox",
        ".nox",
        "node_modules",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "site-packages",
    }
)


def skipped_name(name: str) -> bool:
    """A directory name no walk enters (also for paths listed by git, not on disk)."""
    return name in SKIPPED_DIRECTORIES or name.endswith(".egg-info")


def is_virtualenv(directory: str) -> bool:
    """A Python virtualenv: ``pyvenv.cfg`` naming its ``home`` and a ``bin`` (``Scripts``)
    directory. An empty ``pyvenv.cfg``, or a directory named ``env`` or ``venv`` (common
    names for a deployment's configs), is not enough to hide the configs below it."""
    try:
        with open(os.path.join(directory, "pyvenv.cfg"), "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    says_home = any(line.split(b"=")[0].strip() == b"home" for line in head.splitlines())
    return says_home and any(
        os.path.isdir(os.path.join(directory, name)) for name in ("bin", "Scripts")
    )


def walk(
    paths: Sequence[str], wanted: Callable[[str], bool], passed_over: list[str] | None = None
) -> Iterator[tuple[str, bool]]:
    """Each file to read, with whether it was named explicitly.

    Directories contribute the files whose name is ``wanted``; a named file (or ``-``,
    standard input) is always read. Raises :class:`PathNotFound` for a path that does
    not exist (a dangling symlink exists: reading it reports the problem). The
    virtualenvs a walk does not enter are added to ``passed_over`` (``--verbose`` says so).
    """
    for path in paths:
        if path == STDIN:
            yield path, True
        elif os.path.isdir(path):
            yield from ((found, False) for found in _walk(path, wanted, passed_over))
        elif os.path.exists(path) or os.path.islink(path):
            yield path, True
        else:
            raise PathNotFound(path)


def _walk(top: str, wanted: Callable[[str], bool], passed_over: list[str] | None) -> Iterator[str]:
    for directory, subdirectories, files in os.walk(top):
        entered = []
        for name in sorted(subdirectories):
            path = os.path.join(directory, name)
            if skipped_name(name):
                continue
            if is_virtualenv(path):
                if passed_over is not None:
                    passed_over.append(path)
                continue
            entered.append(name)
        subdirectories[:] = entered
        for name in sorted(files):
            if wanted(name):
                yield os.path.join(directory, name)
