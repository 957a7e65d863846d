"""What a record type costs the hook: defining the class, and making one instance.

The hook is a fresh process on every commit, so every class on its path is defined
anew each time. Compared here in Python 3.11 for a five-field record, written as
policytest's modules write them (``from __future__ import annotations``, so each
annotation is a string): frozen and plain dataclasses, with and without the generated
``__eq__``, policytest's ``@record`` (``policytest.core.records``) likewise, and
``typing.NamedTuple``. Run:

    python benchmarks/record_types.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import statistics
import time
import typing

from workloads import calibration

from policytest.core.records import record

FIELDS = """
    a: int
    b: str
    c: float
    d: object | None
    e: tuple[int, ...] = ()
"""
DEFINITIONS = {
    "@dataclass(frozen=True)": "@dataclass(frozen=True)\nclass A:" + FIELDS,
    "@dataclass(frozen=True, eq=False)": "@dataclass(frozen=True, eq=False)\nclass A:" + FIELDS,
    "@dataclass": "@dataclass\nclass A:" + FIELDS,
    "@dataclass(eq=False)": "@dataclass(eq=False)\nclass A:" + FIELDS,
    "@record(frozen=True)": "@record(frozen=True)\nclass A:" + FIELDS,
    "@record(frozen=True, eq=False)": "@record(frozen=True, eq=False)\nclass A:" + FIELDS,
    "@record": "@record\nclass A:" + FIELDS,
    "@record(eq=False)": "@record(eq=False)\nclass A:" + FIELDS,
    "typing.NamedTuple": "class A(NamedTuple):" + FIELDS,
    "collections.namedtuple subclass": (
        "class A(namedtuple('A', 'a b c d e', defaults=((),))):\n    __slots__ = ()\n"
    ),
}
NAMES = {
    "dataclass": dataclasses.dataclass,
    "record": record,
    "NamedTuple": typing.NamedTuple,
    "namedtuple": collections.namedtuple,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    print(calibration())
    codes = {
        label: compile("from __future__ import annotations\n" + source, "<record>", "exec")
        for label, source in DEFINITIONS.items()
    }
    defining: dict[str, list[float]] = {label: [] for label in codes}
    making: dict[str, list[float]] = {label: [] for label in codes}
    for _ in range(args.rounds):  # interleaved, so machine load hits every kind alike
        for label, code in codes.items():
            started = time.process_time()
            for _ in range(50):
                namespace = dict(NAMES)
                exec(code, namespace)
            defining[label].append((time.process_time() - started) / 50)
            record = namespace["A"]
            started = time.process_time()
            for _ in range(5000):
                record(1, "a", 2.0, None, ())
            making[label].append((time.process_time() - started) / 5000)
    for label in codes:
        print(
            f"{label:36s} class {statistics.median(defining[label]) * 1e6:6.0f} us   "
            f"instance {statistics.median(making[label]) * 1e9:5.0f} ns"
        )


if __name__ == "__main__":
    main()
