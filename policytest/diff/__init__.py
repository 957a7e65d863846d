"""What a config change does: both sides run on the same fixtures (files or git
commits), the effective settings each side holds, and the report model."""
