"""Which corners (corners.py) each extracted state covered: the corners of
the frames, as received, whose packets reached it, told from the bytes by
corners.classify (not from the tag a directed witness was solved for), and
the transitions only a directed witness took (``op@corner``)."""

from __future__ import annotations

import functools

from . import corners
from .abstraction import DATAPATH
from .extract import Extraction


@functools.lru_cache(maxsize=8192)
def _classify(origin: bytes, segsz: int) -> frozenset[str]:
    return corners.classify(origin, segsz)


def state_corners(ex: Extraction) -> dict:
    """State -> the corners its witnesses' frames have."""
    out = {}
    for s, ws in ex.witnesses.items():
        if s.phase != DATAPATH:
            continue
        got: set[str] = set()
        for w in ws:
            got |= _classify(w.origin, w.packet.tso_segsz)
        out[s] = got
    return out


def corner_coverage(ex: Extraction, per_state: bool = False) -> dict:
    """The coverage section of one extraction: per corner, how many initial
    and how many datapath states it covered; the initial states no directed
    witness reached; the transitions labelled by a corner; with `per_state`,
    every datapath state's corners (initial ones first)."""
    by_state = state_corners(ex)
    summary = {}
    for prefix in ("", "inner-"):
        for c in corners.CORNERS:
            name = prefix + c.name
            states = sum(1 for got in by_state.values() if name in got)
            if prefix and not states:
                continue  # a tunnel's inner frame: only the corners it has
            summary[name] = {
                "source": c.source,
                "initial_states": sum(1 for s in ex.init if name in by_state.get(s, ())),
                "states": states,
            }
    directed = {s for s, ws in ex.witnesses.items() if any(w.corner for w in ws)}
    labels: dict[str, int] = {}
    for _, op in ex.trans:
        if "@" in op:
            labels[op] = labels.get(op, 0) + 1
    out: dict = {
        "by_corner": summary,
        "initial_states_with_directed_witnesses": len(ex.init & directed),
        "initial_states_without": sorted(s.describe() for s in ex.init - directed),
        "value_dependent_transitions": dict(sorted(labels.items())),
    }
    if per_state:
        order = sorted(by_state, key=lambda s: (s not in ex.init, s))
        out["states"] = [
            {"state": s.describe(), "initial": s in ex.init, "corners": sorted(by_state[s])}
            for s in order
        ]
    return out


def corner_lines(coverage: list[dict]) -> list[str]:
    """The text form (``offlab verify --corners``) of each setting's section."""
    lines = []
    for c in coverage:
        cc = c.get("corners")
        if not cc:
            continue
        n_init = c["initial_states"]
        lines.append(
            f"corners ({c['config']}): directed witnesses in "
            f"{cc['initial_states_with_directed_witnesses']} of {n_init} initial states"
        )
        width = max(len(n) for n in cc["by_corner"])
        for name, v in cc["by_corner"].items():
            lines.append(
                f"  {name:<{width}} {v['initial_states']:>4} initial {v['states']:>5} states"
                f"   {v['source']}"
            )
        for label, n in cc["value_dependent_transitions"].items():
            lines.append(f"  value-dependent: {label} ({n} transitions)")
        for st in cc.get("states", []):
            tag = "initial " if st["initial"] else ""
            lines.append(f"  {tag}[{st['state']}]: {', '.join(st['corners']) or '-'}")
    return lines
