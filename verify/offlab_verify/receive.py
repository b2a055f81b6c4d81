"""The receive side of the alphabet, per NIC profile: `rx` (the NIC's
receive validation and the statuses it hands OVS, the core's NicReceive) and
`gro` (receive coalescing of two consecutive segments of a TCP flow, the
core's Coalesce, for NICs that coalesce: hardware LRO or driver GRO). Both
start from a frame arriving from the wire (phase ARRIVING); their successors
are ordinary datapath states, so every property covers what follows.

A NIC that claims a status the bytes do not support shows up in P3 (good
over a wrong field) or P1 (bad turned good); a merge over a segment with a
wrong checksum sets the sticky v_merge bit that P9 forbids."""

from __future__ import annotations

import struct

import offlab
from offlab import Csum, Level

from .abstraction import ARRIVING, BAD, DATAPATH, PARTIAL, UNKNOWN, State, abstract, facts
from .evolve import evolve
from .extract import Extraction, agree, extend
from .operations import premise_holds
from .witnesses import WireFrame, Witness, admits, frames, ghost_of

_STATUS = {
    offlab.CsumStatus.UNKNOWN: UNKNOWN,
    offlab.CsumStatus.BAD: BAD,
    offlab.CsumStatus.GOOD: 2,
    offlab.CsumStatus.PARTIAL: PARTIAL,
}
RX_OPS = ("rx", "gro")
# Coalesce's limit on a merged packet (the simulator's default, 64 KiB - 1).
GRO_MAX_BYTES = 65535


def arriving(w: WireFrame) -> State:
    """The abstract state of a frame on the wire before a NIC receives it:
    which checksums are right in its bytes (the independent dissector)."""
    f = facts(w.frame)
    depth = 1 if w.encap else 0
    return State(
        phase=ARRIVING,
        encap=w.encap,
        ipv6=int(f.ipv6[depth]),
        transport=f.transport[depth],
        tnl=f.tunnel,
        l4_absent=int(f.absent),
        ok_ip_o=int(f.ok.get(("ip", 0), True)),
        ok_l4_o=int(f.ok.get(("l4", 0), True)),
        ok_ip_i=int(f.ok.get(("ip", 1), True)),
        ok_l4_i=int(f.ok.get(("l4", 1), True)),
    )


def arriving_witnesses(
    extra: dict[State, list[Witness]] | None = None,
) -> dict[State, list[Witness]]:
    """Every witness frame from the wire (a guest's TSO packets never are),
    and the pinned ones `extra` (witness files) after them."""
    out: dict[State, list[Witness]] = {}
    for w in frames():
        if w.segsz:
            continue
        ws = out.setdefault(arriving(w), [])
        # Directed witnesses too (one per corner): a segment without payload,
        # for one, is not coalesced (gro@min-size).
        if admits(ws, w.corner):
            ws.append(Witness(offlab.Packet(w.frame), w.frame, (), w.corner))
    for s, ws in (extra or {}).items():
        out.setdefault(s, []).extend(ws)
    return out


def _wrongs(s: State) -> WireFrame:
    """What is wrong in the frames of an arriving state, as ghost_of reads it."""
    if s.encap:
        return WireFrame(b"", 1, 6, False, bool(s.ok_ip_o), bool(s.ok_l4_o), bool(s.ok_l4_i))
    return WireFrame(b"", 0, 6, bool(s.ipv6), bool(s.ok_ip_o), bool(s.ok_l4_o))


def _received(p: offlab.Packet, s: State) -> State:
    """The datapath state of a packet a NIC handed over, with the ghost bits
    its claims give it (the rules of the initial states, witnesses.ghost_of)."""
    o = p.offloads
    ip_st = _STATUS[o.status(Level.OUTER, Csum.IP)]
    l4_st = _STATUS[o.status(Level.OUTER, Csum.L4)]
    return abstract(p, ghost_of(_wrongs(s), ip_st, l4_st), s.encap, 0)


def _rfc1624(csum: int, old: int, new: int) -> int:
    """HC' = ~(~HC + ~m + m') (RFC 1624 eqn. 3): a wrong checksum stays wrong
    by the same amount."""
    x = (~csum & 0xFFFF) + (~old & 0xFFFF) + new
    while x >> 16:
        x = (x & 0xFFFF) + (x >> 16)
    return ~x & 0xFFFF


