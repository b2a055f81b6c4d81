"""Cases on a plain veth pair: what the receiving stack accepts and counts,
and how CHECKSUM_PARTIAL / GSO skbs from AF_PACKET's vnet header cross veth.
Each case is a path (a function of the lab and its inputs) registered with
its inputs; predict_veth.py composes the model along the same path."""

from __future__ import annotations

from . import frames as F
from . import observe
from . import topology as T
from .case import Recorder, Result, path_case
from .nsutil import Lab
from .observe import VnetHdr
from .traffic import Sender, recv_all, tcp_listener, udp_listener

UDP_COUNTERS = ["Udp:InDatagrams", "Udp:InErrors", "Udp:InCsumErrors", "Udp:NoPorts"]
TCP_COUNTERS = ["Tcp:InSegs", "Tcp:InErrs", "Tcp:InCsumErrors", "Tcp:OutRsts"]
IP_COUNTERS = ["Ip:InReceives", "Ip:InHdrErrors", "IpExt:InCsumErrors", "Ip:InDelivers",
               "IpExt:InTruncatedPkts"]  # fmt: skip
UDP6_COUNTERS = ["Udp6:InDatagrams", "Udp6:InErrors", "Udp6:InCsumErrors", "Udp6:NoPorts"]
IP6_COUNTERS = ["Ip6:InReceives", "Ip6:InHdrErrors", "Ip6:InDelivers", "Ip6:InTruncatedPkts"]
SPORT, UPORT, TPORT = 4000, 5000, 5001
Features = dict[str, bool] | None


def udp_frame(csum: F.Csum = "good", hdr_csum: str = "good", n: int = 100,
              dport: int = UPORT) -> bytes:  # fmt: skip
    return F.udp4_frame(T.MAC_A, T.MAC_B, T.IP_A, T.IP_B, SPORT, dport, F.payload(n),
                        csum=csum, hdr_csum=hdr_csum)  # fmt: skip


def udp6_frame(csum: F.Csum = "good", n: int = 100) -> bytes:
    return F.udp6_frame(T.MAC_A, T.MAC_B, T.IP6_A, T.IP6_B, SPORT, UPORT, F.payload(n),
                        csum=csum)  # fmt: skip


def tcp6_frame(payload: bytes, csum: F.Csum = "good", flags: int = 0x10) -> bytes:
    return F.tcp6_frame(T.MAC_A, T.MAC_B, T.IP6_A, T.IP6_B, SPORT, TPORT, payload, csum=csum,
                        flags=flags)  # fmt: skip


def ip_len(frame: bytes, tot_len: int) -> bytes:
    """The IPv4 frame with tot_len set (header checksum re-derived)."""
    hdr = bytearray(frame[14:34])
    hdr[2:4] = tot_len.to_bytes(2, "big")
    hdr[10:12] = b"\0\0"
    hdr[10:12] = F.checksum(bytes(hdr)).to_bytes(2, "big")
    return frame[:14] + bytes(hdr) + frame[34:]


def udp_len(frame: bytes, length: int) -> bytes:
    """The UDP/IPv4 frame with the UDP length field set (checksum 0)."""
    return frame[:38] + length.to_bytes(2, "big") + b"\0\0" + frame[42:]


def tcp_frame(payload: bytes, csum: F.Csum = "good", seq: int = 1000, flags: int = 0x10,
              ident: int = 1) -> bytes:  # fmt: skip
    return F.tcp4_frame(T.MAC_A, T.MAC_B, T.IP_A, T.IP_B, SPORT, TPORT, payload,
                        csum=csum, seq=seq, flags=flags, ident=ident)  # fmt: skip


def udp_to_socket(lab: Lab, frame: bytes, hdr: VnetHdr | None = None,
                  a_features: Features = None, ip_counters: bool = False,
                  v6: bool = False) -> Result:  # fmt: skip
    """Sends one frame a0 -> b0 to a bound UDP socket; the application reads
    (UDP counts InDatagrams, and checks a deferred checksum, at recvmsg)."""
    t = T.veth(lab, ipv6=v6, a_features=a_features)
    rec = Recorder(lab)
    rec.capture(t.a, "a0")
    rec.capture(t.b, "b0")
    sock = udp_listener(lab, t.b, UPORT, v6=v6)
    before = observe.snmp(t.b)
    Sender(lab, t.a, "a0", vnet=hdr is not None).send(frame, hdr)
    got = recv_all(sock)
    rec.frames("a0", "out")
    rec.frames("b0", "in")
    rec.out["socket"] = f"{len(got)} datagram(s)"
    rec.counters(before, t.b, udp_counter_names(ip_counters, v6))
    return rec.out


