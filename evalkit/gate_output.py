"""The files ``evalkit gate`` writes: JUnit XML and a Markdown summary.

* :func:`junit_xml` -- one ``<testsuite>`` (in a ``<testsuites>`` root) with one
  ``<testcase>`` per verdict: a failed gate has a ``<failure message type>`` child, a
  skipped one ``<skipped message>``; the counts are attributes of both roots. This is
  the structure of the JUnit XML schema that CI systems read (Jenkins' ``junit``,
  GitLab's ``artifacts:reports:junit``, GitHub test-report actions; the de-facto schema
  ``JUnit.xsd`` of the Windy Road / Jenkins xunit plugin: ``testsuite`` requires
  ``name``, ``tests``, ``failures``, ``errors``; ``testcase`` requires ``name`` and
  ``classname``). Written with :mod:`xml.etree.ElementTree`, which escapes ``& < > "``;
  control characters, which XML 1.0 cannot hold at all, are first made visible
  (:func:`evalkit.report.escape.text_escape`).
* :func:`markdown_summary` -- a heading, the verdict counts and a table (GitHub-flavoured
  Markdown, every user string through :func:`evalkit.report.escape.md_escape`), as
  GitHub Actions shows it from ``$GITHUB_STEP_SUMMARY``.

:func:`write_gate_files` writes both into a directory with the report writer
(:func:`evalkit.report.write.write_files`: the directory is replaced as a whole, atomically).
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

from .gates import GateReport
from .report.escape import md_escape, text_escape
from typing import Any

#: File names in the gate output directory.
JUNIT_FILE = "junit.xml"
SUMMARY_FILE = "gates.md"
#: The environment variable naming GitHub Actions' job summary file.
GITHUB_SUMMARY = "GITHUB_STEP_SUMMARY"


def _x(text: Any) -> str:
    return text_escape(text)


def junit_xml(report: GateReport) -> str:
    """The verdicts as JUnit XML (UTF-8 text with an XML declaration)."""
    counts = report.counts()
    attrs = {"name": _x(f"evalkit gates: {report.config}"), "tests": str(len(report.verdicts)),
             "failures": str(counts["fail"]), "errors": "0", "skipped": str(counts["skip"]), "time": "0"}
    root = ET.Element("testsuites", {k: v for k, v in attrs.items() if k != "skipped"})
    suite = ET.SubElement(root, "testsuite", attrs)
    if report.label:
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", {"name": "label", "value": _x(report.label)})
    for v in report.verdicts:
        case = ET.SubElement(suite, "testcase", {"classname": _x(f"evalkit.gates.{report.config}"),
                                                 "name": _x(v.title), "time": "0"})
        detail = _x(v.line())
        if v.queries:
            detail += "\nqueries (qid, difference):\n" + "\n".join(f"{_x(q)}\t{d:+.6f}" for q, d in v.queries)
        if v.status == "fail":
            el = ET.SubElement(case, "failure", {"message": _x(f"{v.gate.describe()}: {v.message}"),
                                                 "type": "GateFailure"})
            el.text = detail
        elif v.status == "skip":
            ET.SubElement(case, "skipped", {"message": _x(v.message)})
        else:
            ET.SubElement(case, "system-out").text = detail
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


_ICON = {"pass": "pass", "fail": "**FAIL**", "skip": "skip"}


def markdown_summary(report: GateReport) -> str:
    """The verdicts as a Markdown section."""
    c = report.counts()
    head = "passed" if report.passed else "FAILED"
    lines = [f"## evalkit gates: {md_escape(report.config)}: {head}", "",
             f"{c['pass']} passed, {c['fail']} failed, {c['skip']} skipped"
             + (f" (label {md_escape(report.label)})" if report.label else "") + ".", "",
             "| verdict | gate | flavour | system | against | check | numbers |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for v in report.verdicts:
        verdict = _ICON[v.status] + (" (inside the tie spread)" if v.inside_ties else "")
        cells = [verdict, md_escape(v.gate.name), md_escape(v.flavour), md_escape(v.system),
                 md_escape(v.reference or ""), md_escape(v.gate.describe()), md_escape(v.message)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_gate_files(report: GateReport, directory: str | os.PathLike) -> list[Path]:
    """Write :data:`JUNIT_FILE` and :data:`SUMMARY_FILE` into ``directory`` (replaced
    as a whole; see :func:`evalkit.report.write.write_files`).

    :raises ReportError: ``directory`` holds other files (or is the current directory).
    """
    from .report.write import write_files

    return write_files({JUNIT_FILE: junit_xml(report), SUMMARY_FILE: markdown_summary(report)}, directory)


def append_github_summary(report: GateReport, environ: Any = os.environ) -> Path | None:
    """Append the Markdown summary to ``$GITHUB_STEP_SUMMARY`` when it is set (GitHub
    Actions' job summary: each step appends to its own file); returns the path."""
    target = environ.get(GITHUB_SUMMARY)
    if not target:
        return None
    with open(target, "a", encoding="utf-8") as fh:
        fh.write(markdown_summary(report) + "\n")
    return Path(target)
