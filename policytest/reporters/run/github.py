"""GitHub Actions annotations for failed and erroring cases."""

from __future__ import annotations

from policytest.harness.runner import PASSING
from policytest.harness.suite import RunReport
from policytest.reporters.quoting import github_data, github_property
from policytest.reporters.run.text import summary
from policytest.reporters.validate.github import annotation


def render(report: RunReport, *, color: bool) -> str:
    lines = []
    for result in report.results:
        if result.status in PASSING:
            continue
        under = f", {result.release}" if result.release else ""
        title = github_property(f"{result.case} ({result.status}{under})")
        lines.append(
            f"::error file={github_property(result.file)},line={result.line},"
            f"title={title}::{github_data(result.message)}"
        )
    for finding in report.config_findings:  # each once, however many cases ran with it
        lines.append(annotation(finding))
    for item in dict.fromkeys(item for r in report.results for item in r.not_simulated):
        title = github_property(f"not simulated: {item.name}")
        lines.append(f"::notice title={title}::{github_data(item.describe())}")
    lines.append(summary(report))
    return "\n".join(lines) + "\n"
