"""Count a pytest JUnit XML report: passed, failed, errors, skipped, and how many of the failed
and errored tests failed only because torch (or stable-baselines3, which needs it) is not
installed. Usage: python junit_counts.py REPORT.xml  ->  one line of counts."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET

NEEDS_TORCH = ("No module named 'torch'", "No module named 'stable_baselines3'")


def counts(path: str) -> dict[str, int]:
    """Outcome -> number of test cases in the JUnit report at `path`."""
    result = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0, "need_torch": 0}
    for case in ET.parse(path).getroot().iter("testcase"):
        problem = case.find("failure") if case.find("failure") is not None else case.find("error")
        if case.find("skipped") is not None:
            result["skipped"] += 1
        elif problem is None:
            result["passed"] += 1
        else:
            text = (problem.get("message") or "") + (problem.text or "")
            if any(marker in text for marker in NEEDS_TORCH):
                result["need_torch"] += 1
            else:
                result["failed" if problem.tag == "failure" else "errors"] += 1
    return result


if __name__ == "__main__":
    c = counts(sys.argv[1])
    print(f"{c['passed']} passed, {c['failed']} failed, {c['errors']} errors, {c['skipped']} skipped, "
          f"{c['need_torch']} need torch (not installed)")
