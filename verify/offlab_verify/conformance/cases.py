"""Fuzz inputs decoded into test cases: a concrete frame (plain IPv4/IPv6
TCP or UDP, a guest's TSO packet, or TCP in VXLAN/Geneve/GRE), how it enters
(received with status claims, or arriving on the wire before a NIC), the
checksum setting and NIC profile, and the operation choices.

The frames are built by the witness generator's own builders
(witnesses._frame/_frame6, the core's push_header for tunnels); the input
chooses what the generator fixes: the payload bytes and length, the IP
identification, the TSO segment size, which checksums are wrong and by how
much, and, for checksum corners, the value a checksum comes out as (two
payload bytes, or the identification, are solved for it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import offlab

from ..witnesses import WireFrame, _frame, _frame6, claims, wire_frame

SRC, DST = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
TUNNELS = ("vxlan", "geneve", "gre")
MAX_PAYLOAD = 600
MAX_TSO_PAYLOAD = 4000
MAX_OPS = 8


class Reader:
    """Bytes of a fuzz input read front to back; zeros once they run out."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def take(self, n: int) -> bytes:
        out = self.data[self.at : self.at + n]
        self.at += n
        return out + bytes(n - len(out))

    def u8(self) -> int:
        return self.take(1)[0]

    def u16(self) -> int:
        return int.from_bytes(self.take(2), "big")

    def flag(self) -> bool:
        return bool(self.u8() & 1)


@dataclass(frozen=True)
class Case:
    setting: int  # index into the relation's settings
    profile: int  # index into the relation's profiles
    start: str  # "received" or "arriving"
    frame: WireFrame
    claims: tuple[int, int]  # (outer) IP and L4 status claims, for "received"
    ops: tuple[int, ...]  # each picks one of the operations enabled at its step
    payload: int = 0  # bytes of TCP/UDP payload of the original packet
    outer_csum: bool = False  # a tunnel frame carries an outer UDP/GRE checksum


def solve_word(zeroed_csum: int, target: int) -> int:
    """The 16-bit word that, put where the checksum had a 0 word (the checksum
    then being `zeroed_csum`), makes the checksum `target`: the one's-complement
    sum must become ~target (RFC 1071). 0xffff is out of reach of a computed
    checksum (it needs an all-zero sum), so it gives 0x0000's word."""
    want = ~target & 0xFFFF or 0xFFFF
    rest = ~zeroed_csum & 0xFFFF
    return (want - rest) % 0xFFFF


def _pinned_l4(build: Callable[[bytes], bytearray], payload: bytes, at: int, target: int) -> bytes:
    """The payload with its first word solved so the L4 checksum at `at` is `target`."""
    if len(payload) < 2:
        return payload
    zeroed = b"\0\0" + payload[2:]
    c0 = int.from_bytes(build(zeroed)[at : at + 2], "big")
    return solve_word(c0, target).to_bytes(2, "big") + payload[2:]


def _ident_for(payload: bytes, proto: int, ident: int, target: int | None) -> int:
    """The identification (the IPv4 header's word 2) that makes its checksum `target`."""
    if target is None:
        return ident
    c0 = int.from_bytes(_frame(proto, payload, SRC, DST, 0)[24:26], "big")
    return solve_word(c0, target)


def _corrupt(f: bytearray, at: int, mask: int) -> None:
    f[at] ^= mask >> 8
    f[at + 1] ^= mask & 0xFF


def _maybe(r: Reader) -> int | None:
    """A 16-bit value when the input asks for one (a checksum to pin, a
    corruption mask), else None."""
    on = r.flag()
    v = r.u16()
    return v if on else None


