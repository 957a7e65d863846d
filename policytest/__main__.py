"""``python -m policytest``."""

from policytest.cli import console_main

raise SystemExit(console_main())
