// Edges of vxlan_rcv (models/src/linux/vxlan_rcv.cc): a VXLAN header cut
// short, without the I flag, with reserved bits (counted as frame errors
// from v6.14), an inner frame shorter than Ethernet, a remote checksum
// offload start past the packet, invalid inner source addresses, a non-IP
// inner frame, and an IPv6 inner marked CE without a COMPLETE sum.
//
// Source: torvalds/linux v6.18 drivers/net/vxlan/vxlan_core.c vxlan_rcv
// ("if (!pskb_may_pull(skb, VXLAN_HLEN)) goto drop"; "if
// (!(vxh->vx_flags & VXLAN_HF_VNI))" -> VXLAN_INVALID_HDR; unprocessed
// flags -> DEV_STATS_INC rx_frame_errors / rx_errors, VXLAN_INVALID_HDR;
// __iptunnel_pull_header then "if (!pskb_may_pull(skb, ETH_HLEN))" ->
// NOMEM), vxlan_remcsum ("if (!pskb_may_pull(skb, offset + sizeof(u16)))"),
// vxlan_set_mac (is_valid_ether_addr(eth_hdr(skb)->h_source)),
// include/net/inet_ecn.h IP6_ECN_set_ce. Frames are VxlanXmit's output,
// outer headers redone by test_util.h's oracle.
#include <gtest/gtest.h>

#include <string>

