"""apimachinery's name syntax, written as character tests, accepts exactly what its
regular expressions accept (the patterns are copied from k8s.io/apimachinery's
validation package, IsQualifiedName, IsDNS1123Subdomain and IsValidLabelValue)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from policytest.kube.names import label_value_errors, qualified_name_errors
from policytest.scoring.names import (
    is_dns1123_subdomain,
    is_label_value,
    is_name_part,
    is_qualified_name,
)

NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")

# The characters the patterns treat specially, a few they refuse, and non-ASCII ones
# that str methods (not the patterns) would call alphanumeric.
TEXT = st.text(alphabet="aZ09-_./ \n\tÄ٣", max_size=12)
# past the limits: 63 characters for a name part and a label value, 253 for a prefix
LONG = st.builds(
    lambda prefix, name: f"{prefix}/{name}" if prefix else name,
    st.sampled_from(["", "a" * 253, "a" * 254, "example.com"]),
    st.sampled_from(["b", "b" * 63, "b" * 64]),
)


@given(TEXT)
def test_a_name_part_is_what_the_pattern_accepts(text: str) -> None:
    assert is_name_part(text) is (NAME.fullmatch(text) is not None)


@given(TEXT)
def test_a_subdomain_is_what_the_pattern_accepts(text: str) -> None:
    assert is_dns1123_subdomain(text) is (DNS1123_SUBDOMAIN.fullmatch(text) is not None)


@given(TEXT | LONG)
def test_label_values_and_qualified_names_follow(text: str) -> None:
    matches = LABEL_VALUE.fullmatch(text) is not None
    assert is_label_value(text) is (matches and len(text) <= 63)
    assert (label_value_errors(text) == []) is (matches and len(text) <= 63)
    assert (qualified_name_errors(text) == []) is is_qualified_name(text)


def test_examples() -> None:
    assert is_qualified_name("nvidia.com/gpu")
    assert is_qualified_name("cpu")
    assert not is_qualified_name("Nvidia.com/gpu")  # the prefix is lowercase
    assert not is_qualified_name("a/b/c")
    assert not is_qualified_name("-cpu")
    assert is_label_value("")
    assert not is_dns1123_subdomain("a..b")
    assert is_qualified_name("a" * 253 + "/" + "b" * 63)
    assert not is_qualified_name("a" * 254 + "/b") and not is_qualified_name("b" * 64)
    assert not is_label_value("b" * 64)
