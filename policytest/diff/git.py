"""Two sides of a git diff as plain directories, for ``policytest diff``.

Each side of the comparison (a commit, or the working tree) is copied into a temporary
directory, file by file and only the files the diff needs: ``git ls-tree`` lists a
commit's files, ``git cat-file --batch`` reads their blobs. The runner then reads both
sides like any checkout, every path is relative to its side's root, and nothing in the
repository (index, working tree, refs) is ever touched. Symbolic links are copied as
links, never followed, so a link that leaves the repository stays outside the side's
root and the runner refuses it as it would in the checkout.
"""

from __future__ import annotations

import abc
import os
import posixpath
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from policytest.core.errors import PolicytestError

GIT_TIMEOUT_SECONDS = 300
DEFAULT_BRANCHES = ("origin/HEAD", "main", "master")
_SYMLINK_MODE = "120000"
_MAX_LINK_HOPS = 8


class DiffError(PolicytestError):
    """``policytest diff`` cannot compare what it was asked to (a usage error, exit 2)."""


@dataclass(frozen=True)
class Revision:
    """A commit to compare: as the user named it, and the commit it resolves to."""

    name: str
    commit: str

    @property
    def label(self) -> str:
        short = self.commit[:7]
        return short if self.name == self.commit else f"{self.name} ({short})"


@dataclass(frozen=True)
class Repository:
    """A git work tree, known by its top-level directory."""

    root: str

    def git(self, *args: str, stdin: bytes | None = None) -> bytes:
        """Run ``git`` at the top level; its standard output, or :class:`GitFailed`."""
        try:
            completed = subprocess.run(
                ["git", "-c", "core.quotepath=off", *args],
                cwd=self.root,
                # reading never writes: no index refresh behind `git diff`'s back
                env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
                input=stdin,
                capture_output=True,
                timeout=GIT_TIMEOUT_SECONDS,
                check=False,
            )
        except FileNotFoundError as missing:
            raise DiffError("git is not installed (or not on PATH)") from missing
        except subprocess.TimeoutExpired as slow:
            raise DiffError(f"git {args[0]} took longer than {GIT_TIMEOUT_SECONDS}s") from slow
        if completed.returncode != 0:
            raise GitFailed(_first_line(completed.stderr) or f"git {args[0]} failed")
        return completed.stdout

    def resolve(self, name: str) -> Revision:
        """The commit ``name`` (branch, tag, hash, ``HEAD~1``...) names, or :class:`DiffError`."""
        try:
            out = self.git(
                "rev-parse", "--verify", "--quiet", "--end-of-options", f"{name}^{{commit}}"
            )
        except GitFailed:
            out = b""
        commit = out.decode("ascii", "replace").strip()
        if not commit:
            raise DiffError(
                f"unknown revision {name!r}: no branch, tag or commit of that name in the "
                "repository"
            )
        return Revision(name, commit)

    def default_base(self) -> Revision:
        """The merge-base of ``HEAD`` with the default branch (``origin/HEAD``, else
        ``main``, else ``master``)."""
        for branch in DEFAULT_BRANCHES:
            try:
                target = self.resolve(branch)
            except DiffError:
                continue
            try:
                out = self.git("merge-base", "HEAD", target.commit)
            except GitFailed as failed:
                raise DiffError(
                    f"cannot find where HEAD branched from {branch}: {failed}; pass --base REV"
                ) from failed
            commit = out.decode("ascii", "replace").strip()
            return Revision(f"merge-base with {branch}", commit)
        raise DiffError(
            "cannot find the default branch to compare with (tried "
            f"{', '.join(DEFAULT_BRANCHES)}); pass --base REV"
        )

    def changed_paths(self, base: Revision, head: Revision | None) -> frozenset[str]:
        """Paths that differ between ``base`` and ``head`` (the working tree when ``None``,
        untracked files included)."""
        # plumbing, not `git diff`, which refreshes and rewrites .git/index: a file whose
        # timestamps alone changed is listed too, and its bytes decide (``differs``)
        command = ["diff-tree", "-r"] if head else ["diff-index"]
        args = [*command, "--name-only", "-z", "--no-renames", base.commit]
        args += ([head.commit] if head else []) + ["--"]
        paths = set(_names(self.git(*args)))
        if head is None:
            paths.update(_names(self.git("ls-files", "-z", "--others", "--exclude-standard")))
        return frozenset(paths)


