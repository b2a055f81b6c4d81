"""The lab's traffic: raw AF_PACKET sends of exact frames (optionally behind a
virtio-net header, so packet_snd builds a CHECKSUM_PARTIAL or GSO skb), TAP
devices with vnet headers in both directions, and local sockets that receive.
"""

from __future__ import annotations

import fcntl
import os
import select
import socket
import struct

from .nsutil import Lab, LabError, Netns
from .observe import ETH_P_ALL, PACKET_VNET_HDR, SOL_PACKET, VNET_HDR_LEN, VnetHdr

TUNSETIFF = 0x400454CA
TUNSETOFFLOAD = 0x400454D0
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000
IFF_VNET_HDR = 0x4000
TUN_F_CSUM = 0x01
TUN_F_TSO4 = 0x02
TUN_F_TSO6 = 0x04
TUN_F_TSO_ECN = 0x08
TUN_F_USO4 = 0x20
TUN_F_USO6 = 0x40


class Sender:
    """An AF_PACKET socket bound to one device; with vnet=True every frame is
    preceded by a struct virtio_net_hdr (PACKET_VNET_HDR)."""

    def __init__(self, lab: Lab, ns: Netns, dev: str, vnet: bool = False) -> None:
        self.vnet = vnet
        self.sock = lab.own(ns.socket(socket.AF_PACKET, socket.SOCK_RAW, 0))
        if vnet:
            self.sock.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
        with ns.entered():
            self.sock.bind((dev, 0))

    def send(self, frame: bytes, hdr: VnetHdr | None = None) -> None:
        if self.vnet:
            frame = (hdr or VnetHdr()).pack() + frame
        elif hdr is not None:
            raise LabError("a vnet header needs a Sender(vnet=True)")
        n = self.sock.send(frame)
        if n != len(frame):
            raise LabError(f"short send: {n} of {len(frame)}")


class Tap:
    """A TAP device owned by this process (it disappears with the fd):
    IFF_VNET_HDR, offloads as given to TUNSETOFFLOAD."""

    def __init__(self, lab: Lab, ns: Netns, name: str, offloads: int = 0) -> None:
        with ns.entered():
            fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
        lab.on_close(lambda: os.close(fd))
        self.fd = fd
        ifr = struct.pack("16sH", name.encode(), IFF_TAP | IFF_NO_PI | IFF_VNET_HDR)
        fcntl.ioctl(fd, TUNSETIFF, ifr + b"\0" * (40 - len(ifr)))
        fcntl.ioctl(fd, TUNSETOFFLOAD, offloads)
        self.name = name

    def write(self, frame: bytes, hdr: VnetHdr | None = None) -> None:
        """Hands a frame to the kernel as if from a guest (tun_get_user)."""
        data = (hdr or VnetHdr()).pack() + frame
        n = os.write(self.fd, data)
        if n != len(data):
            raise LabError(f"short TAP write: {n} of {len(data)}")

    def read(self, wait: float = 0.15) -> list[tuple[VnetHdr, bytes]]:
        """Frames the kernel sent out of the TAP device (tun_put_user)."""
        out = []
        while select.select([self.fd], [], [], wait)[0]:
            try:
                b = os.read(self.fd, 1 << 17)
            except BlockingIOError:
                break
            out.append((VnetHdr.parse(b), b[VNET_HDR_LEN:]))
            wait = 0.05
        return out


SOL_UDP = 17
UDP_GRO = 104  # include/uapi/linux/udp.h


def udp_listener(lab: Lab, ns: Netns, port: int, v6: bool = False,
                 gro: bool = False) -> socket.socket:  # fmt: skip
    """A bound UDP socket; `gro`: setsockopt UDP_GRO (GRO may merge datagrams for it)."""
    fam = socket.AF_INET6 if v6 else socket.AF_INET
    s = lab.own(ns.socket(fam, socket.SOCK_DGRAM))
    if gro:
        s.setsockopt(SOL_UDP, UDP_GRO, 1)
    # The socket lives in a throw-away lab namespace (ns.socket): "all interfaces" there are
    # the lab's own veth/VXLAN links, unreachable from the host's network.
    s.bind(("::" if v6 else "0.0.0.0", port))  # nosec B104
    s.setblocking(False)
    return s


def tcp_listener(lab: Lab, ns: Netns, port: int, v6: bool = False) -> socket.socket:
    s = lab.own(ns.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_STREAM))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Inside a lab namespace, as above.
    s.bind(("::" if v6 else "0.0.0.0", port))  # nosec B104
    s.listen(8)
    s.setblocking(False)
    return s


def recv_all(s: socket.socket, wait: float = 0.1) -> list[bytes]:
    out = []
    while select.select([s], [], [], wait)[0]:
        try:
            out.append(s.recv(1 << 16))
        except BlockingIOError:
            break
        wait = 0.02
    return out


__all__ = ["ETH_P_ALL", "Sender", "Tap", "recv_all", "tcp_listener", "udp_listener"]
