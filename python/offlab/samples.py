"""The sample traces in traces/, built with the core: packets as a datapath hands
them to a NIC (``tx`` records) and what a DPDK pcap PMD port puts on the wire
(``wire`` records). Regenerate with ``python scripts/make_sample_traces.py``."""

from __future__ import annotations

import os
import struct
from collections.abc import Callable

from . import _core
from .trace import Record, tx_record, wire_records, write

PARTIAL = _core.CsumStatus.PARTIAL
GOOD = _core.CsumStatus.GOOD
BAD = _core.CsumStatus.BAD
INNER = _core.Level.INNER

MAC = bytes.fromhex("0a8f394fe073") + bytes.fromhex("8abf7e2f0584")


def _payload(n: int) -> bytes:
    return bytes((i * 7 + 3) & 0xFF for i in range(n))


def _ipv4(proto: int, l4: bytes, src: str = "192.168.123.2", dst: str = "192.168.123.1") -> bytes:
    """IPv4 header with a zero checksum field, then the L4 bytes."""
    a = bytes(int(x) for x in src.split("."))
    b = bytes(int(x) for x in dst.split("."))
    return (
        struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), 0x1234, 0x4000, 64, proto, 0, a, b) + l4
    )


def _ipv6(proto: int, l4: bytes) -> bytes:
    src = bytes.fromhex("20010db8000000000000000000000002")
    dst = bytes.fromhex("20010db8000000000000000000000001")
    return struct.pack("!IHBB16s16s", 0x60000000, len(l4), proto, 64, src, dst) + l4


def _tcp(payload: bytes, flags: int = 0x18) -> bytes:
    """TCP header (checksum field zero) and payload."""
    return struct.pack("!HHIIBBHHH", 54392, 5201, 1000, 2000, 5 << 4, flags, 502, 0, 0) + payload


def _udp(payload: bytes) -> bytes:
    return struct.pack("!HHHH", 40000, 5001, 8 + len(payload), 0) + payload


def _eth(ethertype: int, body: bytes) -> bytes:
    return MAC + struct.pack("!H", ethertype) + body


def _parsed(frame: bytes) -> _core.Packet:
    p = _core.Packet(frame)
    _core.parse(p)
    return p


def _partial(p: _core.Packet) -> _core.Packet:
    """Marks the IPv4 header (if any) and L4 checksums partial: requests."""
    if p.l3_ofs is not None and p.bytes()[p.l3_ofs] >> 4 == 4:
        p.offloads.set_status(_core.Level.OUTER, _core.Csum.IP, PARTIAL)
    p.offloads.set_status(_core.Level.OUTER, _core.Csum.L4, PARTIAL)
    return p


def tcp_partial() -> _core.Packet:
    """IPv4/TCP whose IP and TCP checksums are partial (fields zero)."""
    return _partial(_parsed(_eth(0x0800, _ipv4(6, _tcp(_payload(64))))))


def tcp_bad_stays_bad() -> _core.Packet:
    """IPv4/TCP received with a wrong TCP checksum (status bad): it must reach the
    wire still wrong, while nothing else about the packet changes."""
    p = _partial(_parsed(_eth(0x0800, _ipv4(6, _tcp(_payload(48))))))
    _core.send_prepare(p, 0)  # both checksums now correct in the bytes
    frame = bytearray(p.bytes())
    csum_at = p.l4_ofs + 16
    frame[csum_at] ^= 0x5A  # break it
    q = _parsed(bytes(frame))
    q.offloads.set_status(_core.Level.OUTER, _core.Csum.IP, GOOD)
    q.offloads.set_status(_core.Level.OUTER, _core.Csum.L4, BAD)
    return q


def _tcp_tso(ethertype: int, ip: Callable[[int, bytes], bytes]) -> _core.Packet:
    """A TCP TSO packet (2500 B payload, tso_segsz 1000: a shorter tail segment,
    PSH on the last segment only) with partial checksums."""
    p = _partial(_parsed(_eth(ethertype, ip(6, _tcp(_payload(2500), flags=0x18)))))
    p.tso_segsz = 1000
    return p