class GitFailed(PolicytestError):
    """A git command exited non-zero; the message is its first line of stderr."""


def find_repository(start: str) -> Repository:
    """The git work tree that holds ``start``, or :class:`DiffError`."""
    probe = Repository(os.path.abspath(start))
    try:
        top = probe.git("rev-parse", "--show-toplevel").decode("utf-8", "surrogateescape")
    except GitFailed as failed:
        raise DiffError(
            "not inside a git repository: compare two files with "
            "`policytest diff OLD_FILE NEW_FILE --fixtures DIR`"
        ) from failed
    return Repository(os.path.realpath(top.strip()))


class Side(abc.ABC):
    """One side of the diff: files copied on demand into ``root`` from the repository."""

    def __init__(self, label: str, root: str, files: frozenset[str]) -> None:
        self.label = label
        self.root = root
        self.files = files
        self._done: set[str] = set()
        os.makedirs(root, exist_ok=True)

    def has(self, path: str) -> bool:
        return path in self.files

    def path(self, path: str) -> str:
        """Where ``path`` (repo-relative, ``/``-separated) lives on this side."""
        return os.path.join(self.root, *path.split("/"))

    def materialise(self, paths: Iterable[str]) -> None:
        """Copy ``paths`` (those this side has) into ``root``, and what their links name,
        also the links among their directories (``configs -> shared``) and their targets."""
        through = [step for path in paths for step in (*self.resolved(path)[1], path)]
        real = [self.resolved(path)[0] for path in paths]
        wanted = [
            p for p in dict.fromkeys([*through, *real]) if p in self.files and p not in self._done
        ]
        for _ in range(_MAX_LINK_HOPS):
            if not wanted:
                return
            self._done.update(wanted)
            targets = self._copy(wanted)
            wanted = [p for p in targets if p in self.files and p not in self._done]

    def resolved(self, path: str) -> tuple[str, tuple[str, ...]]:
        """``path`` with every link among its components replaced by what it names
        (repo-relative), and the links passed on the way: what the runner reads when it
        opens ``path``. A link out of the repository, an absolute one or a chain of more
        than a few hops ends the walk (the path rule refuses what it would read)."""
        parts = path.split("/")
        links: list[str] = []
        index = 0
        while index < len(parts):
            prefix = "/".join(parts[: index + 1])
            target = self._link_target(prefix)
            if target is None:
                index += 1
                continue
            named = posixpath.normpath(posixpath.join(posixpath.dirname(prefix), target))
            if len(links) >= _MAX_LINK_HOPS or os.path.isabs(target) or named.startswith(".."):
                break
            links.append(prefix)
            parts = [*named.split("/"), *parts[index + 1 :]]
            index = 0
        return "/".join(parts), tuple(links)

    @abc.abstractmethod
    def _link_target(self, path: str) -> str | None:
        """What the link at ``path`` names, or ``None`` when ``path`` is no link."""

    @abc.abstractmethod
    def _copy(self, paths: Sequence[str]) -> list[str]:
        """Copy ``paths``; return the repo-relative targets of links among them."""

    def _target(self, path: str) -> str:
        """The file to write for ``path``; its directories are created, never followed
        through a link."""
        parts = path.split("/")
        if any(part in ("", ".", "..") for part in parts):
            raise DiffError(f"refusing to copy {path!r}: not a plain relative path")
        current = self.root
        for part in parts[:-1]:
            current = os.path.join(current, part)
            if os.path.islink(current):
                raise DiffError(f"refusing to copy {path}: {part} is a symbolic link")
            if not os.path.isdir(current):
                os.mkdir(current)
        return os.path.join(current, parts[-1])

    def _link(self, path: str, target: str) -> str | None:
        """Create the link ``path -> target``; the repo-relative path it names, if any."""
        os.symlink(target, self._target(path))
        if os.path.isabs(target):
            return None
        named = os.path.normpath(os.path.join(os.path.dirname(path), target)).replace(os.sep, "/")
        return None if named.startswith("../") or named == ".." else named


