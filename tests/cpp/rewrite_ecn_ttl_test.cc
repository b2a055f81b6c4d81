// SPDX-License-Identifier: Apache-2.0
//
// SetEcnCe (IP_ECN_set_ce / IP6_ECN_set_ce, include/net/inet_ecn.h: CE only
// on an ECN-capable packet, the IPv4 header checksum kept right) and DecTtl
// (ovs-actions(7) dec_ttl: TTL or hop limit 0 or 1 is not decremented) on
// IPv4 and IPv6. Frames from kernel_test_skb.h's builders, parsed as the
// datapath parses them; checksums judged by the independent dissector.
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/net/dissect.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/rewrite.h"

namespace offlab {
namespace {

const std::string kTcp = "d478145100000001000000005010010000000000000102030405";

bool ChecksumsCorrect(const Bytes& f) {
  const Dissection d = Dissect(f);
  for (const ChecksumField& c : d.checksums)
    if (c.verdict != Verdict::kCorrect) return false;
  return !d.checksums.empty();
}

Packet V4(uint8_t tos, uint8_t ttl) {
  Bytes f = testing::Ipv4Frame(6, kTcp);
  f[15] = tos;
  f[22] = ttl;
  testing::Put16(f, 24, 0);
  testing::Put16(f, 24, static_cast<uint16_t>(~testing::OracleSum(&f[14], 20)));
  testing::Put16(f, 50, testing::OracleL4Csum(f, 14, 34, 6, 16));
  Packet p(f);
  Parse(p);
  return p;
}

Packet V6(uint8_t tc, uint8_t hlim) {
  Bytes f = testing::Ipv6Frame(6, "", kTcp);
  f[14] = static_cast<uint8_t>(0x60 | (tc >> 4));
  f[15] = static_cast<uint8_t>(tc << 4);
  f[21] = hlim;
  testing::Put16(f, 70, testing::OracleL4Csum(f, 14, 54, 6, 16));
  Packet p(f);
  Parse(p);
  return p;
}

TEST(RewriteEcn, CeOnlyOnEcnCapablePackets) {
  for (uint8_t ecn : {0, 1, 2, 3}) {
    Packet p = V4(static_cast<uint8_t>(0xb8 | ecn), 64);
    EXPECT_EQ(SetEcnCe(p), ecn != 0) << int{ecn};
    EXPECT_EQ(p.data()[15], ecn ? 0xbb : 0xb8) << int{ecn};
    EXPECT_TRUE(ChecksumsCorrect(p.bytes())) << int{ecn};
    Packet q = V6(static_cast<uint8_t>(0xb8 | ecn), 64);
    EXPECT_EQ(SetEcnCe(q), ecn != 0) << int{ecn};
    const uint8_t tc = static_cast<uint8_t>(((q.data()[14] & 0x0f) << 4) | (q.data()[15] >> 4));
    EXPECT_EQ(tc, ecn ? 0xbb : 0xb8) << int{ecn};
    EXPECT_EQ(q.data()[14] >> 4, 6);
  }
}

TEST(RewriteDecTtl, Ipv4AndIpv6) {
  Packet p = V4(0, 64);
  ASSERT_TRUE(DecTtl(p));
  EXPECT_EQ(p.data()[22], 63);
  EXPECT_TRUE(ChecksumsCorrect(p.bytes()));
  for (uint8_t ttl : {0, 1}) {
    Packet q = V4(0, ttl);
    const Bytes before = q.bytes();
    EXPECT_FALSE(DecTtl(q));
    EXPECT_EQ(q.bytes(), before);
  }
  Packet v6 = V6(0, 2);
  ASSERT_TRUE(DecTtl(v6));
  EXPECT_EQ(v6.data()[21], 1);
  EXPECT_TRUE(ChecksumsCorrect(v6.bytes()));  // no IPv6 header checksum to fix
  EXPECT_FALSE(DecTtl(v6));
  EXPECT_EQ(v6.data()[21], 1);
}

// An ARP frame has an L3 header but no TOS/TTL: neither action touches it
// (both act on IPv4/IPv6 only; ovs-actions(7): dec_ttl of a non-IP packet
// does nothing, IP_ECN_set_ce returns 0 for other protocols). OVS's
// miniflow_extract points l3_ofs at the ARP header (lib/flow.c sets it for
// every Ethertype); offlab's parser leaves it unset, so it is set here.
TEST(RewriteEcn, NotIpIsLeftAlone) {
  Packet p(
      FromHex("020000000002020000000001080600010800060400010200000000010a00000100000000"
              "00000a000002"));
  Parse(p);
  p.l3_ofs = 14;
  const Bytes before = p.bytes();
  EXPECT_FALSE(SetEcnCe(p));
  EXPECT_FALSE(DecTtl(p));
  EXPECT_EQ(p.bytes(), before);
}

}  // namespace
}  // namespace offlab
