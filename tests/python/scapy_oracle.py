"""An independent checksum oracle: scapy recomputes every checksum of a frame.

Nothing here uses offlab; verdicts come from scapy's own checksum code.
"""

from __future__ import annotations

from dataclasses import dataclass

from scapy.contrib.geneve import GENEVE
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import GRE, Ether
from scapy.layers.vxlan import VXLAN
from scapy.packet import Packet, bind_layers

# Geneve carries Ethernet when the protocol type is 0x6558.
bind_layers(UDP, GENEVE, dport=6081)
_ = (VXLAN, GRE, ICMP)


@dataclass(frozen=True)
class Verdict:
    layer: str  # "ip", "tcp", "udp"
    depth: int  # 0 outermost
    value: int
    correct: bool | None  # None: absent (UDP 0)


def _recomputed(pkt: Packet, index: int) -> int:
    copy = pkt.copy()
    layer = copy
    for _ in range(index):
        layer = layer.payload
    layer.chksum = None
    rebuilt = Ether(bytes(copy))
    layer = rebuilt
    for _ in range(index):
        layer = layer.payload
    return int(layer.chksum)


def verdicts(frame: bytes) -> list[Verdict]:
    """Every IPv4/TCP/UDP checksum in the frame, outer first."""
    pkt = Ether(frame)
    out: list[Verdict] = []
    depth = -1
    layer: Packet = pkt
    index = 0
    while layer is not None and not isinstance(layer, bytes) and layer.name != "NoPayload":
        if isinstance(layer, (IP, IPv6)):
            depth += 1
            if isinstance(layer, IP):
                out.append(
                    Verdict("ip", depth, layer.chksum, _recomputed(pkt, index) == layer.chksum)
                )
        elif isinstance(layer, TCP):
            out.append(Verdict("tcp", depth, layer.chksum, _recomputed(pkt, index) == layer.chksum))
        elif isinstance(layer, UDP):
            if layer.chksum == 0:
                out.append(Verdict("udp", depth, 0, None))
            else:
                out.append(
                    Verdict("udp", depth, layer.chksum, _recomputed(pkt, index) == layer.chksum)
                )
        if isinstance(layer, ICMP):
            break  # what follows is a quoted packet, not a layer of this one
        layer = layer.payload if hasattr(layer, "payload") else None
        index += 1
    return out


def verdict_of(frame: bytes, layer: str, depth: int) -> Verdict | None:
    for v in verdicts(frame):
        if v.layer == layer and v.depth == depth:
            return v
    return None