def _plain(r: Reader, proto: int, tso: bool) -> tuple[WireFrame, int]:
    segsz = 0
    if tso:
        segsz = 1 + r.u16() % 1500
        n = r.u16() % (MAX_TSO_PAYLOAD + 1)
    else:
        n = r.u16() % (MAX_PAYLOAD + 1)
    ident, pin_l4, pin_ip, bad_l4, bad_ip = r.u16(), _maybe(r), _maybe(r), _maybe(r), _maybe(r)
    payload = r.take(n)
    at = 34 + (16 if proto == 6 else 6)
    if pin_l4 is not None:
        payload = _pinned_l4(lambda p: _frame(proto, p, SRC, DST, 0), payload, at, pin_l4)
    f = _frame(proto, payload, SRC, DST, _ident_for(payload, proto, ident, pin_ip))
    if bad_ip:
        _corrupt(f, 24, bad_ip)
    if bad_l4:
        _corrupt(f, at, bad_l4)
    return wire_frame(bytes(f), 0, segsz), n


def _ipv6(r: Reader) -> tuple[WireFrame, int]:
    proto = 6 if r.flag() else 17
    n = r.u16() % (MAX_PAYLOAD + 1)
    ident, pin_l4, bad_l4 = r.u16(), _maybe(r), _maybe(r)
    payload = r.take(n)
    at = 54 + (16 if proto == 6 else 6)
    if pin_l4 is not None:
        payload = _pinned_l4(lambda p: _frame6(proto, p, ident), payload, at, pin_l4)
    f = _frame6(proto, payload, ident)
    if bad_l4:
        _corrupt(f, at, bad_l4)
    return wire_frame(bytes(f), 0), n


def _tunnel(r: Reader) -> tuple[WireFrame, int, bool]:
    ttype = TUNNELS[r.u8() % len(TUNNELS)]
    csum = r.flag()
    n = r.u16() % (MAX_PAYLOAD + 1)
    ident, pin_l4, bad_inner, bad_oip, bad_ol4 = r.u16(), _maybe(r), _maybe(r), _maybe(r), _maybe(r)
    payload = r.take(n)
    if pin_l4 is not None:
        payload = _pinned_l4(lambda p: _frame(6, p, SRC, DST, 0), payload, 50, pin_l4)
    inner = _frame(6, payload, SRC, DST, ident)
    if bad_inner:
        _corrupt(inner, 50, bad_inner)
    q = offlab.Packet(bytes(inner))
    offlab.parse(q)
    tnl = offlab.TunnelConfig(ttype, remote_ip="1.1.2.92", local_ip="1.1.2.88", key=5, csum=csum)
    (q,), _ = offlab.push_header([q], tnl)
    offlab.send_prepare(q, 0)
    f = bytearray(q.bytes())
    # One outer checksum wrong at a time, as in the witness generator: the IPv4
    # header's or the UDP one's (a GRE checksum is always checked in software at
    # decap).
    if bad_oip:
        _corrupt(f, 24, bad_oip)
    elif bad_ol4 and csum and ttype != "gre":
        _corrupt(f, 40, bad_ol4)
    return wire_frame(bytes(f), 1, tunnel=ttype), n, csum


def decode(data: bytes, n_settings: int, n_profiles: int) -> Case:
    """The case a fuzz input stands for (every input decodes to one)."""
    r = Reader(data)
    setting = r.u8() % n_settings
    profile = r.u8() % n_profiles
    kind = r.u8() % 6
    outer_csum = False
    if kind in (0, 1):
        w, n = _plain(r, 6 if kind == 0 else 17, False)
    elif kind == 2:
        w, n = _plain(r, 6, True)
    elif kind == 3:
        w, n = _ipv6(r)
    else:
        w, n, outer_csum = _tunnel(r)
    choices = claims(w)
    pick = r.u8()
    # A guest's TSO packet never comes from the wire.
    start = "arriving" if (pick & 0x80) and not w.segsz else "received"
    claim = choices[pick % len(choices)] if choices else (0, 0)
    ops = tuple(r.take(r.u8() % (MAX_OPS + 1)))
    return Case(setting, profile, start, w, claim, ops, n, outer_csum)
