"""``validate`` output: text, JSON, GitHub annotations and SARIF."""
