"""``run``, ``explain`` and ``simulate`` output: text, JSON, GitHub and JUnit."""

DEFAULT_TOP = 10
"""Scored nodes a text report lists per case (``--top N``; ``--all-nodes`` lists all).
Here, not in the text reporter, so the command-line parser can name it without
importing what the reporter needs."""
