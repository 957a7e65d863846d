"""Kubernetes resource quantities, parsed exactly the way ``resource.ParseQuantity`` does.

The schedulers never see a quantity as written: the API machinery parses it, rounds it up
to whole nanounits, and the schedulers then ask for ``MilliValue()`` (cpu) or ``Value()``
(everything else), both rounded up again. Scores move by a point when that rounding is
wrong, so this module reproduces it exactly with integer arithmetic: a parsed quantity is
an exact integer number of nanounits.

Facts reproduced (from k8s.io/apimachinery ``resource/quantity.go``, v0.35):

- Grammar: optional sign, digits with an optional ``.`` (``1.``, ``.5`` and even ``.``
  and a bare sign are accepted and mean what the digits say, possibly 0), then a suffix:
  ``n u m "" k M G T P E`` (decimal), ``Ki Mi Gi Ti Pi Ei`` (binary) or an exponent
  ``e``/``E`` followed by an optionally signed integer (``1e3``, ``5E-3``). Anything else
  is rejected with the API server's own message.
- Leading and trailing white space is trimmed (JSON/YAML decoding trims it).
- Values are rounded up (away from zero) to a whole nanounit; a value written with too
  many digits or too small a scale to be kept exactly is capped at 2^63-1 units.
- ``milli_value()`` / ``value()`` round up (away from zero) and saturate at the int64
  bounds instead of wrapping.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from policytest.core.errors import PolicytestError

__all__ = ["Quantity", "QuantityError", "parse_quantity"]

_FORMAT_WRONG: Final = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
_NUMERIC: Final = "unable to parse numeric part of quantity"
_SUFFIX: Final = "unable to parse quantity's suffix"

_DIGITS: Final = frozenset("0123456789")
_SUFFIX_LETTERS: Final = frozenset("eEinumkKMGTP")
# Go's strings.TrimSpace (unicode.IsSpace), which differs from str.strip().
_GO_SPACE: Final = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)

_DECIMAL_SUFFIXES: Final = {
    "n": -9,
    "u": -6,
    "m": -3,
    "": 0,
    "k": 3,
    "M": 6,
    "G": 9,
    "T": 12,
    "P": 15,
    "E": 18,
}
_BINARY_SUFFIXES: Final = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}

_INT64_MAX: Final = (1 << 63) - 1
_INT64_MIN: Final = -(1 << 63)
_NANO: Final = 10**9
# Magnitude (in nanounits) past which every int64 milli/unit value has saturated anyway;
# exponents beyond it are clamped so that "1e999999999" cannot exhaust memory.
_HUGE_EXPONENT: Final = 40


class QuantityError(PolicytestError, ValueError):
    """A string that Kubernetes would not accept as a resource quantity."""

    def __init__(self, text: str, reason: str, where: str = "") -> None:
        self.text = text
        self.reason = reason
        self.where = where
        prefix = f"{where}: " if where else ""
        super().__init__(f"{prefix}invalid quantity {text!r}: {reason}")

    def at(self, where: str) -> QuantityError:
        """The same error, located (e.g. ``containers[0].requests.cpu``)."""
        return QuantityError(
            self.text, self.reason, f"{where}.{self.where}" if self.where else where
        )


@dataclass(frozen=True, slots=True)
class Quantity:
    """An exact quantity: ``nanos`` nanounits, after Kubernetes' own parse-time rounding."""

    nanos: int

    @classmethod
    def parse(cls, text: str | int | float) -> Quantity:
        """Parse like ``resource.ParseQuantity`` (after the decoder's white-space trim)."""
        return parse_quantity(text)

    def milli_value(self) -> int:
        """``Quantity.MilliValue()``: thousandths, rounded up away from zero."""
        return _saturate(_ceil_div_away(self.nanos, 10**6))

    def value(self) -> int:
        """``Quantity.Value()``: whole units, rounded up away from zero."""
        return _saturate(_ceil_div_away(self.nanos, _NANO))

    def __add__(self, other: Quantity) -> Quantity:
        return Quantity(self.nanos + other.nanos)

    def __bool__(self) -> bool:
        return self.nanos != 0


ZERO: Final = Quantity(0)


def parse_quantity(text: str | int | float) -> Quantity:
    """Parse a quantity written as a string, or as a YAML/JSON number (``cpu: 2``)."""
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise QuantityError(repr(text), "a quantity must be a string or a number")
    if isinstance(text, float):
        if text != text or text in (float("inf"), float("-inf")):
            raise QuantityError(repr(text), _NUMERIC)
        text = repr(text)
    elif isinstance(text, int):
        if text.bit_length() > 256:  # str() of a huge int may raise; every view saturates
            return Quantity((1 if text > 0 else -1) * _INT64_MAX * _NANO)
        text = str(text)
    return _parse_cached(text)


