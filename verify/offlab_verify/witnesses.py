"""Concrete packets that realise the initial abstract states: frames as they
arrive from the wire (plain IPv4/IPv6 TCP and UDP, VXLAN/Geneve/GRE), each
with every checksum right and with each one wrong in turn, several payloads
each; and the statuses a receiver may claim for them."""

from __future__ import annotations

import functools
import itertools
import struct
from collections.abc import Iterator
from dataclasses import dataclass

import offlab
from offlab import Csum, Level

from . import corners
from .abstraction import BAD, GOOD, PARTIAL, UNKNOWN, State, abstract, facts
from .onesum import fold, words

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
    corner: str = ""  # a directed witness: the corner (corners.py) its frame was solved for
    # From a witness file (a conformance fuzzer's find): kept, and followed
    # through every operation, beyond WITNESSES_PER_STATE.
    pinned: bool = False


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
    pseudo = words(src + dst) + proto + l4len
    c = (~fold(pseudo + words(bytes(l4)))) & 0xFFFF
    l4[at : at + 2] = struct.pack("!H", c if c or proto == 6 else 0xFFFF)
    ip = bytearray(
        struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + l4len, ident, 0, 64, proto, 0, src, dst)
    )
    ip[10:12] = struct.pack("!H", (~fold(words(bytes(ip)))) & 0xFFFF)
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
    pseudo = words(src + dst) + proto + len(l4)
    c = (~fold(pseudo + words(bytes(l4)))) & 0xFFFF
    l4[at : at + 2] = struct.pack("!H", c if c else 0xFFFF)
    ip6 = struct.pack("!IHBB", 0x60000000 | ident, len(l4), proto, 64) + src + dst
    return bytearray(bytes.fromhex("0a8f394fe0738abf7e2f058486dd") + ip6 + l4)


def _icmp_error(frame: bytes) -> bytes:
    """An ICMP port unreachable from the frame's destination back to its source,
    quoting its IPv4 header and the first 8 bytes of its L4 header."""
    ihl = (frame[14] & 0x0F) * 4
    quoted = frame[14 : 14 + ihl + 8]
    icmp = bytearray(b"\x03\x03\x00\x00\x00\x00\x00\x00" + quoted)
    icmp[2:4] = struct.pack("!H", (~fold(words(bytes(icmp)))) & 0xFFFF)
    src, dst = frame[14 + 16 : 14 + 20], frame[14 + 12 : 14 + 16]
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(icmp), 0, 0, 64, 1, 0, src, dst))
    ip[10:12] = struct.pack("!H", (~fold(words(bytes(ip)))) & 0xFFFF)
    return frame[6:12] + frame[0:6] + b"\x08\x00" + bytes(ip) + bytes(icmp)


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
    corner: str = ""  # a directed witness's corner (corners.py); "" for a random one


def _build(proto: int, payload: bytes, ident: int) -> bytearray:
    return _frame(proto, payload, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]), ident)


def _build6(proto: int, payload: bytes, ident: int) -> bytearray:
    return _frame6(proto, payload, ident)


def _directed(proto: int, ip_ok: bool, l4_ok: bool, tso: bool) -> list[tuple[str, bytes, int]]:
    """A family's directed witnesses (corners.py), built as the random ones are."""
    return list(corners.directed(proto, ip_ok, l4_ok, tso, _build))


def frames() -> Iterator[WireFrame]:
    """Every witness frame, in a fixed order (the first witness of a state is
    the one counterexamples replay)."""
    return iter(_all_frames(tuple(offlab.enabled_faults()), corners.directed))


@functools.lru_cache(maxsize=8)
def _all_frames(faults: tuple[str, ...], directed: object) -> tuple[WireFrame, ...]:
    """Built once per set of seeded faults (tunnel frames are pushed by the
    core) and directed-witness source: the initial and the arriving witnesses
    both read them, and solving and pushing are not free."""
    del faults, directed  # the cache key
    return tuple(_frames())


