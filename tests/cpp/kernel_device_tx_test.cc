// What a NIC does with the skb the driver hands it (device_tx.h): checksum
// offload by capability (can_checksum_protocol: NETIF_F_IP_CSUM for IPv4
// TCP/UDP, NETIF_F_IPV6_CSUM for IPv6, NETIF_F_HW_CSUM for any 16-bit
// inet checksum, NETIF_F_SCTP_CRC for a CRC32c; include/linux/netdevice.h
// at v6.18), the features of an encapsulated skb (hw_enc_features), GSO
// types it cannot do, and a NETIF_F_GSO_FRAGLIST device sending frag_list
// members as their own packets. Every expected checksum is summed by the
// plain oracle of test_util.h.
#include <gtest/gtest.h>

#include <cstdio>
#include <utility>

#include "kernel_test_skb.h"
#include "offlab/linux/device_tx.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {
namespace {

using testing::OracleL4Csum;
using testing::OraclePseudo;
using testing::OracleSctpOk;
using testing::OracleSum;
using testing::Put16;

const std::string kPayload = "000102030405060708090a0b";

Bytes V4(uint8_t proto, const std::string& l4) { return testing::Ipv4Frame(proto, l4); }
Bytes V6(uint8_t proto, const std::string& l4) { return testing::Ipv6Frame(proto, "", l4); }

// A CHECKSUM_PARTIAL skb for the L4 header at `l4`: the field at
// `csum_offset` seeded with the pseudo-header sum (TCP/UDP) or zero.
SkBuff Partial(Bytes f, size_t l4, uint8_t proto, uint16_t csum_offset) {
  if (proto == 6 || proto == 17) {
    size_t len = 0;
    Put16(f, l4 + csum_offset, static_cast<uint16_t>(OraclePseudo(f, 14, l4, proto, &len)));
  }
  SkBuff s;
  s.pkt = Packet(f);
  s.pkt.l3_ofs = 14;
  s.pkt.l4_ofs = static_cast<uint16_t>(l4);
  s.ip_summed = IpSummed::kPartial;
  s.csum_start = static_cast<uint16_t>(l4);
  s.csum_offset = csum_offset;
  return s;
}

DeviceFeatures Dev(uint64_t f, uint64_t enc = 0) {
  return DeviceFeatures{f, enc, 65536, 65535, 1500};
}

const std::string kTcp = "d478145100000001000000005010010000000000";

TEST(KernelDeviceTx, ChecksumOffloadByCapability) {
  struct Case {
    const char* what;
    bool v6;
    uint64_t features;
    bool done;
  } cases[] = {
      {"v4 IP_CSUM", false, netif::kIpCsum, true},
      {"v4 IPV6_CSUM only", false, netif::kIpv6Csum, false},
      {"v4 HW_CSUM", false, netif::kHwCsum, true},
      {"v6 IPV6_CSUM", true, netif::kIpv6Csum, true},
      {"v6 IP_CSUM only", true, netif::kIpCsum, false},
      {"v6 HW_CSUM", true, netif::kHwCsum, true},
      {"no checksum feature", false, netif::kSg | netif::kTso, false},
  };
  for (const Case& c : cases) {
    const Bytes f = c.v6 ? V6(6, kTcp + kPayload) : V4(6, kTcp + kPayload);
    const size_t l4 = c.v6 ? 54 : 34;
    SkBuff s = Partial(f, l4, 6, 16);
    const Bytes sent = s.pkt.bytes();
    Counters k;
    auto out = DeviceTransmit(s, Dev(c.features), &k);
    ASSERT_EQ(out.size(), 1u);
    if (c.done) {
      EXPECT_EQ(testing::Be16(out[0], l4 + 16), OracleL4Csum(out[0], 14, l4, 6, 16)) << c.what;
      EXPECT_EQ(k.Get("device_csum"), 1u) << c.what;
    } else {
      EXPECT_EQ(out[0], sent) << c.what;  // left with the pseudo-header sum
      EXPECT_EQ(k.Get("device_tx_unsupported_csum"), 1u) << c.what;
    }
  }
}

// Only a TCP or UDP checksum offset is an IP_CSUM/IPV6_CSUM job; another
// 16-bit inet checksum (ICMP's, at offset 2) needs HW_CSUM.
TEST(KernelDeviceTx, OtherInetChecksumsNeedHwCsum) {
  const Bytes f = V4(1, "0800000000070001" + kPayload);
  for (uint64_t feat : {netif::kIpCsum, netif::kHwCsum}) {
    Counters k;
    auto out = DeviceTransmit(Partial(f, 34, 1, 2), Dev(feat), &k);
    if (feat == netif::kHwCsum) {
      EXPECT_EQ(OracleSum(&out[0][34], out[0].size() - 34), 0xffff);
    } else {
      EXPECT_EQ(out[0], f);
      EXPECT_EQ(k.Get("device_tx_unsupported_csum"), 1u);
    }
  }
}

// A UDP checksum that sums to 0 is sent as 0xffff (RFC 768: 0 means none).
TEST(KernelDeviceTx, UdpZeroBecomesAllOnes) {
  for (int b = 0; b < 0x10000; b++) {
    Bytes f = V4(17, "1f90003500140000" + kPayload);
    Put16(f, 52, static_cast<uint16_t>(b));
    // The oracle's 0xffff is a computed 0 (a non-zero segment never sums
    // to 0xffff in one's complement).
    if (OracleL4Csum(f, 14, 34, 17, 6) != 0xffff) continue;
    auto out = DeviceTransmit(Partial(f, 34, 17, 6), Dev(netif::kIpCsum));
    EXPECT_EQ(testing::Be16(out[0], 40), 0xffff);
    return;
  }
  FAIL() << "no payload gives a zero UDP checksum";
}

// NETIF_F_SCTP_CRC: the CRC32c over the SCTP packet, little-endian; a device
// without it leaves the field, even with HW_CSUM (csum_not_inet).
TEST(KernelDeviceTx, SctpCrcNeedsSctpCrc) {
  const Bytes f = V4(132,
                     "1f9000350000000100000000"
                     "00030014000000010000000000000000"
                     "01020304");
  for (uint64_t feat : {netif::kSctpCrc, netif::kHwCsum | netif::kIpCsum}) {
    SkBuff s = Partial(f, 34, 132, 8);
    s.csum_not_inet = true;
    Counters k;
    auto out = DeviceTransmit(s, Dev(feat), &k);
    if (feat == netif::kSctpCrc) {
      EXPECT_TRUE(OracleSctpOk(out[0], 34, out[0].size() - 34));
      EXPECT_EQ(k.Get("device_csum"), 1u);
    } else {
      EXPECT_EQ(out[0], f);
      EXPECT_EQ(k.Get("device_tx_unsupported_csum"), 1u);
    }
  }
}

// Offsets past the end are sent as they are and counted.
TEST(KernelDeviceTx, MalformedChecksumOffsets) {
  const Bytes f = V4(6, kTcp + kPayload);
  for (auto [start, ofs] : {std::pair<uint16_t, uint16_t>{static_cast<uint16_t>(f.size()), 0},
                            {static_cast<uint16_t>(f.size() - 1), 0},
                            {34, static_cast<uint16_t>(f.size() - 34 - 1)}}) {
    SkBuff s = Partial(f, 34, 6, 16);
    const Bytes sent = s.pkt.bytes();
    s.csum_start = start;
    s.csum_offset = ofs;
    Counters k;
    auto out = DeviceTransmit(s, Dev(netif::kHwCsum), &k);
    EXPECT_EQ(out[0], sent) << start << " " << ofs;
    EXPECT_EQ(k.Get("device_tx_malformed"), 1u) << start << " " << ofs;
  }
}

// An encapsulated skb is offered hw_enc_features (masked by features): an
// inner TCP checksum the device does for plain packets it may not do here.
TEST(KernelDeviceTx, EncapsulatedSkbUsesHwEncFeatures) {
  const Bytes f = V4(6, kTcp + kPayload);
  for (uint64_t enc : {uint64_t{0}, netif::kIpCsum}) {
    SkBuff s = Partial(f, 34, 6, 16);
    s.encapsulation = true;
    s.pkt.inner_l3_ofs = 14;
    s.pkt.inner_l4_ofs = 34;
    Counters k;
    auto out = DeviceTransmit(s, Dev(netif::kIpCsum, enc), &k);
    EXPECT_EQ(k.Get("device_csum"), enc ? 1u : 0u);
    EXPECT_EQ(k.Get("device_tx_unsupported_csum"), enc ? 0u : 1u);
  }
}

// A GSO type the device cannot segment is sent as the one big frame it is,
// counted; a NETIF_F_GSO_FRAGLIST device sends the head's packet, then each
// frag_list member behind the head's MAC header.
TEST(KernelDeviceTx, UnsupportedGsoAndFraglistSplit) {
  SkBuff g = Partial(V4(6, kTcp + std::string(3000 * 2, 'a')), 34, 6, 16);
  g.gso_size = 1448;
  g.gso_type = gso::kTcpv4;
  g.gso_segs = 3;
  Counters k;
  auto out = DeviceTransmit(g, Dev(netif::kIpCsum | netif::kSg), &k);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], g.pkt.bytes());
  EXPECT_EQ(k.Get("device_tx_unsupported_gso"), 1u);

  // Head: a whole frame; members: two IPv4/UDP packets from IP on.
  const Bytes head = V4(17, "1f90003500140000" + kPayload);
  const Bytes m1 = V4(17, "1f900035000c000000000001"), m2 = V4(17, "1f900035000c000000000002");
  Bytes all = head;
  all.insert(all.end(), m1.begin() + 14, m1.end());
  all.insert(all.end(), m2.begin() + 14, m2.end());
  SkBuff s;
  s.pkt = Packet(all);
  s.pkt.l3_ofs = 14;
  s.pkt.l4_ofs = 34;
  s.ip_summed = IpSummed::kUnnecessary;
  s.gso_type = gso::kUdpL4 | gso::kFraglist;
  s.gso_size = 20;
  s.gso_segs = 3;
  s.frag_list_lens = {static_cast<uint32_t>(m1.size() - 14), static_cast<uint32_t>(m2.size() - 14)};
  auto split = DeviceTransmit(s, Dev(netif::kSg | netif::kGsoFraglist | netif::kGsoUdpL4));
  ASSERT_EQ(split.size(), 3u);
  EXPECT_EQ(split[0], head);
  EXPECT_EQ(split[1], m1);
  EXPECT_EQ(split[2], m2);
}

}  // namespace
}  // namespace offlab::kernel
