"""Concrete packets that realise the initial abstract states: frames as they
arrive from the wire (plain IPv4/IPv6 TCP and UDP, VXLAN/Geneve/GRE), each
with every checksum right and with each one wrong in turn, several payloads
each; and the statuses a receiver may claim for them."""

from __future__ import annotations

import itertools
import struct
from collections.abc import Iterator
from dataclasses import dataclass

import offlab
from offlab import Csum, Level

from .abstraction import BAD, GOOD, PARTIAL, UNKNOWN, State, abstract, facts

WITNESSES_PER_STATE = 4
ST = {
    UNKNOWN: offlab.CsumStatus.UNKNOWN,
    BAD: offlab.CsumStatus.BAD,
    GOOD: offlab.CsumStatus.GOOD,
    PARTIAL: offlab.CsumStatus.PARTIAL,
}


@dataclass
class Witness:
    packet: offlab.Packet
    origin: bytes  # the frame as received
    ops: tuple[str, ...]  # operations applied since
    # From a witness file (a conformance fuzzer's find): kept, and followed
    # through every operation, beyond WITNESSES_PER_STATE.
    pinned: bool = False


def _fold(s: int) -> int:
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def _sum(b: bytes) -> int:
    if len(b) % 2:
        b += b"\0"
    return sum(struct.unpack(f"!{len(b) // 2}H", b))


def _frame(proto: int, payload: bytes, src: bytes, dst: bytes, ident: int) -> bytearray:
    """Ethernet/IPv4/TCP-or-UDP with correct checksums."""
    l4len = (20 if proto == 6 else 8) + len(payload)
    if proto == 6:
        l4 = (
            bytearray(struct.pack("!HHIIBBHHH", 40000, 5201, 7, 0, 0x50, 0x10, 512, 0, 0)) + payload
        )
        at = 16
    else:
        l4 = bytearray(struct.pack("!HHHH", 40000, 53, l4len, 0)) + payload
        at = 6
    pseudo = _sum(src + dst) + proto + l4len
    c = (~_fold(pseudo + _sum(bytes(l4)))) & 0xFFFF
    l4[at : at + 2] = struct.pack("!H", c if c or proto == 6 else 0xFFFF)
    ip = bytearray(
        struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + l4len, ident, 0, 64, proto, 0, src, dst)
    )
    ip[10:12] = struct.pack("!H", (~_fold(_sum(bytes(ip)))) & 0xFFFF)
    eth = bytes.fromhex("0a8f394fe0738abf7e2f05840800")
    return bytearray(eth + ip + l4)


def _frame6(proto: int, payload: bytes, ident: int) -> bytearray:
    """Ethernet/IPv6/TCP-or-UDP with a correct checksum (2001:db8::1 > ::2)."""
    src = bytes.fromhex("20010db8000000000000000000000001")
    dst = bytes.fromhex("20010db8000000000000000000000002")
    v4 = _frame(proto, payload, bytes(4), bytes(4), ident)
    l4 = bytearray(v4[34:])
    at = 16 if proto == 6 else 6
    l4[at : at + 2] = b"\0\0"
    pseudo = _sum(src + dst) + proto + len(l4)
    c = (~_fold(pseudo + _sum(bytes(l4)))) & 0xFFFF
    l4[at : at + 2] = struct.pack("!H", c if c else 0xFFFF)
    ip6 = struct.pack("!IHBB", 0x60000000 | ident, len(l4), proto, 64) + src + dst
    return bytearray(bytes.fromhex("0a8f394fe0738abf7e2f058486dd") + ip6 + l4)


def _truthful(ok: bool) -> list[int]:
    """Statuses an honest receiver may report for a field that is (not) correct."""
    return [UNKNOWN, GOOD, PARTIAL] if ok else [UNKNOWN, BAD, PARTIAL]


_CORRUPT = (0x0001, 0x8000, 0x1234, 0x00FF)


