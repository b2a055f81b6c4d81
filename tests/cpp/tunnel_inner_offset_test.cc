// SPDX-License-Identifier: Apache-2.0
//
// Where a tunnel's inner frame starts, and that a frame too short to hold the
// inner Ethernet header has none: UDP 8 + VXLAN 8 (RFC 7348), UDP 8 + Geneve
// 8 + options (RFC 8926, option length in 4-byte words), GRE 4 + 4 per
// C/K/S flag (RFC 2890). Offsets are counted by hand.
#include <gtest/gtest.h>

#include <cstdint>

#include "offlab/net/bytes.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/tunnel.h"

namespace offlab {
namespace {

// Ethernet + IPv4 (protocol `proto`, total length right) + `l4` + `inner`
// bytes of inner frame (zeros).
Packet Outer(uint8_t proto, const Bytes& l4, size_t inner) {
  Bytes f = FromHex("020000000002 020000000001 0800 45000000 00000000 4000 0000 0a000001 0a000002");
  f[23] = proto;
  f.insert(f.end(), l4.begin(), l4.end());
  f.insert(f.end(), inner, 0);
  const size_t tot = f.size() - 14;
  f[16] = static_cast<uint8_t>(tot >> 8);
  f[17] = static_cast<uint8_t>(tot);
  if (proto == 17) {
    const size_t ulen = f.size() - 34;
    f[38] = static_cast<uint8_t>(ulen >> 8);
    f[39] = static_cast<uint8_t>(ulen);
  }
  Packet p(f);
  Parse(p);
  return p;
}

TEST(TunnelInnerOffset, VxlanNeedsAWholeInnerEthernetHeader) {
  const Bytes udp_vxlan = FromHex("c000 12b5 0000 0000 08000000 00002a00");
  EXPECT_EQ(TunnelInnerOffset(Outer(17, udp_vxlan, 14), TunnelType::kVxlan), 34 + 16);
  EXPECT_EQ(TunnelInnerOffset(Outer(17, udp_vxlan, 60), TunnelType::kVxlan), 34 + 16);
  EXPECT_EQ(TunnelInnerOffset(Outer(17, udp_vxlan, 13), TunnelType::kVxlan), kNoOffset);
  EXPECT_EQ(TunnelInnerOffset(Outer(17, udp_vxlan, 0), TunnelType::kVxlan), kNoOffset);
}

TEST(TunnelInnerOffset, GeneveCountsItsOptions) {
  // Option length 2 words (8 bytes of options).
  const Bytes geneve = FromHex("c000 17c1 0000 0000 02006558 00002a00 0000000000000000");
  EXPECT_EQ(TunnelInnerOffset(Outer(17, geneve, 14), TunnelType::kGeneve), 34 + 24);
  EXPECT_EQ(TunnelInnerOffset(Outer(17, geneve, 13), TunnelType::kGeneve), kNoOffset);
}

TEST(TunnelInnerOffset, GreCountsChecksumKeyAndSequence) {
  // C and K set: 4 + 4 + 4 bytes before the inner frame (protocol 0x6558).
  const Bytes gre = FromHex("a0006558 00000000 0000002a");
  EXPECT_EQ(TunnelInnerOffset(Outer(47, gre, 14), TunnelType::kGre), 34 + 12);
  EXPECT_EQ(TunnelInnerOffset(Outer(47, gre, 13), TunnelType::kGre), kNoOffset);
}

}  // namespace
}  // namespace offlab
