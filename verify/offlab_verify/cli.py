"""``offlab verify``: the property x profile table, with counterexamples."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field

import offlab
from offlab.safeio import safe_name

from .counterexample import replay, write_pcapng
from .extract import VNET_DRIVERS, Config, TooCoarse, extract, extract_send
from .gre import gre_counterexample
from .kernel.properties import KERNEL_PROPERTIES
from .kernel.report import kernel_report, kernel_view_of
from .kernel.run import verify_kernel, write_counterexamples
from .lemmas import prove_lemmas
from .properties import PROPERTIES
from .prove import Result, prove_all


def add_arguments(p: argparse.ArgumentParser) -> None:
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
    p.add_argument("--timeout", type=float, default=20.0, help="seconds per proof")
    p.add_argument("--no-lemmas", action="store_true", help="skip the byte-level lemmas")
    p.add_argument(
        "--no-kernel", action="store_true", help="skip the Linux kernel model's properties"
    )


def _profiles(names: list[str] | None) -> list[offlab.NicProfile]:
    if not names:
        return [offlab.builtin_profile(n) for n in offlab.builtin_profile_names()]
    out = []
    for n in names:
        if n.endswith((".yaml", ".yml")):
            prof = offlab.load_profile_file(n)
            # The name becomes part of counterexample file names.
            safe_name(prof.name, f"profile {n}: name")
            out.append(prof)
        else:
            out.append(offlab.builtin_profile(n))
    return out


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

    def to_json(self) -> dict:
        return {
            "ok": self.ok,
            "seconds": self.seconds,
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
) -> Report:
    """Proves every property for every profile; FAILED ones write their
    counterexample pcapng to `out`. Raises OfflabError for a bad profile or
    fault name, TooCoarse when the abstraction cannot decide a transition."""
    t_start = time.perf_counter()
    profs = _profiles(profiles)  # raises OfflabError for a bad name or file
    offlab.clear_faults()
    try:
        for bug in inject:
            offlab.enable_fault(bug)
        settings = {"on": (True,), "off": (False,), "both": (False, True)}[csum]
        configs = [Config(csum=c) for c in settings]
        results: list[Result] = []
        coverage = []
        written: list[str] = []
        for cfg in configs:
            ex = extract(cfg)
            coverage.append(
                {
                    "config": cfg.name,
                    "initial_states": len(ex.init),
                    "states": len(ex.states()),
                    "transitions": len(ex.trans),
                    "operations": len({op for _, op in ex.trans}),
                }
            )
            for prof in profs:
                sends = extract_send(ex, prof)
                edges = dict(ex.trans)
                edges.update({(s, "send"): t for s, t in sends.items()})
                for r in prove_all(
                    ex.init, edges, PROPERTIES, prof.name, cfg.name, int(timeout * 1000)
                ):
                    results.append(r)
                    if r.verdict == "FAILED" and r.trace:
                        nic = offlab.NicTx.from_profile(prof)
                        steps = replay(ex, r.trace, nic, prof.driver in VNET_DRIVERS)
                        path = os.path.join(
                            out, f"{r.property}-{prof.name}-{cfg.name.replace('=', '-')}.pcapng"
                        )
                        meta = {
                            "property": r.property,
                            "profile": prof.name,
                            "config": cfg.name,
                            "faults": ",".join(inject),
                        }
                        write_pcapng(path, steps, meta)
                        written.append(path)
    finally:
        offlab.clear_faults()

    gre = gre_counterexample(tso=True)
    if gre:
        path = os.path.join(out, "GRE-checksum-tso-fallback.pcapng")
        write_pcapng(path, gre, {"property": "GRE", "profile": "pcap", "config": "csum=on"})
        written.append(path)
    proved_lemmas = prove_lemmas(int(timeout * 1000)) if lemmas else []
    gate = {p.key for p in PROPERTIES if p.gate}
    ok = all(r.verdict == "PROVED" for r in results if r.property in gate) and all(
        lm.verdict == "PROVED" for lm in proved_lemmas
    )
    kres: list[Result] = []
    kcov: list[dict] = []
    if kernel:
        kprofs = [p.name for p in profs if kernel_view_of(p)]
        if kprofs:
            kres, kex, kerr = verify_kernel(kprofs)
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
    )


def run(args: argparse.Namespace) -> int:
    try:
        rep = verify(
            args.profile,
            args.inject,
            args.csum,
            args.out,
            args.timeout,
            not args.no_lemmas,
            not args.no_kernel,
        )
    except TooCoarse as e:
        print(f"offlab verify: error: abstraction too coarse: {e}", file=sys.stderr)
        return 2
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
