"""Checking: each config loaded once, as its scheduler loads it (model and findings),
suppressions, and the ``validate`` pipeline over files and directories."""
