"""An oracle corpus (gzipped JSON lines) held as its text, each case parsed when a test
asks for it.

Parsed when a module was imported, the corpora were about 300 MB of dicts in every xdist
worker for the whole session (each worker collects every module, and a parametrized case
lives as long as its test item); as text they are a tenth of that. Tests are parametrized
by a case's index (or a chunk of indices) and its id.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Case = dict[str, Any]


def _id(case: Case) -> str:
    return str(case["id"])


@dataclass(frozen=True)
class Corpus:
    lines: tuple[str, ...]

    @classmethod
    def read(cls, path: Path) -> Corpus:
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            return cls(tuple(lines))

    def __len__(self) -> int:
        return len(self.lines)

    def case(self, index: int) -> Case:
        case: Case = json.loads(self.lines[index])
        return case

    def cases(self, indices: Iterator[int] | list[int] | None = None) -> Iterator[Case]:
        """The cases at ``indices`` (default: every case), parsed one at a time."""
        for index in range(len(self.lines)) if indices is None else indices:
            yield self.case(index)

    def select(
        self, keep: Callable[[Case], bool] = lambda case: True, name: Callable[[Case], str] = _id
    ) -> tuple[list[int], list[str]]:
        """The indices of the cases ``keep`` keeps, and their test ids (``name``)."""
        indices, ids = [], []
        for index, case in enumerate(self.cases()):
            if keep(case):
                indices.append(index)
                ids.append(name(case))
        return indices, ids

    def chunks(self, indices: list[int], size: int) -> tuple[list[list[int]], list[str]]:
        """``indices`` in chunks of ``size``, each named ``first-id..last-id``."""
        chunks = [indices[start : start + size] for start in range(0, len(indices), size)]
        ids = [f"{_id(self.case(c[0]))}..{_id(self.case(c[-1]))}" for c in chunks]
        return chunks, ids
