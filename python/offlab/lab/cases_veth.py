"""Cases on a plain veth pair: what the receiving stack accepts and counts,
and how CHECKSUM_PARTIAL / GSO skbs from AF_PACKET's vnet header cross veth."""

from __future__ import annotations

from . import frames as F
from . import observe
from . import topology as T
from .case import Recorder, Result, case
from .nsutil import Lab
from .observe import VnetHdr
from .traffic import Sender, recv_all, tcp_listener, udp_listener

UDP_COUNTERS = ["Udp:InDatagrams", "Udp:InErrors", "Udp:InCsumErrors", "Udp:NoPorts"]
TCP_COUNTERS = ["Tcp:InSegs", "Tcp:InErrs", "Tcp:InCsumErrors", "Tcp:OutRsts"]
IP_COUNTERS = ["Ip:InReceives", "Ip:InHdrErrors", "IpExt:InCsumErrors", "Ip:InDelivers"]
PAYLOAD = F.payload(100)
SPORT, UPORT, TPORT = 4000, 5000, 5001


def udp_frame(csum: F.Csum = "good", hdr_csum: str = "good", n: int = 100) -> bytes:
    return F.udp4_frame(T.MAC_A, T.MAC_B, T.IP_A, T.IP_B, SPORT, UPORT, F.payload(n),
                        csum=csum, hdr_csum=hdr_csum)  # fmt: skip


def tcp_frame(payload: bytes, csum: F.Csum = "good", seq: int = 1000, flags: int = 0x10,
              ident: int = 1) -> bytes:  # fmt: skip
    return F.tcp4_frame(T.MAC_A, T.MAC_B, T.IP_A, T.IP_B, SPORT, TPORT, payload,
                        csum=csum, seq=seq, flags=flags, ident=ident)  # fmt: skip


def udp_to_socket(lab: Lab, frame: bytes, hdr: VnetHdr | None = None,
                  a_features: dict[str, bool] | None = None) -> Result:  # fmt: skip
    """Sends one frame a0 -> b0 to a bound UDP socket; the application reads
    (UDP counts InDatagrams, and checks a deferred checksum, at recvmsg)."""
    t = T.veth(lab, a_features=a_features)
    rec = Recorder(lab)
    rec.capture(t.a, "a0")
    rec.capture(t.b, "b0")
    sock = udp_listener(lab, t.b, UPORT)
    before = observe.snmp(t.b)
    Sender(lab, t.a, "a0", vnet=hdr is not None).send(frame, hdr)
    got = recv_all(sock)
    rec.frames("a0", "out")
    rec.frames("b0", "in")
    rec.out["socket"] = f"{len(got)} datagram(s)"
    rec.counters(before, t.b, UDP_COUNTERS)
    return rec.out


RULE_UDP = "net/ipv4/udp.c __udp4_lib_rcv/udp_recvmsg (deferred checksum at copy)"


@case("udp4-good", "veth", "a correct UDP/IPv4 checksum, CHECKSUM_NONE skb: delivered",
      RULE_UDP)  # fmt: skip
def udp4_good(lab: Lab) -> Result:
    return udp_to_socket(lab, udp_frame())


@case("udp4-zero-csum", "veth", "UDP/IPv4 checksum 0 (none sent) is accepted", RULE_UDP)
def udp4_zero(lab: Lab) -> Result:
    return udp_to_socket(lab, udp_frame("zero"))


@case("udp4-bad-csum", "veth",
      "a wrong UDP/IPv4 checksum: dropped at recvmsg, Udp:InCsumErrors", RULE_UDP)  # fmt: skip
def udp4_bad(lab: Lab) -> Result:
    return udp_to_socket(lab, udp_frame("bad"))


@case("ipv4-bad-hdr-csum", "veth",
      "a wrong IPv4 header checksum: dropped in ip_rcv, InHdrErrors + InCsumErrors",
      "net/ipv4/ip_input.c ip_rcv_core")  # fmt: skip
def ipv4_bad_hdr(lab: Lab) -> Result:
    t = T.veth(lab)
    rec = Recorder(lab)
    rec.capture(t.b, "b0")
    sock = udp_listener(lab, t.b, UPORT)
    before = observe.snmp(t.b)
    Sender(lab, t.a, "a0").send(udp_frame(hdr_csum="bad"))
    rec.out["socket"] = f"{len(recv_all(sock))} datagram(s)"
    rec.frames("b0", "in")
    rec.counters(before, t.b, IP_COUNTERS + UDP_COUNTERS)
    return rec.out


