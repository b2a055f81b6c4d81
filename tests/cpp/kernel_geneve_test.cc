// The Geneve driver model (drivers/net/geneve.c). This machine has no geneve
// module, so every expected frame is built here by hand: the Geneve header
// from RFC 8926 section 3.4, checksums with a plain 16-bit loop (RFC 1071),
// never with offlab::csum or the code under test.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernel_geneve_test_frames.h"
#include "offlab/linux/geneve.h"
#include "offlab/net/bytes.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {
namespace {

using namespace genevetest;  // BuildOuter, Inner, RxConfig, Skb, ...

TEST(KernelGeneveXmit, Ipv4DefaultIsNoOuterChecksumUnlikeVxlan) {
  EXPECT_FALSE(GeneveConfig{}.UdpCsumTx());
  GeneveConfig six;
  six.ipv6 = true;
  EXPECT_TRUE(six.UdpCsumTx());  // an IPv6 remote starts with TUNNEL_CSUM
  Counters c;
  const Bytes inner = Inner(false);
  auto r = GeneveXmit(Skb(inner, IpSummed::kPartial), TxConfig(), Route(), kLabKernel, &c);
  ASSERT_TRUE(r.sent) << r.reason;
  EXPECT_EQ(ToHex(r.skb.pkt.bytes()), ToHex(ExpectedTx4(inner, {}, 0)));
  // The inner UDP is still the device's to finish, 50 bytes further on.
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(r.skb.csum_start, 84);
  EXPECT_EQ(r.skb.csum_offset, 6);
  EXPECT_TRUE(r.skb.encapsulation);
  // The skb came without header offsets (Skb() sets none): the inner network
  // and transport headers are found behind the IPv4 ethertype, after the
  // outer 14 + 20 + 8 + 8 bytes and the inner Ethernet header (by hand).
  EXPECT_EQ(r.skb.pkt.inner_l3_ofs, 64);
  EXPECT_EQ(r.skb.pkt.inner_l4_ofs, 84);
  EXPECT_EQ(c.Get("geneve0:tx_packets"), 1u);
  EXPECT_EQ(c.Get("geneve0:tx_bytes"), 40u);  // from the inner IP header
}

TEST(KernelGeneveXmit, UdpCsumWithPartialInnerUsesLocalChecksumOffload) {
  GeneveConfig cfg = TxConfig();
  cfg.udp_csum = true;
  const Bytes inner = Inner(false);
  auto r = GeneveXmit(Skb(inner, IpSummed::kPartial), cfg, Route());
  ASSERT_TRUE(r.sent);
  Bytes got = r.skb.pkt.bytes();
  ASSERT_EQ(got.size(), 104u);
  const uint16_t outer = At16(got, 40);
  EXPECT_NE(outer, 0);
  Put16(got, 40, 0);
  EXPECT_EQ(ToHex(got), ToHex(ExpectedTx4(inner, {}, 0)));
  // Once the device fills the inner checksum both UDP checksums verify.
  Put16(got, 40, outer);
  Put16(got, 90, 0);
  Put16(got, 90, static_cast<uint16_t>(~Fold(Sum16(got, 84, got.size(), Pseudo4(got, 64, 20)))));
  EXPECT_TRUE(UdpVerifies(got, 64, 84, false));
  EXPECT_TRUE(UdpVerifies(got, 14, 34, false));
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(r.skb.csum_start, 84);
}

TEST(KernelGeneveXmit, OptionsAndGsoTypeWithChecksum) {
  GeneveConfig cfg = TxConfig();
  cfg.udp_csum = true;
  cfg.options = {0x01, 0x02, 0x03, 0x01, 0xaa, 0xbb, 0xcc, 0xdd};  // one 4-byte option
  const Bytes inner = Inner(false);
  SkBuff s = Skb(inner, IpSummed::kPartial);
  s.gso_size = 4;
  s.gso_type = gso::kUdpL4;
  auto r = GeneveXmit(s, cfg, Route());
  ASSERT_TRUE(r.sent);
  EXPECT_EQ(r.skb.gso_type, gso::kUdpL4 | gso::kUdpTunnelCsum);
  const Bytes& got = r.skb.pkt.bytes();
  // GSO: the field holds the folded pseudo-header for segmentation.
  const uint16_t ulen = static_cast<uint16_t>(got.size() - 34);
  EXPECT_EQ(At16(got, 40), Fold(Pseudo4(got, 14, ulen)));
  // opt_len 2 words, protocol TEB, VNI 42, then the option bytes.
  EXPECT_EQ(ToHex(Bytes(got.begin() + 42, got.begin() + 58)), "0200655800002a0001020301aabbccdd");
  cfg.udp_csum = false;
  r = GeneveXmit(s, cfg, Route());
  EXPECT_EQ(r.skb.gso_type, gso::kUdpL4 | gso::kUdpTunnel);
  EXPECT_EQ(At16(r.skb.pkt.bytes(), 40), 0);
}

TEST(KernelGeneveXmit, Ipv6UnderlayChecksumAndZeroCsumTx) {
  GeneveConfig cfg = TxConfig();
  cfg.ipv6 = true;
  cfg.local = kV6Local;
  cfg.remote = kV6Remote;
  const Bytes inner = Inner(true);
  auto r = GeneveXmit(Skb(inner), cfg, Route());
  ASSERT_TRUE(r.sent);
  const Bytes& got = r.skb.pkt.bytes();
  ASSERT_EQ(got.size(), 14u + 40 + 16 + inner.size());
  EXPECT_EQ(At16(got, 12), 0x86dd);
  EXPECT_EQ(got[20], 17);
  // A finished inner packet: the outer UDP becomes PARTIAL with the
  // pseudo-header sum in the field (udp6_set_csum).
  const uint16_t ulen = static_cast<uint16_t>(got.size() - 54);
  EXPECT_EQ(At16(got, 58), ulen);
  EXPECT_EQ(At16(got, 60), Fold(Pseudo6(got, 14, ulen)));
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(r.skb.csum_start, 54);
  EXPECT_EQ(r.skb.csum_offset, 6);
  cfg.udp6_zero_csum_tx = true;
  r = GeneveXmit(Skb(inner), cfg, Route());
  ASSERT_TRUE(r.sent);
  EXPECT_EQ(At16(r.skb.pkt.bytes(), 60), 0);
  EXPECT_NE(r.skb.ip_summed, IpSummed::kPartial);
}

TEST(KernelGeneveXmit, SourcePortFromTheFlowHashOverOneTo65535) {
  // include/net/udp.h udp_flow_src_port: hash ^= hash << 16, then
  // min + ((hash * (max - min)) >> 32); geneve passes 1 and USHRT_MAX.
  // 0x12345678 ^ 0x56780000 = 0x444c5678; * 65534 >> 32 = 17483 (0x444b).
  UnderlayRoute rt = Route();
  rt.flow_hash = 0x12345678;
  auto r = GeneveXmit(Skb(Inner(true)), TxConfig(), rt);
  ASSERT_TRUE(r.sent);
  EXPECT_EQ(At16(r.skb.pkt.bytes(), 34), 0x444b + 1);
  GeneveConfig cfg = TxConfig();
  cfg.port_min = 40000;
  cfg.port_max = 40001;  // srcport 40000 40001: one port
  r = GeneveXmit(Skb(Inner(true)), cfg, rt);
  EXPECT_EQ(At16(r.skb.pkt.bytes(), 34), 40000);
}

TEST(KernelGeneveXmit, ShortFrameIsATxError) {
  Counters c;
  Bytes b = Inner(true);
  b.resize(20);
  auto r = GeneveXmit(Skb(b), TxConfig(), Route(), kLabKernel, &c);
  EXPECT_FALSE(r.sent);
  EXPECT_EQ(c.Get("geneve0:tx_errors"), 1u);
}

TEST(KernelGeneveRcv, GoodOuterChecksumDeliversInnerWithOptionsPulled) {
  Counters c;
  Outer o;
  o.options = {0x01, 0x02, 0x03, 0x01, 0xaa, 0xbb, 0xcc, 0xdd};
  const Bytes inner = Inner(true);
  auto r = GeneveRcv(Skb(BuildOuter(o, inner)), RxConfig(), kLabKernel, &c);
  ASSERT_TRUE(r.delivered) << r.reason;
  EXPECT_EQ(ToHex(r.skb.pkt.bytes()), ToHex(inner));
  EXPECT_EQ(r.skb.pkt.l3_ofs, 14);
  EXPECT_EQ(r.skb.pkt.l4_ofs, 34);
  // The socket verified the outer checksum in software: COMPLETE over what
  // is left, from the inner IP header after the pulls.
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kComplete);
  EXPECT_EQ(r.skb.csum_from, 14);
  EXPECT_EQ(Fold(r.skb.csum + Pseudo4(inner, 14, 20)), 0xffff);
  EXPECT_FALSE(r.skb.encapsulation);
  EXPECT_EQ(c.Get("Udp:InDatagrams"), 1u);
  EXPECT_EQ(c.Get("geneve0:rx_packets"), 1u);
  EXPECT_EQ(c.Get("geneve0:rx_bytes"), 40u);
}

