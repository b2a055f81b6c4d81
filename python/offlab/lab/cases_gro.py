"""GRO on veth. On 6.18 a veth has rx-gro off and no NAPI. Turning rx-gro on
(ETHTOOL_SFEATURES) gives its receive queue a NAPI instance, but veth_xmit
uses it only for skbs eligible for GRO (veth_skb_is_eligible_for_gro): the
sending peer has no TSO feature at all, or the skb belongs to a local socket
and the receiver has rx-gro-list or rx-udp-gro-forwarding. Otherwise frames
still go through netif_rx, without GRO.

Each AF_PACKET send runs the receiver's NAPI poll before the syscall returns,
and a poll's end flushes GRO; so the merge cases set gro_flush_timeout on the
receiver (held packets of the current jiffy survive the poll's end) and send
their burst right after a tick (CLOCK_MONOTONIC_COARSE advancing), so all of
it lands in one jiffy and is flushed together by the timer."""

from __future__ import annotations

import time

from . import frames as F
from . import observe
from . import topology as T
from .case import Recorder, Result, path_case
from .cases_veth import SPORT, TPORT, UDP_COUNTERS, UPORT
from .nsutil import Lab, run
from .observe import VnetHdr
from .traffic import Sender, recv_all, udp_listener

SEG = 1000
N_SEGS = 4
GRO_ON, NO_TSO = T.GRO_ON, T.NO_TSO
CLOCK_MONOTONIC_COARSE = 6  # not exported by Python 3.11's time module
FLUSH_TIMEOUT_NS = 2_000_000
SETTLE_S = 0.05  # 25 flush timeouts


def gro_topology(lab: Lab, eligible: bool = True, v6: bool = False) -> T.Topo:
    """veth with rx-gro on at b0; `eligible`: a0 without TSO, so veth uses NAPI."""
    t = T.veth(lab, ipv6=v6, a_features=NO_TSO if eligible else None, b_features=GRO_ON)
    run(["ip", "netns", "exec", t.b.name, "sh", "-c",
         f"echo {FLUSH_TIMEOUT_NS} > /sys/class/net/b0/gro_flush_timeout"])  # fmt: skip
    return t


def burst(s: Sender, frames: list[bytes], hdr: VnetHdr | None = None) -> None:
    """Sends the frames right after a timer tick (see the module comment),
    then waits well past the flush timer, so everything held has been handed
    up before the case reads its captures and counters."""
    t0 = time.clock_gettime(CLOCK_MONOTONIC_COARSE)
    while time.clock_gettime(CLOCK_MONOTONIC_COARSE) == t0:
        pass
    for fr in frames:
        s.send(fr, hdr)
    time.sleep(SETTLE_S)


RULE_GRO = (
    "drivers/net/veth.c veth_set_features (NAPI with GRO); net/core/gro.c dev_gro_receive; "
    "net/ipv4/tcp_offload.c tcp4_gro_receive/tcp4_gro_complete; net/ipv4/af_inet.c "
    "inet_gro_complete"
)


def tcp_train(bad: int | None = None, ident: int | None = None, df: bool = True,
              psh: int | None = None, v6: bool = False) -> list[bytes]:  # fmt: skip
    """N_SEGS in-order ACK segments of one flow, IPv4 ids 1.. (or all
    `ident`), DF unless `df` is False; segment `bad` (if any) with a wrong TCP
    checksum, segment `psh` with PSH set."""
    out = []
    for i in range(N_SEGS):
        csum = "bad" if i == bad else "good"
        flags = 0x18 if i == psh else 0x10
        data, seq = F.payload(SEG, i), 1000 + i * SEG
        if v6:
            out.append(F.tcp6_frame(T.MAC_A, T.MAC_B, T.IP6_A, T.IP6_B, SPORT, TPORT, data,
                                    csum=csum, seq=seq, flags=flags))  # fmt: skip
            continue
        out.append(F.tcp4_frame(T.MAC_A, T.MAC_B, T.IP_A, T.IP_B, SPORT, TPORT, data, csum=csum,
                                seq=seq, flags=flags, ident=1 + i if ident is None else ident,
                                df=df))  # fmt: skip
    return out


