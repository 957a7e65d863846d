"""The package version (one place: the build, ``--version`` and reports read it here)."""

__version__ = "0.1.0"
