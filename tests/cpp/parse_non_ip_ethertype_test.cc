// SPDX-License-Identifier: Apache-2.0
//
// Only Ethertype 0x0800 is parsed as IPv4 and only 0x86DD as IPv6
// (openvswitch/ovs v3.1.0 lib/flow.c miniflow_extract: "if
// (OVS_LIKELY(dl_type == htons(ETH_TYPE_IP)))" ... "else if (dl_type ==
// htons(ETH_TYPE_IPV6))", every other type has no network fields). A frame
// of another type whose bytes after the Ethernet header would pass for an
// IPv6 header (version 6, a payload length that fits) keys on its Ethertype
// alone: no L3, no error. Ethertypes: IEEE 802 numbers (ARP 0x0806, Wake on
// LAN 0x0842, RARP 0x8035).
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/ovs/parse.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;

// 2001:db8::1 > 2001:db8::2, next header 17, payload length 8, UDP 1 > 2.
const std::string kIpv6Like =
    "60000000 0008 11 40 20010db8000000000000000000000001 20010db8000000000000000000000002"
    "0001 0002 0008 0000";

TEST(ParseNonIpEthertype, OtherTypesBelowIpv6AreNotParsedAsIpv6) {
  for (const char* type : {"0806", "0842", "8035"}) {
    SCOPED_TRACE(type);
    Packet p(FromHex(H("020000000002020000000001" + std::string(type) + kIpv6Like)));
    const FlowKey key = Parse(p);
    EXPECT_EQ(key.dl_type, std::stoi(type, nullptr, 16));
    EXPECT_FALSE(key.has_l3);
    EXPECT_FALSE(key.ipv6);
    EXPECT_EQ(key.nw_proto, 0);
    EXPECT_EQ(key.error, "");
    EXPECT_EQ(p.l4_ofs, kNoOffset);
  }
  // Control: the same bytes as 0x86DD are IPv6 UDP.
  Packet v6(FromHex(H("020000000002020000000001 86dd" + kIpv6Like)));
  const FlowKey key = Parse(v6);
  EXPECT_TRUE(key.has_l3);
  EXPECT_TRUE(key.ipv6);
  EXPECT_EQ(key.nw_proto, 17);
}

TEST(ParseNonIpEthertype, AShortArpFrameIsNoTruncatedIpv6Header) {
  // ARP request 10.0.0.1 asks for 10.0.0.2: 28 bytes after the Ethernet
  // header, fewer than an IPv6 header, and no error for that.
  Packet p(
      FromHex("020000000002020000000001080600010800060400010200000000010a0000010000000000000a0"
              "00002"));
  const FlowKey key = Parse(p);
  EXPECT_EQ(key.dl_type, 0x0806);
  EXPECT_EQ(key.error, "");
  EXPECT_FALSE(key.has_l3);
}

}  // namespace
}  // namespace offlab
