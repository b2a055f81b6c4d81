"""VXLAN cases: what the VXLAN driver puts on the wire for each checksum and
remote-checksum-offload option, what the receiver verifies, counts, merges and
hands to the inner stack. Inner frames are sent on vx0 in namespace a (AF_PACKET,
optionally with a vnet header); the underlay is captured on a0 (out) and b0
(in), the decapsulated skb on b's vx0."""

from __future__ import annotations

from . import ethtool, observe
from . import frames as F
from . import topology as T
from .case import Recorder, Result, path_case
from .cases_gro import FLUSH_TIMEOUT_NS, burst
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


def through_vxlan(lab: Lab, inner: list[bytes], a_opts: tuple[str, ...] = (),
                  b_opts: tuple[str, ...] = (), v6: bool = False, hdr: VnetHdr | None = None,
                  underlay: list[bytes] | None = None, tcp: bool = False,
                  gro: bool = False, a_features: dict[str, bool] | None = None,
                  record_tx: bool = True) -> Result:  # fmt: skip
    """Builds the VXLAN topology with `a_opts`/`b_opts` (ip link options), sends
    `inner` frames into a's vx0 (or raw `underlay` frames out of a0) and
    records the underlay wire, the decapsulated skbs and b's counters. `gro`:
    rx-gro on b0 and a0 without TSO (so veth uses b0's NAPI), frames sent in
    one burst. `a_features`: ethtool -K for a0 otherwise. `record_tx` False:
    a0's wire is not recorded (see vxlan4-ecn-ce)."""
    t = T.vxlan(lab, ipv6=v6, a_opts=a_opts, b_opts=b_opts,
                b_features=T.GRO_ON if gro else None)  # fmt: skip
    if gro or a_features:
        ethtool.set_features(t.a, "a0", T.NO_TSO if gro else a_features or {})
        run(["ip", "netns", "exec", t.b.name, "sh", "-c",
             f"echo {FLUSH_TIMEOUT_NS} > /sys/class/net/b0/gro_flush_timeout"])  # fmt: skip
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
        burst(s, frames, hdr)
    else:
        for fr in frames:
            s.send(fr, hdr)
    if not tcp:
        rec.out["socket"] = f"{len(recv_all(sock))} datagram(s)"
    if record_tx:
        rec.frames("a0", "out", tunnel=True)
    rec.frames("vx0", "in")
    rec.counters(before, t.b, counter_names(v6, tcp))
    st = observe.dev_stats(t.b)["vx0"]
    rec.out["vx0 rx_packets/rx_errors/rx_dropped"] = (
        f"{st['rx_packets']}/{st['rx_errors']}/{st['rx_dropped']}"
    )
    return rec.out


def counter_names(v6: bool, tcp: bool) -> list[str]:
    counters = UDP6_COUNTERS if v6 else UDP_COUNTERS
    if tcp:
        counters = [*counters, "Tcp:InCsumErrors", "Tcp:InErrs"]
    if not v6 and not tcp:
        counters = [*counters, "Udp6:InErrors"]
    return counters


UDP_INNER_PARTIAL = VnetHdr(flags=1, csum_start=34, csum_offset=6)
CSUM = ("udpcsum",)


def underlay_frame(inner: bytes, outer_csum: F.Csum, tos: int = 0, vni: int = T.VNI,
                   flags: int = 0x08) -> bytes:  # fmt: skip
    vx = F.vxlan(vni, inner, flags=flags)
    seg = F.udp(T.IP_A, T.IP_B, T.VXLAN_SRC_PORT, F.VXLAN_PORT, vx, outer_csum)
    return with_tos(
        F.ether(T.MAC_B, T.MAC_A, F.ETH_P_IP, F.ipv4(T.IP_A, T.IP_B, F.PROTO_UDP, seg, 0)), tos
    )


def with_tos(frame: bytes, tos: int) -> bytes:
    """The Ethernet/IPv4 frame with its TOS byte set (header checksum re-derived)."""
    hdr = bytearray(frame[14:34])
    hdr[1] = tos
    hdr[10:12] = b"\0\0"
    hdr[10:12] = F.checksum(bytes(hdr)).to_bytes(2, "big")
    return frame[:14] + bytes(hdr) + frame[34:]


RULE_V6 = "net/ipv6/udp.c udpv6_queue_rcv_one_skb / udp6_csum_init (RFC 6935/6936 zero checksums)"
BAD_SYN = inner_tcp(b"", csum="bad", flags=0x02)

path_case("vxlan4-udpcsum", "vxlan",
          "udpcsum, inner CHECKSUM_NONE: the outer UDP checksum is left to the underlay device "
          "(PARTIAL, pseudo-header sum on the veth wire); receiver delivers", RULE_TX,
          through_vxlan, inner=[inner_udp()], a_opts=CSUM, b_opts=CSUM)  # fmt: skip
