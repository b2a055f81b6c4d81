"""``offlab demo``: the built-in default job, written up as a report.

1. Open vSwitch's checksum-offload test recipes through the core, every frame
   compared with what OVS puts on the wire;
2. the verifier's proofs for every NIC profile, and one seeded historical bug
   caught with a counterexample trace;
3. the simulator's default scenario, and a kernel host (seed 1: an 82599 under
   RHEL 7 with and without the VXLAN outer checksum);
4. a small sweep (the seed talk's three OVS steps on four NICs), plotted, with
   the talk's published ConnectX-6 Dx numbers beside the simulated ones.

Writes OUT/report.html (self-contained) and OUT/report.md with its figures.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import _core
from ._core import OfflabError
from .demo_kernel import kernel_seed
from .recipes import Recipe, all_recipes, matches
from .report import Figure, Report, Table, verdict_table, write

# The seed talk's ConnectX-6 Dx runs (Geneve with the outer UDP checksum, one
# PMD thread): goodput in Gbit/s and sender PMD CPU %.
PUBLISHED = {
    "cx6dx-geneve-csum-before": ("OVS before the checksum series", 6.08, 100.0),
    "cx6dx-geneve-csum-optimised": ("payload-independent outer UDP checksum", 7.31, 100.0),
    "cx6dx-geneve-csum-hw-tso": ("+ partial GSO, hardware TSO", 10.4, 37.0),
}
SEEDED_BUG = ("intel-outer-udp-unseeded", "e810")


def _verdicts(frame: bytes) -> str:
    d = _core.dissect(frame)
    parts = []
    for c in d.checksums:
        where = f"{'inner ' * c.depth}{c.layer}"
        parts.append(f"{where} {c.value:04x} {_core.verdict_name(c.verdict)}")
    if d.error:
        parts.append(f"[{d.error}]")
    return ", ".join(parts) if parts else "no checksums"


def run_recipe(recipe: Recipe, out: list[str], verbose: bool) -> tuple[int, int]:
    """Runs one recipe; returns (frames matching OVS, frames expected)."""
    ok = total = 0
    for case in recipe.cases:
        br = recipe.build()
        sent = br.receive(case.rx_port, bytes.fromhex(case.frame), case.meta)
        total += max(len(case.expect), len(sent))
        out.append(f"  {case.label}: {len(sent)} frame(s) out, OVS expects {len(case.expect)}")
        for i, s in enumerate(sent):
            got = s.frame.hex()
            exp = case.expect[i] if i < len(case.expect) else None
            good = exp is not None and matches(exp, got)
            ok += good
            mark = "matches OVS" if good else "DIFFERS from OVS"
            out.append(
                f"    -> {s.port} {len(s.frame)} B, handed to NIC as [{s.offloads.describe()}]"
            )
            out.append(f"       wire: {_verdicts(s.frame)}; {mark}")
            if verbose or not good:
                out.append(f"       got      {got}")
                if exp is not None and not good:
                    out.append(f"       expected {exp}")
        for ev in br.events:
            out.append(f"    event: {ev}")
    return ok, total


def _recipes(rep: Report, verbose: bool) -> bool:
    sec = rep.add("Open vSwitch's checksum-offload recipes")
    sec.paragraphs.append(
        "Each recipe of OVS's tests/dpif-netdev.at and tests/tunnel-push-pop.at runs through "
        "offlab's datapath: the status word handed to the NIC, every checksum recomputed from "
        "the wire bytes, and whether the frame is byte-identical to what OVS emits."
    )
    lines: list[str] = []
    rows = []
    ok = total = 0
    for recipe in all_recipes():
        lines.append(f"{recipe.name}  ({recipe.source})")
        r_ok, r_total = run_recipe(recipe, lines, verbose)
        rows.append([recipe.name, recipe.source, str(len(recipe.cases)), f"{r_ok}/{r_total}"])
        ok += r_ok
        total += r_total
    summary = f"{ok}/{total} output frames byte-identical to Open vSwitch's expected frames"
    lines += ["", summary]
    print("\n".join(lines))
    sec.paragraphs.append(summary + ".")
    sec.blocks.append(Table(["recipe", "source", "cases", "frames identical to OVS"], rows))
    sec.blocks.append("\n".join(lines))
    return ok == total


def _proofs(rep: Report, out: Path) -> bool:
    from .verification import PROPERTIES, verify

    r = verify(out=str(out / "counterexamples"))
    sec = rep.add("Proofs: never fixes a bad checksum, always fixes a partial one")
    sec.paragraphs.append(
        f"The transition relation of every datapath operation was extracted from the compiled "
        f"core and Z3 proved each property for unbounded operation sequences, for "
        f"{len(r.profiles)} NIC profiles and both tunnel checksum settings, in {r.seconds:.1f} s."
    )
    cell: dict[tuple[str, str], str] = {}
    for res in r.results:
        prev = cell.get((res.property, res.profile), "PROVED")
        cell[(res.property, res.profile)] = prev if prev != "PROVED" else res.verdict
    keys = [p.key for p in PROPERTIES]
    sec.blocks.append(verdict_table(cell, keys, list(r.profiles), "property x NIC profile"))
    sec.blocks.append(Table(["property", "meaning"], [[p.key, p.title] for p in PROPERTIES]))
    sec.blocks.append(
        Table(
            ["lemma", "verdict", "seconds", "statement"],
            [[lm.key, lm.verdict, f"{lm.seconds:.2f}", lm.title] for lm in r.lemmas],
            "byte-level checksum lemmas",
        )
    )
    cov = r.coverage
    sec.paragraphs.append(
        "Extracted relation: "
        + "; ".join(
            f"{c['config']}: {c['states']} states, {c['transitions']} transitions over "
            f"{c['operations']} operations"
            for c in cov
        )
        + "."
    )
    gre = (
        "wrong on the wire, as in OVS (docs/verification.md explains why it is reported, "
        "not proved)"
        if r.gre_failed
        else "correct"
    )
    sec.paragraphs.append(
        f"GRE checksum after software segmentation of a tunnel TSO packet: {gre}."
    )
    if r.kernel_results:
        _kernel_proofs(sec, r)
    verdicts = ", ".join(sorted({v for v in cell.values()}))
    print(f"proofs: {'all proved' if r.ok else 'NOT all proved'} ({verdicts}) in {r.seconds:.1f} s")
    return r.ok


def _kernel_proofs(sec, r) -> None:  # noqa: ANN001
    """The same proofs over the Linux kernel model (docs/verification.md, K0-K4)."""
    from offlab_verify.kernel.properties import KERNEL_PROPERTIES

    profiles = sorted({x.profile for x in r.kernel_results})
    cell: dict[tuple[str, str], str] = {}
    for x in r.kernel_results:
        key = (x.property, x.profile)
        prev = cell.get(key, "PROVED")
        if x.verdict == "HAZARD":
            mark = "PROVED*" + x.invariant
            cell[key] = prev if prev not in ("PROVED",) else mark
        elif x.verdict != "PROVED":
            cell[key] = x.verdict
        else:
            cell.setdefault(key, "PROVED")
    keys = [p.key for p in KERNEL_PROPERTIES]
    sec.blocks.append(verdict_table(cell, keys, profiles, "Linux kernel model x NIC"))
    sec.blocks.append(Table(["property", "meaning"], [[p.key, p.title] for p in KERNEL_PROPERTIES]))
    sec.paragraphs.append(
        "Kernel model: PROVED*H1/H2/H3 means proved once a hazard of the kernel's own is left "
        "out (openvswitch.ko set actions on encapsulated CHECKSUM_PARTIAL skbs; "
        "inet_proto_csum_replace16 before v5.5; set_udp on a zero-checksum COMPLETE skb); K0 "
        "reports drivers that vouch for checksums they did not check (i40e's tunnel "
        "csum_level, ibmveth's hypervisor flag)."
    )


def _seeded_bug(rep: Report, out: Path) -> bool:
    from . import sim, trace
    from .verification import verify

    bug, profile = SEEDED_BUG
    r = verify(profiles=[profile], inject=[bug], out=str(out / "counterexamples"), lemmas=False)
    failed = [x for x in r.results if x.verdict == "FAILED"]
    sec = rep.add(f"A seeded bug: {bug}")
    sec.paragraphs.append(
        f"With the historical bug {bug} ({_core.fault_project(bug)} "
        f"{_core.fault_commit(bug)}) turned on, the verifier finds {len(failed)} failing "
        f"property-setting pair(s) on the {profile} profile. Each counterexample is an offlab "
        "trace (pcapng): open it in Wireshark, replay it in the simulator with "
        "`offlab sim --replay FILE [--inject BUG]`, or onto a NIC with `offlab replay tx`."
    )
    rows = [
        [x.property, x.config, " → ".join(op for op, _ in x.trace), x.trace[-1][1].describe()]
        for x in failed
    ]
    sec.blocks.append(Table(["property", "setting", "operations", "final state"], rows))
    cex = [Path(p) for p in r.counterexamples if Path(p).name.startswith(("P1", "P2"))]
    detail = []
    for path in cex[:1]:
        records = trace.read(path)
        tx = next(rec for rec in records if rec.role == "tx")
        nic = _core.builtin_profile(profile)
        for rec in records:
            if rec.role == "wire":
                detail.append(f"{path.name}: the frame on the wire of the {profile}")
                detail.append(f"  {_verdicts(rec.frame)}")
        # The same tx record through the core again, with and without the bug.
        for on in (True, False):
            _core.clear_faults()
            if on:
                _core.enable_fault(bug)
            try:
                frames, _ = trace.predict(tx, nic)
            finally:
                _core.clear_faults()
            label = "with the bug" if on else "with the fix"
            for f in frames:
                detail.append(f"replayed {label}: {_verdicts(f.bytes())}")
        # And through the simulator: a simulated NIC, cable and receiving NIC.
        for faults, label in (([bug], "with the bug"), ([], "with the fix")):
            run = sim.replay(path, out / "replay" / ("bug" if faults else "fix"), inject=faults)
            received = "; ".join(r.split(", ", 1)[-1] for r in run["received"])
            detail.append(
                f"simulated {label}: {run['wire_frames']} frame(s) on the wire, "
                f"{run['wrong_frames']} with a wrong checksum; the receiving {run['rx_nic']} "
                f"reports {received or 'nothing'}"
            )
    if detail:
        sec.blocks.append("\n".join(detail))
    sec.paragraphs.append("Counterexample files: " + ", ".join(str(p) for p in r.counterexamples))
    print(f"seeded bug {bug}: {len(failed)} counterexample(s) on {profile}")
    return bool(failed)


def _scenario(rep: Report, out: Path) -> bool:
    from . import sim

    r = sim.run("default", out / "sim")
    text = sim.format_table(r)
    print(text)
    sec = rep.add("Simulator: the default scenario")
    sec.paragraphs.append(
        "Two hosts, each an OVS userspace datapath with one PMD thread and a physical NIC; a VM "
        "on each sends bulk TCP to its peer over the overlay. Every checksum, segment and "
        "offload decision comes from the core on real bytes; the CPU model is calibrated on "
        "the seed talk's ConnectX-6 Dx runs (docs/simulator.md)."
    )
    sec.blocks.append(text)
    return r["goodput_gbps"] > 0


def _sweep(rep: Report, out: Path) -> bool:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from . import sweep

    name = "ovs-steps"
    table = sweep.run(name, out / "sweep", log=lambda m: print(m, file=sys.stderr))
    spec = sweep.load(name)
    sec = rep.add(f"Sweep: {name}")
    sec.paragraphs.append(spec.description + ".")
    header = [*spec.vary, "Gbit/s", "sender PMD %", "receiver PMD %", "status"]
    rows = [
        [str(row[k]) for k in spec.vary]
        + [
            f"{row['goodput_gbps']:.2f}",
            f"{row['sender_pmd_cpu_pct']:.0f}",
            f"{row['receiver_pmd_cpu_pct']:.0f}",
            row["status"],
        ]
        for _, row in table.iterrows()
    ]
    sec.blocks.append(Table(header, rows))
    cx6 = table[table["nic"] == "connectx6dx"].set_index("base")
    cmp_rows = []
    labels, pub, simulated = [], [], []
    for base, (label, gbps, cpu) in PUBLISHED.items():
        got = cx6.loc[base]
        cmp_rows.append(
            [
                label,
                f"{gbps:g}",
                f"{got['goodput_gbps']:.2f}",
                f"{cpu:g}",
                f"{got['sender_pmd_cpu_pct']:.0f}",
            ]
        )
        labels.append(label.replace(", ", ",\n"))
        pub.append(gbps)
        simulated.append(got["goodput_gbps"])
    sec.blocks.append(
        Table(
            [
                "ConnectX-6 Dx, Geneve + outer UDP checksum",
                "published Gbit/s",
                "simulated Gbit/s",
                "published CPU %",
                "simulated CPU %",
            ],
            cmp_rows,
            "the seed talk's measurements beside the simulation (short runs here; "
            "docs/simulator.md has the 1 s calibration runs)",
        )
    )
    fig, ax = plt.subplots(figsize=(8, 3.6))
    x = range(len(labels))
    ax.bar([i - 0.2 for i in x], pub, 0.4, label="published (seed talk)", color="#9aa7b5")
    ax.bar([i + 0.2 for i in x], simulated, 0.4, label="simulated", color="#3b6ea8")
    ax.set_xticks(list(x), labels, fontsize=8)
    ax.set_ylabel("goodput (Gbit/s)")
    ax.set_title("ConnectX-6 Dx: published vs simulated")
    ax.legend()
    fig.tight_layout()
    published_png = out / "sweep" / "published-vs-simulated.png"
    fig.savefig(published_png, dpi=110)
    plt.close(fig)
    sec.blocks.append(
        Figure(published_png, "ConnectX-6 Dx: the talk's numbers and the simulator's")
    )
    sec.blocks.append(Figure(out / "sweep" / "goodput.png", "goodput per NIC and OVS step"))
    sec.blocks.append(Figure(out / "sweep" / "cpu.png", "PMD CPU per NIC and OVS step"))
    print(sweep.summary(table, list(spec.vary)))
    return bool((table["status"] == "ok").all())


def main(args: argparse.Namespace | None = None) -> int:
    verbose = bool(getattr(args, "verbose", False))
    out = Path(getattr(args, "out", None) or Path("offlab-out") / "demo")
    out.mkdir(parents=True, exist_ok=True)
    rep = Report("offlab demo")
    overview = rep.add("Summary")
    steps: list[tuple[str, Callable[[], bool]]] = [
        ("OVS recipes", lambda: _recipes(rep, verbose)),
        ("proofs", lambda: _proofs(rep, out)),
        ("seeded bug", lambda: _seeded_bug(rep, out)),
    ]
    have_sim = _have_simulator()
    if have_sim is None:
        steps += [
            ("default scenario", lambda: _scenario(rep, out)),
            ("kernel host", lambda: kernel_seed(rep, out)),
            ("sweep", lambda: _sweep(rep, out)),
        ]
    rows: list[list[str]] = []
    ok = True
    for i, (name, step) in enumerate(steps, 1):
        print(f"\n== [{i}/{len(steps)}] {name}", flush=True)
        t = time.perf_counter()
        passed = step()
        ok &= passed
        rows.append([name, "ok" if passed else "FAILED", f"{time.perf_counter() - t:.1f}"])
    if have_sim is not None:
        rows.append(["simulator", f"skipped: {have_sim}", "0"])
    passed = sum(row[1] == "ok" for row in rows)
    overview.paragraphs.append(
        f"{passed} of {len(rows)} steps passed in {sum(float(row[2]) for row in rows):.0f} s. "
        "Each step has its section below; long logs are folded (click to open)."
    )
    overview.blocks.append(Table(["step", "result", "seconds"], rows))
    html_path, md_path = write(rep, out)
    print(f"\nreport: {html_path} (and {md_path.name})")
    return 0 if ok else 1


def _have_simulator() -> Any:
    """None when offlab-sim is available, else why not."""
    from . import sim

    try:
        sim.runner_path()
        return None
    except OfflabError as e:
        return str(e)


if __name__ == "__main__":
    sys.exit(main())
