"""Concrete witness frames for the kernel verifier: plain TCP/UDP over IPv4 and
IPv6, and TCP over VXLAN over IPv4, each with its checksums right or wrong.

Checksums here are computed with a plain RFC 1071 loop, independent of the
core, so a witness's ghost bits (which checksum is wrong) are known from
outside the code under test."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from ..onesum import fold, words

MAC_A = bytes.fromhex("020000000001")
MAC_B = bytes.fromhex("020000000002")
IP_A, IP_B = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
IP6_A = bytes.fromhex("fd000000000000000000000000000001")
IP6_B = bytes.fromhex("fd000000000000000000000000000002")
VTEP_A, VTEP_B = bytes([192, 0, 2, 1]), bytes([192, 0, 2, 2])


def ones_sum(b: bytes) -> int:
    return fold(words(b))


def csum(b: bytes, pseudo: int = 0) -> int:
    return (~fold(ones_sum(b) + pseudo)) & 0xFFFF


def pseudo4(src: bytes, dst: bytes, proto: int, length: int) -> int:
    return ones_sum(src + dst + struct.pack("!BBH", 0, proto, length))


def pseudo6(src: bytes, dst: bytes, proto: int, length: int) -> int:
    return ones_sum(src + dst + struct.pack("!IxxxB", length, proto))


def corrupt(value: int) -> int:
    """A wrong checksum value that is neither the right one nor 0 (which
    would mean "no checksum" for UDP)."""
    v = (value + 0x1111) & 0xFFFF
    return v if v not in (0, value) else 0x4242


@dataclass(frozen=True)
class Spec:
    """What a witness is: its shape and which checksums are wrong."""

    ipv6: bool = False
    transport: int = 1  # 1 TCP, 2 UDP
    encap: bool = False  # TCP/UDP inside VXLAN over IPv4
    outer_csum: bool = True  # VXLAN outer UDP checksum present
    bad_ip: bool = False  # the original packet's IPv4 header checksum
    bad_l4: bool = False  # the original packet's TCP/UDP checksum
    bad_oip: bool = False  # the outer IPv4 header (encap only)
    bad_ol4: bool = False  # the outer UDP checksum (encap, outer_csum only)


def _l4(spec: Spec, payload: bytes, seq: int, src: bytes, dst: bytes) -> bytes:
    if spec.transport == 1:
        hdr = struct.pack("!HHIIBBHHH", 40000, 5201, seq, 1, 5 << 4, 0x10, 4096, 0, 0)
        proto = 6
    else:
        hdr = struct.pack("!HHHH", 40000, 5201, 8 + len(payload), 0)
        proto = 17
    seg = hdr + payload
    ps = pseudo6(src, dst, proto, len(seg)) if spec.ipv6 else pseudo4(src, dst, proto, len(seg))
    c = csum(seg, ps)
    if proto == 17 and c == 0:
        c = 0xFFFF
    if spec.bad_l4:
        c = corrupt(c)
    ofs = 16 if proto == 6 else 6
    return seg[:ofs] + struct.pack("!H", c) + seg[ofs + 2 :]


def _ipv4(payload: bytes, proto: int, src: bytes, dst: bytes, ident: int, bad: bool) -> bytes:
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, 0x4000, 64, proto, 0,
                      src, dst)  # fmt: skip
    c = csum(hdr)
    if bad:
        c = corrupt(c)
    return hdr[:10] + struct.pack("!H", c) + hdr[12:] + payload


def inner_frame(spec: Spec, payload: bytes, seq: int = 1000, ident: int = 7) -> bytes:
    """The original packet: Ethernet + IPv4/IPv6 + TCP/UDP with `payload`."""
    proto = 6 if spec.transport == 1 else 17
    if spec.ipv6:
        l4 = _l4(spec, payload, seq, IP6_A, IP6_B)
        ip = struct.pack("!IHBB16s16s", 6 << 28, len(l4), proto, 64, IP6_A, IP6_B) + l4
        return MAC_B + MAC_A + b"\x86\xdd" + ip
    l4 = _l4(spec, payload, seq, IP_A, IP_B)
    return MAC_B + MAC_A + b"\x08\x00" + _ipv4(l4, proto, IP_A, IP_B, ident, spec.bad_ip)


def frame(spec: Spec, payload: bytes, seq: int = 1000, ident: int = 7) -> bytes:
    """The witness frame as it arrives on the wire: the original packet, in
    VXLAN (VNI 42, UDP 4789, outer checksum per spec) when `encap`."""
    inner = inner_frame(spec, payload, seq, ident)
    if not spec.encap:
        return inner
    udp_len = 8 + 8 + len(inner)
    vx = struct.pack("!BxxxI", 0x08, 42 << 8) + inner
    udp = struct.pack("!HHHH", 49152, 4789, udp_len, 0) + vx
    c = 0
    if spec.outer_csum:
        c = csum(udp, pseudo4(VTEP_A, VTEP_B, 17, udp_len)) or 0xFFFF
        if spec.bad_ol4:
            c = corrupt(c)
    udp = udp[:6] + struct.pack("!H", c) + udp[8:]
    return MAC_B + MAC_A + b"\x08\x00" + _ipv4(udp, 17, VTEP_A, VTEP_B, ident, spec.bad_oip)


PAYLOADS = (bytes(range(40, 240)), bytes([0xA5]) * 401, bytes(range(256)) * 3)


def specs() -> list[Spec]:
    """Every witness shape: plain IPv4/IPv6 TCP/UDP and VXLAN-in-IPv4 TCP,
    each with no checksum wrong and with each one wrong in turn."""
    out: list[Spec] = []
    for ipv6 in (False, True):
        for transport in (1, 2):
            base = Spec(ipv6=ipv6, transport=transport)
            out.append(base)
            out.append(Spec(ipv6=ipv6, transport=transport, bad_l4=True))
            if not ipv6:
                out.append(Spec(ipv6=False, transport=transport, bad_ip=True))
    for outer_csum in (True, False):
        base = Spec(encap=True, outer_csum=outer_csum)
        out.append(base)
        out.append(Spec(encap=True, outer_csum=outer_csum, bad_l4=True))
        out.append(Spec(encap=True, outer_csum=outer_csum, bad_oip=True))
        if outer_csum:
            out.append(Spec(encap=True, outer_csum=True, bad_ol4=True))
    return out
