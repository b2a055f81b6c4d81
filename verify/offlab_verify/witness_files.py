"""Witness files: concrete packets that join the extraction's witness set.

The conformance fuzzer (offlab_verify.conformance) writes one when the core
takes a transition the extracted relation does not have: an offlab trace
(pcapng) whose first record is the packet as the datapath (or, for a frame
still on the wire, the NIC) receives it, with its start in the record's
comment, followed by the packet after each operation. `offlab verify
--witnesses PATH` loads such files (PATH a file or a folder of them), and the
files in the checked-in corpus (witness_corpus/ next to this module) are
always loaded. Their witnesses are pinned: they run through every operation
of every state they reach, in addition to the generated ones, so the
extraction sees the transition the fuzzer saw (or, where the abstraction
cannot tell the packets apart, stops as too coarse)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import offlab
from offlab import trace as trace_format

from .abstraction import STATUS_NAMES, State
from .receive import arriving
from .witnesses import Witness, received, wire_frame

CORPUS = Path(__file__).parent / "witness_corpus"
SUFFIXES = (".pcapng", ".pcap")

Witnesses = dict[State, list[Witness]]


def witness_meta(start: str, encap: int, claims: tuple[int, int], segsz: int) -> dict[str, Any]:
    """The first record's comment: how the packet enters (`received`: the
    datapath with these status claims; `arriving`: a frame on the wire)."""
    return {
        "witness": {
            "start": start,
            "encap": encap,
            "claims": [STATUS_NAMES[claims[0]], STATUS_NAMES[claims[1]]],
            "tso_segsz": segsz,
        }
    }


def _files(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    corpus = [str(CORPUS)] if CORPUS.is_dir() else []  # absent from a stripped install
    for p in [*corpus, *paths]:
        path = Path(p)
        if path.is_dir():
            out.extend(sorted(f for f in path.iterdir() if f.suffix in SUFFIXES))
        elif path.is_file():
            out.append(path)
        else:
            raise offlab.OfflabError(f"witness file {p}: no such file or folder")
    return out


def _one(path: Path) -> tuple[str, State, Witness]:
    records = trace_format.read(path)
    if not records:
        raise offlab.OfflabError(f"witness file {path}: no packets")
    frame, meta = records[0].frame, records[0].meta
    spec = meta.get("witness") if isinstance(meta, dict) else None
    if not isinstance(spec, dict) or spec.get("start") not in ("received", "arriving"):
        raise offlab.OfflabError(f"witness file {path}: its first packet is not a witness")
    try:
        encap = int(spec["encap"])
        segsz = int(spec["tso_segsz"])
        ip_st, l4_st = (STATUS_NAMES.index(c) for c in spec["claims"])
    except (KeyError, TypeError, ValueError):
        raise offlab.OfflabError(f"witness file {path}: malformed witness record") from None
    w = wire_frame(frame, encap, segsz)
    if spec["start"] == "arriving":
        return "arriving", arriving(w), Witness(offlab.Packet(frame), frame, (), pinned=True)
    p, s = received(w, ip_st, l4_st)
    return "received", s, Witness(p, frame, (), pinned=True)


def load_witnesses(paths: list[str]) -> tuple[Witnesses, Witnesses]:
    """(received, arriving) pinned witnesses of the corpus and `paths`, by
    state. Raises OfflabError naming a file that is missing or not a witness."""
    got: dict[str, Witnesses] = {"received": {}, "arriving": {}}
    for path in _files(paths):
        try:
            start, s, w = _one(path)
        except (OSError, ValueError) as e:
            raise offlab.OfflabError(f"witness file {path}: {e}") from None
        got[start].setdefault(s, []).append(w)
    return got["received"], got["arriving"]
