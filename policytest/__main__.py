"""``python -m policytest``."""

from policytest.cli import main

raise SystemExit(main())