TEST(KernelGeneveRcv, BadOuterChecksumIsDroppedAndCounted) {
  Counters c;
  Bytes b = BuildOuter(Outer{}, Inner(true));
  Put16(b, 40, static_cast<uint16_t>(At16(b, 40) ^ 0x0100));
  auto r = GeneveRcv(Skb(b), RxConfig(), kLabKernel, &c);
  EXPECT_FALSE(r.delivered);
  EXPECT_EQ(c.Get("Udp:InCsumErrors"), 1u);
  EXPECT_EQ(c.Get("Udp:InErrors"), 1u);
  EXPECT_EQ(c.Get("Udp:InDatagrams"), 0u);
  EXPECT_EQ(c.Get("geneve0:rx_packets"), 0u);
  EXPECT_EQ(c.Get("geneve0:rx_errors"), 0u);
}

TEST(KernelGeneveRcv, Ipv6ZeroChecksumNeedsUdp6ZeroCsumRx) {
  Outer o;
  o.v6 = true;
  o.csum = false;
  const Bytes b = BuildOuter(o, Inner(true));
  Counters c;
  auto r = GeneveRcv(Skb(b), RxConfig(true), kLabKernel, &c);
  EXPECT_FALSE(r.delivered);
  EXPECT_EQ(c.Get("Udp6InCsumErrors"), 1u);
  EXPECT_EQ(c.Get("geneve0:rx_packets"), 0u);
  GeneveConfig cfg = RxConfig(true);
  cfg.udp6_zero_csum_rx = true;
  Counters c2;
  r = GeneveRcv(Skb(b), cfg, kLabKernel, &c2);
  ASSERT_TRUE(r.delivered) << r.reason;
  EXPECT_EQ(ToHex(r.skb.pkt.bytes()), ToHex(Inner(true)));
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kNone);  // nothing verified
  EXPECT_EQ(c2.Get("geneve0:rx_packets"), 1u);
  // With a checksum the IPv6 socket verifies it as IPv4's does.
  o.csum = true;
  Counters c3;
  r = GeneveRcv(Skb(BuildOuter(o, Inner(true))), RxConfig(true), kLabKernel, &c3);
  EXPECT_TRUE(r.delivered) << r.reason;
  EXPECT_EQ(c3.Get("Udp6InDatagrams"), 1u);
}

