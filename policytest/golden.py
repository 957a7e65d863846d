"""Golden updates: rewrite a fixture's expectations from the actual results.

Only the ``expect`` blocks of failing cases change, and only the keys they already
assert (an empty ``expect`` gets a ``ranking`` or ``placements``). The file goes
through ruamel.yaml's round trip, so comments, key order, quoting and flow style
survive, and it is written atomically: a temporary file in the same directory,
fsynced, then renamed over the original with its permissions and line endings.
A fixture that is a symlink is updated through it: its target is rewritten (the link
stays a link), and only when that target is inside the repository root, the same
rule that keeps a fixture's ``config:`` from reading outside the repository.
"""

from __future__ import annotations

import io
import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from policytest.runner import FLOAT_TOLERANCE, CaseResult, close_enough, plain_number

BEFORE_RENAME: list[Callable[[str], None]] = []
"""Test hook: called with the temporary file's path just before it replaces the fixture."""


class UnsafeUpdate(Exception):
    """A fixture that is not updated: its real file (after symlinks) is outside the
    repository root, it is read-only, or it cannot be read or written."""


def update_expectations(
    results: Iterable[CaseResult], root: str | None = None
) -> tuple[list[str], list[UnsafeUpdate]]:
    """Rewrite the failing cases' expectations; return the paths written and the refusals.

    A refused file does not stop the others: each fixture is updated on its own.
    """
    failing: dict[str, dict[str, CaseResult]] = {}
    for result in results:
        if result.status == "failed":
            failing.setdefault(result.file, {})[result.case] = result
    written = []
    refused = []
    for path, by_case in failing.items():
        try:
            if rewrite_file(path, by_case, root):
                written.append(path)
        except UnsafeUpdate as refusal:
            refused.append(refusal)
    return written, refused


def update_target(path: str, root: str | None = None) -> str:
    """The file an update of ``path`` writes: the symlink's target, checked against ``root``.

    Renaming over the link itself would turn it into a copy and leave the real fixture
    stale; writing through a link that leaves the repository would let a fixture from a
    pull request overwrite any file the user can write.
    """
    from policytest.suite import is_inside, repository_root

    real = os.path.realpath(path)
    root = root or repository_root(path)
    if not is_inside(real, root):
        raise UnsafeUpdate(
            f"not updating {path}: it resolves to {real}, outside the repository root "
            f"({os.path.realpath(root)}); update the target there or copy it into the repository"
        )
    return real


def rewrite_file(path: str, by_case: Mapping[str, CaseResult], root: str | None = None) -> bool:
    """Apply the actual results to ``path``; ``False`` if nothing needed changing.

    Raises :class:`UnsafeUpdate` when ``path`` resolves outside ``root`` (default: the
    repository holding ``path``), when the file is read-only (its mode says so: the
    update would replace it through its directory otherwise), or when it cannot be
    read or written (the reason, in one line).
    """
    target = update_target(path, root)
    try:
        with _directory_lock(os.path.dirname(target)):
            with open(target, "rb") as handle:
                mode = os.fstat(handle.fileno()).st_mode
                output = _updated(handle.read(), by_case)
            if output is None:
                return False
            if not mode & stat.S_IWUSR or not os.access(target, os.W_OK):
                raise UnsafeUpdate(
                    f"not updating {path}: it is read-only (mode {stat.S_IMODE(mode):04o}); "
                    "make it writable to accept the actual results"
                )
            write_atomically(target, output)
    except OSError as error:
        raise UnsafeUpdate(
            f"cannot update {path}: {error.strerror or type(error).__name__}"
        ) from error
    return True


