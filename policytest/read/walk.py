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
        "venv",
        "env",
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


def skipped_directory(directory: str) -> bool:
    """A directory no walk enters: a skipped name, or a virtualenv (it has ``pyvenv.cfg``)."""
    if skipped_name(os.path.basename(directory)):
        return True
    return os.path.isfile(os.path.join(directory, "pyvenv.cfg"))


def walk(paths: Sequence[str], wanted: Callable[[str], bool]) -> Iterator[tuple[str, bool]]:
    """Each file to read, with whether it was named explicitly.

    Directories contribute the files whose name is ``wanted``; a named file (or ``-``,
    standard input) is always read. Raises :class:`PathNotFound` for a path that does
    not exist (a dangling symlink exists: reading it reports the problem).
    """
    for path in paths:
        if path == STDIN:
            yield path, True
        elif os.path.isdir(path):
            yield from ((found, False) for found in _walk(path, wanted))
        elif os.path.exists(path) or os.path.islink(path):
            yield path, True
        else:
            raise PathNotFound(path)


def _walk(top: str, wanted: Callable[[str], bool]) -> Iterator[str]:
    for directory, subdirectories, files in os.walk(top):
        subdirectories[:] = sorted(
            name for name in subdirectories if not skipped_directory(os.path.join(directory, name))
        )
        for name in sorted(files):
            if wanted(name):
                yield os.path.join(directory, name)
