"""Headless Chromium for the report tests (:mod:`tests.browser.chromium`), one browser
per test process.

Where the browser (or the npm package ``mermaid``) is missing, the tests skip with one
line naming the package; under CI (``CI`` or ``POLICYTEST_REQUIRE_BROWSER`` set) they fail
instead: ``.ci/run`` installs both.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.browser.chromium import CHROMIUM, launch

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

    from playwright.sync_api import BrowserContext, Page

MERMAID = Path(
    os.environ.get(
        "POLICYTEST_MERMAID_JS",
        Path.home() / ".cache/policytest-ci/node_modules/mermaid/dist/mermaid.min.js",
    )
)
SCREENSHOTS = Path(__file__).parents[1] / "data" / "html" / "screenshots"
"""The pictures of each report kind, regenerated with POLICYTEST_SCREENSHOTS=1."""


def missing(what: str) -> NoReturn:
    """Skip on a developer's machine; fail under CI, which must run these tests."""
    if os.environ.get("CI") or os.environ.get("POLICYTEST_REQUIRE_BROWSER"):
        pytest.fail(f"{what} (CI must run the browser tests: see .ci/run)")
    pytest.skip(what)


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    if not CHROMIUM.exists():
        missing(f"no headless Chromium at {CHROMIUM}: install the Debian package `chromium`")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("the Python package `playwright` is not installed (pip install -e '.[test]')")
    with sync_playwright() as playwright:
        profile = str(tmp_path_factory.mktemp("chromium-profile"))
        context = launch(playwright, profile, viewport={"width": 1100, "height": 720})
        yield context
        context.close()


@dataclass
class Opened:
    """A page as the browser opened it, with what it logged and requested."""

    page: Page
    problems: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


def open_page(browser: BrowserContext, path: Path) -> Opened:
    """Open ``path`` and wait for it to load, recording console errors and warnings (a
    CSP violation is one), uncaught exceptions and every request."""
    page = browser.new_page()
    opened = Opened(page)

    def console(message: Any) -> None:
        if message.type in ("error", "warning"):
            opened.problems.append(f"{message.type}: {message.text}")

    page.on("console", console)
    page.on("pageerror", lambda error: opened.problems.append(f"exception: {error}"))
    page.on("request", lambda request: opened.requests.append(request.url))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return opened


def screenshot(opened: Opened, name: str, tmp_path: Path) -> Path:
    """A picture of the page's first screen: into the test data when regenerating
    (POLICYTEST_SCREENSHOTS=1), else next to the test's files."""
    folder = SCREENSHOTS if os.environ.get("POLICYTEST_SCREENSHOTS") else tmp_path
    target = folder / f"{name}.png"
    opened.page.screenshot(path=str(target))
    return target