path_case("vxlan4-noudpcsum", "vxlan",
          "noudpcsum: outer UDP checksum 0; receiver accepts", RULE_TX, through_vxlan,
          inner=[inner_udp()], a_opts=("noudpcsum",), b_opts=("noudpcsum",))  # fmt: skip
path_case("vxlan4-lco", "vxlan",
          "udpcsum with an inner CHECKSUM_PARTIAL skb: local checksum offload computes the outer "
          "checksum in software from the inner pseudo-header; inner stays PARTIAL",
          RULE_TX + " (lco_csum)", through_vxlan, inner=[inner_udp("pseudo")], a_opts=CSUM,
          b_opts=CSUM, hdr=UDP_INNER_PARTIAL)  # fmt: skip
path_case("vxlan4-rco", "vxlan",
          "remcsumtx/remcsumrx with an inner PARTIAL UDP skb: the RCO bits carry start/offset, "
          "the inner checksum field holds the value the receiver completes", RULE_RCO,
          through_vxlan, inner=[inner_udp("pseudo")], a_opts=("udpcsum", "remcsumtx"),
          b_opts=("udpcsum", "remcsumrx"), hdr=UDP_INNER_PARTIAL)  # fmt: skip
path_case("vxlan4-rco-rx-off", "vxlan",
          "remcsumtx at the sender, no remcsumrx at the receiver: the unknown RCO flag makes "
          "vxlan_rcv drop the packet", RULE_RCO, through_vxlan, inner=[inner_udp("pseudo")],
          a_opts=("udpcsum", "remcsumtx"), b_opts=CSUM, hdr=UDP_INNER_PARTIAL)  # fmt: skip
path_case("vxlan4-bad-outer-csum", "vxlan",
          "a VXLAN packet with a wrong outer UDP checksum: verified before decap, dropped with "
          "Udp:InCsumErrors + InErrors, nothing reaches vx0", RULE_RX, through_vxlan, inner=[],
          a_opts=CSUM, b_opts=CSUM, underlay=[underlay_frame(inner_udp(), "bad")])  # fmt: skip
path_case("vxlan4-bad-inner-tcp", "vxlan",
          "outer UDP checksum good, inner TCP checksum wrong: the outer check made the skb "
          "CHECKSUM_COMPLETE, the inner stack finds the error (Tcp:InCsumErrors)", RULE_RX,
          through_vxlan, inner=[], a_opts=CSUM, b_opts=CSUM,
          underlay=[underlay_frame(BAD_SYN, "good")], tcp=True)  # fmt: skip
path_case("vxlan4-bad-inner-tcp-zero-outer", "vxlan",
          "outer UDP checksum 0, inner TCP checksum wrong: CHECKSUM_NONE after decap, TCP "
          "verifies in software and counts Tcp:InCsumErrors", RULE_RX, through_vxlan, inner=[],
          underlay=[underlay_frame(BAD_SYN, "zero")], tcp=True)  # fmt: skip
path_case("vxlan4-gro", "vxlan",
          "4 inner TCP segments through VXLAN, receiver underlay GRO on: merged at the outer "
          "level (udp tunnel GRO via the VXLAN socket); the decapsulated skb is one GSO packet",
          "net/ipv4/udp_offload.c udp4_gro_receive/udp_gro_complete; drivers/net/vxlan "
          "vxlan_gro_receive", through_vxlan,
          inner=[inner_tcp(F.payload(1000, i), seq=1000 + 1000 * i, ident=1 + i)
                 for i in range(4)],
          a_opts=CSUM, b_opts=CSUM, tcp=True, gro=True)  # fmt: skip
path_case("vxlan6-udpcsum", "vxlan6",
          "IPv6 underlay, default options: the outer UDPv6 checksum is always sent (PARTIAL on "
          "the veth wire), receiver delivers", RULE_V6, through_vxlan, inner=[inner_udp()],
          v6=True)  # fmt: skip
path_case("vxlan6-zerocsum-refused", "vxlan6",
          "udp6zerocsumtx at the sender, receiver without udp6zerocsumrx: the zero UDPv6 "
          "checksum is refused and the packet dropped", RULE_V6, through_vxlan,
          inner=[inner_udp()], v6=True, a_opts=("udp6zerocsumtx",))  # fmt: skip
path_case("vxlan6-zerocsum-allowed", "vxlan6",
          "udp6zerocsumtx at the sender, udp6zerocsumrx at the receiver: zero checksum accepted",
          RULE_V6, through_vxlan, inner=[inner_udp()], v6=True, a_opts=("udp6zerocsumtx",),
          b_opts=("udp6zerocsumrx",))  # fmt: skip


