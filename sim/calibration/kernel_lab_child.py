"""One traffic endpoint of kernel_lab_costs.py, run inside a namespace pinned to
a CPU (kernel_lab_rig.py starts it); prints one JSON line: payload bytes moved,
socket calls, voluntary context switches (sleeps, each one a wakeup), and system
and user seconds, all over the window data moved in, so interpreter start-up is
not counted.

    python3 kernel_lab_child.py ROLE PROTO ADDR SIZE GSO GRO SECONDS

ROLE: rx / tx (a UDP or TCP socket), tap-rx (reads frames from TAP t0), tap-tx
(writes UDP frames of SIZE payload bytes into TAP t0). GSO is a UDP_SEGMENT size,
GRO 1 sets UDP_GRO on the receiving socket. The receiver prints "ready" first.
"""

import fcntl
import json
import os
import resource
import select
import socket
import struct
import sys
import time

PORT = 5201
RING = 64 << 20  # buffers run through twice the L3 cache: copies are not cache-hot
TUNSETIFF, IFF_TAP, IFF_NO_PI = 0x400454CA, 0x0002, 0x1000
MAC_R0, MAC_GUEST = bytes.fromhex("020000007702"), bytes.fromhex("020000007703")
SO_RCVBUFFORCE, SO_SNDBUFFORCE, UDP_SEGMENT, UDP_GRO = 33, 32, 103, 104


def usage() -> tuple[float, float, int]:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_stime, r.ru_utime, r.ru_nvcsw


def tap() -> int:
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", b"t0", IFF_TAP | IFF_NO_PI))
    return fd


def udp_header(size: int) -> bytes:
    """Ethernet, IPv4 and UDP headers of a guest's datagram to 10.77.0.2 (UDP
    checksum 0: none, allowed over IPv4)."""
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28 + size, 0, 0x4000, 64, 17, 0,
                     socket.inet_aton("10.77.0.3"), socket.inet_aton("10.77.0.2"))  # fmt: skip
    s = sum(struct.unpack("!10H", ip))
    s = (s & 0xFFFF) + (s >> 16)
    ip = ip[:10] + struct.pack("!H", ~((s & 0xFFFF) + (s >> 16)) & 0xFFFF) + ip[12:]
    return MAC_R0 + MAC_GUEST + b"\x08\x00" + ip + struct.pack("!HHHH", 40000, PORT, 8 + size, 0)


def receive(role: str, proto: str, host: str, gro: int, dur: float) -> dict:
    ring = memoryview(bytearray(b"\x5a" * RING))
    if role == "tap-rx":
        fd = tap()
        cap = 1 << 16

        def get(buf: memoryview) -> int:
            if not select.select([fd], [], [], timeout)[0]:
                raise TimeoutError
            return os.readv(fd, [buf])
    else:
        kind = socket.SOCK_DGRAM if proto == "udp" else socket.SOCK_STREAM
        s = socket.socket(socket.AF_INET, kind)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 1 << 25)
        if gro:
            s.setsockopt(socket.IPPROTO_UDP, UDP_GRO, 1)
        s.bind(("", PORT))  # any address: r0, or the guest's peer for a TAP run
        if proto == "tcp":
            s.listen(1)
        cap = 1 << 20 if proto == "tcp" else 1 << 16

        def get(buf: memoryview) -> int:
            s.settimeout(timeout)
            return s.recv_into(buf)

    print("ready", flush=True)
    if role == "rx" and proto == "tcp":
        s, _ = s.accept()
    timeout, n, calls, off = dur + 20, 0, 0, 0
    t0 = usage()
    try:
        while True:
            k = get(ring[off : off + cap])
            if not k:
                break
            n, calls = n + k, calls + 1
            off = (off + k + 63) & ~63
            off = 0 if off + cap > RING else off
            if proto == "udp":
                timeout = 0.5  # a datagram stream ends by going quiet
    except TimeoutError:
        pass
    return result(t0, n, calls)


def send(role: str, proto: str, host: str, size: int, gso: int, dur: float) -> dict:
    ring = memoryview(bytearray(b"\x5a" * RING))
    if role == "tap-tx":
        fd, hdr = tap(), udp_header(size)

        def put(buf: memoryview) -> None:
            os.writev(fd, [hdr, buf])
    else:
        kind = socket.SOCK_DGRAM if proto == "udp" else socket.SOCK_STREAM
        s = socket.socket(socket.AF_INET, kind)
        s.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, 1 << 22)
        s.connect((host, PORT))
        if gso:
            s.setsockopt(socket.IPPROTO_UDP, UDP_SEGMENT, gso)
        put = s.sendall if proto == "tcp" else s.send
    step, off, n, calls = (size + 63) & ~63, 0, 0, 0
    t0 = usage()
    end = time.monotonic() + dur
    while time.monotonic() < end:
        for _ in range(32):
            put(ring[off : off + size])
            off = off + step if off + 2 * step < RING else 0
        n, calls = n + 32 * size, calls + 32
    if role == "tx" and proto == "tcp":
        s.shutdown(socket.SHUT_WR)
        s.recv(1)  # the receiver's close: every byte was taken
    return result(t0, n, calls)


def result(t0: tuple[float, float, int], n: int, calls: int) -> dict:
    t1 = usage()
    return {"bytes": n, "calls": calls, "sys": t1[0] - t0[0], "user": t1[1] - t0[1],
            "wakeups": t1[2] - t0[2]}  # fmt: skip


def main() -> None:
    role, proto, host, size, gso, gro, dur = sys.argv[1:8]
    if role.endswith("rx"):
        out = receive(role, proto, host, int(gro), float(dur))
    else:
        out = send(role, proto, host, int(size), int(gso), float(dur))
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
