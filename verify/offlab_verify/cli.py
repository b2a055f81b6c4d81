"""``offlab verify``: the property x profile table, with counterexamples."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field

import offlab

from .corner_report import corner_lines
from .counterexample import write_pcapng
from .extract import TooCoarse
from .gre import gre_counterexample
from .junit import check_output, write_junit, write_sarif
from .kernel.properties import KERNEL_PROPERTIES
from .kernel.report import kernel_report, kernel_view_of
from .kernel.run import kernel_collect, kernel_work, write_counterexamples
from .properties import PROPERTIES
from .prove import METHODS, Result
from .relation import write_relation
from .run import default_workers, kernel_job, lemmas_job, load_profiles, run_jobs, user_job
from .witness_files import load_witnesses

EXIT_CODES = """exit status:
  0   every gating property and lemma proved (kernel: at most through a
      documented kernel hazard)
  1   a gating property failed (counterexamples written to --out) or a lemma
      was not proved
  2   bad input (profile, fault, option, output file) or an abstraction too
      coarse to decide a transition
  70  internal error of offlab's"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.epilog = EXIT_CODES
    p.add_argument(
        "--profile",
        action="append",
        help="NIC profile name or .yaml file (repeatable; default: all)",
    )
    p.add_argument(
        "--inject", action="append", default=[], help="turn on a seeded bug (see `offlab faults`)"
    )
    p.add_argument(
        "--csum", choices=("on", "off", "both"), default="both", help="outer UDP/GRE checksum"
    )
    p.add_argument("--json", action="store_true", help="print results as JSON")
    p.add_argument("--out", default="verify-out", help="directory for counterexample pcapng files")
    p.add_argument(
        "--method",
        choices=METHODS,
        default="search",
        help="search: explicit reachable set of the extracted relation (default); "
        "z3: Z3 Horn clauses (Spacer; datalog for the kernel model), a cross-check",
    )
    p.add_argument("--timeout", type=float, default=20.0, help="seconds per Z3 proof")
    p.add_argument(
        "--jobs", type=int, default=0, help="worker processes (default: one per core, at most 4)"
    )
    p.add_argument("--junit", metavar="FILE", help="also write JUnit XML: one test case per "
                   "property x profile x setting, and per lemma")  # fmt: skip
    p.add_argument("--sarif", metavar="FILE", help="also write SARIF 2.1.0: one result per "
                   "failed property x profile x setting")  # fmt: skip
    p.add_argument("--export-relation", metavar="FILE", help="also write the extracted "
                   "relation (states, operations, transitions per setting and profile) as "
                   "JSON, for the conformance fuzzer")  # fmt: skip
    p.add_argument("--witnesses", metavar="PATH", action="append", default=[],
                   help="witness file, or folder of them, the extraction adds to its "
                   "witnesses (repeatable; the checked-in corpus is always added)")  # fmt: skip
    p.add_argument("--corners", action="store_true", help="list the corners (directed "
                   "witnesses) each extracted state covered")  # fmt: skip
    p.add_argument("--no-lemmas", action="store_true", help="skip the byte-level lemmas")
    p.add_argument(
        "--no-kernel", action="store_true", help="skip the Linux kernel model's properties"
    )


@dataclass
class Report:
    """Everything one verifier run found."""

    profiles: list[str]
    faults: list[str]
    results: list[Result]
    coverage: list[dict]
    lemmas: list
    gre_failed: bool
    counterexamples: list[str]
    seconds: float
    ok: bool
    kernel_results: list[Result] = field(default_factory=list)
    kernel_coverage: list[dict] = field(default_factory=list)
    method: str = "search"

    def to_json(self) -> dict:
        return {
            "ok": self.ok,
            "seconds": self.seconds,
            "method": self.method,
            "faults": self.faults,
            "coverage": self.coverage,
            "results": [
                {
                    **{k: v for k, v in asdict(r).items() if k not in ("trace", "invariant")},
                    "trace": [op for op, _ in r.trace],
                }
                for r in self.results
            ],
            "lemmas": [asdict(lm) for lm in self.lemmas],
            "gre_checksum": "FAILED" if self.gre_failed else "PROVED-CONCRETE",
            "counterexamples": self.counterexamples,
            "kernel": {
                "coverage": self.kernel_coverage,
                "results": [
                    {
                        **{k: v for k, v in asdict(r).items() if k not in ("trace", "invariant")},
                        "hazards": r.invariant.split(",") if r.verdict == "HAZARD" else [],
                        "trace": [op for op, _ in r.trace],
                    }
                    for r in self.kernel_results
                ],
            },
        }


