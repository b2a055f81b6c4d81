// SPDX-License-Identifier: Apache-2.0
//
// Matching fields a packet's flow does not hold, as ovs-vswitchd 3.1.0 on the
// development machine does it (ovs-diff cases fragment-ports and
// ip-header-incomplete): the classifier reads a missing field as zero. With
// the default frag_handling "normal" every IP fragment, the first one
// included, is looked up with tp_src and tp_dst zero
// (ofproto/ofproto-dpif.c rule_dpif_lookup_from_table); a packet whose L4
// header is missing or cut short has no ports, one whose IP header fails the
// sanity checks no network fields, and one whose IPv6 extension headers run
// past the payload no nw_proto (lib/flow.c miniflow_extract). Frames from
// scapy, lengths edited by hand.
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

TEST(FlowMatchAbsentFields, AWholeSegmentMatchesItsPorts) {
  EXPECT_TRUE(Matches("tcp,tp_dst=80", kWhole));
  EXPECT_TRUE(Matches("tcp,tp_src=1000", kWhole));
  EXPECT_FALSE(Matches("tcp,tp_dst=0", kWhole));
}

TEST(FlowMatchAbsentFields, AFirstFragmentIsLookedUpWithZeroPorts) {
  EXPECT_FALSE(Matches("tcp,tp_dst=80", kFirstFragment));
  EXPECT_FALSE(Matches("tcp,tp_src=1000", kFirstFragment));
  EXPECT_TRUE(Matches("tcp,tp_dst=0", kFirstFragment));
  EXPECT_TRUE(Matches("tcp,tp_src=0", kFirstFragment));
  // ICMP type and code are the ports of the flow.
  EXPECT_FALSE(Matches("icmp,tp_src=8", kIcmpFirstFragment));
  EXPECT_TRUE(Matches("icmp,tp_src=0", kIcmpFirstFragment));
  EXPECT_TRUE(Matches("icmp,tp_dst=0", kIcmpFirstFragment));
}

TEST(FlowMatchAbsentFields, ALaterFragmentHasZeroPorts) {
  EXPECT_TRUE(Matches("tcp,tp_dst=0", kLaterFragment));
  EXPECT_TRUE(Matches("tcp,tp_src=0", kLaterFragment));
  EXPECT_FALSE(Matches("tcp,tp_dst=2", kLaterFragment));  // the bytes where a port would be
  EXPECT_FALSE(Matches("tcp,tp_src=1", kLaterFragment));
}

TEST(FlowMatchAbsentFields, ACutShortHeaderHasZeroPorts) {
  EXPECT_TRUE(Matches("tcp,tp_dst=0", kShortTcp));
  EXPECT_TRUE(Matches("tcp,tp_src=0", kShortTcp));
  EXPECT_FALSE(Matches("tcp,tp_dst=80", kShortTcp));
  EXPECT_FALSE(Matches("tcp,tp_src=1000", kShortTcp));
}

// The unfragmented segment with total length 100 in a 56-byte IP packet (its
// header checksum left as it was: the flow does not read it).
const std::string kIpv4TooLong =
    "0a8f394fe0738abf7e2f058408004500006400060000400666b80a0000020a000001"
    "03e800500000000000000000501020003f4a0000000102030405060708090a0b0c0d0e0f";
// The same with IHL 4.
const std::string kIpv4Ihl4 =
    "0a8f394fe0738abf7e2f058408004400003800060000400666b80a0000020a000001"
    "03e800500000000000000000501020003f4a0000000102030405060708090a0b0c0d0e0f";
// IPv6(src="fd00::2",dst="fd00::1",plen=200)/TCP(sport=1000,dport=80,flags="A")
const std::string kIpv6TooLong =
    "0a8f394fe0738abf7e2f058486dd6000000000c80640fd000000000000000000000000000002"
    "fd00000000000000000000000000000103e8005000000000000000005010200091980000";
// 2001:db8::1 > 2001:db8::2, payload length 8: Destination Options (60) whose
// Hdr Ext Len 2 claims 24 bytes.
const std::string kIpv6OptsOverrun =
    "02000000000202000000000186dd6000000000083c4020010db8000000000000000000000001"
    "20010db8000000000000000000000002060201040000000000";

TEST(FlowMatchAbsentFields, AnIpv4HeaderFailingTheSanityChecksHasNoNetworkFields) {
  for (const std::string& frame : {kIpv4TooLong, kIpv4Ihl4}) {
    EXPECT_TRUE(Matches("ip,nw_src=0.0.0.0", frame));
    EXPECT_TRUE(Matches("ip,nw_dst=0.0.0.0", frame));
    EXPECT_TRUE(Matches("ip,nw_proto=0", frame));
    EXPECT_FALSE(Matches("ip,nw_src=10.0.0.2", frame));
    EXPECT_FALSE(Matches("ip,nw_dst=10.0.0.1", frame));
    EXPECT_FALSE(Matches("tcp", frame));
  }
  EXPECT_TRUE(Matches("ip,nw_src=10.0.0.2,nw_dst=10.0.0.1", kWhole));
  EXPECT_FALSE(Matches("ip,nw_src=0.0.0.0", kWhole));
  EXPECT_FALSE(Matches("ip,nw_proto=0", kWhole));
}

TEST(FlowMatchAbsentFields, AnIpv6HeaderOrWalkThatFailsHasNoNwProto) {
  EXPECT_TRUE(Matches("ipv6,nw_proto=0", kIpv6TooLong));
  EXPECT_FALSE(Matches("tcp6", kIpv6TooLong));
  EXPECT_TRUE(Matches("ipv6,nw_proto=0", kIpv6OptsOverrun));
  EXPECT_FALSE(Matches("ipv6,nw_proto=60", kIpv6OptsOverrun));
  EXPECT_FALSE(Matches("ipv6,nw_proto=6", kIpv6OptsOverrun));
}

}  // namespace
}  // namespace offlab
