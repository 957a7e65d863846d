"""Subcommands: each module has ``configure(subparsers)`` and an ``execute(args)``."""
