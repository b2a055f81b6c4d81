"""The kernel half of `offlab verify`'s printed report."""

from __future__ import annotations

import offlab
from offlab import kernel as k

from ..prove import Result
from .hazards import HAZARDS
from .properties import KERNEL_PROPERTIES


def kernel_view_of(profile: offlab.NicProfile) -> bool:
    """Whether the profile describes a Linux driver (pcap and dummy do not)."""
    try:
        k.kernel_view(profile)
    except offlab.OfflabError:
        return False
    return True


def kernel_report(results: list[Result], coverage: list[dict]) -> str:
    profiles = sorted({r.profile for r in results})
    configs = sorted({r.config for r in results})
    width = max(len(p) for p in profiles) + 2
    states = sum(c["states"] for c in coverage)
    trans = sum(c["transitions"] for c in coverage)
    lines = [
        f"Linux kernel model: {len(profiles)} NIC profiles x {len(configs)} settings "
        f"({', '.join(configs)}); {states} states, {trans} transitions extracted",
        f"{'property':<10}" + "".join(f"{p:>{width}}" for p in profiles),
    ]
    used: set[str] = set()
    for prop in KERNEL_PROPERTIES:
        row = f"{prop.key:<10}"
        for prof in profiles:
            rs = [r for r in results if r.property == prop.key and r.profile == prof]
            failed = [r for r in rs if r.verdict not in ("PROVED", "HAZARD")]
            hz = sorted({h for r in rs if r.verdict == "HAZARD" for h in r.invariant.split(",")})
            used.update(hz)
            proved = "PROVED" + (f"*{'+'.join(hz)}" if hz else "")
            cell = failed[0].verdict if failed else proved
            row += f"{cell:>{width}}"
        lines.append(row + f"  {prop.title}")
    for r in results:
        if r.verdict == "FAILED":
            gate = next(p for p in KERNEL_PROPERTIES if p.key == r.property).gate
            lines.append(
                f"{'FAILED' if gate else 'finding'} {r.property} on {r.profile} ({r.config}): "
                + " -> ".join(op for op, _ in r.trace)
            )
    for h in HAZARDS:
        if h.key in used:
            lines.append(f"*{h.key}: proved once the kernel's own hazard is left out: {h.title}")
            lines.append(f"     source: {h.source}")
    return "\n".join(lines)
