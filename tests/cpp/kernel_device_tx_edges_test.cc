// Edges of the device transmit model (models/src/linux/device_tx.cc): a TSO
// skb whose offsets or header lengths do not fit is sent as it is and
// counted, a TSO skb without payload, the outer UDP checksum of tunnel TSO
// (0 sent as 0xffff, RFC 768), a TCP checksum that is 0 stays 0, a
// frag_list skb whose member lengths do not add up, and a PARTIAL skb
// without a network header on a device without NETIF_F_HW_CSUM. Every
// expected checksum is summed by the plain oracle of test_util.h.
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/device_tx.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {
namespace {

using testing::Be16;
using testing::OracleIpv4HeaderOk;
using testing::OracleL4Ok;
using testing::OraclePseudo;
using testing::OracleSum;
using testing::Put16;

const std::string kTcp = "d478145100000001000000005010010000000000";  // doff 5, ACK

DeviceFeatures Dev(uint64_t f, uint64_t enc = 0) {
  return DeviceFeatures{f, enc, 65536, 65535, 1500};
}

// A TCPv4 TSO skb of `f` (IPv4 at 14, TCP at 34) in segments of `mss`.
SkBuff Tso4(const Bytes& f, uint16_t mss) {
  SkBuff s;
  s.pkt = Packet(f);
  s.pkt.l3_ofs = 14;
  s.pkt.l4_ofs = 34;
  s.ip_summed = IpSummed::kPartial;
  s.csum_start = 34;
  s.csum_offset = 16;
  s.gso_size = mss;
  s.gso_type = gso::kTcpv4;
  return s;
}

const uint64_t kTsoDev = netif::kSg | netif::kIpCsum | netif::kTso;

// Sent unchanged as one frame, counted device_tx_malformed.
void ExpectMalformed(const SkBuff& s, uint64_t features = kTsoDev, uint64_t enc = 0) {
  Counters k;
  const auto out = DeviceTransmit(s, Dev(features, enc), &k);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], s.pkt.bytes());
  EXPECT_EQ(k.Get("device_tx_malformed"), 1u);
  EXPECT_EQ(k.Get("device_tso_segments"), 0u);
}

TEST(KernelDeviceTxEdges, TsoWithoutItsOffsetsIsSentAsItIs) {
  const Bytes f = testing::Ipv4Frame(6, kTcp + std::string(600, 'a'));
  SkBuff no_l4 = Tso4(f, 100);
  no_l4.pkt.l4_ofs = kNoOffset;
  ExpectMalformed(no_l4);
  SkBuff no_l3 = Tso4(f, 100);
  no_l3.pkt.l3_ofs = kNoOffset;
  ExpectMalformed(no_l3);
  // The TCP header's 20 bytes must be in the packet.
  SkBuff late = Tso4(f, 100);
  late.pkt.l4_ofs = static_cast<uint16_t>(f.size() - 19);
  ExpectMalformed(late);
  // An encapsulated skb needs its outer UDP header.
  SkBuff enc = Tso4(f, 100);
  enc.encapsulation = true;
  enc.gso_type |= gso::kUdpTunnel;
  enc.pkt.inner_l3_ofs = 14, enc.pkt.inner_l4_ofs = 34;
  enc.pkt.l4_ofs = kNoOffset;
  ExpectMalformed(enc, kTsoDev | netif::kGsoUdpTunnel, kTsoDev | netif::kGsoUdpTunnel);
}

TEST(KernelDeviceTxEdges, TsoWithImpossibleHeaderLengthsIsSentAsItIs) {
  const Bytes f = testing::Ipv4Frame(6, kTcp + std::string(600, 'a'));
  // TCP data offset 4 (16 bytes) is below the minimum.
  Bytes doff4 = f;
  doff4[46] = 0x40;
  ExpectMalformed(Tso4(doff4, 100));
  // Data offset 15 (60 bytes) runs past a packet that ends 40 bytes later.
  Bytes doff15 = testing::Ipv4Frame(6, kTcp + std::string(40, 'a'));
  doff15[46] = 0xf0;
  ExpectMalformed(Tso4(doff15, 10));
  // IHL 6: the IPv4 header (14 + 24 = 38) runs into the TCP header at 34.
  Bytes ihl6 = f;
  ihl6[14] = 0x46;
  ExpectMalformed(Tso4(ihl6, 100));
}

