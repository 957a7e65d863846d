"""Counting the work a piece of code does, so that a bounded test asserts a count, not a
time, and fails instead of hanging when the bound is broken.

:class:`WorkMeter` counts the function calls (Python and built-in) made while it is
active, through ``sys.setprofile``; past its limit it raises :class:`TooMuchWork`, a
``BaseException`` (as ``KeyboardInterrupt`` is), so no ``except Exception`` in the code
under test can swallow it. A walk that loops without calling anything still calls
``list.pop`` or ``isinstance`` per step, so every walk is counted.
"""

from __future__ import annotations

import sys
from types import FrameType, TracebackType
from typing import Any


class TooMuchWork(BaseException):
    """The code under a :class:`WorkMeter` made more calls than its limit."""


class WorkMeter:
    """``with WorkMeter(1_000_000) as meter: ...``; then ``meter.calls``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.calls = 0

    def __enter__(self) -> WorkMeter:
        self._previous = sys.getprofile()
        sys.setprofile(self._event)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        sys.setprofile(self._previous)

    def _event(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" or event == "c_call":
            self.calls += 1
            if self.calls > self.limit:
                sys.setprofile(None)
                raise TooMuchWork(f"more than {self.limit:,} calls")
