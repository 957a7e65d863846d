"""Shape keys: equal keys only for equal descriptions of equal types, and equal keys for
every copy of one description (a snapshot's repeated pod entries share their parsing)."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from policytest.read.goyaml import Uint64
from policytest.scoring.specs import (
    ClusterSpecError,
    pod_shape_key,
    pods_from_dict,
    pods_of_entry,
    shape_key,
)

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.sampled_from(["1", "1.0", "true", "", "cpu"])
    | st.text(max_size=4)
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "1"]) | st.integers(0, 2), inner, max_size=3)
    ),
    max_leaves=12,
)


def _typed(value: Any) -> object:
    """The description with every scalar's type beside it (what "equal" means here)."""
    if isinstance(value, dict):
        return ("dict", [(_typed(k), _typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [_typed(item) for item in value])
    return (type(value).__name__, value)


@given(_VALUES, _VALUES)
def test_equal_keys_are_equal_descriptions_of_equal_types(a: Any, b: Any) -> None:
    if shape_key(a) == shape_key(b):
        assert _typed(a) == _typed(b)


@given(_VALUES)
def test_every_copy_of_a_description_has_its_key(value: Any) -> None:
    assert shape_key(copy.deepcopy(value)) == shape_key(value)
    if not _has_negative_zero(value):
        text = json.dumps(value)
        decoded = json.loads(text)
        if json.dumps(decoded) == text and _typed(decoded) == _typed(value):
            assert shape_key(decoded) == shape_key(value)


def test_values_of_subclasses_key_as_their_content() -> None:
    """The YAML reader's ``Uint64`` and a mapping of a ``dict`` subclass key as their
    values: the pod model reads them alike."""

    class Labels(dict[str, str]):
        pass

    assert shape_key(Labels(app="a")) == shape_key(Labels(app="a"))
    assert shape_key(Labels(app="a")) == shape_key({"app": "a"})
    assert shape_key(Labels(app="a")) != shape_key(Labels(app="b"))
    assert shape_key({"app": "a"}) != shape_key({"app": 1})
    assert shape_key({"cpu": Uint64(2**64 - 1)}) == shape_key({"cpu": 2**64 - 1})


def test_a_pod_entry_s_key_leaves_out_when_it_was_created() -> None:
    entry = {"requests": {"cpu": "1"}, "count": 2, "order": [4, 9]}
    assert pod_shape_key(entry) == pod_shape_key({**entry, "order": [1, 2]})
    assert pod_shape_key(entry) != pod_shape_key({**entry, "count": 3})


def _has_negative_zero(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_has_negative_zero(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_negative_zero(v) for v in value)
    return isinstance(value, float) and value == 0 and str(value).startswith("-")


def test_equal_entries_are_parsed_once_and_a_bad_one_fails_where_it_stands() -> None:
    """The readers of a snapshot's bound pods (the repack plan, the cluster checks, the
    nodes built) share each description's parse; an entry that fails is not kept."""
    entry = {"requests": {"cpu": "250m"}, "count": 2, "order": [3, 8]}
    first = pods_of_entry(entry, "a.pods[0]")
    again = pods_of_entry({**entry, "order": [1, 2]}, "b.pods[4]")
    assert len(first) == 2 and first[0] is again[0] is again[1]
    assert first == pods_from_dict(entry, default_requests_from_limits=True)
    bad = {"requests": {"cpu": "250m"}, "count": "2"}
    for where in ("a.pods[1]", "b.pods[7]"):
        with pytest.raises(ClusterSpecError, match=rf"^{re.escape(where)}\.count: "):
            pods_of_entry(bad, where)