def _frames() -> Iterator[WireFrame]:
    src, dst = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
    for proto, ip_ok, l4_ok, tso in itertools.product(
        (6, 17), (True, False), (True, False), (False, True)
    ):
        if tso and proto != 6:
            continue

        random = [
            ("", bytes(_frame(proto, payload, src, dst, ident=k + 1)), segsz)
            for k, (payload, segsz) in enumerate(_variants(tso))
        ]
        for k, (corner, frame, segsz) in enumerate([*random, *_directed(proto, ip_ok, l4_ok, tso)]):
            f = bytearray(frame)
            sh = corners.shape(frame)
            assert sh is not None
            bad = _CORRUPT[k % len(_CORRUPT)]
            if not ip_ok:
                f[24] ^= bad >> 8
                f[25] ^= bad & 0xFF
            if not l4_ok:
                f[sh.field] ^= bad >> 8
                f[sh.field + 1] ^= bad & 0xFF
            yield WireFrame(bytes(f), 0, proto, False, ip_ok, l4_ok, segsz=segsz,
                            payload=sh.end - sh.l4 - sh.hlen, corner=corner)  # fmt: skip
    for proto, l4_ok in itertools.product((6, 17), (True, False)):
        random = [("", bytes(_frame6(proto, payload, ident=k + 1)))
                  for k, (payload, _) in enumerate(_variants(False))]  # fmt: skip
        directed = corners.directed(proto, True, l4_ok, False, _build6, v6=True)
        for k, (corner, frame) in enumerate([*random, *((c, f) for c, f, _ in directed)]):
            f = bytearray(frame)
            sh = corners.shape(frame)
            assert sh is not None
            if not l4_ok:
                f[sh.field] ^= _CORRUPT[k % len(_CORRUPT)] >> 8
                f[sh.field + 1] ^= _CORRUPT[k % len(_CORRUPT)] & 0xFF
            yield WireFrame(bytes(f), 0, proto, True, True, l4_ok,
                            payload=sh.end - sh.l4 - sh.hlen, corner=corner)  # fmt: skip
    # A UDP checksum of 0: none (RFC 768; over IPv6 RFC 6935's zero, which
    # RFC 8200 section 8.1 allows for tunnels only). The state says so
    # (l4_absent): NICs' receive validation takes it their own ways
    # (models/src/nic/nic.cc NicReceive: dpdk_tap's rx_zero_udp_csum_literal).
    for v6, ip_ok in ((False, True), (False, False), (True, True)):
        for k, (payload, _) in enumerate(_variants(False)):
            f = _frame6(17, payload, k + 1) if v6 else _frame(17, payload, src, dst, k + 1)
            at = 60 if v6 else 40
            f[at : at + 2] = b"\0\0"
            if not ip_ok:
                f[24] ^= _CORRUPT[k] >> 8
                f[25] ^= _CORRUPT[k] & 0xFF
            yield WireFrame(bytes(f), 0, 17, v6, ip_ok, True, payload=len(payload))
    for ttype, csum, inner_ok, corrupt in itertools.product(
        ("vxlan", "geneve", "gre"), (False, True), (True, False), ("none", "ip", "l4")
    ):
        # A corrupt GRE checksum is always caught by the software check at decap
        # (unit-tested); the outer L4 corruption here is the UDP checksum's.
        if corrupt == "l4" and (not csum or ttype == "gre"):
            continue
        inners = [("", bytes(_frame(6, payload, src, dst, ident=k + 1)))
                  for k, (payload, _) in enumerate(_variants(False))]  # fmt: skip
        # The inner packet's corners (it is a plain packet again after pop;
        # before, a segment without payload is not coalesced: gro@inner-min-size).
        inners += [(f"inner-{c}", f) for c, f, _ in _directed(6, True, inner_ok, False)]
        for k, (corner, frame) in enumerate(inners):
            inner = bytearray(frame)
            sh = corners.shape(frame)
            assert sh is not None
            if not inner_ok:
                inner[sh.field] ^= _CORRUPT[k % len(_CORRUPT)] >> 8
                inner[sh.field + 1] ^= _CORRUPT[k % len(_CORRUPT)] & 0xFF
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
                            tunnel=ttype, payload=sh.end - sh.l4 - sh.hlen,
                            corner=corner)  # fmt: skip


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


def admits(known: list[Witness], corner: str) -> bool:
    """Whether a state with witnesses `known` takes one more: up to
    WITNESSES_PER_STATE random ones, and one per corner (pinned witnesses
    are counted apart, new_pinned)."""
    if corner:
        return all(w.corner != corner for w in known)
    return sum(1 for w in known if not w.corner and not w.pinned) < WITNESSES_PER_STATE


# Pinned witnesses one state keeps at most (distinct packets).
PINNED_PER_STATE = 64


def _same(a: offlab.Packet, b: offlab.Packet) -> bool:
    return (
        a.bytes() == b.bytes() and a.offloads.word == b.offloads.word and a.tso_segsz == b.tso_segsz
    )


def new_pinned(known: list[Witness], w: Witness) -> bool:
    """Whether pinned `w` is a packet the state does not have yet (and has room for):
    a state it reaches again (a cycle, a second path) is not explored again for it."""
    pinned = [k for k in known if k.pinned]
    return len(pinned) < PINNED_PER_STATE and not any(_same(k.packet, w.packet) for k in pinned)


def initial_witnesses(
    extra: dict[State, list[Witness]] | None = None,
) -> dict[State, list[Witness]]:
    """Packets as the datapath receives them, with every truthful status claim;
    and the pinned witnesses `extra` (witness files), after the generated ones."""
    out: dict[State, list[Witness]] = {}
    for w in frames():
        for ip_st, l4_st in claims(w):
            if w.corner and not corners.relevant(w.corner, ip_st, l4_st):
                continue
            p, s = received(w, ip_st, l4_st)
            lst = out.setdefault(s, [])
            if admits(lst, w.corner):
                lst.append(Witness(p, w.frame, (), w.corner))
    for s, ws in (extra or {}).items():
        out.setdefault(s, []).extend(ws)
    return out
