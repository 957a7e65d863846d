"""Headless Chromium as the tests and the benchmarks start it: the Debian package
``chromium`` driven by Playwright through its executable path (nothing is downloaded),
a fresh profile, and the features that would reach the network off."""

from __future__ import annotations

import os
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from playwright.sync_api import BrowserContext, Playwright

CHROMIUM = Path(os.environ.get("POLICYTEST_CHROMIUM", "/usr/bin/chromium"))
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def launch(playwright: Playwright, profile: str, **options: Any) -> BrowserContext:
    """A browser with its own profile directory ``profile``."""
    return playwright.chromium.launch_persistent_context(
        profile, executable_path=str(CHROMIUM), headless=True, args=FLAGS, **options
    )