TEST(KernelDeviceTxEdges, TsoWithoutPayloadSendsTheHeadersOnce) {
  // No payload: one frame (not zero), its lengths and checksums made right.
  Bytes f = testing::Ipv4Frame(6, kTcp);
  Put16(f, 16, 0x0fff);  // a wrong total length the device rewrites to 40
  Counters k;
  const auto out = DeviceTransmit(Tso4(f, 100), Dev(kTsoDev), &k);
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].size(), 54u);
  EXPECT_EQ(Be16(out[0], 16), 40);
  EXPECT_TRUE(OracleIpv4HeaderOk(out[0], 14));
  EXPECT_TRUE(OracleL4Ok(out[0], 14, 34, 6));
  EXPECT_EQ(k.Get("device_tso_segments"), 1u);
}

// Ethernet/IPv4/UDP 4789/VXLAN (VNI bytes at 46..48) + inner Ethernet/IPv4/
// TCP (inner IPv4 at 64, TCP at 84) + `payload` bytes.
Bytes VxlanTcp(size_t payload) {
  Bytes f = testing::Ipv4Frame(17, "c00012b5000000000800000000000000");
  const Bytes inner = testing::Ipv4Frame(6, kTcp + std::string(2 * payload, 'c'));
  f.insert(f.end(), inner.begin(), inner.end());
  return f;
}

SkBuff TunnelTso(const Bytes& f, uint16_t mss) {
  SkBuff s = Tso4(f, mss);
  s.encapsulation = true;
  s.gso_type = gso::kTcpv4 | gso::kUdpTunnelCsum;
  s.pkt.inner_l2_ofs = 50, s.pkt.inner_l3_ofs = 64, s.pkt.inner_l4_ofs = 84;
  s.csum_start = 84;
  return s;
}

const uint64_t kTunnelDev = kTsoDev | netif::kGsoUdpTunnelCsum;

// The outer UDP sum of `w` (pseudo header + UDP bytes, the field as it is).
uint16_t OuterUdpSum(const Bytes& w) {
  size_t len = 0;
  uint32_t s = OraclePseudo(w, 14, 34, 17, &len);
  s = OracleSum(&w[34], len, s);
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return static_cast<uint16_t>(s);
}

TEST(KernelDeviceTxEdges, TunnelTsoWithUdpTunnelCsumChecksumsEachOuterUdpHeader) {
  // SKB_GSO_UDP_TUNNEL_CSUM: every segment's outer UDP checksum is computed
  // (and its length set) -- 2 segments of 100 payload bytes.
  const auto out = DeviceTransmit(TunnelTso(VxlanTcp(200), 100), Dev(kTunnelDev, kTunnelDev));
  ASSERT_EQ(out.size(), 2u);
  for (const Bytes& w : out) {
    EXPECT_EQ(w.size(), 84u + 20 + 100);
    EXPECT_EQ(Be16(w, 38), w.size() - 34);  // outer UDP length
    EXPECT_NE(Be16(w, 40), 0);
    EXPECT_TRUE(OracleL4Ok(w, 14, 34, 17));
    EXPECT_TRUE(OracleL4Ok(w, 64, 84, 6));
  }
}

TEST(KernelDeviceTxEdges, AnOuterUdpChecksumThatComesOutZeroIsSentAsAllOnes) {
  // RFC 768: a computed UDP checksum of 0 is transmitted as 0xffff. The
  // VNI is outside the inner TCP checksum, so changing two of its bytes by
  // v moves the outer sum by v alone: pick v so that the first segment's
  // sum (field zeroed) is 0xffff, i.e. the checksum computes to 0.
  Bytes f = VxlanTcp(200);
  auto probe = DeviceTransmit(TunnelTso(f, 100), Dev(kTunnelDev, kTunnelDev));
  Bytes w = probe.at(0);
  Put16(w, 40, 0);
  const uint16_t v = static_cast<uint16_t>(~OuterUdpSum(w));
  Put16(f, 46, v);  // VNI bytes 46-47: an even offset from the UDP header
  const auto out = DeviceTransmit(TunnelTso(f, 100), Dev(kTunnelDev, kTunnelDev));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Be16(out[0], 40), 0xffff);
  EXPECT_TRUE(OracleL4Ok(out[0], 14, 34, 17));
}

