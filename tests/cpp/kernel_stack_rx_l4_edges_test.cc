// Edges of the stack's UDP / TCP receive (models/src/linux/stack_rx_l4.cc):
// a UDP length that does not fit the packet or is below the header, the
// IPv6 jumbogram length 0, a TCP header that is cut short or whose data
// offset is impossible, the bound-port lookup past another port, and a
// protocol that is neither UDP nor TCP. Frames: kernel_test_skb.h, sums by
// test_util.h's plain-loop oracle.
//
// Source: torvalds/linux v6.18 net/ipv4/udp.c __udp4_lib_rcv ("if (ulen >
// skb->len) goto short_packet; ... if (ulen < sizeof(*uh) ...) goto
// short_packet": PKT_TOO_SMALL, UDP_MIB_INERRORS), net/ipv6/udp.c
// __udp6_lib_rcv ("if (ulen == 0) ulen = skb->len" for jumbograms),
// net/ipv4/tcp_ipv4.c tcp_v4_rcv ("if (!pskb_may_pull(skb,
// sizeof(struct tcphdr))) goto discard_it" with NOT_SPECIFIED; "if
// (unlikely(th->doff < sizeof(struct tcphdr) / 4)) { drop_reason =
// SKB_DROP_REASON_PKT_TOO_SMALL; goto bad_packet; }" -> TCP_MIB_INERRS;
// "if (!pskb_may_pull(skb, th->doff * 4)) goto discard_it").
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/stack_rx.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {
namespace {

using testing::Ipv4Frame;
using testing::Ipv6Frame;
using testing::OracleL4Csum;
using testing::Put16;

StackRxResult Rcv(const Bytes& f, Counters* c, StackRxConfig cfg = {}) {
  SkBuff s;
  s.pkt = Packet(f);
  return StackRcv(s, cfg, kLabKernel, c);
}

// IPv4 UDP 8080 -> 53 with 12 data bytes and uh->len `ulen`, checksum 0.
Bytes Udp4(uint16_t ulen) {
  Bytes f = Ipv4Frame(17, "1f90003500000000000102030405060708090a0b");
  Put16(f, 38, ulen);
  return f;
}

TEST(KernelStackRxL4Edges, UdpLengthsThatDoNotFitAreTooSmall) {
  // 20 bytes from the UDP header: uh->len 21 is beyond them, 7 below the
  // header: both short_packet; 20 is fine (no socket: NO_SOCKET).
  for (uint16_t ulen : {uint16_t{21}, uint16_t{7}}) {
    Counters c;
    const StackRxResult r = Rcv(Udp4(ulen), &c);
    EXPECT_FALSE(r.verdict.delivered);
    EXPECT_EQ(r.verdict.reason, "PKT_TOO_SMALL") << ulen;
    EXPECT_EQ(c.Get("Udp:InErrors"), 1u) << ulen;
  }
  Counters c;
  EXPECT_EQ(Rcv(Udp4(20), &c).verdict.reason, "NO_SOCKET");
  EXPECT_EQ(c.Get("Udp:NoPorts"), 1u);
}

TEST(KernelStackRxL4Edges, Ipv6UdpLengthZeroIsThePacketsLength) {
  // A jumbogram's uh->len 0 means "the rest of the packet": with a right
  // checksum over the 20 bytes the datagram reaches the socket.
  Bytes f = Ipv6Frame(17, "", "1f90003500000000000102030405060708090a0b");
  Put16(f, 60, OracleL4Csum(f, 14, 54, 17, 6));
  Counters c;
  StackRxConfig cfg;
  cfg.udp_ports = {53};
  const StackRxResult r = Rcv(f, &c, cfg);
  EXPECT_TRUE(r.verdict.delivered) << r.verdict.reason;
  EXPECT_EQ(c.Get("Udp6InDatagrams"), 1u);
}

TEST(KernelStackRxL4Edges, TheBoundPortIsFoundAfterAnother) {
  Bytes f = Udp4(20);
  Put16(f, 40, OracleL4Csum(f, 14, 34, 17, 6));
  Counters c;
  StackRxConfig cfg;
  cfg.udp_ports = {4789, 53};
  EXPECT_TRUE(Rcv(f, &c, cfg).verdict.delivered);
  EXPECT_EQ(c.Get("Udp:InDatagrams"), 1u);
}

TEST(KernelStackRxL4Edges, TcpHeadersThatAreCutShortOrImpossible) {
  // 10 bytes of TCP header: NOT_SPECIFIED, no TCP error counted.
  Counters c;
  StackRxResult r = Rcv(Ipv4Frame(6, "d4781451000000010000"), &c);
  EXPECT_EQ(r.verdict.reason, "NOT_SPECIFIED");
  EXPECT_EQ(c.Get("Tcp:InErrs"), 0u);
  EXPECT_EQ(c.Get("Tcp:InSegs"), 1u);
  // Data offset 4: PKT_TOO_SMALL and InErrs.
  r = Rcv(Ipv4Frame(6, "d478145100000001000000004010010000000000"), &c);
  EXPECT_EQ(r.verdict.reason, "PKT_TOO_SMALL");
  EXPECT_EQ(c.Get("Tcp:InErrs"), 1u);
  // Data offset 6 (24 bytes) with 20 there: NOT_SPECIFIED, no InErrs.
  r = Rcv(Ipv4Frame(6, "d478145100000001000000006010010000000000"), &c);
  EXPECT_EQ(r.verdict.reason, "NOT_SPECIFIED");
  EXPECT_EQ(c.Get("Tcp:InErrs"), 1u);
  EXPECT_EQ(c.Get("Tcp:InCsumErrors"), 0u);
}

TEST(KernelStackRxL4Edges, OtherProtocolsAreDeliveredByIp) {
  // ICMP: ip_local_deliver hands it on; no UDP or TCP counter moves.
  Counters c;
  const StackRxResult r = Rcv(Ipv4Frame(1, "0800f7ff00000000"), &c);
  EXPECT_TRUE(r.verdict.delivered);
  EXPECT_EQ(c.Get("Ip:InDelivers"), 1u);
  EXPECT_EQ(c.Get("Tcp:InSegs"), 0u);
  EXPECT_EQ(c.Get("Udp:InErrors"), 0u);
}

}  // namespace
}  // namespace offlab::kernel
