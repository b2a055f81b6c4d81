"""Checks on a scenario file before the simulator runs it: the file itself (regular, bounded,
no YAML aliases) and the work it asks for (simulated seconds x line rate), so a file from
someone else cannot make a run take hours or the machine's memory (docs/security.md)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from . import safeio
from ._core import OfflabError, builtin_profile

# Ethernet framing around each frame on the wire: preamble+SFD 8, FCS 4, inter-frame gap 12
# (IEEE 802.3 clause 4.4.2), added to the L2 header+payload the simulator counts.
_L1_OVERHEAD = 24
_L2_HEADER = 14


def _number(doc: dict[str, Any], key: str, where: str, default: float) -> float:
    v = doc.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise OfflabError(f"{where}: '{key}' must be a number")
    return float(v)


def _link_gbps(doc: dict[str, Any], where: str) -> float:
    link = _number(doc, "link_gbps", where, 0.0)
    if link > 0:
        return link
    nic = doc.get("nic", "connectx6dx")
    if not isinstance(nic, str):
        raise OfflabError(f"{where}: 'nic' must be a built-in NIC profile name")
    # The simulator takes built-in profiles only (sim/helper/topology.cc SetProfile).
    return float(builtin_profile(nic).link_gbps)


def _smallest_frame(doc: dict[str, Any], where: str) -> int:
    gen = doc.get("generator")
    if isinstance(gen, dict):
        sizes = gen.get("frame_size", 64)
        if sizes == "imix":
            return 64
        values = sizes if isinstance(sizes, list) else [sizes]
        nums = [v for v in values if isinstance(v, int) and not isinstance(v, bool) and v > 0]
        # frame_size counts the FCS (pktgen's convention); the preamble and gap remain.
        return min(nums, default=64) + _L1_OVERHEAD - 4
    mtu = _number(doc, "mtu", where, 1500)
    # TCP guests send MTU-sized frames; a window's tail or ACK may be smaller, which the
    # bound ignores: it is an order of magnitude, not a prediction.
    return int(mtu) + _L2_HEADER + _L1_OVERHEAD


def wire_frames(doc: dict[str, Any], path: Path, duration: float | None = None) -> float:
    """Frames one direction of the scenario's link carries at line rate over its duration."""
    where = f"scenario {path}"
    secs = duration if duration is not None else _number(doc, "duration_s", where, 1.0)
    gbps = _link_gbps(doc, where)
    return secs * gbps * 1e9 / (8 * _smallest_frame(doc, where))


def check_scenario(path: str | os.PathLike[str], duration: float | None = None) -> None:
    """Refuses a scenario file that is not a bounded, alias-free YAML mapping, or whose
    simulated duration at line rate exceeds the frame ceiling."""
    p = Path(path)
    doc = safeio.load_yaml(p, "scenario")
    if not isinstance(doc, dict):
        raise OfflabError(f"scenario {p}: expected a mapping of scenario fields")
    frames = wire_frames(doc, p, duration)
    cap = safeio.limit("sim_wire_frames")
    if frames > cap:
        env = safeio.LIMITS["sim_wire_frames"][0]
        raise OfflabError(
            f"scenario {p}: 'duration_s' at line rate is {frames:.3g} wire frames, over the "
            f"limit of {cap:.3g} (shorten duration_s, or raise the limit with {env})"
        )


__all__ = ["check_scenario", "wire_frames"]
