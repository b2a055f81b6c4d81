"""What the lab observes: AF_PACKET captures (with the virtio-net header that
reveals the receiving skb's checksum state and GSO fields, and the
PACKET_AUXDATA status), /proc/net/snmp, snmp6 and netstat counter deltas, and
/proc/net/dev device statistics, all inside one namespace.
"""

from __future__ import annotations

import select
import socket
import struct
import time
from dataclasses import dataclass, field

from .nsutil import Netns

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
PACKET_VNET_HDR = 15
PACKET_OUTGOING = 4
TP_STATUS_CSUMNOTREADY = 1 << 3
TP_STATUS_CSUM_VALID = 1 << 7
VNET_HDR_LEN = 10
VIRTIO_NET_HDR_F_NEEDS_CSUM = 1
VIRTIO_NET_HDR_F_DATA_VALID = 2
GSO_NAMES = {0: "none", 1: "tcpv4", 3: "udp", 4: "tcpv6", 5: "udp_l4"}


@dataclass(frozen=True)
class VnetHdr:
    """struct virtio_net_hdr (include/uapi/linux/virtio_net.h), little-endian."""

    flags: int = 0
    gso_type: int = 0
    hdr_len: int = 0
    gso_size: int = 0
    csum_start: int = 0
    csum_offset: int = 0

    @classmethod
    def parse(cls, b: bytes) -> VnetHdr:
        return cls(*struct.unpack("<BBHHHH", b[:VNET_HDR_LEN]))

    def pack(self) -> bytes:
        return struct.pack(
            "<BBHHHH",
            self.flags,
            self.gso_type,
            self.hdr_len,
            self.gso_size,
            self.csum_start,
            self.csum_offset,
        )

    def summary(self) -> str:
        """The skb state the header reveals: PARTIAL/UNNECESSARY/NONE + GSO."""
        if self.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM:
            s = f"PARTIAL start={self.csum_start} off={self.csum_offset}"
        elif self.flags & VIRTIO_NET_HDR_F_DATA_VALID:
            s = "UNNECESSARY"
        else:
            s = "NONE"
        if self.gso_type:
            ecn = "|ecn" if self.gso_type & 0x80 else ""
            name = GSO_NAMES.get(self.gso_type & 0x7F, str(self.gso_type & 0x7F))
            s += f" gso={name}{ecn}/{self.gso_size}"
        return s


@dataclass
class Frame:
    data: bytes
    outgoing: bool
    status: int  # tp_status from PACKET_AUXDATA
    vnet: VnetHdr | None  # None when the vnet-header socket refused the skb

    def aux(self) -> str:
        if self.status & TP_STATUS_CSUMNOTREADY:
            return "csum-not-ready"
        if self.status & TP_STATUS_CSUM_VALID:
            return "csum-valid"
        return "-"


@dataclass
class Capture:
    """Two packet sockets on one device: plain (sees every frame, with
    PACKET_AUXDATA) and with PACKET_VNET_HDR (a GSO type virtio cannot express
    makes packet_rcv_vnet drop the frame for that socket only)."""

    ns: Netns
    dev: str
    plain: socket.socket = field(init=False)
    vnet: socket.socket = field(init=False)

    def __post_init__(self) -> None:
        self.plain = self._open(False)
        self.vnet = self._open(True)

    def _open(self, vnet: bool) -> socket.socket:
        s = self.ns.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        try:
            s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
            if vnet:
                s.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
            with self.ns.entered():
                s.bind((self.dev, ETH_P_ALL))
            s.setblocking(False)
        except OSError:
            s.close()
            raise
        return s

    def close(self) -> None:
        self.plain.close()
        self.vnet.close()

    @staticmethod
    def _drain(s: socket.socket, wait: float) -> list[tuple[bytes, int, int]]:
        out = []
        deadline = time.monotonic() + wait
        while True:
            left = max(0.0, deadline - time.monotonic())
            if not select.select([s], [], [], left)[0]:
                return out
            data, anc, _, address = s.recvmsg(1 << 17, socket.CMSG_SPACE(20))
            status = 0
            for level, kind, cdata in anc:
                if level == SOL_PACKET and kind == PACKET_AUXDATA and len(cdata) >= 4:
                    status = struct.unpack_from("=I", cdata)[0]
            out.append((data, status, address[2]))
            deadline = max(deadline, time.monotonic() + 0.05)

    def clear(self) -> None:
        self._drain(self.plain, 0.0)
        self._drain(self.vnet, 0.0)

    def frames(self, wait: float = 0.15) -> list[Frame]:
        plain = self._drain(self.plain, wait)
        vnet = self._drain(self.vnet, 0.02)
        # Each plain frame takes the first unused vnet frame with its bytes
        # (control frames may reach one socket and not the other, e.g. sent
        # while only the first was bound).
        out = []
        used = [False] * len(vnet)
        for data, status, pkttype in plain:
            hdr = None
            for k, (vdata, _, vtype) in enumerate(vnet):
                if not used[k] and vtype == pkttype and vdata[VNET_HDR_LEN:] == data:
                    hdr, used[k] = VnetHdr.parse(vdata), True
                    break
            out.append(Frame(data, pkttype == PACKET_OUTGOING, status, hdr))
        return out


def snmp(ns: Netns) -> dict[str, int]:
    """Every counter of /proc/net/snmp, netstat and snmp6 as "Group:Name"."""
    out: dict[str, int] = {}
    for path in ("/proc/net/snmp", "/proc/net/netstat"):
        lines = ns.read_proc(path).splitlines()
        for names, values in zip(lines[::2], lines[1::2], strict=False):
            group, _, keys = names.partition(":")
            for k, v in zip(keys.split(), values.split(":", 1)[1].split(), strict=False):
                out[f"{group}:{k}"] = int(v)
    for line in ns.read_proc("/proc/net/snmp6").splitlines():
        parts = line.split()
        if len(parts) == 2:
            name = parts[0]
            for group in ("Icmp6", "Udp6", "UdpLite6", "Ip6"):
                if name.startswith(group):
                    out[f"{group}:{name[len(group) :]}"] = int(parts[1])
                    break
    return out


def snmp_delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)}


_RX = ("bytes", "packets", "errors", "dropped", "fifo", "frame", "compressed", "multicast")
_TX = ("bytes", "packets", "errors", "dropped", "fifo", "colls", "carrier", "compressed")
DEV_FIELDS = [f"rx_{n}" for n in _RX] + [f"tx_{n}" for n in _TX]


def dev_stats(ns: Netns) -> dict[str, dict[str, int]]:
    """/proc/net/dev of the namespace: device -> the 16 counters."""
    out = {}
    for line in ns.read_proc("/proc/net/dev").splitlines()[2:]:
        name, _, rest = line.partition(":")
        out[name.strip()] = dict(zip(DEV_FIELDS, map(int, rest.split()), strict=False))
    return out