def tcp_tso_partial() -> _core.Packet:
    """IPv4/TCP TSO, IP and TCP checksums partial."""
    return _tcp_tso(0x0800, _ipv4)


def tcp6_tso_partial() -> _core.Packet:
    """IPv6/TCP TSO, TCP checksum partial."""
    return _tcp_tso(0x86DD, _ipv6)


def vxlan_tso_partial() -> _core.Packet:
    """A TCP TSO packet (2900 B payload, tso_segsz 1000: a shorter tail segment)
    with partial inner checksums, VXLAN-encapsulated with the outer UDP checksum on:
    outer IP and outer UDP partial too."""
    inner = _partial(_parsed(_eth(0x0800, _ipv4(6, _tcp(_payload(2900), flags=0x10)))))
    inner.tso_segsz = 1000
    tnl = _core.TunnelConfig("vxlan", key=42, csum=True)
    batch, _ = _core.push_header([inner], tnl)
    return batch[0]


def geneve_udp6_partial() -> _core.Packet:
    """IPv6/UDP with a partial UDP checksum, Geneve-encapsulated over IPv4 without
    an outer UDP checksum. As a guest's CHECKSUM_PARTIAL does, the UDP field holds
    the pseudo-header sum (a zero field would mean "no checksum", which OVS's
    packet_udp_complete_csum leaves alone)."""
    frame = bytearray(_eth(0x86DD, _ipv6(17, _udp(_payload(100)))))
    l3, l4 = 14, 54
    pseudo = frame[l3 + 8 : l3 + 40] + struct.pack("!IxxxB", len(frame) - l4, 17)
    seed = ~_core.checksum.compute(bytes(pseudo)) & 0xFFFF
    frame[l4 + 6 : l4 + 8] = struct.pack("!H", seed)
    inner = _partial(_parsed(bytes(frame)))
    tnl = _core.TunnelConfig("geneve", key=7, csum=False)
    batch, _ = _core.push_header([inner], tnl)
    return batch[0]


SAMPLES: dict[str, tuple[str, Callable[[], _core.Packet]]] = {
    "tcp-partial": ("IPv4/TCP, IP and TCP checksums partial", tcp_partial),
    "tcp-bad-stays-bad": ("IPv4/TCP with a bad TCP checksum that must stay bad", tcp_bad_stays_bad),
    "tcp-tso-partial": ("IPv4/TCP TSO (3 segments), every checksum partial", tcp_tso_partial),
    "tcp6-tso-partial": ("IPv6/TCP TSO (3 segments), TCP checksum partial", tcp6_tso_partial),
    "vxlan-tso-partial": (
        "VXLAN (outer UDP checksum on) around a TCP TSO packet, every checksum partial",
        vxlan_tso_partial,
    ),
    "geneve-udp6-partial": (
        "Geneve (no outer UDP checksum) around IPv6/UDP with a partial UDP checksum",
        geneve_udp6_partial,
    ),
}


def sample_records(name: str, profile: str = "pcap") -> list[Record]:
    """The tx record of sample `name` and its wire records for `profile`."""
    description, build = SAMPLES[name]
    prof = _core.builtin_profile(profile)
    tx = tx_record(build(), description=description, profile=profile)
    return [tx, *wire_records(0, tx, prof, rx_profiles=[profile])]


def write_samples(directory: str, profile: str = "pcap") -> list[str]:
    """Writes every sample as ``<directory>/<name>.pcapng``; returns the paths."""
    paths = []
    for name in SAMPLES:
        path = os.path.join(directory, f"{name}.pcapng")
        write(path, sample_records(name, profile))
        paths.append(path)
    return paths


__all__ = ["SAMPLES", "sample_records", "write_samples"]