def inner_train(bad: int | None = None) -> list[bytes]:
    """4 in-order inner TCP segments (1000 bytes each); `bad` with a wrong checksum."""
    return [inner_tcp(F.payload(1000, i), csum="bad" if i == bad else "good",
                      seq=1000 + 1000 * i, ident=1 + i) for i in range(4)]  # fmt: skip


TCP_INNER_PARTIAL = VnetHdr(flags=1, csum_start=34, csum_offset=16)
TCP_INNER_GSO = VnetHdr(flags=1, gso_type=1, hdr_len=54, gso_size=1000, csum_start=34,
                        csum_offset=16)  # fmt: skip
NO_TNL_GSO = {"tx-udp_tnl-segmentation": False, "tx-udp_tnl-csum-segmentation": False}
RULE_GRO = ("net/ipv4/udp_offload.c udp4_gro_receive/udp_gro_receive; drivers/net/vxlan "
            "vxlan_gro_receive; net/ipv4/tcp_offload.c tcp4_gro_receive")  # fmt: skip
RULE_GSO = ("net/ipv4/udp_offload.c skb_udp_tunnel_segment; net/core/dev.c validate_xmit_skb "
            "(hw_enc_features)")  # fmt: skip

path_case("vxlan4-gro-noudpcsum", "vxlan",
          "noudpcsum, receiver underlay GRO on: a zero outer checksum needs no validation, the "
          "inner TCP checksums are validated in GRO and the 4 packets merge", RULE_GRO,
          through_vxlan, inner=inner_train(), a_opts=("noudpcsum",), b_opts=("noudpcsum",),
          tcp=True, gro=True)  # fmt: skip
path_case("vxlan4-gro-bad-inner", "vxlan",
          "udpcsum, GRO on, inner TCP checksum of segment 2 wrong: the outer PARTIAL checksum "
          "does not cover the inner one, GRO validates it, the bad packet goes up unmerged and "
          "the inner TCP counts it", RULE_GRO, through_vxlan, inner=inner_train(bad=1),
          a_opts=CSUM, b_opts=CSUM, tcp=True, gro=True)  # fmt: skip
path_case("vxlan4-gro-rco", "vxlan",
          "remcsumtx/remcsumrx, inner TCP CHECKSUM_PARTIAL, GRO on: RCO resolved in GRO "
          "(vxlan_gro_remcsum) and the packets merge", RULE_GRO + "; vxlan_gro_remcsum",
          through_vxlan, inner=[inner_tcp(F.payload(1000, i), "pseudo", seq=1000 + 1000 * i,
                                          ident=1 + i) for i in range(4)],
          a_opts=("udpcsum", "remcsumtx"), b_opts=("udpcsum", "remcsumrx"),
          hdr=TCP_INNER_PARTIAL, tcp=True, gro=True)  # fmt: skip
path_case("vxlan6-gro", "vxlan6",
          "IPv6 underlay (UDPv6 checksum always on), GRO on: the 4 inner TCP segments merge",
          RULE_GRO + "; net/ipv6/udp_offload.c udp6_gro_receive", through_vxlan,
          inner=inner_train(), v6=True, tcp=True, gro=True)  # fmt: skip
path_case("vxlan4-gso", "vxlan",
          "inner TCP GSO request (3000 bytes) into vx0 with udpcsum: the underlay veth has "
          "UDP-tunnel TSO, so one UDP_TUNNEL_CSUM GSO skb reaches the receiver (the vnet socket "
          "cannot describe it) and is decapsulated whole", RULE_GSO, through_vxlan,
          inner=[inner_tcp(F.payload(3000), "pseudo")], a_opts=CSUM, b_opts=CSUM,
          hdr=TCP_INNER_GSO, tcp=True)  # fmt: skip
path_case("vxlan4-gso-sw", "vxlan",
          "inner TCP GSO into vx0 with udpcsum, underlay veth without UDP-tunnel TSO: software "
          "GSO (skb_udp_tunnel_segment) into 3 outer packets with their own outer checksums",
          RULE_GSO, through_vxlan, inner=[inner_tcp(F.payload(3000), "pseudo")], a_opts=CSUM,
          b_opts=CSUM, hdr=TCP_INNER_GSO, tcp=True, a_features=NO_TNL_GSO)  # fmt: skip
path_case("vxlan4-gro-single", "vxlan",
          "udpcsum, GRO on, one inner TCP segment: held alone and flushed unmerged; veth's NAPI "
          "unclones the skb, so vx0's gro_cells runs GRO too, validates the inner TCP checksum "
          "and the skb reaches the inner stack CHECKSUM_UNNECESSARY",
          RULE_GRO + "; drivers/net/veth.c veth_xdp_rcv (skb_unclone); net/core/gro_cells.c",
          through_vxlan, inner=inner_train()[:1], a_opts=CSUM, b_opts=CSUM, tcp=True,
          gro=True)  # fmt: skip
