"""The one path rule: what policytest may open.

Files come from pull requests, so a path (or a symlink committed in one) may point
anywhere: at a secret outside the repository, at ``/dev/stdin``, at a FIFO that never
delivers a byte. Every file policytest reads goes through :func:`read_regular`:

- the path, with every symlink resolved, must be inside the root (the repository that
  holds it, or ``--root``), else it is refused unopened;
- only a regular file is read: the file is opened without blocking and checked with
  ``fstat`` before any read, so a FIFO, a device or a socket is refused, never waited on;
- the file opened must be the one that was checked (same device and inode), so a
  symlink swapped in between is refused too.

A refusal is a :class:`Refused` error whose message is one line for a finding.
"""

from __future__ import annotations

import os
import stat

from policytest.core.errors import PolicytestError


class Refused(PolicytestError):
    """A path policytest will not read: outside the root, or not a regular file."""


def repository_root(start: str) -> str:
    """The nearest directory at or above ``start`` that holds ``.git`` (else ``start``,
    or its directory when ``start`` is a file).

    The search climbs the path as written, not its target: a symlinked ``fixtures/``
    that points outside the repository still belongs to the repository it sits in, so
    its files must come from there. The root is returned with symlinks resolved.
    """
    return git_root(start) or os.path.realpath(_directory(start))


def git_root(start: str) -> str | None:
    """The git checkout ``start`` belongs to (symlinks in the result resolved), or
    ``None`` outside a checkout.

    Decided once, from the invocation: a path below the working directory's checkout
    (as written) belongs to it, whatever links it goes through, so a committed
    ``fixtures/ext -> ../other-project`` cannot make the other project's ``.git`` the
    root. A path elsewhere belongs to the nearest directory at or above it, on the
    path as written, that holds ``.git``."""
    invoked = _checkout_of(os.getcwd())
    if invoked is not None and is_inside(os.path.abspath(start), invoked):
        return invoked
    return _checkout_of(_directory(start))


def _checkout_of(directory: str) -> str | None:
    probe = directory
    while True:
        if os.path.exists(os.path.join(probe, ".git")):
            return os.path.realpath(probe)
        parent = os.path.dirname(probe)
        if parent == probe:
            return None
        probe = parent


def _directory(start: str) -> str:
    return os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")


def resolve(path: str) -> str:
    """``path`` with every symlink resolved; :class:`Refused` for a name that no file
    can have (a NUL byte, a lone surrogate), which the operating system would reject
    outright."""
    if "\0" in path:
        raise Refused("the name holds a NUL byte, which no file name can")
    try:
        os.fsencode(path)
    except UnicodeEncodeError:
        raise Refused("the name holds a character no file name can (a lone surrogate)") from None
    return os.path.realpath(path)


def is_inside(real: str, root: str) -> bool:
    """Whether the resolved path ``real`` is ``root`` or below it (``root`` resolved here)."""
    real_root = os.path.realpath(root)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_regular(path: str, size: int, root: str | None = None) -> bytes:
    """At most ``size`` bytes of the regular file at ``path``, which must resolve inside
    ``root`` (default: the repository holding ``path``).

    Raises :class:`Refused` for a path outside the root, a file that is not regular or
    a name that holds a NUL byte, ``OSError`` when it cannot be opened or read.
    """
    real = resolve(path)
    boundary = root if root is not None else repository_root(path)
    if not is_inside(real, boundary):
        raise Refused(
            "the file resolves outside the root through a symbolic link or "
            "`..`, so it is not read: only files inside the root are (the git repository, "
            "`--root`, or without git the working directory)"
        )
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    descriptor = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    try:
        opened = os.fstat(descriptor)
        if not stat.S_ISREG(opened.st_mode):
            raise Refused(
                f"the file is {_kind(opened.st_mode)}, so it is not read: only regular "
                "files are (a FIFO or a device could block or never end)"
            )
        checked = os.stat(real)
        if (checked.st_dev, checked.st_ino) != (opened.st_dev, opened.st_ino):
            raise Refused("the file changed while it was opened, so it is not read")
        chunks = []
        left = size
        while left > 0:
            chunk = os.read(descriptor, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(descriptor)
