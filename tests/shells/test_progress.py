"""The progress line: only on a terminal, only after about two seconds, never with --quiet."""

from __future__ import annotations

import io

from policytest.commands.progress import DELAY, Progress


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    """A clock the test moves by hand (no wall-clock timing in tests)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_nothing_before_the_delay_then_a_bar_redrawn_and_cleared() -> None:
    terminal, clock = FakeTerminal(), Clock()
    progress = Progress(terminal, "case", 2000, "pods", clock=clock)
    for done in range(1, 1000):
        progress.update(done)
    assert terminal.getvalue() == ""
    clock.now = DELAY + 0.01
    progress.update(1000)
    assert terminal.getvalue() == "\rcase [############............] 1,000/2,000 pods"
    progress.update(1001)  # within the redraw interval: not drawn again
    assert terminal.getvalue().count("\r") == 1
    clock.now += 1
    progress.update(2000)
    assert terminal.getvalue().endswith("\rcase [########################] 2,000/2,000 pods")
    progress.close()
    assert terminal.getvalue().endswith("\r")


def test_silent_off_a_terminal_and_with_quiet() -> None:
    for stream, quiet in ((io.StringIO(), False), (FakeTerminal(), True)):
        clock = Clock()
        progress = Progress(stream, "case", 10, "pods", quiet=quiet, clock=clock)
        clock.now = 100.0
        progress.update(5)
        progress.close()
        assert stream.getvalue() == ""


def test_without_a_total_it_counts() -> None:
    terminal, clock = FakeTerminal(), Clock()
    progress = Progress(terminal, "reading -", None, "MB", clock=clock, format_count=str)
    clock.now = 5.0
    progress.update(12)
    assert terminal.getvalue() == "\rreading - 12 MB"
