// SPDX-License-Identifier: Apache-2.0
//
// The independent dissector (models/src/net/dissect.cc) on rules the other
// dissector tests do not reach:
//  - a UDP checksum that computes to 0 is expected as 0xffff (RFC 768), and a
//    field of 0 is "absent", not wrong; the frame is R3 (OVS
//    tunnel-push-pop.at: VXLAN of R2, outer UDP checksum bf4d with source
//    port 57363) with source port 0x9f61, for which the sum is ffff by hand
//    (~bf4d - e013 = 609e; 609e + 9f61 = ffff);
//  - the pre-standard QinQ tag 0x9100 is a VLAN tag like 802.1Q/802.1ad;
//  - IPv6 routing headers that cannot be followed: type 0 with more segments
//    left than addresses (RFC 2460 section 4.4: "If Segments Left is greater
//    than the number of addresses in the header ... send an ICMP Parameter
//    Problem"), type 2 other than one address and one segment left
//    (RFC 6275 section 6.4), type 4 without a segment (RFC 8754 section 2);
//    with no segments left the destination is final and nothing is checked;
//  - a payload length of 0 is a jumbogram (RFC 2675) only with a
//    Hop-by-Hop header: with another next header it is refused;
//  - SCTP chunk types the dissector has no name for (RFC 9260 section 3.2
//    names 0-11 and 14) are shown by number.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/dissect.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;

const ChecksumField* Find(const Dissection& d, std::string_view layer, int depth) {
  for (const ChecksumField& c : d.checksums) {
    if (c.layer == layer && c.depth == depth) return &c;
  }
  return nullptr;
}

TEST(DissectEdges, UdpChecksumComputingToZero) {
  std::string outer = testing::R3Outer("339e", "ffff");
  outer.replace(2 * 34, 4, "9f61");
  Dissection d = Dissect(FromHex(outer + testing::kFrameR2));
  EXPECT_FALSE(d.error) << *d.error;
  const ChecksumField* udp = Find(d, "udp", 0);
  ASSERT_NE(udp, nullptr);
  EXPECT_EQ(udp->value, 0xffffu);
  EXPECT_EQ(udp->expected, 0xffffu);
  EXPECT_EQ(udp->verdict, Verdict::kCorrect);
  // The same with the field 0: no checksum, still expected ffff.
  std::string none = testing::R3Outer("339e", "0000");
  none.replace(2 * 34, 4, "9f61");
  d = Dissect(FromHex(none + testing::kFrameR2));
  udp = Find(d, "udp", 0);
  ASSERT_NE(udp, nullptr);
  EXPECT_EQ(udp->verdict, Verdict::kAbsent);
  EXPECT_EQ(udp->expected, 0xffffu);
}

TEST(DissectEdges, LegacyQinQTag) {
  // G with a 0x9100 tag (VID 5) between the addresses and its EtherType.
  const std::string g = testing::kFrameG;
  const Dissection d = Dissect(FromHex(g.substr(0, 24) + "91000005" + g.substr(24)));
  EXPECT_FALSE(d.error) << *d.error;
  ASSERT_GE(d.layers.size(), 3u);
  EXPECT_EQ(d.layers[1].name, "vlan");
  EXPECT_EQ(d.layers[1].summary, "0x9100 vid 5 pcp 0 type 0x0800");
  EXPECT_EQ(d.layers[2].name, "ipv4");
  EXPECT_EQ(d.layers[2].offset, 18u);
}

// fd00::1 > fd00::2, a routing header `rh` (next header UDP), UDP 5000 > 53
// with "query" (checksum 0: not what these tests look at).
std::string WithRouting(const std::string& rh) {
  const std::string udp = "1388 0035 000d 0000 7175657279";
  Bytes f =
      FromHex(H("020000000002020000000001 86dd 60000000 0000 2b 40"
                "fd000000000000000000000000000001 fd000000000000000000000000000002" +
                rh + udp));
  testing::Put16(f, 18, static_cast<uint16_t>(f.size() - 54));
  return ToHex(f);
}

std::string ErrorOf(const std::string& hex) {
  const Dissection d = Dissect(FromHex(hex));
  return d.error.value_or("");
}

TEST(DissectEdges, RoutingHeadersThatCannotBeFollowed) {
  const std::string addr = "fd000000000000000000000000000009";
  EXPECT_EQ(ErrorOf(WithRouting("11 02 00 02 00000000" + addr)),
            "ipv6-routing: type 0 with 1 addresses, 2 segments left");
  EXPECT_EQ(ErrorOf(WithRouting("11 02 02 02 00000000" + addr)),
            "ipv6-routing: type 2 length 24, 2 segments left");
  EXPECT_EQ(ErrorOf(WithRouting("11 00 04 01 00000000")),
            "ipv6-routing: segment routing header without segments");
  // Segments left 0: nothing to follow, whatever the type.
  EXPECT_EQ(ErrorOf(WithRouting("11 00 04 00 00000000")), "");
  EXPECT_EQ(ErrorOf(WithRouting("11 02 02 00 00000000" + addr)), "");
  // The followable forms.
  EXPECT_EQ(ErrorOf(WithRouting("11 02 00 01 00000000" + addr)), "");
  EXPECT_EQ(ErrorOf(WithRouting("11 02 02 01 00000000" + addr)), "");
  EXPECT_EQ(ErrorOf(WithRouting("11 02 04 01 00000000" + addr)), "");
}

TEST(DissectEdges, PayloadLengthZeroIsNoJumbogramWithoutHopByHop) {
  // IPv6 with payload length 0 and next header TCP, 20 bytes after it.
  const std::string hex = H("020000000002020000000001 86dd 60000000 0000 06 40"
                            "fd000000000000000000000000000001 fd000000000000000000000000000002") +
                          std::string(40, '0');
  EXPECT_EQ(ErrorOf(hex), "ipv6: payload length 0 with next header 6 (jumbograms unsupported)");
  // Next header 59 (No Next Header): an empty payload, no error.
  EXPECT_EQ(ErrorOf(testing::Sub(hex, "86dd6000000000000640", "86dd6000000000003b40")), "");
}

TEST(DissectEdges, SctpChunksWithoutANameByNumber) {
  // IPv4 10.0.0.1 > 10.0.0.2, SCTP 5000 > 6000 vtag 01020304, a COOKIE_ACK
  // chunk (11) and an AUTH chunk (15, RFC 4895), 4 bytes each.
  const std::string hex =
      H("020000000002020000000001 0800 45000028 0000 0000 4084 0000 0a000001 0a000002"
        "1388 1770 01020304 00000000 0b000004 0f000004");
  const Dissection d = Dissect(FromHex(hex));
  ASSERT_FALSE(d.layers.empty());
  EXPECT_EQ(d.layers.back().name, "sctp");
  EXPECT_EQ(d.layers.back().summary, "5000 > 6000 vtag 0x01020304 chunks COOKIE_ACK,0x0f");
}

}  // namespace
}  // namespace offlab
