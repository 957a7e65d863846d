"""Resource amounts as a person writes them, for every text report."""

from __future__ import annotations

_BINARY = (("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10))


def format_amount(value: int, milli: bool, name: str) -> str:
    """A resource amount as a person writes it: ``7``, ``500m``, ``6Gi``, ``1.5Gi``."""
    if milli:
        return f"{value // 1000}" if value % 1000 == 0 else f"{value}m"
    if name == "memory" or name.startswith(("hugepages-", "ephemeral")):
        for suffix, size in _BINARY:
            if value >= size:
                return f"{value / size:.4g}{suffix}"
    return str(value)