TEST(KernelDeviceTxEdges, ATcpChecksumThatComesOutZeroStaysZero) {
  // Only UDP turns a computed 0 into 0xffff; TCP has no "no checksum"
  // value. Find the payload word that makes the TCP sum 0xffff.
  Bytes f = testing::Ipv4Frame(6, kTcp + "0000");
  size_t len = 0;
  Put16(f, 50, 0);
  uint32_t s = OracleSum(&f[34], 22, OraclePseudo(f, 14, 34, 6, &len));
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  Put16(f, 54, static_cast<uint16_t>(~s));
  // PARTIAL: the field holds the pseudo-header sum.
  Put16(f, 50, static_cast<uint16_t>(OraclePseudo(f, 14, 34, 6, &len)));
  SkBuff p;
  p.pkt = Packet(f);
  p.pkt.l3_ofs = 14, p.pkt.l4_ofs = 34;
  p.ip_summed = IpSummed::kPartial, p.csum_start = 34, p.csum_offset = 16;
  const auto out = DeviceTransmit(p, Dev(netif::kIpCsum));
  EXPECT_EQ(Be16(out.at(0), 50), 0);
  EXPECT_TRUE(OracleL4Ok(out[0], 14, 34, 6));
}

TEST(KernelDeviceTxEdges, FraglistLengthsThatDoNotFitSendTheSkbWhole) {
  // Members longer than the skb, a head shorter than the MAC header, or no
  // MAC-header length known: nothing to split, the skb goes out as one.
  const Bytes f = testing::Ipv4Frame(17, "1f900035000c000000000001");  // 46 bytes
  const DeviceFeatures dev = Dev(netif::kSg | netif::kGsoFraglist | netif::kGsoUdpL4);
  auto run = [&](std::vector<uint32_t> lens, uint16_t l3) {
    SkBuff s;
    s.pkt = Packet(f);
    s.pkt.l3_ofs = l3;
    s.ip_summed = IpSummed::kUnnecessary;
    s.gso_type = gso::kUdpL4 | gso::kFraglist;
    s.gso_size = 4;
    s.frag_list_lens = std::move(lens);
    return DeviceTransmit(s, dev);
  };
  for (auto [lens, l3] : {std::pair<std::vector<uint32_t>, uint16_t>{{47}, 14},
                          {{20, 20}, 14},  // head 6 bytes < 14
                          {{10}, kNoOffset}}) {
    const auto out = run(lens, l3);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0], f);
  }
  // 46 - 32 = 14: a head of exactly the MAC header is split.
  EXPECT_EQ(run({32}, 14).size(), 2u);
}

TEST(KernelDeviceTxEdges, PartialWithoutANetworkHeaderNeedsHwCsum) {
  // can_checksum_protocol needs the IP version; with no network header only
  // NETIF_F_HW_CSUM (any inet checksum) computes it.
  Bytes f = testing::Ipv4Frame(6, kTcp + "0102");
  size_t len = 0;
  Put16(f, 50, static_cast<uint16_t>(OraclePseudo(f, 14, 34, 6, &len)));
  SkBuff s;
  s.pkt = Packet(f);
  s.pkt.l4_ofs = 34;
  s.ip_summed = IpSummed::kPartial, s.csum_start = 34, s.csum_offset = 16;
  Counters k;
  auto out = DeviceTransmit(s, Dev(netif::kIpCsum | netif::kIpv6Csum), &k);
  EXPECT_EQ(out.at(0), f);
  EXPECT_EQ(k.Get("device_tx_unsupported_csum"), 1u);
  out = DeviceTransmit(s, Dev(netif::kHwCsum), &k);
  EXPECT_TRUE(OracleL4Ok(out.at(0), 14, 34, 6));
  EXPECT_EQ(k.Get("device_csum"), 1u);
}

}  // namespace
}  // namespace offlab::kernel