@lru_cache(maxsize=4096)
def _parse_cached(text: str) -> Quantity:
    """Clusters repeat a handful of quantity strings many thousand times."""
    return _parse(text.strip(_GO_SPACE), text)


def _parse(s: str, original: str) -> Quantity:
    if not s:
        raise QuantityError(original, _FORMAT_WRONG)
    negative, num, denom, suffix = _split(s, original)
    base, exponent = _interpret_suffix(suffix, original)
    significant = (num + denom).lstrip("0")
    if not significant:
        return ZERO
    nanos = _to_nanos(
        significant, exponent - len(denom) if base == 10 else -len(denom), base, exponent
    )
    if not _fast_path(base, exponent, num, denom, significant):
        nanos = min(nanos, _INT64_MAX * _NANO)
    return Quantity(-nanos if negative else nanos)


def _split(s: str, original: str) -> tuple[bool, str, str, str]:
    """``parseQuantityString``: sign, numerator digits, fraction digits, suffix."""
    pos, end = 0, len(s)
    negative = False
    if s[0] in "+-":
        negative = s[0] == "-"
        pos = 1
    while pos < end and s[pos] == "0":
        pos += 1
    if pos >= end:  # only a sign and zeros: the value is 0, nothing else is read
        return negative, "0", "", ""
    start = pos
    while pos < end and s[pos] in _DIGITS:
        pos += 1
    num = s[start:pos] or "0"
    denom = ""
    if pos < end and s[pos] == ".":
        pos += 1
        start = pos
        while pos < end and s[pos] in _DIGITS:
            pos += 1
        denom = s[start:pos]
    suffix_start = pos
    while pos < end and s[pos] in _SUFFIX_LETTERS:
        pos += 1
    if pos < end and s[pos] in "+-":
        pos += 1
    while pos < end and s[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise QuantityError(original, _FORMAT_WRONG)
    return negative, num, denom, s[suffix_start:]


def _interpret_suffix(suffix: str, original: str) -> tuple[int, int]:
    """``suffixer.interpret``: (base, exponent); an ``e`` exponent is an int64 cut to int32."""
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix]
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix]
    if len(suffix) > 1 and suffix[0] in "eE":
        rest = suffix[1:]
        sign, body = (rest[0], rest[1:]) if rest[0] in "+-" else ("", rest)
        if body and all(c in _DIGITS for c in body) and len(body.lstrip("0")) <= 19:
            parsed = int(sign + body)
            if _INT64_MIN <= parsed <= _INT64_MAX:
                return 10, (parsed + (1 << 31)) % (1 << 32) - (1 << 31)
    raise QuantityError(original, _SUFFIX)


def _fast_path(base: int, exponent: int, num: str, denom: str, significant: str) -> bool:
    """Whether ParseQuantity keeps the value as an exact int64 (and so does not cap it)."""
    if base == 10:
        return len(num) + len(denom) <= 18 and exponent - len(denom) >= -9
    if denom or len(num) > 18:
        return False
    precision = 15 - len(num) - int(exponent * 3 / 10) - 1
    return precision >= 0 and int(significant) << exponent <= _INT64_MAX


def _to_nanos(significant: str, scale10: int, base: int, exponent: int) -> int:
    """int(significant) x 10^scale10 (x 2^exponent for binary suffixes) in nanounits, rounded up.

    Absurdly long or large inputs are bounded first: past 10^_HUGE_EXPONENT units every
    int64 view has saturated, and digits beyond the 60th only ever round the value up.
    """
    magnitude = len(significant) - 1 + scale10
    if magnitude > _HUGE_EXPONENT:
        return int(10 ** (_HUGE_EXPONENT + 9))
    if magnitude < -_HUGE_EXPONENT:
        return 1
    sticky = 0
    if len(significant) > 60:
        sticky = 1 if significant[60:].strip("0") else 0
        scale10 += len(significant) - 60
        significant = significant[:60]
    mantissa = (int(significant) + sticky) << (exponent if base == 2 else 0)
    shift = scale10 + 9
    if shift >= 0:
        return mantissa * int(10**shift)
    return _ceil_div_away(mantissa, 10**-shift)


def _ceil_div_away(n: int, d: int) -> int:
    """n / d rounded away from zero (``d`` > 0)."""
    q = -(-abs(n) // d)
    return q if n >= 0 else -q


def _saturate(n: int) -> int:
    return _INT64_MAX if n > _INT64_MAX else _INT64_MIN if n < _INT64_MIN else n