def udp_counter_names(ip_counters: bool, v6: bool) -> list[str]:
    if v6:
        return (IP6_COUNTERS if ip_counters else []) + UDP6_COUNTERS
    return (IP_COUNTERS if ip_counters else []) + UDP_COUNTERS


def tcp_to_listener(lab: Lab, frame: bytes, v6: bool = False) -> Result:
    """One TCP segment a0 -> b0 where b0 has a listener on the port; records
    what b0 receives, whether it answers, and TCP's counters."""
    t = T.veth(lab, ipv6=v6)
    rec = Recorder(lab)
    rec.capture(t.b, "b0")
    tcp_listener(lab, t.b, TPORT, v6=v6)
    before = observe.snmp(t.b)
    Sender(lab, t.a, "a0").send(frame)
    rec.frames("b0", "in")
    rec.frames("b0", "out")
    rec.counters(before, t.b, TCP_COUNTERS)
    return rec.out


def gso_request(lab: Lab, frame: bytes, hdr: VnetHdr, a_features: Features) -> Result:
    """One GSO request a0 -> b0 (no listener: b0 answers with RSTs, which are
    not recorded); records what arrives at b0."""
    t = T.veth(lab, a_features=a_features)
    rec = Recorder(lab)
    rec.capture(t.b, "b0")
    Sender(lab, t.a, "a0", vnet=True).send(frame, hdr)
    rec.frames("b0", "in")
    return rec.out


RULE_UDP = "net/ipv4/udp.c __udp4_lib_rcv/udp_recvmsg (deferred checksum at copy)"
RULE_VNET_TX = (
    "net/packet/af_packet.c packet_snd + include/linux/virtio_net.h virtio_net_hdr_to_skb"
)
RULE_GSO = (
    "net/core/dev.c validate_xmit_skb/netif_needs_gso; net/ipv4/tcp_offload.c tcp4_gso_segment"
)
UDP_PARTIAL = VnetHdr(flags=1, csum_start=34, csum_offset=6)
TCP_GSO = VnetHdr(flags=1, gso_type=1, hdr_len=54, gso_size=1000, csum_start=34, csum_offset=16)

path_case("udp4-good", "veth", "a correct UDP/IPv4 checksum, CHECKSUM_NONE skb: delivered",
          RULE_UDP, udp_to_socket, frame=udp_frame())  # fmt: skip
path_case("udp4-zero-csum", "veth", "UDP/IPv4 checksum 0 (none sent) is accepted", RULE_UDP,
          udp_to_socket, frame=udp_frame("zero"))  # fmt: skip
path_case("udp4-bad-csum", "veth",
          "a wrong UDP/IPv4 checksum: dropped at recvmsg, Udp:InCsumErrors", RULE_UDP,
          udp_to_socket, frame=udp_frame("bad"))  # fmt: skip
path_case("ipv4-bad-hdr-csum", "veth",
          "a wrong IPv4 header checksum: dropped in ip_rcv, InHdrErrors + InCsumErrors",
          "net/ipv4/ip_input.c ip_rcv_core", udp_to_socket, frame=udp_frame(hdr_csum="bad"),
          ip_counters=True)  # fmt: skip
path_case("tcp4-bad-csum", "veth",
          "a SYN with a wrong TCP checksum to a listener: Tcp:InCsumErrors, no RST",
          "net/ipv4/tcp_ipv4.c tcp_v4_rcv (csum_error)", tcp_to_listener,
          frame=tcp_frame(b"", csum="bad", flags=0x02))  # fmt: skip
path_case("vnet-partial-udp4", "veth",
          "AF_PACKET vnet NEEDS_CSUM: a CHECKSUM_PARTIAL skb crosses veth unchanged (pseudo sum "
          "on the wire), the receiver trusts it", RULE_VNET_TX, udp_to_socket,
          frame=udp_frame("pseudo"), hdr=UDP_PARTIAL)  # fmt: skip
