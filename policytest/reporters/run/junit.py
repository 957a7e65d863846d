"""JUnit XML, for CI systems that chart test results (GitLab, Jenkins, Azure)."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from itertools import groupby

from policytest.core.findings import Severity
from policytest.harness.runner import PASSING
from policytest.harness.suite import RunReport
from policytest.reporters.quoting import xml
from policytest.reporters.run.text import describe_failure
from policytest.reporters.validate.text import format_finding


def render(report: RunReport, *, color: bool) -> str:
    suites = ElementTree.Element("testsuites", name="policytest")
    for file, results in groupby(report.results, key=lambda r: r.file):
        cases = list(results)
        suite = ElementTree.SubElement(
            suites,
            "testsuite",
            name=xml(file),
            tests=str(len(cases)),
            failures=str(sum(r.status == "failed" for r in cases)),
            errors=str(sum(r.status == "error" for r in cases)),
        )
        for result in cases:
            case = ElementTree.SubElement(
                suite,
                "testcase",
                classname=xml(file),
                name=xml(result.case),
                file=xml(file),
                line=str(result.line),
            )
            named = [
                ("release", result.release),
                ("notSimulated", ", ".join(item.name for item in result.not_simulated)),
            ]
            if any(value for _, value in named):
                properties = ElementTree.SubElement(case, "properties")
                for name, value in named:
                    if value:
                        ElementTree.SubElement(properties, "property", name=name, value=xml(value))
            if result.status not in PASSING:
                tag = "failure" if result.status == "failed" else "error"
                problem = ElementTree.SubElement(
                    case,
                    tag,
                    message=xml(
                        result.message.splitlines()[0] if result.message else result.status
                    ),
                )
                problem.text = xml("\n".join(describe_failure(result)))
    findings = report.config_findings
    if findings:  # the configs' own findings: one test case per config, failing on errors
        configs = sorted({f.path for f in findings})
        suite = ElementTree.SubElement(
            suites,
            "testsuite",
            name="configs",
            tests=str(len(configs)),
            failures=str(len({f.path for f in findings if f.severity is Severity.ERROR})),
            errors="0",
        )
        for config in configs:
            mine = [f for f in findings if f.path == config]
            case = ElementTree.SubElement(suite, "testcase", classname="configs", name=xml(config))
            errors = [f for f in mine if f.severity is Severity.ERROR]
            listed = xml("\n".join(format_finding(f, color=False) for f in mine))
            if errors:
                failure = ElementTree.SubElement(case, "failure", message=xml(errors[0].message))
                failure.text = listed
            else:
                ElementTree.SubElement(case, "system-out").text = listed
    ElementTree.indent(suites)
    return ElementTree.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
