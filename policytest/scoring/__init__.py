"""Reference scorers: pure functions, exact to the upstream schedulers' arithmetic."""
