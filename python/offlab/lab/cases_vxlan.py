"""VXLAN cases: what the VXLAN driver puts on the wire for each checksum and
remote-checksum-offload option, what the receiver verifies, counts, merges and
hands to the inner stack. Inner frames are sent on vx0 in namespace a (AF_PACKET,
optionally with a vnet header); the underlay is captured on a0 (out) and b0
(in), the decapsulated skb on b's vx0."""

from __future__ import annotations

from . import frames as F
from . import observe
from . import topology as T
from .case import Recorder, Result, case
from .cases_gro import FLUSH_TIMEOUT_NS, GRO_ON, NO_TSO, burst
from .nsutil import Lab, run
from .observe import VnetHdr
from .traffic import Sender, recv_all, tcp_listener, udp_listener

SPORT, UPORT, TPORT = 4000, 5000, 5001
UDP_COUNTERS = ["Udp:InDatagrams", "Udp:InErrors", "Udp:InCsumErrors"]
UDP6_COUNTERS = ["Udp6:InDatagrams", "Udp6:InErrors", "Udp6:InCsumErrors"]
RULE_TX = "drivers/net/vxlan/vxlan_core.c vxlan_build_skb; net/ipv4/udp.c udp_set_csum"
RULE_RX = "net/ipv4/udp.c udp_queue_rcv_one_skb (encap checksum); drivers/net/vxlan vxlan_rcv"
RULE_RCO = "drivers/net/vxlan/vxlan_core.c vxlan_build_skb/vxlan_remcsum (remcsumtx/rx)"


def inner_udp(csum: F.Csum = "good", n: int = 100) -> bytes:
    return F.udp4_frame(T.MAC_VA, T.MAC_VB, T.OV_A, T.OV_B, SPORT, UPORT, F.payload(n), csum=csum)


def inner_tcp(payload: bytes, csum: F.Csum = "good", seq: int = 1000, ident: int = 1,
              flags: int = 0x10) -> bytes:  # fmt: skip
    return F.tcp4_frame(T.MAC_VA, T.MAC_VB, T.OV_A, T.OV_B, SPORT, TPORT, payload, csum=csum,
                        seq=seq, flags=flags, ident=ident)  # fmt: skip


def through_vxlan(lab: Lab, t: T.Topo, inner: list[bytes], hdr: VnetHdr | None = None,
                  underlay: list[bytes] | None = None, v6: bool = False,
                  tcp: bool = False, gro: bool = False) -> Result:  # fmt: skip
    """Sends `inner` frames into a's vx0 (or raw `underlay` frames out of a0)
    and records the underlay wire, the decapsulated skbs and b's counters."""
    rec = Recorder(lab)
    rec.capture(t.a, "a0")
    rec.capture(t.b, "vx0")
    sock = tcp_listener(lab, t.b, TPORT) if tcp else udp_listener(lab, t.b, UPORT)
    before = observe.snmp(t.b)
    if underlay is not None:
        s = Sender(lab, t.a, "a0")
        frames = underlay
    else:
        s = Sender(lab, t.a, "vx0", vnet=hdr is not None)
        frames = inner
    if gro:
        burst(s, frames)
    else:
        for fr in frames:
            s.send(fr, hdr)
    if not tcp:
        rec.out["socket"] = f"{len(recv_all(sock))} datagram(s)"
    rec.frames("a0", "out", tunnel=True)
    rec.frames("vx0", "in")
    counters = (UDP6_COUNTERS if v6 else UDP_COUNTERS)
    if tcp:
        counters = [*counters, "Tcp:InCsumErrors", "Tcp:InErrs"]
    if not v6 and not tcp:
        counters = [*counters, "Udp6:InErrors"]
    rec.counters(before, t.b, counters)
    st = observe.dev_stats(t.b)["vx0"]
    rec.out["vx0 rx_packets/rx_errors/rx_dropped"] = (
        f"{st['rx_packets']}/{st['rx_errors']}/{st['rx_dropped']}"
    )
    return rec.out


