"""Progress on a terminal for commands that take a while (a big snapshot, a long sequence).

One line on standard error, redrawn in place, that appears only once the work has taken
more than :data:`DELAY` seconds (quick runs stay silent), and never when standard error
is not a terminal or with ``--quiet``. The library reports progress through plain
callbacks; only this layer writes.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Final, TextIO

__all__ = ["DELAY", "Progress", "add_quiet_option"]

DELAY: Final = 2.0
"""Seconds of work before the progress line appears."""
_REDRAW: Final = 0.1
"""Seconds between redraws (a terminal need not be written thousands of times)."""
_WIDTH: Final = 24


def add_quiet_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="no progress line on the terminal (it appears only for work over about 2 s)",
    )


class Progress:
    """``update(done)`` as work proceeds; ``close()`` when it ends (clears the line)."""

    def __init__(
        self,
        stream: TextIO,
        label: str,
        total: int | None = None,
        unit: str = "",
        *,
        quiet: bool = False,
        clock: Callable[[], float] = time.monotonic,
        format_count: Callable[[int], str] | None = None,
    ) -> None:
        self.stream = stream
        self.label = label
        self.total = total
        self.unit = unit
        self.clock = clock
        self.enabled = not quiet and hasattr(stream, "isatty") and stream.isatty()
        self.started = clock()
        self.drawn_at: float | None = None
        self.width = 0
        self.format_count = format_count or (lambda count: f"{count:,}")

    @property
    def shown(self) -> bool:
        """Whether the line has been drawn (so ``close`` must clear it)."""
        return self.drawn_at is not None

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        now = self.clock()
        if now - self.started < DELAY:
            return
        if self.drawn_at is not None and now - self.drawn_at < _REDRAW:
            return
        self.drawn_at = now
        self._draw(done)

    def _draw(self, done: int) -> None:
        count = self.format_count(done)
        if self.total:
            filled = min(_WIDTH, _WIDTH * done // self.total)
            bar = "#" * filled + "." * (_WIDTH - filled)
            line = f"{self.label} [{bar}] {count}/{self.format_count(self.total)} {self.unit}"
        else:
            line = f"{self.label} {count} {self.unit}"
        line = line.rstrip()
        padding = " " * max(0, self.width - len(line))
        self.width = len(line)
        self.stream.write(f"\r{line}{padding}")
        self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.drawn_at = None


def megabytes(count: int) -> str:
    """A byte count as megabytes, for reading progress."""
    return f"{count / 1_000_000:,.1f}"
