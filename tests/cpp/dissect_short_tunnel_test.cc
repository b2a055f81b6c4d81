// SPDX-License-Identifier: Apache-2.0
//
// The dissector on a UDP datagram to a tunnel port whose tunnel header is
// cut short while every length field is right (so the IP and UDP checks
// pass): it reports the tunnel layer truncated instead of reading past the
// datagram. Frames built by hand; the lengths are the RFC's (VXLAN 8 bytes,
// RFC 7348; Geneve's 8-byte base header, RFC 8926).
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/dissect.h"
#include "test_util.h"

namespace offlab {
namespace {

// Ethernet, IPv4 10.0.0.1 -> 10.0.0.2, UDP 40000 -> `dport` (checksum 0),
// then `n` bytes of a tunnel header.
Bytes ShortTunnel(uint16_t dport, size_t n) {
  Bytes f =
      FromHex(testing::H("0a8f394fe0738abf7e2f05840800"
                         "45000000123440004011 0000 0a000001 0a000002"
                         "9c40 0000 0000 0000"));
  testing::Put16(f, 36, dport);
  for (size_t i = 0; i < n; i++) f.push_back(i == 0 ? 0x08 : 0x00);
  testing::Put16(f, 16, static_cast<uint16_t>(f.size() - 14));
  testing::Put16(f, 38, static_cast<uint16_t>(f.size() - 34));
  testing::Put16(f, 24, static_cast<uint16_t>(~testing::OracleSum(&f[14], 20)));
  return f;
}

TEST(DissectShortTunnel, VxlanAndGeneveHeadersCutShort) {
  for (size_t n : {size_t{0}, size_t{4}, size_t{7}}) {
    const Dissection v = Dissect(ShortTunnel(4789, n));
    ASSERT_TRUE(v.error.has_value()) << n;
    EXPECT_EQ(*v.error, "vxlan: truncated, need 8 bytes at offset 42, have " + std::to_string(n));
    const Dissection g = Dissect(ShortTunnel(6081, n));
    ASSERT_TRUE(g.error.has_value()) << n;
    EXPECT_EQ(*g.error, "geneve: truncated, need 8 bytes at offset 42, have " + std::to_string(n));
  }
}

}  // namespace
}  // namespace offlab
