"""Extraction of the transition relation from the compiled core.

Every abstract state keeps several concrete witness packets (different
payloads, lengths and checksum values). Each operation runs on every witness;
if the random witnesses' abstract results disagree the abstraction is too
coarse and extraction stops with TooCoarse rather than picking one.

A directed witness (corners.py) whose result differs adds a transition of
its own, ``op@corner``: the relation over-approximates the core and a
value-dependent bug shows as a path through such a label.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import offlab

from .abstraction import DATAPATH, State
from .evolve import evolve
from .operations import (
    DATAPATH_OPS,
    VNET_DRIVERS,
    Config,
    _enabled,
    apply,
    premise_holds,
    send,
)
from .witnesses import Witness, admits, initial_witnesses, new_pinned


class TooCoarse(Exception):
    """Concrete packets of one abstract state disagree on an operation's result."""


@dataclass
class Extraction:
    config: Config
    init: set[State] = field(default_factory=set)
    trans: dict[tuple[State, str], State] = field(default_factory=dict)
    witnesses: dict[State, list[Witness]] = field(default_factory=dict)
    parent: dict[State, tuple[State | None, str]] = field(default_factory=dict)
    ran: dict[State, int] = field(default_factory=dict)  # witnesses run through the operations

    def states(self) -> set[State]:
        out = set(self.init)
        for (s, _), t in self.trans.items():
            out.add(s)
            out.add(t)
        return out


# ---- exploration --------------------------------------------------------------------------


def agree(results: list[State], what: str | Callable[[], str]) -> State:
    """The common result; `what` (or its result) names the transition if none."""
    first = results[0]
    for r in results[1:]:
        if r != first:
            name = what if isinstance(what, str) else what()
            raise TooCoarse(f"{name}: witnesses disagree: {first.describe()} vs {r.describe()}")
    return first


def _premise(t: State) -> State:
    if t.phase == DATAPATH and not premise_holds(t):
        # Reported, not explored: the properties are proved under the premise.
        return evolve(t, v_premise=1)
    return t


def step(op: str, p: offlab.Packet, s: State, cfg: Config) -> tuple[offlab.Packet | None, State]:
    """One transition as the extraction records it: apply(), and a datapath
    successor outside the proofs' premise marked (reported, not explored)."""
    q, t = apply(op, p, s, cfg)
    return q, _premise(t)


def extract(
    cfg: Config,
    ops: tuple[str, ...] = DATAPATH_OPS,
    extra: dict[State, list[Witness]] | None = None,
) -> Extraction:
    """Explores every abstract state reachable from the initial ones (`extra`:
    pinned witnesses from witness files, added to the generated ones)."""
    ex = Extraction(cfg)
    for s, ws in initial_witnesses(extra).items():
        ex.init.add(s)
        ex.witnesses[s] = ws
        ex.parent[s] = (None, "receive")
    _explore(ex, deque(ex.init), ops)
    return ex


def extend(
    ex: Extraction,
    arrivals: dict[State, tuple[list[Witness], State, str]],
    ops: tuple[str, ...] = DATAPATH_OPS,
) -> None:
    """Explores from datapath states another operation (a NIC's receive)
    reached that the extraction has not seen: arrivals maps each to its
    witnesses and the (state, operation) it came by. The datapath operations
    do not depend on the NIC profile, so every profile may share the result."""
    queue: deque[State] = deque()
    for t, (ws, s, op) in arrivals.items():
        fresh = t not in ex.witnesses
        known = ex.witnesses.setdefault(t, [])
        if fresh:
            ex.parent[t] = (s, op)
            queue.append(t)
        # Explored already: again only for pinned or directed witnesses new to
        # it, as _explore does.
        for w in ws:
            if new_pinned(known, w) if w.pinned else admits(known, w.corner):
                known.append(w)
                if not fresh and (w.pinned or w.corner):
                    queue.append(t)
    _explore(ex, queue, ops)


def base_op(label: str) -> str:
    """The operation of a transition label (``set_l3@corner`` -> ``set_l3``)."""
    return label.split("@", 1)[0]


def _explore(ex: Extraction, queue: deque[State], ops: tuple[str, ...]) -> None:
    """A state runs every operation on its witnesses when first taken from
    the queue; a directed or pinned witness that reaches it later runs them
    then. Random and pinned witnesses must agree (else TooCoarse); a directed
    one whose result differs adds ``op@corner``."""
    cfg = ex.config
    while queue:
        s = queue.popleft()
        start = ex.ran.get(s)
        ws = ex.witnesses[s]
        batch = ws if start is None else [w for w in ws[start:] if w.corner or w.pinned]
        ex.ran[s] = len(ws)
        if not batch:
            continue
        for op in ops:
            if not _enabled(op, s):
                continue
            runs = [(w, *step(op, w.packet, s, cfg)) for w in batch]
            plain = [t for w, _, t in runs if not w.corner]
            what = lambda op=op, s=s: f"{op} from [{s.describe()}]"  # noqa: E731
            if (s, op) not in ex.trans:
                ex.trans[(s, op)] = agree(plain or [runs[0][2]], what)
            elif plain:
                agree([ex.trans[(s, op)], *plain], what)
            usual = ex.trans[(s, op)]
            for w, q, t in runs:
                label = op if t == usual or not w.corner else f"{op}@{w.corner}"
                ex.trans[(s, label)] = t
                if t.phase != DATAPATH:
                    continue
                known = ex.witnesses.setdefault(t, [])
                if t not in ex.parent:
                    ex.parent[t] = (s, label)
                    queue.append(t)
                if q is None:
                    continue
                nw = Witness(q, w.origin, (*w.ops, label), w.corner, w.pinned)
                # A pinned witness is followed everywhere: a state explored
                # before runs its operations again with it.
                if new_pinned(known, nw) if w.pinned else admits(known, w.corner):
                    known.append(nw)
                    if (w.corner or w.pinned) and t in ex.ran:
                        queue.append(t)


def extract_send(
    ex: Extraction,
    profile: offlab.NicProfile,
    corner_edges: dict[tuple[State, str], State] | None = None,
) -> dict[State, State]:
    """The NIC-boundary transition of every reachable datapath state for one NIC
    (a directed witness that ends elsewhere: ``send@corner`` in `corner_edges`)."""
    nic = offlab.NicTx.from_profile(profile)
    vnet = profile.driver in VNET_DRIVERS
    out: dict[State, State] = {}
    for s, ws in ex.witnesses.items():
        # Every packet is parsed before the datapath decides to output it.
        if s.phase != DATAPATH or s.v_premise or not s.parsed or not ws:
            continue
        randoms = [w for w in ws if not w.corner]
        what = lambda s=s: f"send[{profile.name}] from [{s.describe()}]"  # noqa: E731
        out[s] = agree([send(w.packet, s, nic, vnet) for w in randoms or ws[:1]], what)
        if corner_edges is None:
            continue
        for w in ws:
            if w.corner:
                t = send(w.packet, s, nic, vnet)
                if t != out[s]:
                    corner_edges[(s, f"send@{w.corner}")] = t
    return out
