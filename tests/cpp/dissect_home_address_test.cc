// SPDX-License-Identifier: Apache-2.0
//
// A type 2 routing header (RFC 6275 section 6.4, Mobile IPv6): the home
// address it carries is the final destination, so the UDP checksum's
// pseudo-header uses it. Frame from scapy 2.x, whose checksum agrees with a
// plain RFC 1071 sum over that pseudo-header (0xa2fd):
//   Ether(src="02:00:00:00:00:01",dst="02:00:00:00:00:02")/
//   IPv6(src="2001:db8::1",dst="2001:db8::2")/
//   IPv6ExtHdrRouting(type=2,addresses=["2001:db8::99"],segleft=1)/
//   UDP(sport=5000,dport=6000)/Raw(b"home")
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/dissect.h"

namespace offlab {
namespace {

const std::string kHomeUdp =
    "02000000000202000000000186dd6000000000242b4020010db800000000000000000000000120010db80000"
    "00000000000000000002110202010000000020010db800000000000000000000009913881770000ca2fd686f"
    "6d65";

TEST(DissectIpv6Routing, TypeTwoTakesTheHomeAddressAsDestination) {
  const Dissection d = Dissect(FromHex(kHomeUdp));
  ASSERT_FALSE(d.error) << *d.error;
  ASSERT_EQ(d.checksums.size(), 1u);
  EXPECT_EQ(d.checksums[0].layer, "udp");
  EXPECT_EQ(d.checksums[0].value, 0xa2fdu);
  EXPECT_EQ(d.checksums[0].verdict, Verdict::kCorrect);
}

TEST(DissectIpv6Routing, TypeTwoWithTwoSegmentsLeftIsMalformed) {
  Bytes f = FromHex(kHomeUdp);
  f[14 + 40 + 3] = 2;  // segments left: a type 2 header has exactly one
  const Dissection d = Dissect(f);
  ASSERT_TRUE(d.error);
  EXPECT_EQ(*d.error, "ipv6-routing: type 2 length 24, 2 segments left");
}

TEST(DissectIpv6Routing, TheRoutingLayerSaysItsTypeAndSegmentsLeft) {
  const Dissection d = Dissect(FromHex(kHomeUdp));
  ASSERT_FALSE(d.error) << *d.error;
  bool seen = false;
  for (const Layer& l : d.layers) {
    if (l.name != "ipv6-routing") continue;
    seen = true;
    // Next header 17 (UDP), routing type 2, one segment left (the frame above).
    EXPECT_EQ(l.summary, "next 17 type 2 segleft 1");
    EXPECT_EQ(l.length, 24u);
  }
  EXPECT_TRUE(seen);
}

TEST(DissectIpv6Fragment, TheFragmentLayerSaysItsOffsetAndIdentification) {
  // IPv6(src=2001:db8::1,dst=::2)/IPv6ExtHdrFragment(nh=58,offset=32,m=0,
  // id=0x6a9d)/Raw(8000a8ed04bc02a073fd) (scapy): offset 32 * 8 bytes.
  const Dissection d = Dissect(
      FromHex("0a8f394fe0738abf7e2f058486dd6000000000122c4020010db80000000000000000000000012001"
              "0db80000000000000000000000023a00010000006a9d8000a8ed04bc02a073fd"));
  bool seen = false;
  for (const Layer& l : d.layers) {
    if (l.name != "ipv6-frag") continue;
    seen = true;
    EXPECT_EQ(l.summary, "next 58 off 256 id 0x00006a9d");
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace offlab
