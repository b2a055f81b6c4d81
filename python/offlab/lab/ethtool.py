"""Device features through the ethtool ioctl (what `ethtool -k` / `-K` do).

ETHTOOL_GSSET_INFO + ETHTOOL_GSTRINGS give the names of the ETH_SS_FEATURES
bits, ETHTOOL_GFEATURES reads them and ETHTOOL_SFEATURES sets them
(include/uapi/linux/ethtool.h). Pure Python, so the lab needs no ethtool binary.
"""

from __future__ import annotations

import fcntl
import socket
import struct

from .nsutil import LabError, Netns

SIOCETHTOOL = 0x8946
ETHTOOL_GSTRINGS = 0x1B
ETHTOOL_GSSET_INFO = 0x37
ETHTOOL_GFEATURES = 0x3A
ETHTOOL_SFEATURES = 0x3B
ETH_SS_FEATURES = 4
ETH_GSTRING_LEN = 32


def _ioctl(sock: socket.socket, dev: str, buf: bytearray) -> None:
    b = bytes(buf)
    data = ctypes_buffer(b)
    ifr = struct.pack("16sP", dev.encode(), data.addr) + b"\0" * 16
    try:
        fcntl.ioctl(sock.fileno(), SIOCETHTOOL, ifr)
    except OSError as e:
        raise LabError(f"ethtool ioctl on {dev}: {e.strerror}") from e
    buf[:] = data.read()


class ctypes_buffer:
    def __init__(self, b: bytes) -> None:
        import ctypes

        self._mem = ctypes.create_string_buffer(b, len(b))
        self.addr = ctypes.addressof(self._mem)

    def read(self) -> bytes:
        return self._mem.raw


def _names(sock: socket.socket, dev: str) -> list[str]:
    info = bytearray(struct.pack("=IIQI", ETHTOOL_GSSET_INFO, 0, 1 << ETH_SS_FEATURES, 0))
    _ioctl(sock, dev, info)
    count = struct.unpack_from("=I", info, 16)[0]
    buf = bytearray(struct.pack("=III", ETHTOOL_GSTRINGS, ETH_SS_FEATURES, count))
    buf += b"\0" * (count * ETH_GSTRING_LEN)
    _ioctl(sock, dev, buf)
    out = []
    for i in range(count):
        raw = buf[12 + i * ETH_GSTRING_LEN : 12 + (i + 1) * ETH_GSTRING_LEN]
        out.append(raw.split(b"\0", 1)[0].decode())
    return out


def features(ns: Netns, dev: str) -> dict[str, dict[str, bool]]:
    """name -> {active, available (changeable), requested, fixed (never changed)}."""
    with ns.entered():
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    with sock:
        names = _names(sock, dev)
        blocks = (len(names) + 31) // 32
        buf = bytearray(struct.pack("=II", ETHTOOL_GFEATURES, blocks) + b"\0" * (16 * blocks))
        _ioctl(sock, dev, buf)
    out: dict[str, dict[str, bool]] = {}
    for i, name in enumerate(names):
        avail, req, active, never = struct.unpack_from("=IIII", buf, 8 + 16 * (i // 32))
        bit = 1 << (i % 32)
        out[name] = {
            "active": bool(active & bit),
            "available": bool(avail & bit),
            "requested": bool(req & bit),
            "fixed": bool(never & bit),
        }
    return out


def active(ns: Netns, dev: str) -> set[str]:
    return {n for n, f in features(ns, dev).items() if f["active"]}


def set_features(ns: Netns, dev: str, want: dict[str, bool]) -> None:
    """`ethtool -K dev name on|off ...`; an unknown or fixed feature is an error."""
    with ns.entered():
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    with sock:
        names = _names(sock, dev)
        blocks = (len(names) + 31) // 32
        valid = [0] * blocks
        requested = [0] * blocks
        for name, on in want.items():
            if name not in names:
                raise LabError(f"{dev} has no feature {name}")
            i = names.index(name)
            valid[i // 32] |= 1 << (i % 32)
            if on:
                requested[i // 32] |= 1 << (i % 32)
        buf = bytearray(struct.pack("=II", ETHTOOL_SFEATURES, blocks))
        for v, r in zip(valid, requested, strict=True):
            buf += struct.pack("=II", v, r)
        _ioctl(sock, dev, buf)
    got = active(ns, dev)
    wrong = [n for n, on in want.items() if (n in got) != on]
    if wrong:
        raise LabError(f"{dev}: could not set {', '.join(wrong)}")
