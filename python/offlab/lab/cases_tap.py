"""TAP cases: a "guest" writes frames with virtio-net headers into t0
(tun_get_user), the bridge forwards them out of a0 to b0; and the reverse,
frames from b0 read back from t0 with the header tun_put_user writes."""

from __future__ import annotations

from . import frames as F
from . import observe
from . import topology as T
from .case import Recorder, Result, frame_text, is_ipv6_control, path_case
from .cases_gro import FLUSH_TIMEOUT_NS, burst
from .nsutil import Lab, run
from .observe import VnetHdr
from .traffic import TUN_F_CSUM, TUN_F_TSO4, Sender, recv_all, udp_listener

SPORT, UPORT, TPORT = 4000, 5000, 5001
UDP_COUNTERS = ["Udp:InDatagrams", "Udp:InErrors", "Udp:InCsumErrors"]
RULE_TUN_RX = "drivers/net/tun.c tun_get_user + include/linux/virtio_net.h virtio_net_hdr_to_skb"
RULE_TUN_TX = "drivers/net/tun.c tun_put_user + include/linux/virtio_net.h virtio_net_hdr_from_skb"
UDP_PARTIAL = VnetHdr(flags=1, csum_start=34, csum_offset=6)
Features = dict[str, bool] | None


def from_guest(lab: Lab, frames: list[bytes], hdr: VnetHdr, a_features: Features = None,
               counters: bool = True) -> Result:  # fmt: skip
    """The guest writes frames into t0; the bridge forwards them out of a0 to
    b0, which has a UDP socket on the port."""
    t = T.tap(lab, a_features=a_features)
    assert t.tap is not None
    rec = Recorder(lab)
    rec.capture(t.b, "b0")
    sock = udp_listener(lab, t.b, UPORT)
    before = observe.snmp(t.b)
    for fr in frames:
        t.tap.write(fr, hdr)
    got = recv_all(sock)
    rec.frames("b0", "in")
    if counters:
        rec.out["socket"] = f"{len(got)} datagram(s)"
        rec.counters(before, t.b, UDP_COUNTERS)
    return rec.out


def to_guest(lab: Lab, offloads: int, frames: list[bytes], hdr: VnetHdr | None,
             gro: bool = False) -> Result:  # fmt: skip
    """b0 sends frames to the guest's MAC; records what t0's reader gets.
    `gro`: rx-gro on a0 (the bridge port) and b0 without TSO, so veth hands
    the frames to a0's NAPI."""
    t = T.tap(lab, offloads=offloads, a_features=T.GRO_ON if gro else None,
              b_features=T.NO_TSO if gro else None)  # fmt: skip
    assert t.tap is not None
    if gro:
        run(["ip", "netns", "exec", t.a.name, "sh", "-c",
             f"echo {FLUSH_TIMEOUT_NS} > /sys/class/net/a0/gro_flush_timeout"])  # fmt: skip
    s = Sender(lab, t.b, "b0", vnet=hdr is not None)
    if gro:
        burst(s, frames)
    else:
        for fr in frames:
            s.send(fr, hdr)
    got = [(h, d) for h, d in t.tap.read() if not is_ipv6_control(d)]
    out = {"t0.read.count": str(len(got))}
    for i, (h, data) in enumerate(got):
        out[f"t0.read[{i}]"] = frame_text(h.summary(), "-", data)
    return out


def guest_udp(csum: F.Csum = "good") -> bytes:
    return F.udp4_frame(T.MAC_T, T.MAC_B, T.IP_T, T.IP_B, SPORT, UPORT, F.payload(100), csum=csum)


def guest_gso() -> bytes:
    return F.tcp4_frame(T.MAC_T, T.MAC_B, T.IP_T, T.IP_B, SPORT, TPORT, F.payload(3000),
                        csum="pseudo")  # fmt: skip


def to_guest_udp(csum: F.Csum = "good") -> bytes:
    return F.udp4_frame(T.MAC_B, T.MAC_T, T.IP_B, T.IP_T, SPORT, UPORT, F.payload(100), csum=csum)


def to_guest_gso() -> bytes:
    return F.tcp4_frame(T.MAC_B, T.MAC_T, T.IP_B, T.IP_T, SPORT, TPORT, F.payload(3000),
                        csum="pseudo")  # fmt: skip