path_case("vxlan4-bad-inner-udp", "vxlan",
          "outer UDP checksum good (full, from the wire), inner UDP checksum wrong: the outer "
          "check converts to CHECKSUM_COMPLETE, the inner UDP finds the error at recvmsg",
          RULE_RX, through_vxlan, inner=[], a_opts=CSUM, b_opts=CSUM,
          underlay=[underlay_frame(inner_udp("bad"), "good")])  # fmt: skip
path_case("vxlan4-gro-full-outer", "vxlan",
          "4 underlay frames with full outer UDP checksums (CHECKSUM_NONE on the wire), GRO on: "
          "the outer checksum is verified and converted in GRO, which covers the inner TCP "
          "checksums, and the packets merge", RULE_GRO, through_vxlan, inner=[], a_opts=CSUM,
          b_opts=CSUM, underlay=[underlay_frame(f, "good") for f in inner_train()], tcp=True,
          gro=True)  # fmt: skip
path_case("vxlan4-gro-bad-outer", "vxlan",
          "as vxlan4-gro-full-outer with a wrong outer checksum on packet 2: GRO's outer check "
          "fails, the packet goes up unmerged and UDP drops it (Udp:InCsumErrors)", RULE_GRO,
          through_vxlan, inner=[], a_opts=CSUM, b_opts=CSUM,
          underlay=[underlay_frame(f, "bad" if i == 1 else "good")
                    for i, f in enumerate(inner_train())], tcp=True, gro=True)  # fmt: skip
RULE_ECN = (
    "include/net/inet_ecn.h INET_ECN_decapsulate; drivers/net/vxlan vxlan_rcv "
    "(vxlan_ecn_decapsulate)"
)
# The receiver marks CE in place: INET_ECN_decapsulate writes the inner
# header in data the sender's capture clone still shares (a0's tap would
# show the receiver's rewrite), so a0's wire is not recorded here; the frame
# on it is the raw one the case sends.
path_case("vxlan4-ecn-ce", "vxlan",
          "outer IPv4 ECN CE over an inner ECT(0) packet: decapsulation marks the inner header CE "
          "(TOS and header checksum rewritten) and delivers it", RULE_ECN, through_vxlan,
          inner=[], a_opts=CSUM, b_opts=CSUM, record_tx=False,
          underlay=[underlay_frame(with_tos(inner_udp(), 0x02), "good", tos=0x03)])  # fmt: skip
path_case("vxlan4-ecn-ce-not-ect", "vxlan",
          "outer IPv4 ECN CE over an inner Not-ECT packet: the congestion mark cannot be passed "
          "on, vxlan_rcv drops it (rx_frame_errors, rx_errors)", RULE_ECN, through_vxlan,
          inner=[], a_opts=CSUM, b_opts=CSUM,
          underlay=[underlay_frame(inner_udp(), "good", tos=0x03)])  # fmt: skip
path_case("vxlan4-ecn-ect1", "vxlan",
          "outer IPv4 ECN ECT(1) over an inner ECT(0) packet: since v5.7 decapsulation passes "
          "ECT(1) on (RFC 6040 section 4.2; TOS and header checksum rewritten)", RULE_ECN,
          through_vxlan, inner=[], a_opts=CSUM, b_opts=CSUM, record_tx=False,
          underlay=[underlay_frame(with_tos(inner_udp(), 0x02), "good", tos=0x01)])  # fmt: skip
RULE_HDR = "drivers/net/vxlan/vxlan_core.c vxlan_rcv (VNI flag, VNI lookup, vxlan_set_mac)"
path_case("vxlan4-wrong-vni", "vxlan",
          "a VXLAN packet for VNI 43 (the device has 42): no device for it, dropped after the "
          "UDP socket counted it", RULE_HDR, through_vxlan, inner=[], a_opts=CSUM, b_opts=CSUM,
          underlay=[underlay_frame(inner_udp(), "good", vni=43)])  # fmt: skip
path_case("vxlan4-no-vni-flag", "vxlan",
          "a VXLAN header without the I (VNI valid) flag: dropped by vxlan_rcv", RULE_HDR,
          through_vxlan, inner=[], a_opts=CSUM, b_opts=CSUM,
          underlay=[underlay_frame(inner_udp(), "good", flags=0)])  # fmt: skip
path_case("vxlan4-own-src-mac", "vxlan",
          "an inner frame whose source MAC is the receiving vx0's own address: vxlan_set_mac "
          "drops it", RULE_HDR, through_vxlan, inner=[], a_opts=CSUM, b_opts=CSUM,
          underlay=[underlay_frame(F.udp4_frame(T.MAC_VB, T.MAC_VB, T.OV_A, T.OV_B, SPORT, UPORT,
                                                F.payload(100)), "good")])  # fmt: skip
