// SPDX-License-Identifier: Apache-2.0
//
// Matching transport ports of fragments and of cut-short headers, as
// ovs-vswitchd 3.1.0 on the development machine does it (ovs-diff case
// fragment-ports): with the default frag_handling "normal" every IP fragment,
// the first one included, is looked up with tp_src and tp_dst zero
// (ofproto/ofproto-dpif.c rule_dpif_lookup_from_table), and a packet whose L4
// header is missing or cut short has zero ports in its flow. Frames from
// scapy.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/packet.h"
#include "offlab/ovs/flow.h"
#include "offlab/ovs/parse.h"

namespace offlab {
namespace {

bool Matches(const std::string& match, const std::string& hex) {
  const Match m =
      ParseRule(match + ",actions=drop", [](const std::string&) -> uint32_t { return 1; }).match;
  Packet p(FromHex(hex));
  const FlowKey key = Parse(p);
  return m.Matches(key, p.md);
}

// IP(src="10.0.0.2",dst="10.0.0.1",proto=6,id=1,frag=1)/Raw(bytes(range(24)))
const std::string kLaterFragment =
    "0a8f394fe0738abf7e2f058408004500002c00010001400666c80a0000020a000001"
    "000102030405060708090a0b0c0d0e0f1011121314151617";
// IP(...,id=2,flags="MF")/TCP(sport=1000,dport=80,flags="A")/Raw(bytes(range(16)))
const std::string kFirstFragment =
    "0a8f394fe0738abf7e2f058408004500003800022000400646bc0a0000020a000001"
    "03e800500000000000000000501020003f4a0000000102030405060708090a0b0c0d0e0f";
// The same TCP segment, not a fragment (id=3).
const std::string kWhole =
    "0a8f394fe0738abf7e2f058408004500003800030000400666bb0a0000020a000001"
    "03e800500000000000000000501020003f4a0000000102030405060708090a0b0c0d0e0f";
// IP(...,id=4,flags="MF")/ICMP(type=8,code=0)/Raw(bytes(range(16)))
const std::string kIcmpFirstFragment =
    "0a8f394fe0738abf7e2f058408004500002c00042000400146cb0a0000020a000001"
    "0800bfbf00000000000102030405060708090a0b0c0d0e0f";
// IP(...,id=5,proto=6)/Raw(bytes.fromhex("03e8005000000000")): 8 bytes of TCP.
const std::string kShortTcp =
    "0a8f394fe0738abf7e2f058408004500001c00050000400666d50a0000020a000001"
    "03e8005000000000";

TEST(FlowMatchFragmentPorts, AWholeSegmentMatchesItsPorts) {
  EXPECT_TRUE(Matches("tcp,tp_dst=80", kWhole));
  EXPECT_TRUE(Matches("tcp,tp_src=1000", kWhole));
  EXPECT_FALSE(Matches("tcp,tp_dst=0", kWhole));
}

TEST(FlowMatchFragmentPorts, AFirstFragmentIsLookedUpWithZeroPorts) {
  EXPECT_FALSE(Matches("tcp,tp_dst=80", kFirstFragment));
  EXPECT_FALSE(Matches("tcp,tp_src=1000", kFirstFragment));
  EXPECT_TRUE(Matches("tcp,tp_dst=0", kFirstFragment));
  EXPECT_TRUE(Matches("tcp,tp_src=0", kFirstFragment));
  // ICMP type and code are the ports of the flow.
  EXPECT_FALSE(Matches("icmp,tp_src=8", kIcmpFirstFragment));
  EXPECT_TRUE(Matches("icmp,tp_src=0", kIcmpFirstFragment));
  EXPECT_TRUE(Matches("icmp,tp_dst=0", kIcmpFirstFragment));
}

TEST(FlowMatchFragmentPorts, ALaterFragmentHasZeroPorts) {
  EXPECT_TRUE(Matches("tcp,tp_dst=0", kLaterFragment));
  EXPECT_TRUE(Matches("tcp,tp_src=0", kLaterFragment));
  EXPECT_FALSE(Matches("tcp,tp_dst=2", kLaterFragment));  // the bytes where a port would be
  EXPECT_FALSE(Matches("tcp,tp_src=1", kLaterFragment));
}

TEST(FlowMatchFragmentPorts, ACutShortHeaderHasZeroPorts) {
  EXPECT_TRUE(Matches("tcp,tp_dst=0", kShortTcp));
  EXPECT_TRUE(Matches("tcp,tp_src=0", kShortTcp));
  EXPECT_FALSE(Matches("tcp,tp_dst=80", kShortTcp));
  EXPECT_FALSE(Matches("tcp,tp_src=1000", kShortTcp));
}

}  // namespace
}  // namespace offlab
