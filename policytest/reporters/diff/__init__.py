"""``diff`` output: text, Markdown for a PR comment, and JSON."""
