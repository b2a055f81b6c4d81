// SPDX-License-Identifier: Apache-2.0
//
// The message and chunk types the dissector names in its summaries: ICMP for
// IPv4 (RFC 792: 0 echo reply, 3 destination unreachable, 5 redirect, 8 echo,
// 11 time exceeded, 12 parameter problem), ICMPv6 (RFC 4443: 1-4, 128, 129;
// RFC 4861: 133-136) and SCTP chunks (RFC 9260 section 3.2: 0-11 and 14).
// Unnamed types show their number only.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "offlab/net/bytes.h"
#include "offlab/net/dissect.h"

namespace offlab {
namespace {

const std::string kEth4 =
    "020000000002020000000001"
    "0800";
const std::string kEth6 =
    "020000000002020000000001"
    "86dd";

std::string Hex2(unsigned v) {
  static const char* d = "0123456789abcdef";
  return {d[(v >> 4) & 15], d[v & 15]};
}

// The summary of the last layer of `hex`.
std::string LastSummary(const std::string& hex) {
  const Dissection d = Dissect(FromHex(hex));
  return d.layers.empty() ? "" : d.layers.back().summary;
}

TEST(DissectNames, IcmpTypes) {
  const std::vector<std::pair<unsigned, std::string>> named = {
      {3, "unreachable"}, {5, "redirect"}, {11, "time exceeded"}, {12, "parameter problem"}};
  for (const auto& [type, name] : named) {
    const std::string f =
        kEth4 + "4500001c000000004001 0000 0a0000010a000002" + Hex2(type) + "00000000000000";
    EXPECT_EQ(LastSummary(f), "type " + std::to_string(type) + " code 0 " + name);
  }
  EXPECT_EQ(LastSummary(kEth4 + "4500001c0000000040010000 0a0000010a000002 0000000000070009"),
            "type 0 code 0 echo reply id 7 seq 9");
  EXPECT_EQ(LastSummary(kEth4 + "4500001c0000000040010000 0a0000010a000002 0800000000070009"),
            "type 8 code 0 echo request id 7 seq 9");
  EXPECT_EQ(LastSummary(kEth4 + "4500001c0000000040010000 0a0000010a000002 0d00000000070009"),
            "type 13 code 0");
}

TEST(DissectNames, Icmpv6Types) {
  const std::vector<std::pair<unsigned, std::string>> named = {{1, "unreachable"},
                                                               {2, "packet too big"},
                                                               {3, "time exceeded"},
                                                               {4, "parameter problem"},
                                                               {133, "router solicitation"},
                                                               {134, "router advertisement"},
                                                               {135, "neighbor solicitation"},
                                                               {136, "neighbor advertisement"}};
  const std::string ip6 =
      "6000000000083a40 20010db8000000000000000000000001 20010db8000000000000000000000002";
  for (const auto& [type, name] : named) {
    EXPECT_EQ(LastSummary(kEth6 + ip6 + Hex2(type) + "00000000000000"),
              "type " + std::to_string(type) + " code 0 " + name);
  }
  EXPECT_EQ(LastSummary(kEth6 + ip6 + "8000000000070009"),
            "type 128 code 0 echo request id 7 seq 9");
  EXPECT_EQ(LastSummary(kEth6 + ip6 + "8100000000070009"), "type 129 code 0 echo reply id 7 seq 9");
  EXPECT_EQ(LastSummary(kEth6 + ip6 + "8f00000000000000"), "type 143 code 0");
}

TEST(DissectNames, SctpChunks) {
  // One 4-byte chunk (type, flags, length 4) of each type in turn.
  std::string chunks;
  for (unsigned t : {0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 10u, 11u, 14u, 200u}) {
    chunks += Hex2(t) + "000004";
  }
  const size_t tot = 20 + 12 + chunks.size() / 2;
  const std::string f = kEth4 + "4500" + Hex2(static_cast<unsigned>(tot >> 8)) +
                        Hex2(static_cast<unsigned>(tot & 0xff)) +
                        "000000004084 0000 0a0000010a000002" + "1388177000000001 00000000" + chunks;
  EXPECT_EQ(LastSummary(f),
            "5000 > 6000 vtag 0x00000001 chunks DATA,INIT,INIT_ACK,SACK,HEARTBEAT,"
            "HEARTBEAT_ACK,ABORT,SHUTDOWN,SHUTDOWN_ACK,ERROR,COOKIE_ECHO,COOKIE_ACK,"
            "SHUTDOWN_COMPLETE,0xc8");
}

}  // namespace
}  // namespace offlab