def successor(frame: bytes, payload: int) -> bytes:
    """The next segment of the frame's TCP flow: the same bytes with the TCP
    sequence number advanced by the payload, every checksum over it (the TCP
    one, and an outer UDP or GRE one that covers it) updated incrementally."""
    f = bytearray(frame)
    tcp = len(f) - payload - 20  # the witnesses' TCP headers carry no options
    covers = []
    if f[12:14] == b"\x08\x00" and f[23] == 17 and tcp > 42 + 8:
        if struct.unpack_from("!H", f, 40)[0]:
            covers.append(40)  # the outer UDP checksum (zero: absent)
    elif f[12:14] == b"\x08\x00" and f[23] == 47 and f[34] & 0x80:
        covers.append(38)  # the GRE checksum (C bit)
    (seq,) = struct.unpack_from("!I", f, tcp + 4)
    new_seq = (seq + payload) & 0xFFFFFFFF
    changes = []
    for i, (old, new) in enumerate(zip(struct.unpack("!HH", f[tcp + 4 : tcp + 8]),
                                       struct.unpack("!HH", struct.pack("!I", new_seq)),
                                       strict=True)):  # fmt: skip
        changes.append((tcp + 4 + 2 * i, old, new))
    (tc,) = struct.unpack_from("!H", f, tcp + 16)
    new_tc = tc
    for _, old, new in changes:
        new_tc = _rfc1624(new_tc, old, new)
    changes.append((tcp + 16, tc, new_tc))
    for at, _old, new in changes:
        struct.pack_into("!H", f, at, new)
    for at in covers:
        (c,) = struct.unpack_from("!H", f, at)
        for _, old, new in changes:
            c = _rfc1624(c, old, new)
        struct.pack_into("!H", f, at, c or 0xFFFF)
    return bytes(f)


def _payload(frame: bytes) -> int:
    """TCP payload bytes of a witness frame (its innermost TCP header has no
    options)."""
    tcp = [lay for lay in offlab.dissect(frame).layers if lay.name == "tcp"]
    return len(frame) - tcp[-1].offset - 20 if tcp else 0


def coalesces(profile: offlab.NicProfile) -> bool:
    """Whether the profile's NIC coalesces received segments (LRO or GRO)."""
    return bool(profile.lro or profile.gro)


def enabled(op: str, s: State, profile: offlab.NicProfile) -> bool:
    if s.phase != ARRIVING:
        return False
    if op == "rx":
        return True
    return op == "gro" and coalesces(profile) and s.transport == 1


def apply_rx(
    op: str, w: Witness, s: State, profile: offlab.NicProfile
) -> tuple[offlab.Packet | None, State]:
    """Runs `rx` or `gro` on one arriving witness; (packet, datapath state)."""
    first, st1 = offlab.nic_receive(w.origin, profile)
    if op == "rx":
        return first, _received(first, s)
    second, st2 = offlab.nic_receive(successor(w.origin, _payload(w.origin)), profile)
    out, _stats = offlab.coalesce([(first, st1), (second, st2)], GRO_MAX_BYTES)
    if len(out) != 1:
        # Not merged: each segment goes on as received; follow the first.
        return out[0], _received(out[0], s)
    merged = out[0]
    # Every segment of the merge is a copy of this state's frame: a wrong
    # checksum in one is a wrong checksum in each.
    wrong = not (s.ok_ip_o and s.ok_l4_o and s.ok_ip_i and s.ok_l4_i)
    return merged, evolve(_received(merged, s), v_merge=int(wrong))


def rx_step(
    op: str, w: Witness, s: State, profile: offlab.NicProfile
) -> tuple[offlab.Packet | None, State]:
    """One receive transition as the extraction records it (apply_rx, and a
    successor outside the proofs' premise marked)."""
    q, t = apply_rx(op, w, s, profile)
    if t.phase == DATAPATH and not premise_holds(t):
        t = evolve(t, v_premise=1)
    return q, t


def extract_receive(
    ex: Extraction, profile: offlab.NicProfile, arrivals: dict[State, list[Witness]]
) -> dict[tuple[State, str], State]:
    """The `rx` and `gro` transitions of one NIC profile from every arriving
    state; datapath states they reach that `ex` has not explored are explored
    (added to `ex`, shared by every profile). Arriving witnesses join
    ex.witnesses so counterexamples replay from them."""
    edges: dict[tuple[State, str], State] = {}
    fresh: dict[State, tuple[list[Witness], State, str]] = {}
    for s, ws in arrivals.items():
        ex.witnesses.setdefault(s, ws)
        for op in RX_OPS:
            if not enabled(op, s, profile):
                continue
            outs = [(w, *rx_step(op, w, s, profile)) for w in ws]
            plain = [t for w, _, t in outs if not w.corner] or [outs[0][2]]
            usual = agree(plain, f"{op}[{profile.name}] from [{s.describe()}]")
            edges[(s, op)] = usual
            for w, q, t in outs:
                # A directed witness that goes elsewhere: op@corner, as in extract.
                label = op if t == usual or not w.corner else f"{op}@{w.corner}"
                edges[(s, label)] = t
                # New states, and pinned or directed witnesses for states
                # explored before (extend).
                if t.phase == DATAPATH and not t.v_premise and q is not None:
                    got = fresh.setdefault(t, ([], s, label))[0]
                    got.append(Witness(q, w.origin, (label,), w.corner, w.pinned))
    extend(ex, fresh)
    return edges