path_case("vnet-partial-no-txcsum", "veth",
          "NEEDS_CSUM out of a veth with tx-checksum-ip-generic off: skb_checksum_help fills "
          "the checksum before the wire", "net/core/dev.c validate_xmit_skb / skb_checksum_help",
          udp_to_socket, frame=udp_frame("pseudo"), hdr=UDP_PARTIAL,
          a_features=T.NO_CSUM)  # fmt: skip
path_case("vnet-gso-tcp4-tso", "veth",
          "AF_PACKET GSO TCPv4 request out of a veth with TSO: the whole GSO skb reaches the peer",
          RULE_GSO, gso_request, frame=tcp_frame(F.payload(3000), "pseudo"), hdr=TCP_GSO,
          a_features=None)  # fmt: skip
path_case("vnet-gso-tcp4-sw", "veth",
          "GSO TCPv4 out of a veth without TSO: software GSO, 3 PARTIAL segments (IP id, "
          "tot_len, header checksum, pseudo-header TCP sums per segment)", RULE_GSO, gso_request,
          frame=tcp_frame(F.payload(3000), "pseudo"), hdr=TCP_GSO,
          a_features=T.NO_TSO)  # fmt: skip
path_case("vnet-gso-tcp4-sw-nocsum", "veth",
          "GSO TCPv4 out of a veth without checksum offload (and so without TSO): segments "
          "with full checksums, CHECKSUM_NONE at the peer", RULE_GSO, gso_request,
          frame=tcp_frame(F.payload(3000), "pseudo"), hdr=TCP_GSO,
          a_features=T.NO_CSUM)  # fmt: skip
path_case("udp4-no-socket", "veth",
          "a correct UDP/IPv4 datagram to a port without a socket: Udp:NoPorts (and an ICMP port "
          "unreachable, not recorded)", RULE_UDP, udp_to_socket,
          frame=udp_frame(dport=UPORT + 9))  # fmt: skip
path_case("udp4-no-socket-bad-csum", "veth",
          "a wrong UDP/IPv4 checksum to a port without a socket: checked before the port "
          "lookup, so Udp:InCsumErrors and no NoPorts", RULE_UDP, udp_to_socket,
          frame=udp_frame("bad", dport=UPORT + 9))  # fmt: skip
path_case("udp4-bad-length", "veth",
          "UDP length field beyond the IP payload: short packet, Udp:InErrors", RULE_UDP,
          udp_to_socket, frame=udp_len(udp_frame(), 200))  # fmt: skip
path_case("ipv4-truncated", "veth",
          "IPv4 tot_len beyond the frame: dropped in ip_rcv_core, IpExt:InTruncatedPkts",
          "net/ipv4/ip_input.c ip_rcv_core", udp_to_socket, frame=ip_len(udp_frame(), 300),
          ip_counters=True)  # fmt: skip
path_case("ipv4-padded", "veth",
          "IPv4 tot_len shorter than the frame (link padding): trimmed (pskb_trim_rcsum), the "
          "datagram delivered", "net/ipv4/ip_input.c ip_rcv_core (pskb_trim_rcsum)",
          udp_to_socket, frame=udp_frame() + bytes(6), ip_counters=True)  # fmt: skip
path_case("udp6-good", "veth", "a correct UDP/IPv6 checksum: delivered",
          "net/ipv6/udp.c __udp6_lib_rcv / udp6_csum_init", udp_to_socket, frame=udp6_frame(),
          v6=True)  # fmt: skip
path_case("udp6-bad-csum", "veth",
          "a wrong UDP/IPv6 checksum: dropped at recvmsg, Udp6:InCsumErrors",
          "net/ipv6/udp.c __udp6_lib_rcv / udpv6_recvmsg", udp_to_socket,
          frame=udp6_frame("bad"), v6=True)  # fmt: skip
path_case("udp6-zero-csum", "veth",
          "UDP/IPv6 checksum 0 to a plain socket: refused (RFC 8200: mandatory), Udp6:InCsumErrors",
          "net/ipv6/udp.c udp6_csum_init / udp_get_no_check6_rx", udp_to_socket,
          frame=udp6_frame("zero"), v6=True)  # fmt: skip
path_case("tcp6-bad-csum", "veth",
          "a SYN with a wrong TCP/IPv6 checksum to a listener: Tcp:InCsumErrors, no answer",
          "net/ipv6/tcp_ipv6.c tcp_v6_rcv (csum_error)", tcp_to_listener,
          frame=tcp6_frame(b"", csum="bad", flags=0x02), v6=True)  # fmt: skip
