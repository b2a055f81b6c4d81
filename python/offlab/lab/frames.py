"""Exact frames for the lab's raw-socket generator, built byte by byte.

Checksums are RFC 1071 one's-complement sums computed here, so a case can ask
for a correct, zero, deliberately wrong or pseudo-header-only (what a
CHECKSUM_PARTIAL skb carries) L4 checksum, or a wrong IPv4 header checksum.
"""

from __future__ import annotations

import ipaddress
import struct

ETH_P_IP = 0x0800
ETH_P_IPV6 = 0x86DD
PROTO_TCP = 6
PROTO_UDP = 17
VXLAN_PORT = 4789

# How an L4 checksum field is filled: "good" (the full checksum), "zero",
# "bad" (good xor 0x5555, never 0), "pseudo" (the un-complemented
# pseudo-header sum a CHECKSUM_PARTIAL skb carries), or an int stored as is.
Csum = str | int


def csum_add(data: bytes, acc: int = 0) -> int:
    """One's-complement sum of 16-bit big-endian words (odd byte padded)."""
    if len(data) % 2:
        data += b"\0"
    acc += sum(struct.unpack(f"!{len(data) // 2}H", data))
    while acc >> 16:
        acc = (acc & 0xFFFF) + (acc >> 16)
    return acc


def checksum(data: bytes, acc: int = 0) -> int:
    """The Internet checksum (RFC 1071): the complemented sum."""
    return ~csum_add(data, acc) & 0xFFFF


def mac(text: str) -> bytes:
    return bytes(int(x, 16) for x in text.split(":"))


def addr(text: str) -> bytes:
    return ipaddress.ip_address(text).packed


def pseudo_sum(src: bytes, dst: bytes, proto: int, length: int) -> int:
    """Uncomplemented pseudo-header sum (RFC 768 / RFC 8200 section 8.1)."""
    if len(src) == 4:
        ph = src + dst + struct.pack("!BBH", 0, proto, length)
    else:
        ph = src + dst + struct.pack("!IxxxB", length, proto)
    return csum_add(ph)


def _fill(seg: bytearray, at: int, src: bytes, dst: bytes, proto: int, mode: Csum) -> None:
    struct.pack_into("!H", seg, at, 0)
    ps = pseudo_sum(src, dst, proto, len(seg))
    if isinstance(mode, int):
        value = mode
    elif mode == "zero":
        value = 0
    elif mode == "pseudo":
        value = ps
    else:
        good = checksum(bytes(seg), ps)
        if proto == PROTO_UDP and good == 0:
            good = 0xFFFF  # RFC 768: a computed 0 is sent as all ones
        value = good ^ 0x5555 if mode == "bad" else good
        if mode not in ("good", "bad"):
            raise ValueError(f"unknown checksum mode {mode!r}")
    struct.pack_into("!H", seg, at, value)


def udp(src: str, dst: str, sport: int, dport: int, payload: bytes, csum: Csum = "good") -> bytes:
    seg = bytearray(struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload)
    _fill(seg, 6, addr(src), addr(dst), PROTO_UDP, csum)
    return bytes(seg)


def tcp(
    src: str,
    dst: str,
    sport: int,
    dport: int,
    payload: bytes,
    seq: int = 1000,
    ack: int = 0,
    flags: int = 0x18,
    window: int = 65535,
    csum: Csum = "good",
) -> bytes:
    """A TCP segment without options (flags 0x18 = PSH|ACK, 0x02 = SYN)."""
    seg = bytearray(
        struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, window, 0, 0) + payload
    )
    _fill(seg, 16, addr(src), addr(dst), PROTO_TCP, csum)
    return bytes(seg)


def ipv4(
    src: str,
    dst: str,
    proto: int,
    payload: bytes,
    ident: int = 1,
    ttl: int = 64,
    df: bool = True,
    hdr_csum: str = "good",
) -> bytes:
    hdr = bytearray(
        struct.pack(
            "!BBHHHBBH4s4s",
            0x45,
            0,
            20 + len(payload),
            ident,
            0x4000 if df else 0,
            ttl,
            proto,
            0,
            addr(src),
            addr(dst),
        )
    )
    c = checksum(bytes(hdr))
    struct.pack_into("!H", hdr, 10, c ^ 0x00FF if hdr_csum == "bad" else c)
    return bytes(hdr) + payload


def ipv6(src: str, dst: str, nh: int, payload: bytes, hlim: int = 64) -> bytes:
    hdr = struct.pack("!IHBB16s16s", 6 << 28, len(payload), nh, hlim, addr(src), addr(dst))
    return hdr + payload


def ether(dst: str, src: str, ethertype: int, payload: bytes) -> bytes:
    return mac(dst) + mac(src) + struct.pack("!H", ethertype) + payload


def vxlan(vni: int, inner: bytes, flags: int = 0x08, rco: int = 0) -> bytes:
    """VXLAN header (RFC 7348); `rco` sets the remote-checksum-offload bits
    (draft-ietf-nvo3-remote-checksum-offload: flag 0x00200000, start/offset
    in the low byte of the VNI word)."""
    word1 = (flags << 24) | (0x00200000 if rco else 0)
    return struct.pack("!II", word1, (vni << 8) | (rco & 0xFF)) + inner


def tcp4_frame(
    smac: str,
    dmac: str,
    src: str,
    dst: str,
    sport: int,
    dport: int,
    payload: bytes,
    csum: Csum = "good",
    ident: int = 1,
    seq: int = 1000,
    flags: int = 0x18,
    hdr_csum: str = "good",
    df: bool = True,
) -> bytes:
    seg = tcp(src, dst, sport, dport, payload, seq=seq, flags=flags, csum=csum)
    return ether(
        dmac, smac, ETH_P_IP, ipv4(src, dst, PROTO_TCP, seg, ident, df=df, hdr_csum=hdr_csum)
    )


def tcp6_frame(
    smac: str, dmac: str, src: str, dst: str, sport: int, dport: int, payload: bytes,
    csum: Csum = "good", seq: int = 1000, flags: int = 0x18,
) -> bytes:  # fmt: skip
    seg = tcp(src, dst, sport, dport, payload, seq=seq, flags=flags, csum=csum)
    return ether(dmac, smac, ETH_P_IPV6, ipv6(src, dst, PROTO_TCP, seg))


def udp4_frame(
    smac: str,
    dmac: str,
    src: str,
    dst: str,
    sport: int,
    dport: int,
    payload: bytes,
    csum: Csum = "good",
    ident: int = 1,
    hdr_csum: str = "good",
) -> bytes:
    seg = udp(src, dst, sport, dport, payload, csum)
    return ether(dmac, smac, ETH_P_IP, ipv4(src, dst, PROTO_UDP, seg, ident, hdr_csum=hdr_csum))


def udp6_frame(
    smac: str, dmac: str, src: str, dst: str, sport: int, dport: int, payload: bytes,
    csum: Csum = "good",
) -> bytes:  # fmt: skip
    seg = udp(src, dst, sport, dport, payload, csum)
    return ether(dmac, smac, ETH_P_IPV6, ipv6(src, dst, PROTO_UDP, seg))


def payload(n: int, seed: int = 0) -> bytes:
    """n deterministic payload bytes."""
    return bytes((i * 7 + seed) & 0xFF for i in range(n))