UDP_INNER_PARTIAL = VnetHdr(flags=1, csum_start=34, csum_offset=6)


@case("vxlan4-udpcsum", "vxlan",
      "udpcsum, inner CHECKSUM_NONE: the outer UDP checksum is left to the underlay device "
      "(PARTIAL, pseudo-header sum on the veth wire); receiver delivers", RULE_TX)  # fmt: skip
def vx_udpcsum(lab: Lab) -> Result:
    t = T.vxlan(lab, a_opts=("udpcsum",), b_opts=("udpcsum",))
    return through_vxlan(lab, t, [inner_udp()])


@case("vxlan4-noudpcsum", "vxlan",
      "noudpcsum (the IPv4 default): outer UDP checksum 0; receiver accepts", RULE_TX)
def vx_noudpcsum(lab: Lab) -> Result:  # fmt: skip
    t = T.vxlan(lab, a_opts=("noudpcsum",), b_opts=("noudpcsum",))
    return through_vxlan(lab, t, [inner_udp()])


@case("vxlan4-lco", "vxlan",
      "udpcsum with an inner CHECKSUM_PARTIAL skb: local checksum offload computes the outer "
      "checksum in software from the inner pseudo-header; inner stays PARTIAL",
      RULE_TX + " (lco_csum)")  # fmt: skip
def vx_lco(lab: Lab) -> Result:
    t = T.vxlan(lab, a_opts=("udpcsum",), b_opts=("udpcsum",))
    return through_vxlan(lab, t, [inner_udp("pseudo")], hdr=UDP_INNER_PARTIAL)


@case("vxlan4-rco", "vxlan",
      "remcsumtx/remcsumrx with an inner PARTIAL UDP skb: the RCO bits carry start/offset, the "
      "inner checksum field holds the value the receiver completes", RULE_RCO)  # fmt: skip
def vx_rco(lab: Lab) -> Result:
    t = T.vxlan(lab, a_opts=("udpcsum", "remcsumtx"), b_opts=("udpcsum", "remcsumrx"))
    return through_vxlan(lab, t, [inner_udp("pseudo")], hdr=UDP_INNER_PARTIAL)


@case("vxlan4-rco-rx-off", "vxlan",
      "remcsumtx at the sender, no remcsumrx at the receiver: the unknown RCO flag makes "
      "vxlan_rcv drop the packet", RULE_RCO)  # fmt: skip
def vx_rco_rx_off(lab: Lab) -> Result:
    t = T.vxlan(lab, a_opts=("udpcsum", "remcsumtx"), b_opts=("udpcsum",))
    return through_vxlan(lab, t, [inner_udp("pseudo")], hdr=UDP_INNER_PARTIAL)


def underlay_frame(inner: bytes, outer_csum: F.Csum) -> bytes:
    seg = F.udp(T.IP_A, T.IP_B, T.VXLAN_SRC_PORT, F.VXLAN_PORT, F.vxlan(T.VNI, inner), outer_csum)
    return F.ether(T.MAC_B, T.MAC_A, F.ETH_P_IP, F.ipv4(T.IP_A, T.IP_B, F.PROTO_UDP, seg, 0))


@case("vxlan4-bad-outer-csum", "vxlan",
      "a VXLAN packet with a wrong outer UDP checksum: verified before decap, dropped with "
      "Udp:InCsumErrors + InErrors, nothing reaches vx0", RULE_RX)  # fmt: skip
def vx_bad_outer(lab: Lab) -> Result:
    t = T.vxlan(lab, a_opts=("udpcsum",), b_opts=("udpcsum",))
    return through_vxlan(lab, t, [], underlay=[underlay_frame(inner_udp(), "bad")])


@case("vxlan4-bad-inner-tcp", "vxlan",
      "outer UDP checksum good, inner TCP checksum wrong: the outer check made the skb "
      "CHECKSUM_COMPLETE, the inner stack finds the error (Tcp:InCsumErrors)", RULE_RX)
