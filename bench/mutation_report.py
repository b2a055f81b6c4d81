"""The mutation bench's record and report: one judged mutant (`Mutant`), the
outcomes, and the report with the reviewed survivors' reasons
(bench/mutation_survivors.json). Used by bench/mutation_bench.py."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUTCOMES = ("stillborn", "equivalent", "tests", "verify", "python", "survived")


@dataclass
class Mutant:
    file: str  # relative to the tree, e.g. models/src/ovs/rewrite.cc
    index: int  # universalmutator's mutant number
    line: int
    before: str
    after: str
    outcome: str = ""  # one of OUTCOMES
    seconds: float = 0.0
    killed_by: str = ""  # the Python stage's first failing test


def reasons() -> list[dict]:
    """Reviewed survivors (bench/mutation_survivors.json): why each survived,
    matched by file and change (and by line when the entry gives one: an
    inserted line reads the same wherever it goes), so they carry over
    between commits. A reason starting "equivalent" takes the mutant out of
    the score's denominator, as an equivalent mutant the object-code
    comparison missed."""
    path = REPO / "bench" / "mutation_survivors.json"
    return json.loads(path.read_text()) if path.exists() else []


def reason_for(m: Mutant, known: list[dict]) -> str:
    for r in known:
        if (r["file"], r["before"], r["after"]) == (m.file, m.before, m.after) and r.get(
            "line", m.line
        ) == m.line:
            return r["reason"]
    return "not reviewed"


def report(done: list[Mutant]) -> None:
    count = {k: sum(m.outcome == k for m in done) for k in OUTCOMES}
    killed = count["tests"] + count["verify"] + count["python"]
    scored = killed + count["survived"]
    print()
    print(f"mutants drawn: {len(done)}; stillborn (do not compile): {count['stillborn']}")
    print(f"equivalent (same object code): {count['equivalent']}")
    print(f"killed by the C++ tests: {count['tests']}; by offlab verify: {count['verify']}; "
          f"by the oracle Python tests: {count['python']}")  # fmt: skip
    if scored:
        print(f"score: {killed}/{scored} = {100 * killed / scored:.1f} % of non-equivalent mutants")
    for m in done:
        if m.outcome == "python":
            print(f"  by the Python tests: {m.file}:{m.line}: {m.killed_by}")
    survivors = [m for m in done if m.outcome == "survived"]
    if not survivors:
        return
    known = reasons()
    reviewed_equivalent = 0
    print("survivors:")
    for m in survivors:
        reason = reason_for(m, known)
        reviewed_equivalent += reason.startswith("equivalent")
        print(f"  {m.file}:{m.line}: {m.before!r} -> {m.after!r}\n      {reason}")
    if reviewed_equivalent and scored > reviewed_equivalent:
        rest = scored - reviewed_equivalent
        print(f"score without the {reviewed_equivalent} reviewed as equivalent: "
              f"{killed}/{rest} = {100 * killed / rest:.1f} %")  # fmt: skip
