"""The examples in a rule's doc, for the tests that run every rule's failing and passing
example (Volcano's and kube-scheduler's)."""

from __future__ import annotations

import textwrap


def example(doc: str, label: str) -> str:
    """The indented block after ``label::`` in a rule's doc."""
    block = doc.split(f"{label}::", 1)[1].split("\n\n", 1)[1]
    lines = []
    for line in block.splitlines():
        if line.strip() and not line.startswith("    "):
            break
        lines.append(line)
    return textwrap.dedent("\n".join(lines)).strip() + "\n"