def _variants(tso: bool) -> list[tuple[bytes, int]]:
    """(payload, tso_segsz) variants: odd and even lengths; TSO multiples and not."""
    if tso:
        return [(bytes((i * 7) & 0xFF for i in range(n)), 400) for n in (1200, 1000, 1999, 801)]
    return [
        (bytes((i * 13 + k) & 0xFF for i in range(n)), 0) for k, n in enumerate((47, 64, 151, 33))
    ]


@dataclass(frozen=True)
class WireFrame:
    """One frame as it arrives, and what is wrong in it."""

    frame: bytes
    encap: int  # a tunnel packet (the original packet at depth 1)
    proto: int  # the original packet's transport: 6 TCP, 17 UDP
    ipv6: bool
    ip_ok: bool  # the (outer) IPv4 header checksum is right
    l4_ok: bool  # the (outer) L4 checksum is right (for a tunnel: its UDP checksum)
    inner_ok: bool = True  # a tunnel's inner TCP checksum is right
    segsz: int = 0  # a guest's TSO packet: never from the wire
    tunnel: str = ""  # vxlan, geneve or gre
    payload: int = 0  # bytes of TCP/UDP payload of the original packet


def frames() -> Iterator[WireFrame]:
    """Every witness frame, in a fixed order (the first witness of a state is
    the one counterexamples replay)."""
    src, dst = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
    for proto, ip_ok, l4_ok, tso in itertools.product(
        (6, 17), (True, False), (True, False), (False, True)
    ):
        if tso and proto != 6:
            continue
        for k, (payload, segsz) in enumerate(_variants(tso)):
            f = _frame(proto, payload, src, dst, ident=k + 1)
            if not ip_ok:
                f[24] ^= _CORRUPT[k] >> 8
                f[25] ^= _CORRUPT[k] & 0xFF
            l4at = 34 + (16 if proto == 6 else 6)
            if not l4_ok:
                f[l4at] ^= _CORRUPT[k] >> 8
                f[l4at + 1] ^= _CORRUPT[k] & 0xFF
            yield WireFrame(bytes(f), 0, proto, False, ip_ok, l4_ok, segsz=segsz,
                            payload=len(payload))  # fmt: skip
    for proto, l4_ok in itertools.product((6, 17), (True, False)):
        for k, (payload, _) in enumerate(_variants(False)):
            f = _frame6(proto, payload, ident=k + 1)
            at = 54 + (16 if proto == 6 else 6)
            if not l4_ok:
                f[at] ^= _CORRUPT[k] >> 8
                f[at + 1] ^= _CORRUPT[k] & 0xFF
            yield WireFrame(bytes(f), 0, proto, True, True, l4_ok, payload=len(payload))
    for ttype, csum, inner_ok, corrupt in itertools.product(
        ("vxlan", "geneve", "gre"), (False, True), (True, False), ("none", "ip", "l4")
    ):
        # A corrupt GRE checksum is always caught by the software check at decap
        # (unit-tested); the outer L4 corruption here is the UDP checksum's.
        if corrupt == "l4" and (not csum or ttype == "gre"):
            continue
        for k, (payload, _) in enumerate(_variants(False)):
            inner = _frame(6, payload, src, dst, ident=k + 1)
            if not inner_ok:
                inner[50] ^= _CORRUPT[k] >> 8
                inner[51] ^= _CORRUPT[k] & 0xFF
            q = offlab.Packet(bytes(inner))
            offlab.parse(q)
            tnl = offlab.TunnelConfig(
                ttype, remote_ip="1.1.2.92", local_ip="1.1.2.88", key=5, csum=csum
            )
            (q,), _ = offlab.push_header([q], tnl)
            offlab.send_prepare(q, 0)
            f = bytearray(q.bytes())
            if corrupt == "ip":
                f[24] ^= 0x40
            elif corrupt == "l4":
                at = 40 if ttype != "gre" else 38
                f[at] ^= 0x40
            yield WireFrame(bytes(f), 1, 6, False, corrupt != "ip", corrupt != "l4", inner_ok,
                            tunnel=ttype, payload=len(payload))  # fmt: skip


