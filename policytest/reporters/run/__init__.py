"""``run``, ``explain`` and ``simulate`` output: text, JSON, GitHub and JUnit."""
