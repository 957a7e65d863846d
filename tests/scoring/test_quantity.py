"""Kubernetes quantity parsing and rounding, as ``resource.ParseQuantity`` does it."""

from __future__ import annotations

import pytest

from policytest.scoring.quantity import Quantity, QuantityError, parse_quantity

INT64_MAX = (1 << 63) - 1

# (written, MilliValue(), Value()): what the API machinery reports for each.
VALUES = [
    pytest.param("500m", 500, 1, id="milli"),
    pytest.param("1.5", 1500, 2, id="fraction-rounds-up"),
    pytest.param("2Gi", 2 * 1024**3 * 1000, 2 * 1024**3, id="binary"),
    pytest.param("1e3", 1_000_000, 1000, id="exponent"),
    pytest.param("256M", 256 * 10**9, 256 * 10**6, id="decimal-suffix"),
    pytest.param("1761.898Mi", 1_847_483_957_248, 1_847_483_958, id="binary-fraction"),
    pytest.param("63900e-3", 63_900, 64, id="negative-exponent"),
    pytest.param("3.482214e09", 3_482_214_000_000, 3_482_214_000, id="exponent-fraction"),
    pytest.param("5E-3", 5, 1, id="capital-exponent"),
    pytest.param("1e+3", 1_000_000, 1000, id="signed-exponent"),
    pytest.param("0.0001", 1, 1, id="below-a-milli-rounds-up"),
    pytest.param("1n", 1, 1, id="nano"),
    pytest.param("1u", 1, 1, id="micro"),
    pytest.param("0.1", 100, 1, id="tenth"),
    pytest.param("1e-20", 1, 1, id="below-a-nano-rounds-up-to-one-nano"),
    pytest.param("1.", 1000, 1, id="trailing-dot"),
    pytest.param(".5", 500, 1, id="leading-dot"),
    pytest.param("+2", 2000, 2, id="plus-sign"),
    pytest.param("0", 0, 0, id="zero"),
    pytest.param("000", 0, 0, id="zeros"),
    pytest.param("0Gi", 0, 0, id="zero-with-suffix"),
    pytest.param(".", 0, 0, id="lone-dot-is-zero"),
    pytest.param("Gi", 0, 0, id="suffix-alone-is-zero"),
    pytest.param("1E", INT64_MAX, 10**18, id="exa-milli-saturates"),
    pytest.param("1Ei", INT64_MAX, 1024**6, id="exbi-milli-saturates"),
    pytest.param("1.5Ki", 1_536_000, 1536, id="binary-with-fraction"),
    pytest.param("-1.5m", -2, -1, id="negative-rounds-away-from-zero"),
    pytest.param("  2 ", 2000, 2, id="white-space-trimmed"),
    pytest.param("\u30002\u00a0", 2000, 2, id="go-unicode-space-trimmed"),
    pytest.param("9Ei", INT64_MAX, INT64_MAX, id="beyond-int64-saturates"),
    pytest.param("1e999999999", INT64_MAX, INT64_MAX, id="enormous-exponent"),
    pytest.param("1" + "0" * 5000, INT64_MAX, INT64_MAX, id="thousands-of-digits"),
    pytest.param("0." + "0" * 5000 + "1", 1, 1, id="thousands-of-fraction-digits"),
]


@pytest.mark.parametrize(("text", "milli", "value"), VALUES)
def test_milli_value_and_value_round_up_like_kubernetes(text: str, milli: int, value: int) -> None:
    quantity = parse_quantity(text)
    assert (quantity.milli_value(), quantity.value()) == (milli, value)


def test_parse_rounds_up_to_whole_nanounits_before_summing() -> None:
    # ParseQuantity keeps at most nanounit precision, rounding up: two tiny pieces
    # that sum to exactly 1m in real numbers sum to more once parsed.
    parts = [parse_quantity("0.0009999999995"), parse_quantity("0.0000000000005")]
    assert [p.nanos for p in parts] == [1_000_000, 1]
    assert (parts[0] + parts[1]).milli_value() == 2


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        pytest.param("2x", "regular expression", id="unknown-suffix-letter"),
        pytest.param("", "regular expression", id="empty"),
        pytest.param("   ", "regular expression", id="only-space"),
        pytest.param("1e3e3", "regular expression", id="two-exponents"),
        pytest.param("1 Gi", "regular expression", id="inner-space"),
        pytest.param("\x1f5", "regular expression", id="not-a-go-space"),
        pytest.param("1,5", "regular expression", id="comma"),
        pytest.param("\u0661", "regular expression", id="non-ascii-digit"),
        pytest.param("e", "suffix", id="lone-e"),
        pytest.param("1e", "suffix", id="exponent-without-digits"),
        pytest.param("1ee3", "suffix", id="double-e"),
        pytest.param("1Mi5", "suffix", id="binary-suffix-with-digits"),
        pytest.param("1ki", "suffix", id="lowercase-binary"),
        pytest.param("1e99999999999999999999", "suffix", id="exponent-beyond-int64"),
    ],
)
def test_malformed_quantities_raise_quantity_error(text: str, reason: str) -> None:
    with pytest.raises(QuantityError, match=reason) as caught:
        parse_quantity(text)
    assert isinstance(caught.value, ValueError)
    assert caught.value.text == text


@pytest.mark.parametrize(
    ("number", "milli"),
    [
        pytest.param(2, 2000, id="int"),
        pytest.param(1.5, 1500, id="float"),
        pytest.param(1e-05, 1, id="float-in-exponent-form"),
        pytest.param(10**400, INT64_MAX, id="huge-int"),
    ],
)
def test_yaml_numbers_are_quantities(number: float, milli: int) -> None:
    assert parse_quantity(number).milli_value() == milli


@pytest.mark.parametrize("value", [True, None, [], float("nan"), float("inf")])
def test_non_quantities_are_rejected(value: object) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(value)  # type: ignore[arg-type]


def test_error_location_is_prefixed() -> None:
    error = QuantityError("2x", "bad").at("cpu").at("containers[0].requests")
    assert str(error) == "containers[0].requests.cpu: invalid quantity '2x': bad"


def test_quantity_classmethod_and_truthiness() -> None:
    assert Quantity.parse("1") == Quantity(10**9)
    assert not Quantity.parse("0m")
    assert Quantity.parse("1n")
