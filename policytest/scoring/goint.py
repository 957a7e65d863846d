"""Go's int64 arithmetic, as the schedulers compute: products and sums wrap, division
truncates toward zero, ``math.Round`` rounds half away from zero. Shared by the scorers
and by the config checks that predict an overflow (without loading the scorers)."""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

_INT64_MIN: Final = -(1 << 63)
_UINT64: Final = 1 << 64


def wrap_int64(value: int) -> int:
    """Go int64 overflow: wrap ``value`` into [-2^63, 2^63)."""
    return (value - _INT64_MIN) % _UINT64 + _INT64_MIN


def add64(a: int, b: int) -> int:
    """Go's ``+`` on int64 (wraps)."""
    result = a + b
    return result if -(1 << 63) <= result < (1 << 63) else wrap_int64(result)


def mul64(a: int, b: int) -> int:
    """Go's ``*`` on int64 (wraps)."""
    result = a * b
    return result if -(1 << 63) <= result < (1 << 63) else wrap_int64(result)


def quo64(a: int, b: int) -> int:
    """Go's ``/`` on int64: truncates toward zero (MinInt64 / -1 wraps)."""
    quotient = abs(a) // abs(b)
    return wrap_int64(quotient if (a < 0) == (b < 0) else -quotient)


def go_round(x: float) -> int:
    """``int64(math.Round(x))``: half away from zero, without floor(x + 0.5)'s error."""
    whole = math.trunc(x)
    if abs(x - whole) >= 0.5:
        whole += 1 if x > 0 else -1
    return whole