def gro_tcp(lab: Lab, frames: list[bytes], gro: bool, eligible: bool = True,
            v6: bool = False) -> Result:  # fmt: skip
    """A burst of TCP segments a0 -> b0 (no socket: only checksums count)."""
    t = gro_topology(lab, eligible, v6) if gro else T.veth(lab, ipv6=v6)
    rec = Recorder(lab)
    rec.capture(t.b, "b0")
    before = observe.snmp(t.b)
    burst(Sender(lab, t.a, "a0"), frames)
    rec.frames("b0", "in")
    rec.counters(before, t.b, ["Tcp:InCsumErrors", "Tcp:InErrs"])
    return rec.out


def gro_udp(lab: Lab, frames: list[bytes], sock_gro: bool = False) -> Result:
    """A burst of UDP datagrams a0 -> b0 (rx-gro on) to a UDP socket, with
    UDP_GRO set when `sock_gro`; the socket count is of reads."""
    t = gro_topology(lab)
    rec = Recorder(lab)
    rec.capture(t.b, "b0")
    sock = udp_listener(lab, t.b, UPORT, gro=sock_gro)
    before = observe.snmp(t.b)
    burst(Sender(lab, t.a, "a0"), frames)
    rec.out["socket"] = f"{len(recv_all(sock))} datagram(s)"
    rec.frames("b0", "in")
    rec.counters(before, t.b, UDP_COUNTERS)
    return rec.out


def udp_train(n: int, bad: int | None = None) -> list[bytes]:
    return [F.udp4_frame(T.MAC_A, T.MAC_B, T.IP_A, T.IP_B, SPORT, UPORT, F.payload(200, i),
                         csum="bad" if i == bad else "good", ident=1 + i)
            for i in range(n)]  # fmt: skip


path_case("veth-gro-off-tcp4", "veth",
          "rx-gro off (the 6.18 veth default): 4 in-order TCP segments arrive as 4 "
          "CHECKSUM_NONE skbs", RULE_GRO, gro_tcp, frames=tcp_train(), gro=False)  # fmt: skip
path_case("veth-gro-on-tcp4", "veth",
          "rx-gro on: the 4 segments merge into one skb: CHECKSUM_PARTIAL, gso tcpv4/1000, IP "
          "tot_len and header checksum rewritten, TCP checksum = pseudo-header sum", RULE_GRO,
          gro_tcp, frames=tcp_train(), gro=True)  # fmt: skip
path_case("veth-gro-not-eligible", "veth",
          "rx-gro on but the sending veth has TSO: veth_xmit bypasses NAPI (netif_rx), so no "
          "GRO: 4 CHECKSUM_NONE skbs", "drivers/net/veth.c veth_xmit/veth_skb_is_eligible_for_gro",
          gro_tcp, frames=tcp_train(), gro=True, eligible=False)  # fmt: skip
path_case("veth-gro-bad-csum", "veth",
          "rx-gro on, segment 2 of 4 with a wrong TCP checksum: GRO's checksum validation "
          "fails, that segment is not merged and the stack counts it", RULE_GRO, gro_tcp,
          frames=tcp_train(bad=1), gro=True)  # fmt: skip
path_case("veth-gro-udp4", "veth",
          "rx-gro on, UDP to a plain socket (no UDP GRO): not merged; GRO verified the checksum, "
          "so the skb arrives CHECKSUM_UNNECESSARY", "net/ipv4/udp_offload.c udp4_gro_receive",
          gro_udp, frames=udp_train(2))  # fmt: skip
