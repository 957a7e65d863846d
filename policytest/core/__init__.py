"""The ground every stage stands on: findings, the rule registry, options, limits,
exit codes, the one error base class, and the one "did you mean"."""
