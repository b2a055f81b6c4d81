"""`offlab verify --junit FILE` and `--sarif FILE`: the report in the formats
CI systems display. JUnit XML: one test case per property x profile x
setting (userspace and kernel) and per lemma; a failed gating property is a
<failure> whose text is its counterexample (the operation sequence, the state
it ends in and the trace file). SARIF 2.1.0: one result per failure."""

from __future__ import annotations

import json
import os
import tempfile
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

import offlab

from .kernel.properties import KERNEL_PROPERTIES
from .properties import PROPERTIES

if TYPE_CHECKING:
    from .cli import Report
    from .prove import Result

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def check_output(path: str, what: str) -> None:
    """Refuses, before any work, an output path whose folder does not exist
    or that names a folder."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise offlab.OfflabError(f"{what} {path}: folder {folder} does not exist")
    if os.path.isdir(path):
        raise offlab.OfflabError(f"{what} {path}: is a folder")


def _atomic(path: str, data: bytes) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def counterexample_text(r: Result) -> str:
    """The counterexample as `offlab verify` prints it."""
    lines = []
    if r.trace:
        lines.append(" -> ".join(op for op, _ in r.trace))
        lines.append(f"ends in: {r.trace[-1][1].describe()}")
    if r.counterexample:
        lines.append(f"counterexample: {r.counterexample}")
    return "\n".join(lines)


def _case(suite: ET.Element, classname: str, name: str, seconds: float) -> ET.Element:
    return ET.SubElement(suite, "testcase", classname=classname, name=name, time=f"{seconds:.6f}")


def _result_case(suite: ET.Element, r: Result, title: str, gate: bool, cls: str) -> str:
    """Adds one test case; returns its outcome: pass, failure or error."""
    case = _case(suite, cls, f"{r.property} {title} [{r.profile}]", r.seconds)
    if r.verdict == "PROVED":
        return "pass"
    text = counterexample_text(r)
    if r.verdict == "HAZARD":
        ET.SubElement(
            case, "system-out"
        ).text = f"fails only through the kernel's documented hazard(s) {r.invariant}\n{text}"
        return "pass"
    if r.verdict == "FAILED" and not gate:
        ET.SubElement(case, "system-out").text = f"FAILED (reported, not gating)\n{text}"
        return "pass"
    if r.verdict == "FAILED":
        el = ET.SubElement(
            case,
            "failure",
            message=f"{r.property} fails on {r.profile} ({r.config})",
            type="counterexample",
        )
        el.text = text
        return "failure"
    el = ET.SubElement(case, "error", message=f"{r.property}: {r.verdict}", type=r.verdict)
    el.text = r.invariant
    return "error"


def junit_xml(rep: Report) -> bytes:
    root = ET.Element("testsuites", name="offlab verify")
    titles = {p.key: (p.title, p.gate) for p in (*PROPERTIES, *KERNEL_PROPERTIES)}
    groups: dict[str, list[tuple[Result, str]]] = {}
    for r in rep.results:
        groups.setdefault(f"userspace {r.config}", []).append((r, "offlab.verify.userspace"))
    for r in rep.kernel_results:
        groups.setdefault(f"kernel {r.config}", []).append((r, "offlab.verify.kernel"))
    totals = {"tests": 0, "failures": 0, "errors": 0, "time": 0.0}

    def close(suite: ET.Element, counts: dict[str, float]) -> None:
        for key in ("tests", "failures", "errors"):
            suite.set(key, str(int(counts[key])))
            totals[key] += counts[key]
        suite.set("time", f"{counts['time']:.6f}")
        totals["time"] += counts["time"]

    for name, rows in groups.items():
        suite = ET.SubElement(root, "testsuite", name=name)
        counts = {"tests": 0, "failures": 0, "errors": 0, "time": 0.0}
        for r, cls in rows:
            title, gate = titles[r.property]
            outcome = _result_case(suite, r, title, gate, f"{cls}.{r.config}")
            counts["tests"] += 1
            counts["time"] += r.seconds
            if outcome != "pass":
                counts[outcome + "s"] += 1
        close(suite, counts)
    if rep.lemmas:
        suite = ET.SubElement(root, "testsuite", name="lemmas")
        counts = {"tests": 0, "failures": 0, "errors": 0, "time": 0.0}
        for lm in rep.lemmas:
            case = _case(suite, "offlab.verify.lemmas", f"{lm.key} {lm.title}", lm.seconds)
            counts["tests"] += 1
            counts["time"] += lm.seconds
            if lm.verdict == "FAILED":
                el = ET.SubElement(case, "failure", message=f"{lm.key} fails", type="model")
                el.text = lm.detail
                counts["failures"] += 1
            elif lm.verdict != "PROVED":
                el = ET.SubElement(case, "error", message=f"{lm.key}: {lm.verdict}", type="Z3")
                el.text = lm.detail
                counts["errors"] += 1
        close(suite, counts)
    for key in ("tests", "failures", "errors"):
        root.set(key, str(int(totals[key])))
    root.set("time", f"{rep.seconds:.6f}")
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def write_junit(path: str, rep: Report) -> None:
    """Writes atomically: a half-written file never appears under `path`."""
    _atomic(path, junit_xml(rep))


def sarif(rep: Report) -> dict:
    props = (*PROPERTIES, *KERNEL_PROPERTIES)
    rules = [
        {"id": p.key, "shortDescription": {"text": p.title}, "properties": {"gating": p.gate}}
        for p in props
    ]
    gate = {p.key: p.gate for p in props}
    results = []
    for r in (*rep.results, *rep.kernel_results):
        if r.verdict not in ("FAILED", "HAZARD"):
            continue
        res: dict = {
            "ruleId": r.property,
            "level": "error" if r.verdict == "FAILED" and gate[r.property] else "note",
            "message": {
                "text": f"{r.property} {r.verdict} on {r.profile} ({r.config}): "
                + counterexample_text(r).replace("\n", "; ")
            },
            "properties": {"profile": r.profile, "config": r.config, "verdict": r.verdict},
        }
        if r.counterexample:
            res["locations"] = [
                {"physicalLocation": {"artifactLocation": {"uri": r.counterexample}}}
            ]
        results.append(res)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "offlab verify", "rules": rules}},
                "results": results,
            }
        ],
    }


def write_sarif(path: str, rep: Report) -> None:
    _atomic(path, (json.dumps(sarif(rep), indent=2) + "\n").encode())