@contextmanager
def _directory_lock(directory: str) -> Iterator[None]:
    """Hold an exclusive lock on ``directory`` while one of its fixtures is updated.

    Under ``pytest -n`` every worker collects every fixture and updates the failing ones:
    the lock makes the later worker read the text the first one wrote, find nothing left
    to change, and leave the file alone, so each fixture is written once. Where ``fcntl``
    does not exist (Windows) updates stay atomic and the same text may be written twice.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock


def _updated(raw: bytes, by_case: Mapping[str, CaseResult]) -> bytes | None:
    """The fixture text ``raw`` with the results applied; ``None`` when nothing changes."""
    from ruamel.yaml import YAML
    from ruamel.yaml.util import load_yaml_guess_indent

    text = raw.decode("utf-8")
    newline = "\r\n" if "\r\n" in text else "\n"
    text = text.replace("\r\n", "\n")  # ruamel.yaml keeps a comment's \r: CRLF came out \r\r\n
    _, indent, block_seq_indent = load_yaml_guess_indent(text)
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(
        mapping=indent or 2,
        sequence=(indent or 2) + (block_seq_indent or 0),
        offset=block_seq_indent or 0,
    )
    documents = list(yaml.load_all(text))
    changed = False
    for document in documents:
        for case in (document or {}).get("cases") or []:
            result = by_case.get(case.get("name"))
            if result is not None:
                changed |= _apply(case, result)
    if not changed:
        return None
    buffer = io.StringIO()
    yaml.dump_all(documents, buffer)
    output = buffer.getvalue()
    if newline != "\n":
        output = output.replace("\n", newline)
    return output.encode("utf-8")


def _apply(case: Any, result: CaseResult) -> bool:
    from ruamel.yaml.comments import CommentedMap

    expect = case.get("expect")
    if expect is None:
        expect = case["expect"] = CommentedMap()
    before = repr(expect)
    keys = set(expect) or ({"placements"} if result.placements is not None else {"ranking"})
    actual = {node.name: node for node in result.nodes}
    if "ranking" in keys:
        old = expect.get("ranking")
        wanted = result.ranking[: len(old)] if old else result.ranking
        expect["ranking"] = _like(
            old,
            [
                group[0] if len(group) == 1 else _like(None, list(group), flow=True)
                for group in wanted
            ],
        )
    if "top" in keys and result.ranking:
        expect["top"] = result.ranking[0][0]
    written = expect.get("tolerance")
    tolerance = FLOAT_TOLERANCE if written is None else float(written)
    if "scores" in keys:
        for name in list(expect["scores"]):
            if name in actual and actual[name].feasible:
                _set_number(expect["scores"], name, actual[name].total, tolerance)
    if "plugins" in keys:
        for name, plugins in expect["plugins"].items():
            for plugin in list(plugins):
                if name in actual and plugin in actual[name].plugins:
                    _set_number(plugins, plugin, actual[name].plugins[plugin], tolerance)
    if "unschedulable" in keys:
        expect["unschedulable"] = _like(
            expect.get("unschedulable"), [n.name for n in result.nodes if not n.feasible]
        )
    if "placements" in keys and result.placements is not None:
        placements = expect.get("placements")
        replacement = placements if isinstance(placements, CommentedMap) else CommentedMap()
        for name in list(replacement):
            del replacement[name]
        for name, count in result.placements.items():
            if count:
                replacement[name] = count
        expect["placements"] = replacement
    if "nodesUsed" in keys:
        expect["nodesUsed"] = result.nodes_used
    if "pending" in keys and result.pending is not None:
        expect["pending"] = result.pending
    return repr(expect) != before


def _like(old: Any, items: list[Any], flow: bool | None = None) -> Any:
    """A new sequence in the same style (flow or block) as the one it replaces."""
    from ruamel.yaml.comments import CommentedSeq

    sequence = CommentedSeq(items)
    if flow or (flow is None and getattr(getattr(old, "fa", None), "flow_style", False)):
        sequence.fa.set_flow_style()
    return sequence


def _set_number(mapping: Any, key: str, actual: float, tolerance: float) -> None:
    """Replace an expected number only when the runner would find it off."""
    if not close_enough(actual, float(mapping[key]), tolerance):
        mapping[key] = plain_number(actual)


def write_atomically(path: str, data: bytes) -> None:
    """Replace ``path`` with ``data`` so a reader sees the old or the new file, never half."""
    directory = os.path.dirname(os.path.abspath(path))
    mode = stat.S_IMODE(os.stat(path).st_mode)
    handle, temporary = tempfile.mkstemp(prefix=".policytest-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        for hook in BEFORE_RENAME:
            hook(temporary)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    directory_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(directory_fd)
    finally:
        os.close(directory_fd)
