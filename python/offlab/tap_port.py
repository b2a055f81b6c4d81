"""A DPDK TAP PMD port on this machine, for replays through a driver that acts
on offload requests (docs/hw-replay.md, "Through DPDK's TAP PMD").

`TapPort` makes a network namespace holding a persistent multi-queue TAP
device; DPDK's TAP PMD (``--vdev net_tap0,iface=NAME``, DPDK
drivers/net/tap/rte_eth_tap.c tun_alloc: IFF_TAP|IFF_MULTI_QUEUE) attaches to
it when a DPDK program is run inside the namespace (`run`, `popen`). The
kernel side is read and written with AF_PACKET sockets on the device: frames
the PMD transmits arrive there, frames sent there reach the PMD's receive
queue. Every DPDK program gets a private ``--file-prefix``; closing the port
removes the namespace (and the device with it) and that prefix's run
directory, also after a failure."""

from __future__ import annotations

import errno
import os
import select
import shutil
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from .closing import Closing
from .lab.nsutil import Lab, LabError, Netns
from .lab.observe import ETH_P_ALL, PACKET_OUTGOING

DPDK_RUN_DIR = Path("/var/run/dpdk")
# No hugepages here: EAL memory from the heap, no PCI scan, no shared config
# files (docs/hw-replay.md).
EAL_BASE = ["--no-huge", "-m", "512", "--no-pci", "--no-shconf"]


def unavailable() -> str | None:
    """Why TAP ports cannot be made here, or None."""
    if os.geteuid() != 0:
        return "needs root (TAP devices and network namespaces)"
    if not os.path.exists("/dev/net/tun"):
        return "no /dev/net/tun on this machine"
    if shutil.which("ip") is None:
        return "no ip command (iproute2)"
    try:
        with Lab() as lab:
            lab.netns("probe")
    except (LabError, OSError) as e:
        return f"network namespaces cannot be made: {e}"
    return None


class TapPort(Closing):
    """A namespace with TAP device `iface` for DPDK's TAP PMD; a context manager."""

    def __init__(self, iface: str = "oltap0", mtu: int | None = None, capture: bool = True) -> None:
        self.iface = iface
        self.prefix = f"offlab-tap-{os.getpid()}-{id(self) & 0xFFFF:x}"
        self.lab = Lab()
        try:
            self.ns: Netns = self.lab.netns("tap")
            self.ns.ip("tuntap", "add", "dev", iface, "mode", "tap", "multi_queue")
            if mtu:
                self.ns.ip("link", "set", iface, "mtu", str(mtu))
            self.ns.ip("link", "set", iface, "up")
            self.sock = self.lab.own(self.ns.socket(socket.AF_PACKET, socket.SOCK_RAW, 0))
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 24)
            # Without capture (a benchmark), the socket only sends: protocol 0
            # receives nothing, so the kernel clones no frame for it.
            with self.ns.entered():
                self.sock.bind((iface, ETH_P_ALL if capture else 0))
        except BaseException:
            self.close()
            raise

    def eal(self, *extra: str) -> list[str]:
        """EAL arguments for a DPDK program driving this port as net_tap0."""
        return [
            *EAL_BASE,
            "--file-prefix",
            self.prefix,
            "--vdev",
            f"net_tap0,iface={self.iface}",
            *extra,
        ]

    def _in_ns(self, argv: Sequence[str]) -> list[str]:
        return ["ip", "netns", "exec", self.ns.name, *argv]

    def run(self, argv: Sequence[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """Runs a DPDK program inside the namespace, its output captured."""
        return subprocess.run(
            self._in_ns(argv), capture_output=True, text=True, timeout=timeout, check=False
        )

    def popen(self, argv: Sequence[str], **kw: object) -> subprocess.Popen[str]:
        return subprocess.Popen(self._in_ns(argv), text=True, **kw)  # type: ignore[call-overload]

    def drain(self) -> None:
        """Forgets frames captured so far."""
        self.received(wait=0)

    def received(self, wait: float = 0.3, count: int | None = None) -> list[bytes]:
        """Frames the PMD wrote into the device (not the ones this side sent),
        in order, until `count` arrived or none came for `wait` seconds."""
        out: list[bytes] = []
        while count is None or len(out) < count:
            if not select.select([self.sock], [], [], wait)[0]:
                break
            try:
                data, addr = self.sock.recvfrom(1 << 17)
            except OSError as e:
                # The PMD takes the link down when it stops: the socket reports
                # ENETDOWN once, ahead of the frames still queued.
                if e.errno == errno.ENETDOWN:
                    continue
                raise
            if addr[2] != PACKET_OUTGOING:
                out.append(data)
        return out

    def send(self, frames: Sequence[bytes]) -> None:
        """Sends frames out of the device: they reach the PMD's receive queue."""
        self.drain()  # also takes an ENETDOWN left by a PMD that stopped before
        for f in frames:
            if self.sock.send(f) != len(f):
                raise LabError(f"short send of a {len(f)}-byte frame")
            time.sleep(0.0005)  # the PMD's queue is the tun socket's: keep within it

    def close(self) -> None:
        try:
            self.lab.close()
        finally:
            shutil.rmtree(DPDK_RUN_DIR / self.prefix, ignore_errors=True)



__all__ = ["DPDK_RUN_DIR", "EAL_BASE", "TapPort", "unavailable"]