def verify(
    profiles: list[str] | None = None,
    inject: list[str] | tuple[str, ...] = (),
    csum: str = "both",
    out: str = "verify-out",
    timeout: float = 20.0,
    lemmas: bool = True,
    kernel: bool = True,
    method: str = "search",
    jobs: int = 0,
    witnesses: list[str] | tuple[str, ...] = (),
    export_relation: str | None = None,
    corner_states: bool = False,
) -> Report:
    """Proves every property for every profile; FAILED ones write their
    counterexample pcapng to `out`. Raises OfflabError for a bad profile or
    fault name, TooCoarse when the abstraction cannot decide a transition.
    `method` is the proof method (prove.METHODS); `jobs` the worker processes
    (0: one per core); `witnesses` witness files or folders the extraction
    adds (witness_files); `export_relation` a file for the extracted relation;
    `corner_states` lists every state's corners in the coverage."""
    t_start = time.perf_counter()
    if method not in METHODS:
        raise offlab.OfflabError(f"unknown proof method {method!r}")
    profs = load_profiles(profiles)  # raises OfflabError for a bad name or file
    offlab.clear_faults()
    try:
        for bug in inject:
            offlab.enable_fault(bug)  # raises OfflabError for a bad name
    finally:
        offlab.clear_faults()
    load_witnesses(list(witnesses))  # raises OfflabError for a bad file, before any work
    timeout_ms = int(timeout * 1000)
    settings = {"on": (True,), "off": (False,), "both": (False, True)}[csum]
    kprofs = [p.name for p in profs if kernel_view_of(p)] if kernel else []
    same, kwork = kernel_work(kprofs) if kprofs else ({}, [])
    # Largest first: the userspace settings, the lemmas, then the kernel pairs.
    work: list = [
        (
            user_job,
            (
                c,
                profiles,
                list(inject),
                out,
                timeout_ms,
                method,
                tuple(witnesses),
                export_relation is not None,
                corner_states,
            ),
        )
        for c in settings
    ]
    if lemmas:
        work.append((lemmas_job, (timeout_ms,)))
    work += [(kernel_job, (p, cfg, method)) for p, cfg in kwork]
    outs = run_jobs(work, jobs or default_workers())
    results: list[Result] = []
    coverage = []
    written: list[str] = []
    relation = []
    for cov, res, files, rel in outs[: len(settings)]:
        coverage.append(cov)
        results.extend(res)
        written.extend(files)
        relation.append(rel)
    if export_relation is not None:
        write_relation(export_relation, list(inject), relation)
    proved_lemmas = outs[len(settings)] if lemmas else []
    gre = gre_counterexample(tso=True)
    if gre:
        path = os.path.join(out, "GRE-checksum-tso-fallback.pcapng")
        write_pcapng(path, gre, {"property": "GRE", "profile": "pcap", "config": "csum=on"})
        written.append(path)
    gate = {p.key for p in PROPERTIES if p.gate}
    ok = all(r.verdict == "PROVED" for r in results if r.property in gate) and all(
        lm.verdict == "PROVED" for lm in proved_lemmas
    )
    kres: list[Result] = []
    kcov: list[dict] = []
    if kwork:
        kres, kex, kerr = kernel_collect(same, kwork, outs[len(outs) - len(kwork) :])
        if kerr:
            raise TooCoarse(kerr[0])
        kcov = [
            {
                "profile": ex.profile,
                "config": ex.config.name,
                "initial_states": len(ex.init),
                "states": len(ex.states()),
                "transitions": len(ex.trans),
            }
            for ex in kex
        ]
        written.extend(write_counterexamples(kres, kex, out))
        kgate = {p.key for p in KERNEL_PROPERTIES if p.gate}
        ok = ok and all(r.verdict in ("PROVED", "HAZARD") for r in kres if r.property in kgate)
    return Report(
        [p.name for p in profs],
        list(inject),
        results,
        coverage,
        proved_lemmas,
        gre is not None,
        written,
        time.perf_counter() - t_start,
        ok,
        kres,
        kcov,
        method,
    )