path_case("veth-gro-udp4-bad-csum", "veth",
          "rx-gro on, a UDP datagram with a wrong checksum: GRO's validation fails, the skb goes "
          "up CHECKSUM_NONE and UDP drops it at recvmsg (Udp:InCsumErrors)",
          "net/ipv4/udp_offload.c udp4_gro_receive; net/ipv4/udp.c", gro_udp,
          frames=udp_train(1, bad=0))  # fmt: skip
path_case("veth-gro-tcp6", "veth",
          "rx-gro on, 4 in-order TCP/IPv6 segments: merged into one skb (gso tcpv6/1000, "
          "payload_len rewritten, TCP checksum = pseudo-header sum)",
          "net/ipv6/ip6_offload.c ipv6_gro_receive/ipv6_gro_complete; net/ipv6/tcpv6_offload.c",
          gro_tcp, frames=tcp_train(v6=True), gro=True, v6=True)  # fmt: skip
path_case("veth-gro-fixed-id", "veth",
          "rx-gro on, 4 DF segments all with IPv4 ID 7: mergeable as a fixed-ID flow",
          "net/ipv4/af_inet.c inet_gro_receive / net/core/gro.c gro_network_flush (IP ID rules)",
          gro_tcp, frames=tcp_train(ident=7), gro=True)  # fmt: skip
path_case("veth-gro-fixed-id-no-df", "veth",
          "rx-gro on, 4 segments without DF all with IPv4 ID 7: 6.18 merges a fixed ID without "
          "DF too (v6.10-6.17 needed DF and flushed each segment)",
          "net/ipv4/af_inet.c inet_gro_receive, include/net/gro.h inet_gro_flush (IP ID rules; "
          "v6.18 'net: gro: remove unnecessary df checks')",
          gro_tcp, frames=tcp_train(ident=7, df=False), gro=True)  # fmt: skip
path_case("veth-gro-psh", "veth",
          "rx-gro on, PSH on segment 2 of 4: merged up to it, the PSH segment ends the packet",
          "net/ipv4/tcp_offload.c tcp_gro_receive (flush on PSH/URG/RST/SYN/FIN)", gro_tcp,
          frames=tcp_train(psh=1), gro=True)  # fmt: skip
path_case("veth-gro-udp4-sock-gro", "veth",
          "rx-gro on, 3 equal UDP datagrams to a socket with UDP_GRO: merged into one "
          "gso udp_l4 skb, read as one buffer", "net/ipv4/udp_offload.c udp_gro_receive / "
          "udp_gro_receive_segment / udp4_gro_complete", gro_udp, frames=udp_train(3),
          sock_gro=True)  # fmt: skip


def with_ttl(frame: bytes, ttl: int) -> bytes:
    """The Ethernet/IPv4 frame with its TTL set (header checksum re-derived)."""
    hdr = bytearray(frame[14:34])
    hdr[8] = ttl
    hdr[10:12] = b"\0\0"
    hdr[10:12] = F.checksum(bytes(hdr)).to_bytes(2, "big")
    return frame[:14] + bytes(hdr) + frame[34:]


path_case("veth-gro-ttl-change", "veth",
          "rx-gro on, segment 3 of 4 with another TTL: IP headers must match, so it closes the "
          "held packet and starts a new one", "net/ipv4/af_inet.c inet_gro_receive "
          "(ttl/tos/flags compared); include/net/gro.h inet_gro_flush", gro_tcp,
          frames=[with_ttl(f, 63) if i == 2 else f for i, f in enumerate(tcp_train())],
          gro=True)  # fmt: skip
path_case("veth-gro-reordered", "veth",
          "rx-gro on, segments sent 1, 3, 2, 4: only in-sequence segments join the held packet",
          "net/ipv4/tcp_offload.c tcp_gro_receive (seq must continue the held packet)", gro_tcp,
          frames=[tcp_train()[i] for i in (0, 2, 1, 3)], gro=True)  # fmt: skip
