"""Self-contained HTML reports (``--format html``): one page per command, offline."""