#include "kernel_test_skb.h"
#include "kernel_vxlan_pair.h"
#include "offlab/linux/vxlan.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {
namespace {

using testing::Ipv4Frame;
using testing::Ipv6Frame;
using testing::OracleSum;
using testing::Put16;

using vxlan_pair::kUdp;
using vxlan_pair::Rx;
using vxlan_pair::Tx;

// `inner` in VXLAN over IPv4 (outer UDP checksum 0) as VxlanXmit builds it;
// VXLAN header at 42, inner frame at 50.
Bytes Wire(const Bytes& inner) {
  SkBuff in;
  in.pkt = Packet(inner);
  VxlanXmitResult x = VxlanXmit(in, Tx(), UnderlayRoute{});
  EXPECT_TRUE(x.sent) << x.reason;
  Bytes b = x.skb.pkt.bytes();
  Put16(b, 40, 0);
  return b;
}

// `b` cut to `n` bytes with the outer IPv4 and UDP lengths (and the IPv4
// header checksum) following.
Bytes Cut(Bytes b, size_t n) {
  b.resize(n);
  Put16(b, 16, static_cast<uint16_t>(n - 14));
  Put16(b, 24, 0);
  Put16(b, 24, static_cast<uint16_t>(~OracleSum(&b[14], 20)));
  Put16(b, 38, static_cast<uint16_t>(n - 34));
  return b;
}

VxlanRcvResult Rcv(const Bytes& b, Counters* c = nullptr, KernelVersion kv = kLabKernel,
                   VxlanConfig cfg = Rx()) {
  SkBuff s;
  s.pkt = Packet(b);
  return VxlanRcv(s, cfg, kv, c);
}

TEST(KernelVxlanRcvEdges, HeaderRefusals) {
  const Bytes b = Wire(Ipv4Frame(17, kUdp));
  // 4 of the 8 VXLAN header bytes.
  EXPECT_EQ(Rcv(Cut(b, 46)).reason, "PKT_TOO_SMALL");
  // No I flag.
  Bytes no_i = b;
  no_i[42] = 0x00;
  EXPECT_EQ(Rcv(no_i).reason, "VXLAN_INVALID_HDR");
  // A reserved flag bit, or a VNI word's low byte, without RCO: invalid,
  // and from v6.14 a frame error of the device.
  Bytes rsvd = b;
  rsvd[42] = 0x0c;
  Bytes low = b;
  low[49] = 0x01;
  for (const Bytes& f : {rsvd, low}) {
    Counters c;
    EXPECT_EQ(Rcv(f, &c).reason, "VXLAN_INVALID_HDR");
    EXPECT_EQ(c.Get("vx0:rx_frame_errors"), 1u);
    EXPECT_EQ(c.Get("vx0:rx_errors"), 1u);
    Counters old;
    EXPECT_EQ(Rcv(f, &old, KernelVersion{6, 12}).reason, "VXLAN_INVALID_HDR");
    EXPECT_EQ(old.Get("vx0:rx_frame_errors"), 0u);
  }
}

TEST(KernelVxlanRcvEdges, AnInnerFrameShorterThanEthernetIsNomem) {
  const Bytes b = Wire(Ipv4Frame(17, kUdp));
  EXPECT_EQ(Rcv(Cut(b, 50 + 13)).reason, "NOMEM");
  EXPECT_NE(Rcv(Cut(b, 50 + 14)).reason, "NOMEM");
}

TEST(KernelVxlanRcvEdges, ARemoteChecksumStartPastThePacketIsTooSmall) {
  // RCO on, start 0x7f * 2 = 254 (+ 6 for UDP): far past the inner frame.
  Bytes b = Wire(Ipv4Frame(17, kUdp));
  b[43] = 0x20;  // VXLAN_HF_RCO
  b[49] = 0xff;  // VXLAN_RCO_UDP | start 0x7f
  VxlanConfig cfg = Rx();
  cfg.remcsum_rx = true;
  EXPECT_EQ(Rcv(b, nullptr, kLabKernel, cfg).reason, "PKT_TOO_SMALL");
  // Without remcsumrx the same header has unprocessed flags.
  EXPECT_EQ(Rcv(b).reason, "VXLAN_INVALID_HDR");
}

TEST(KernelVxlanRcvEdges, MulticastOrZeroInnerSourcesAreDropped) {
  Bytes mcast = Wire(Ipv4Frame(17, kUdp));
  mcast[56] |= 0x01;
  EXPECT_EQ(Rcv(mcast).reason, "MAC_INVALID_SOURCE");
  Bytes zero = Wire(Ipv4Frame(17, kUdp));
  std::fill(zero.begin() + 56, zero.begin() + 62, 0);
  EXPECT_EQ(Rcv(zero).reason, "MAC_INVALID_SOURCE");
  // One non-zero byte makes it a valid unicast source.
  zero[61] = 0x02;
  EXPECT_TRUE(Rcv(zero).delivered);
}

TEST(KernelVxlanRcvEdges, ANonIpInnerFrameIsDeliveredAsItIs) {
  // ARP inside: nothing for pskb_inet_may_pull or the ECN rules to look at.
  const Bytes arp =
      FromHex(testing::H(testing::kKernelEth + "0806 0001080006040001 8abf7e2f0584 0a000001"
                                               "000000000000 0a000002"));
  Bytes b = Wire(arp);
  b[15] = 0x03;  // outer CE: would drop a not-ECT IP inner
  Put16(b, 24, 0);
  Put16(b, 24, static_cast<uint16_t>(~OracleSum(&b[14], 20)));
  Counters c;
  const VxlanRcvResult r = Rcv(b, &c);
  ASSERT_TRUE(r.delivered) << r.reason;
  EXPECT_EQ(r.skb.pkt.bytes(), arp);
  EXPECT_EQ(c.Get("vx0:rx_packets"), 1u);
  EXPECT_EQ(c.Get("vx0:rx_bytes"), arp.size() - 14);
}

TEST(KernelVxlanRcvEdges, AnIpv6InnerMarkedCeWithoutACompleteSum) {
  // IP6_ECN_set_ce on an ECT(0) inner (traffic class 0x02 -> 0x03); the skb
  // is not COMPLETE (outer UDP checksum 0), so no sum to adjust. The
  // transport header is after the 40-byte IPv6 header.
  Bytes inner = Ipv6Frame(17, "", kUdp);
  inner[15] = 0x20;
  Bytes b = Wire(inner);
  b[15] = 0x03;
  Put16(b, 24, 0);
  Put16(b, 24, static_cast<uint16_t>(~OracleSum(&b[14], 20)));
  const VxlanRcvResult r = Rcv(b);
  ASSERT_TRUE(r.delivered) << r.reason;
  Bytes want = inner;
  want[15] = 0x30;
  EXPECT_EQ(r.skb.pkt.bytes(), want);
  EXPECT_NE(r.skb.ip_summed, IpSummed::kComplete);
  EXPECT_EQ(r.skb.pkt.l3_ofs, 14);
  EXPECT_EQ(r.skb.pkt.l4_ofs, 54);
}

TEST(KernelVxlanRcvEdges, WhatTheTunnelSocketNeverSees) {
  // Before vxlan_rcv: a frame shorter than Ethernet, an outer IPv4
  // fragment (reassembly not modelled), a protocol that is not UDP, a UDP
  // datagram to another port (no socket: NO_SOCKET), or to the port over
  // the other IP family than the vxlan device's.
  const Bytes b = Wire(Ipv4Frame(17, kUdp));
  EXPECT_EQ(Rcv(Bytes(b.begin(), b.begin() + 13)).reason, "PKT_TOO_SMALL");
  Bytes frag = b;
  frag[20] = 0x20;  // MF
  Put16(frag, 24, 0);
  Put16(frag, 24, static_cast<uint16_t>(~OracleSum(&frag[14], 20)));
  EXPECT_EQ(Rcv(frag).reason, "FRAG_REASM (not modelled)");
  Bytes tcp = b;
  tcp[23] = 6;
  Put16(tcp, 24, 0);
  Put16(tcp, 24, static_cast<uint16_t>(~OracleSum(&tcp[14], 20)));
  EXPECT_EQ(Rcv(tcp).reason, "NOT_UDP");
  Bytes port = b;
  Put16(port, 36, 4790);
  Counters c;
  EXPECT_EQ(Rcv(port, &c).reason, "NO_SOCKET");
  EXPECT_EQ(c.Get("Udp:NoPorts"), 1u);
  VxlanConfig v6 = Rx();
  v6.ipv6 = true;
  EXPECT_EQ(Rcv(b, nullptr, kLabKernel, v6).reason, "NO_SOCKET");
}

}  // namespace
}  // namespace offlab::kernel