def run(args: argparse.Namespace) -> int:
    if args.jobs < 0:
        raise offlab.OfflabError(f"--jobs {args.jobs}: must be 0 (one per core) or more")
    outputs = ((args.junit, "--junit"), (args.sarif, "--sarif"),
               (args.export_relation, "--export-relation"))  # fmt: skip
    for path, what in outputs:
        if path:
            check_output(path, what)
    try:
        rep = verify(
            args.profile,
            args.inject,
            args.csum,
            args.out,
            args.timeout,
            not args.no_lemmas,
            not args.no_kernel,
            args.method,
            args.jobs,
            args.witnesses,
            args.export_relation,
            args.corners,
        )
    except TooCoarse as e:
        print(f"offlab: error: abstraction too coarse: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    if args.junit:
        write_junit(args.junit, rep)
    if args.sarif:
        write_sarif(args.sarif, rep)
    if args.json:
        print(json.dumps(rep.to_json(), indent=2))
    else:
        _table(
            rep.results,
            rep.profiles,
            rep.coverage,
            rep.lemmas,
            rep.gre_failed,
            rep.counterexamples,
            rep.seconds,
            rep.faults,
        )
        if args.corners:
            print()
            print("\n".join(corner_lines(rep.coverage)))
        if rep.kernel_results:
            print()
            print(kernel_report(rep.kernel_results, rep.kernel_coverage))
    return 0 if rep.ok else 1


def _table(results, names, coverage, lemmas, gre_failed, written, elapsed, faults) -> None:  # noqa: ANN001
    cell: dict[tuple[str, str], tuple[str, float, str]] = {}
    for r in results:
        key = (r.property, r.profile)
        prev = cell.get(key, ("PROVED", 0.0, ""))
        verdict = prev[0] if prev[0] != "PROVED" else r.verdict
        note = prev[2] if prev[0] != "PROVED" else (r.config if r.verdict != "PROVED" else "")
        cell[key] = (verdict, prev[1] + r.seconds, note)
    width = max(len(n) for n in names)
    print(
        f"offlab verify{' with ' + ', '.join(faults) if faults else ''}: "
        f"{len(names)} NIC profiles x {len(coverage)} checksum settings"
    )
    for c in coverage:
        print(
            f"  extracted ({c['config']}): {c['initial_states']} initial states, "
            f"{c['states']} states, {c['transitions']} transitions over "
            f"{c['operations']} operations"
        )
    print()
    print(f"{'property':<10}" + "".join(f"{n:>{width + 2}}" for n in names))
    for p in PROPERTIES:
        row = f"{p.key:<10}"
        for n in names:
            v, secs, _ = cell.get((p.key, n), ("-", 0, ""))
            row += f"{(v if v != 'PROVED' else f'ok {secs:.2f}s'):>{width + 2}}"
        print(row + f"  {p.title}")
    print()
    for p in PROPERTIES:
        for n in names:
            v, _, note = cell.get((p.key, n), ("", 0, ""))
            if v == "FAILED":
                trace = next(
                    r.trace
                    for r in results
                    if r.property == p.key and r.profile == n and r.verdict == "FAILED"
                )
                print(f"FAILED {p.key} on {n} ({note}): " + " -> ".join(op for op, _ in trace))
                print(f"       ends in: {trace[-1][1].describe()}")
    for lm in lemmas:
        print(f"lemma {lm.key:<6} {lm.verdict:<8} {lm.seconds:6.3f}s  {lm.title}")
    gre = "WRONG on the wire (OVS behaviour, see docs/verification.md)" if gre_failed else "correct"
    print(f"GRE checksum after software segmentation: {gre}")
    for w in written:
        print(f"counterexample: {w}")
    print(f"done in {elapsed:.1f}s")