GSO_HDR = VnetHdr(flags=1, gso_type=1, hdr_len=54, gso_size=1000, csum_start=34, csum_offset=16)

path_case("tap-needs-csum", "tap",
          "guest writes NEEDS_CSUM: a CHECKSUM_PARTIAL skb, bridged out of a veth with checksum "
          "offload unchanged (pseudo-header sum on the wire); the receiver trusts it",
          RULE_TUN_RX, from_guest, frames=[guest_udp("pseudo")], hdr=UDP_PARTIAL)  # fmt: skip
path_case("tap-needs-csum-no-txcsum", "tap",
          "guest NEEDS_CSUM bridged to a veth with tx-checksum-ip-generic off: "
          "skb_checksum_help writes the full checksum before the wire",
          RULE_TUN_RX + "; net/core/dev.c", from_guest, frames=[guest_udp("pseudo")],
          hdr=UDP_PARTIAL, a_features=T.NO_CSUM)  # fmt: skip
path_case("tap-data-valid-bad-csum", "tap",
          "guest writes DATA_VALID over a wrong UDP checksum: what tun_get_user makes of the "
          "flag decides whether the receiver drops it", RULE_TUN_RX, from_guest,
          frames=[guest_udp("bad")], hdr=VnetHdr(flags=2))  # fmt: skip
path_case("tap-gso-tcp4", "tap",
          "guest writes a GSO TCPv4 request: the bridge and a TSO-capable veth pass the GSO skb "
          "whole to the peer", RULE_TUN_RX, from_guest, frames=[guest_gso()], hdr=GSO_HDR,
          counters=False)  # fmt: skip
path_case("tap-gso-tcp4-sw", "tap",
          "guest GSO TCPv4 bridged to a veth without TSO: software GSO into 3 PARTIAL segments",
          RULE_TUN_RX + "; net/ipv4/tcp_offload.c tcp4_gso_segment", from_guest,
          frames=[guest_gso()], hdr=GSO_HDR, a_features=T.NO_TSO, counters=False)  # fmt: skip
path_case("tap-rx-partial-csum", "tap",
          "a PARTIAL skb forwarded into a TAP with TUN_F_CSUM: the reader gets NEEDS_CSUM with "
          "csum_start/offset and the pseudo-header sum in the field", RULE_TUN_TX, to_guest,
          offloads=TUN_F_CSUM, frames=[to_guest_udp("pseudo")], hdr=UDP_PARTIAL)  # fmt: skip
path_case("tap-rx-partial-no-offload", "tap",
          "a PARTIAL skb into a TAP without TUN_F_CSUM (no tx-checksum feature): the checksum is "
          "completed in software before tun_net_xmit, the reader gets flags 0",
          RULE_TUN_TX + "; drivers/net/tun.c set_offload", to_guest, offloads=0,
          frames=[to_guest_udp("pseudo")], hdr=UDP_PARTIAL)  # fmt: skip
path_case("tap-rx-gso", "tap",
          "a GSO TCPv4 skb into a TAP with TUN_F_CSUM|TUN_F_TSO4: the reader gets one frame with "
          "gso tcpv4 and NEEDS_CSUM", RULE_TUN_TX, to_guest, offloads=TUN_F_CSUM | TUN_F_TSO4,
          frames=[to_guest_gso()], hdr=GSO_HDR)  # fmt: skip
path_case("tap-rx-gso-no-tso", "tap",
          "a GSO TCPv4 skb into a TAP with TUN_F_CSUM only: software GSO, 3 NEEDS_CSUM frames",
          RULE_TUN_TX + "; net/core/dev.c validate_xmit_skb", to_guest, offloads=TUN_F_CSUM,
          frames=[to_guest_gso()], hdr=GSO_HDR)  # fmt: skip
path_case("tap-rx-data-valid", "tap",
          "a UDP datagram checked by GRO on the bridge port (CHECKSUM_UNNECESSARY) reaches the "
          "guest with DATA_VALID", RULE_TUN_TX + "; net/ipv4/udp_offload.c udp4_gro_receive",
          to_guest, offloads=TUN_F_CSUM, frames=[to_guest_udp()], hdr=None,
          gro=True)  # fmt: skip