TEST(KernelGeneveRcv, CriticalBitDropsUnlessMetadataIsCollected) {
  Outer o;
  o.flags = 0x40;                                    // C
  o.options = {0x01, 0x02, 0x83, 0x01, 0, 0, 0, 1};  // a critical option type
  const Bytes b = BuildOuter(o, Inner(true));
  Counters c;
  auto r = GeneveRcv(Skb(b), RxConfig(), kLabKernel, &c);
  EXPECT_FALSE(r.delivered);
  EXPECT_EQ(c.Get("geneve0:rx_frame_errors"), 1u);
  EXPECT_EQ(c.Get("geneve0:rx_errors"), 1u);
  EXPECT_EQ(c.Get("Udp:InDatagrams"), 1u);  // the socket took it first
  GeneveConfig cfg = RxConfig();
  cfg.collect_metadata = true;
  EXPECT_TRUE(GeneveRcv(Skb(b), cfg).delivered);
  // The O bit alone does not stop the device (only GRO looks at it).
  o.flags = 0x80;
  EXPECT_TRUE(GeneveRcv(Skb(BuildOuter(o, Inner(true))), RxConfig()).delivered);
}

TEST(KernelGeneveRcv, VersionVniSourceAndOwnMac) {
  Outer o;
  o.ver = 1;
  Counters c;
  EXPECT_FALSE(GeneveRcv(Skb(BuildOuter(o, Inner(true))), RxConfig(), kLabKernel, &c).delivered);
  o.ver = 0;
  o.vni = 43;
  EXPECT_FALSE(GeneveRcv(Skb(BuildOuter(o, Inner(true))), RxConfig(), kLabKernel, &c).delivered);
  GeneveConfig other = RxConfig();
  other.remote = {10, 1, 0, 9};  // the device's remote is not the sender
  EXPECT_FALSE(GeneveRcv(Skb(BuildOuter(Outer{}, Inner(true))), other, kLabKernel, &c).delivered);
  EXPECT_EQ(c.Get("geneve0:rx_errors"), 0u);  // silent drops
  EXPECT_EQ(c.Get("geneve0:rx_dropped"), 0u);
  GeneveConfig own = RxConfig();
  own.mac = {2, 0, 0, 0, 1, 0x0b};  // the inner source
  EXPECT_FALSE(GeneveRcv(Skb(BuildOuter(Outer{}, Inner(true))), own, kLabKernel, &c).delivered);
  EXPECT_EQ(c.Get("geneve0:rx_errors"), 1u);
  EXPECT_EQ(c.Get("geneve0:rx_frame_errors"), 0u);
}

TEST(KernelGeneveRcv, OptionsLongerThanThePacketAreRxDropped) {
  Outer o;
  o.options = {1, 2, 3, 4};
  Bytes b = BuildOuter(o, {});
  b[42] = 0x3f;  // 252 bytes of options claimed
  // Keep the outer UDP checksum right for the changed byte.
  Put16(b, 40, 0);
  Put16(b, 40, static_cast<uint16_t>(~Fold(Sum16(b, 34, b.size(), Pseudo4(b, 14, 20)))));
  Counters c;
  EXPECT_FALSE(GeneveRcv(Skb(b), RxConfig(), kLabKernel, &c).delivered);
  EXPECT_EQ(c.Get("geneve0:rx_dropped"), 1u);
}

}  // namespace
}  // namespace offlab::kernel
