"""The README's picture, ``docs/html-report.png``, made from the command the README names.

It writes the README's own repository (its config and fixture, as the README shows them)
into a temporary directory, runs ``policytest run fixtures/ --format html`` there, opens
the page in headless Chromium and takes a screenshot of the whole page (not cropped). The
PNG carries the SHA-256 of the report it shows (a ``tEXt`` chunk), and
``tests/test_readme.py`` checks it against the report the same command writes now: when
the report changes, the test fails until this script is run again. Run:

    python benchmarks/readme_picture.py [--output docs/html-report.png]
"""

from __future__ import annotations

import argparse
import hashlib
import struct
import sys
import tempfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KEY = b"policytest-report-sha256"
"""The PNG text chunk's keyword."""


def report_html(directory: Path) -> str:
    """The HTML report ``policytest run fixtures/ --format html`` writes in the README's
    repository, made in ``directory``."""
    import contextlib
    import io
    import os

    from policytest.cli import main
    from tests.conftest import readme_opening_files

    (directory / ".git").mkdir(exist_ok=True)
    for name, text in readme_opening_files().items():
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / name).write_text(text, encoding="utf-8")
    output = io.StringIO()
    here = os.getcwd()
    os.chdir(directory)
    try:
        with contextlib.redirect_stdout(output):
            main(["run", "fixtures/", "--format", "html", "--no-settings"])
    finally:
        os.chdir(here)
    return output.getvalue()


def digest(html: str) -> str:
    return hashlib.sha256(html.encode("utf-8")).hexdigest()


def stamped(png: bytes, value: str) -> bytes:
    """``png`` with a ``tEXt`` chunk ``KEY: value`` after its header chunk."""
    data = KEY + b"\0" + value.encode("ascii")
    chunk = struct.pack(">I", len(data)) + b"tEXt" + data
    chunk += struct.pack(">I", zlib.crc32(b"tEXt" + data) & 0xFFFFFFFF)
    header_end = 8 + 4 + 4 + 13 + 4  # signature, then IHDR: length, type, data, CRC
    return png[:header_end] + chunk + png[header_end:]


def stamp_of(png: bytes) -> str | None:
    """The value of the ``KEY`` text chunk of ``png``, if it has one."""
    at = 8
    while at + 8 <= len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, data = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        if kind == b"tEXt" and data.startswith(KEY + b"\0"):
            return data[len(KEY) + 1 :].decode("ascii")
        at += 12 + length
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", default=str(ROOT / "docs" / "html-report.png"))
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from tests.browser.chromium import launch

    with tempfile.TemporaryDirectory() as directory:
        html = report_html(Path(directory))
        page_file = Path(directory) / "report.html"
        page_file.write_text(html, encoding="utf-8")
        with sync_playwright() as playwright:
            browser = launch(
                playwright,
                str(Path(directory) / "profile"),
                viewport={"width": 1100, "height": 600},
            )
            page = browser.new_page()
            page.goto(page_file.as_uri())
            page.wait_for_selector("table tbody tr")
            png = page.screenshot(full_page=True)
            browser.close()
    Path(args.output).write_bytes(stamped(png, digest(html)))
    print(f"wrote {args.output} ({len(png):,} bytes) for report {digest(html)[:12]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
