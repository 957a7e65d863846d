"""JUnit XML, for CI systems that chart test results (GitLab, Jenkins, Azure)."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from itertools import groupby

from policytest.fixtures.suite import RunReport
from policytest.reporters.quoting import xml
from policytest.reporters.run.text import describe_failure


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
            if result.status != "passed":
                tag = "failure" if result.status == "failed" else "error"
                problem = ElementTree.SubElement(
                    case,
                    tag,
                    message=xml(
                        result.message.splitlines()[0] if result.message else result.status
                    ),
                )
                problem.text = xml("\n".join(describe_failure(result)))
    ElementTree.indent(suites)
    return ElementTree.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