def vx_bad_inner(lab: Lab) -> Result:  # fmt: skip
    t = T.vxlan(lab, a_opts=("udpcsum",), b_opts=("udpcsum",))
    inner = inner_tcp(b"", csum="bad", flags=0x02)
    return through_vxlan(lab, t, [], underlay=[underlay_frame(inner, "good")], tcp=True)


@case("vxlan4-bad-inner-tcp-zero-outer", "vxlan",
      "outer UDP checksum 0, inner TCP checksum wrong: CHECKSUM_NONE after decap, TCP "
      "verifies in software and counts Tcp:InCsumErrors", RULE_RX)  # fmt: skip
def vx_bad_inner_zero(lab: Lab) -> Result:
    t = T.vxlan(lab)
    inner = inner_tcp(b"", csum="bad", flags=0x02)
    return through_vxlan(lab, t, [], underlay=[underlay_frame(inner, "zero")], tcp=True)


@case("vxlan4-gro", "vxlan",
      "4 inner TCP segments through VXLAN, receiver underlay GRO on: merged at the outer level "
      "(udp tunnel GRO via the VXLAN socket); the decapsulated skb is one GSO packet",
      "net/ipv4/udp_offload.c udp4_gro_receive/udp_gro_complete; drivers/net/vxlan "
      "vxlan_gro_receive")  # fmt: skip
def vx_gro(lab: Lab) -> Result:
    t = T.vxlan(lab, a_opts=("udpcsum",), b_opts=("udpcsum",), b_features=GRO_ON)
    from . import ethtool

    ethtool.set_features(t.a, "a0", NO_TSO)
    run(["ip", "netns", "exec", t.b.name, "sh", "-c",
         f"echo {FLUSH_TIMEOUT_NS} > /sys/class/net/b0/gro_flush_timeout"])  # fmt: skip
    inner = [inner_tcp(F.payload(1000, i), seq=1000 + 1000 * i, ident=1 + i) for i in range(4)]
    return through_vxlan(lab, t, inner, tcp=True, gro=True)


def inner_udp6(csum: F.Csum = "good") -> bytes:
    return F.udp4_frame(T.MAC_VA, T.MAC_VB, T.OV_A, T.OV_B, SPORT, UPORT, F.payload(100), csum=csum)


RULE_V6 = "net/ipv6/udp.c udpv6_queue_rcv_one_skb / udp6_csum_init (RFC 6935/6936 zero checksums)"


@case("vxlan6-udpcsum", "vxlan6",
      "IPv6 underlay, default options: the outer UDPv6 checksum is always sent (PARTIAL on the "
      "veth wire), receiver delivers", RULE_V6)  # fmt: skip
def vx6_default(lab: Lab) -> Result:
    t = T.vxlan(lab, ipv6=True)
    return through_vxlan(lab, t, [inner_udp6()], v6=True)


@case("vxlan6-zerocsum-refused", "vxlan6",
      "udp6zerocsumtx at the sender, receiver without udp6zerocsumrx: the zero UDPv6 checksum "
      "is refused and the packet dropped", RULE_V6)  # fmt: skip
def vx6_zero_refused(lab: Lab) -> Result:
    t = T.vxlan(lab, ipv6=True, a_opts=("udp6zerocsumtx",))
    return through_vxlan(lab, t, [inner_udp6()], v6=True)


@case("vxlan6-zerocsum-allowed", "vxlan6",
      "udp6zerocsumtx at the sender, udp6zerocsumrx at the receiver: zero checksum accepted",
      RULE_V6)  # fmt: skip
def vx6_zero_allowed(lab: Lab) -> Result:
    t = T.vxlan(lab, ipv6=True, a_opts=("udp6zerocsumtx",), b_opts=("udp6zerocsumrx",))
    return through_vxlan(lab, t, [inner_udp6()], v6=True)