@case("tcp4-bad-csum", "veth",
      "a SYN with a wrong TCP checksum to a listener: Tcp:InCsumErrors, no RST",
      "net/ipv4/tcp_ipv4.c tcp_v4_rcv (csum_error)")  # fmt: skip
def tcp4_bad(lab: Lab) -> Result:
    t = T.veth(lab)
    rec = Recorder(lab)
    rec.capture(t.b, "b0")
    tcp_listener(lab, t.b, TPORT)
    before = observe.snmp(t.b)
    Sender(lab, t.a, "a0").send(tcp_frame(b"", csum="bad", flags=0x02))
    rec.frames("b0", "in")
    rec.frames("b0", "out")
    rec.counters(before, t.b, TCP_COUNTERS)
    return rec.out


RULE_VNET_TX = (
    "net/packet/af_packet.c packet_snd + include/linux/virtio_net.h virtio_net_hdr_to_skb"
)
UDP_PARTIAL = VnetHdr(flags=1, csum_start=34, csum_offset=6)


@case("vnet-partial-udp4", "veth",
      "AF_PACKET vnet NEEDS_CSUM: a CHECKSUM_PARTIAL skb crosses veth unchanged (pseudo sum "
      "on the wire), the receiver trusts it", RULE_VNET_TX)  # fmt: skip
def vnet_partial(lab: Lab) -> Result:
    return udp_to_socket(lab, udp_frame("pseudo"), UDP_PARTIAL)


@case("vnet-partial-no-txcsum", "veth",
      "NEEDS_CSUM out of a veth with tx-checksum-ip-generic off: skb_checksum_help fills "
      "the checksum before the wire", "net/core/dev.c validate_xmit_skb / skb_checksum_help")
def vnet_partial_nocsum(lab: Lab) -> Result:  # fmt: skip
    return udp_to_socket(lab, udp_frame("pseudo"), UDP_PARTIAL,
                         a_features={"tx-checksum-ip-generic": False})  # fmt: skip


def gso_case(lab: Lab, a_features: dict[str, bool] | None) -> Result:
    """One 3000-byte TCP payload as a GSO request (gso_size 1000) a0 -> b0."""
    t = T.veth(lab, a_features=a_features)
    rec = Recorder(lab)
    rec.capture(t.a, "a0")
    rec.capture(t.b, "b0")
    # No listener: the receiver answers the segment(s) with RSTs; only the
    # frames are compared.
    hdr = VnetHdr(flags=1, gso_type=1, hdr_len=54, gso_size=1000, csum_start=34, csum_offset=16)
    Sender(lab, t.a, "a0", vnet=True).send(tcp_frame(F.payload(3000), "pseudo"), hdr)
    got = rec.caps["b0"].frames()
    rec.frames("b0", "in", got)
    return rec.out


RULE_GSO = (
    "net/core/dev.c validate_xmit_skb/netif_needs_gso; net/ipv4/tcp_offload.c tcp4_gso_segment"
)


@case("vnet-gso-tcp4-tso", "veth",
      "AF_PACKET GSO TCPv4 request out of a veth with TSO: the whole GSO skb reaches the peer",
      RULE_GSO)  # fmt: skip
def gso_tso(lab: Lab) -> Result:
    return gso_case(lab, None)


@case("vnet-gso-tcp4-sw", "veth",
      "GSO TCPv4 out of a veth without TSO: software GSO, 3 PARTIAL segments (IP id, tot_len, "
      "header checksum, pseudo-header TCP sums per segment)", RULE_GSO)  # fmt: skip
def gso_sw(lab: Lab) -> Result:
    return gso_case(lab, {"tx-tcp-segmentation": False})


@case("vnet-gso-tcp4-sw-nocsum", "veth",
      "GSO TCPv4 out of a veth without checksum offload (TSO goes with it): segments with "
      "full checksums, CHECKSUM_NONE at the peer", RULE_GSO)  # fmt: skip
def gso_sw_nocsum(lab: Lab) -> Result:
    return gso_case(lab, {"tx-checksum-ip-generic": False})
