"""The HTML report at cluster scale: its size, and how long Chromium takes to open it.

For 24, 500 and 5,000 nodes (five bound pods a node, Volcano binpack + nodeorder): a
fixture with one ranked pod and a sequence of 200 pods, written out with
``policytest run --format html`` (a fresh process, timed), then opened in headless
Chromium (the Debian package ``chromium``, driven by Playwright) from a fresh page
until its script has drawn every node table: the median of ``--runs`` openings. Run:

    python benchmarks/html_report.py [--nodes 24 500 5000] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from workloads import (
    ONE_POD_CASE,
    calibration,
    median,
    policytest_command,
    record_expectations,
    sequence_case,
    write_fixture,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.browser.chromium import launch

DRAWN = "[...document.querySelectorAll('.nodes .count')].every((c) => c.textContent)"


def write_report(directory: str, nodes: int) -> tuple[str, float, float]:
    """The report of a ``nodes``-node fixture, and the seconds ``run`` took to write it
    as HTML and, for comparison, as text."""
    fixture = write_fixture(
        directory, "volcano", nodes, nodes * 5, [ONE_POD_CASE, sequence_case(200)]
    )
    record_expectations(fixture)
    seconds = {}
    for format_ in ("text", "html"):
        report = os.path.join(directory, f"{nodes}.{format_}")
        started = time.perf_counter()
        with open(report, "w", encoding="utf-8") as out:
            subprocess.run(policytest_command("run", "--format", format_, fixture), stdout=out)
        seconds[format_] = time.perf_counter() - started
    return report, seconds["html"], seconds["text"]


def open_seconds(report: str, runs: int) -> list[float]:
    from playwright.sync_api import sync_playwright

    times = []
    with sync_playwright() as playwright:
        context = launch(playwright, tempfile.mkdtemp())
        for _ in range(runs + 1):  # the first opening warms the browser up
            page = context.new_page()
            started = time.perf_counter()
            page.goto("file://" + os.path.abspath(report))
            page.wait_for_function(DRAWN)
            times.append(time.perf_counter() - started)
            page.close()
        context.close()
    return times[1:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[24, 500, 5000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(calibration())
    with tempfile.TemporaryDirectory() as directory:
        for nodes in args.nodes:
            report, written, text = write_report(directory, nodes)
            size = os.path.getsize(report)
            opened = open_seconds(report, args.runs)
            print(
                f"{nodes:>6,} nodes: {size / 1e6:.2f} MB, written in {written:.2f} s (text: "
                f"{text:.2f} s), opened "
                f"in {median(opened):.2f} s (min {min(opened):.2f}, max {max(opened):.2f})"
            )


if __name__ == "__main__":
    main()