def ghost_of(w: WireFrame, ip_st: int, l4_st: int) -> State:
    """The ghost bits of a frame received with these (outer) status claims:
    which checksum was wrong on ingress and not trusted (a partial claim is a
    promise to compute it), and which the source knows to be bad."""
    if w.encap:
        return State(
            g_ip=0,
            g_l4=int(not w.inner_ok),
            g_oip=int(not w.ip_ok and ip_st in (UNKNOWN, BAD)),
            g_ol4=int(not w.l4_ok and l4_st in (UNKNOWN, BAD)),
        )
    return State(
        g_ip=int(not w.ip_ok and ip_st in (UNKNOWN, BAD)),
        g_l4=int(not w.l4_ok and l4_st in (UNKNOWN, BAD)),
        k_ip=int(ip_st == BAD),
        k_l4=int(l4_st == BAD),
    )


def claims(w: WireFrame) -> list[tuple[int, int]]:
    """The (outer) IP and L4 status claims a receiver may hand over with the frame."""
    if w.encap:
        # Outer statuses from an honest NIC (OVS keeps no inner status on
        # receive); a NIC may also flag a header bad whose bytes verify:
        # OVS must still not accept it (c852a8c76).
        l4_choices = _truthful(w.l4_ok) if w.tunnel != "gre" else [UNKNOWN]
        ip_choices = _truthful(w.ip_ok) + ([BAD] if w.ip_ok else [])
    elif w.ipv6:
        ip_choices, l4_choices = [UNKNOWN], _truthful(w.l4_ok)
    else:
        ip_choices, l4_choices = _truthful(w.ip_ok), _truthful(w.l4_ok)
    # Premise: a TSO packet's L4 is partial and its IP header trusted.
    return [
        (ip_st, l4_st)
        for ip_st, l4_st in itertools.product(ip_choices, l4_choices)
        if not w.segsz or (l4_st == PARTIAL and ip_st in (GOOD, PARTIAL))
    ]


def received(w: WireFrame, ip_st: int, l4_st: int) -> tuple[offlab.Packet, State]:
    """The frame as the datapath receives it with these claims, and its state
    (as received: nothing parsed yet, so the first parse decides the protocol)."""
    p = offlab.Packet(w.frame)
    if not w.ipv6:
        p.offloads.set_status(Level.OUTER, Csum.IP, ST[ip_st])
    p.offloads.set_status(Level.OUTER, Csum.L4, ST[l4_st])
    if w.segsz:
        p.tso_segsz = w.segsz
    return p, abstract(p, ghost_of(w, ip_st, l4_st), w.encap, 0)


def wire_frame(frame: bytes, encap: int, segsz: int = 0, tunnel: str = "") -> WireFrame:
    """A frame's WireFrame, what is wrong in it read by the independent dissector."""
    f = facts(frame)
    depth = 1 if encap else 0
    return WireFrame(
        frame,
        encap,
        6 if f.transport[depth] == 1 else 17,
        f.ipv6[depth],
        f.ok.get(("ip", 0), True),
        f.ok.get(("l4", 0), True),
        f.ok.get(("l4", 1), True) if encap else True,
        segsz=segsz,
        tunnel=tunnel,
    )


def initial_witnesses(
    extra: dict[State, list[Witness]] | None = None,
) -> dict[State, list[Witness]]:
    """Packets as the datapath receives them, with every truthful status claim;
    and the pinned witnesses `extra` (witness files), after the generated ones."""
    out: dict[State, list[Witness]] = {}
    for w in frames():
        for ip_st, l4_st in claims(w):
            p, s = received(w, ip_st, l4_st)
            lst = out.setdefault(s, [])
            if len(lst) < WITNESSES_PER_STATE:
                lst.append(Witness(p, w.frame, ()))
    for s, ws in (extra or {}).items():
        out.setdefault(s, []).extend(ws)
    return out
