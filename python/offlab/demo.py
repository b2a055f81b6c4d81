"""``offlab demo``: the built-in default job.

Runs Open vSwitch's checksum-offload recipes (R1, R2, R3, R7) through the
semantics core and prints every frame put on the wire with the status word the
datapath handed to the NIC and the checksum verdicts recomputed from the bytes,
next to what OVS puts on the wire.
"""

from __future__ import annotations

import argparse
import os
import sys

from . import _core
from ._core import OfflabError
from .recipes import Recipe, all_recipes, matches


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


def main(args: argparse.Namespace | None = None) -> int:
    verbose = bool(getattr(args, "verbose", False))
    lines: list[str] = []
    ok = total = 0
    for recipe in all_recipes():
        lines.append(f"{recipe.name}  ({recipe.source})")
        r_ok, r_total = run_recipe(recipe, lines, verbose)
        ok += r_ok
        total += r_total
    lines.append("")
    lines.append(f"{ok}/{total} output frames byte-identical to Open vSwitch's expected frames")
    print("\n".join(lines))
    sim_ok = _default_scenario()
    return 0 if ok == total and sim_ok else 1


def _default_scenario() -> bool:
    """The simulator's built-in default scenario (skipped if ns-3 was not built)."""
    from . import sim

    try:
        runner = sim.runner_path()
    except OfflabError as e:
        print(f"\nsimulator: skipped ({e})")
        return True
    print(f"\nsimulator ({runner.name}): the default scenario")
    r = sim.run("default", os.path.join("offlab-out", "sim", "default"))
    print(sim.format_table(r))
    return r["goodput_gbps"] > 0


if __name__ == "__main__":
    sys.exit(main())