class CommitSide(Side):
    """A commit's files (blobs and symbolic links; submodules, and paths no checkout can
    hold, are skipped)."""

    def __init__(
        self, repository: Repository, revision: Revision, root: str, max_bytes: int
    ) -> None:
        self.repository = repository
        self.revision = revision
        self.max_bytes = max_bytes
        listing = repository.git("ls-tree", "-r", "-l", "-z", "--full-tree", revision.commit)
        self.entries: dict[str, tuple[str, str]] = {}
        self.sizes: dict[str, int] = {}
        self._targets: dict[str, str] = {}
        for item in listing.split(b"\0"):
            if not item:
                continue
            meta, _, name = item.partition(b"\t")
            mode, kind, oid, size = meta.decode("ascii").split()
            if kind == "blob" and _storable(name):
                self.entries[os.fsdecode(name)] = (mode, oid)
                self.sizes[os.fsdecode(name)] = int(size)
        super().__init__(revision.label, root, frozenset(self.entries))

    def _link_target(self, path: str) -> str | None:
        entry = self.entries.get(path)
        if entry is None or entry[0] != _SYMLINK_MODE:
            return None
        if path not in self._targets:
            blob = self.repository.git("cat-file", "blob", entry[1])
            self._targets[path] = os.fsdecode(blob[: 1 << 12])
        return self._targets[path]

    def _copy(self, paths: Sequence[str]) -> list[str]:
        paths = [path for path in paths if not self._too_large(path)]
        oids = "".join(f"{self.entries[path][1]}\n" for path in paths).encode("ascii")
        out = self.repository.git("cat-file", "--batch", stdin=oids)
        links = []
        offset = 0
        for path in paths:
            header_end = out.index(b"\n", offset)
            header = out[offset:header_end].split()
            if len(header) != 3:
                raise DiffError(f"git cannot read {path} at {self.revision.label}")
            size = int(header[2])
            content = out[header_end + 1 : header_end + 1 + size]
            offset = header_end + 1 + size + 1
            if self.entries[path][0] == _SYMLINK_MODE:
                named = self._link(path, os.fsdecode(content))
                if named is not None:
                    links.append(named)
            else:
                with open(self._target(path), "wb") as handle:
                    handle.write(content)
        return links

    def _too_large(self, path: str) -> bool:
        """A blob larger than the ``file-bytes`` limit is never read out of git (a 300 MB
        blob cost 615 MB): its copy is a sparse file of one byte past the limit, so the
        reader refuses it as too large, headed by its object id, so two different such
        blobs still differ."""
        if self.sizes[path] <= self.max_bytes or self.entries[path][0] == _SYMLINK_MODE:
            return False
        with open(self._target(path), "wb") as handle:
            handle.write(self.entries[path][1].encode("ascii"))
            handle.truncate(self.max_bytes + 1)
        return True


class WorkTreeSide(Side):
    """The working tree: tracked files as they are on disk, and untracked ones git does
    not ignore."""

    def __init__(self, repository: Repository, root: str) -> None:
        self.repository = repository
        listing = repository.git("ls-files", "-z", "--cached", "--others", "--exclude-standard")
        present = frozenset(
            name
            for name in _names(listing)
            if os.path.lexists(os.path.join(repository.root, *name.split("/")))
        )
        super().__init__("working tree", root, present)

    def _link_target(self, path: str) -> str | None:
        if path not in self.files:
            return None
        source = os.path.join(self.repository.root, *path.split("/"))
        return os.readlink(source) if os.path.islink(source) else None

    def _copy(self, paths: Sequence[str]) -> list[str]:
        links = []
        for path in paths:
            source = os.path.join(self.repository.root, *path.split("/"))
            if os.path.islink(source):
                named = self._link(path, os.readlink(source))
                if named is not None:
                    links.append(named)
            elif os.path.isfile(source):
                shutil.copyfile(source, self._target(path))
        return links


_NAME_MAX = 255


def _storable(name: bytes) -> bool:
    """Whether a checkout can hold the file: no component of its path is longer than a
    file name may be (git stores what no file system can check out)."""
    return all(len(part) <= _NAME_MAX for part in name.split(b"/"))


def _names(output: bytes) -> list[str]:
    return [os.fsdecode(name) for name in output.split(b"\0") if name]


def _first_line(stderr: bytes) -> str:
    for line in stderr.decode("utf-8", "replace").splitlines():
        if line.strip():
            return line.strip().removeprefix("fatal: ").removeprefix("error: ")
    return ""


__all__ = [
    "CommitSide",
    "DiffError",
    "Repository",
    "Revision",
    "Side",
    "WorkTreeSide",
    "find_repository",
]
