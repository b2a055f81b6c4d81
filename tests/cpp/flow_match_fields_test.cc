// SPDX-License-Identifier: Apache-2.0
//
// Matching a packet's flow key against each L3/L4 match field, and which
// matches may take dpif-netdev's simple-match fast path.
//
// A field matches when the packet's value equals the rule's (an exact match
// in the classifier). The rules are in the flow syntax ovs-ofctl 3.1.0 reads
// (`ovs-ofctl parse-flow 'ip,nw_src=192.168.123.2,actions=drop'` prints it
// back as given; `ipv6_src=` is the IPv6 name of the same field). The
// packets: OVS's frame G (ovs_frames.h, 192.168.123.2 > 192.168.123.1, TCP
// 54392 > 5201) and scapy's IPv6(src="2001:cafe::88",dst="2001:cafe::92")/
// SCTP(sport=5000,dport=6000,tag=1)/Raw(bytes(range(4))).
//
// The fast path takes a flow whose match has nothing beyond in_port, dl_type,
// the VLAN TCI and nw_frag (openvswitch/ovs d6a632a9b lib/dpif-netdev.c
// dp_netdev_flow_is_simple_match): any L3/L4, tunnel or conntrack field
// takes it off.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/ovs/flow.h"
#include "offlab/ovs/parse.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;

Match MatchOf(const std::string& text) {
  return ParseRule(text + ",actions=drop", [](const std::string&) -> uint32_t { return 1; }).match;
}

FlowKey KeyOf(const std::string& hex) {
  Packet p(FromHex(H(hex)));
  return Parse(p);
}

const std::string kSctp6 =
    "0a8f394fe0738abf7e2f058486dd 6000000000108440"
    "2001cafe000000000000000000000088 2001cafe000000000000000000000092"
    "13881770000000018dfb31c8 00010203";

TEST(FlowMatchFields, EachFieldMatchesItsOwnValueOnly) {
  const FlowKey g = KeyOf(testing::kFrameG);
  const PacketMetadata md;
  struct Case {
    const char* match;
    bool matches;
  };
  for (const Case& c :
       {Case{"ip,nw_src=192.168.123.2", true}, Case{"ip,nw_src=192.168.123.1", false},
        Case{"ip,nw_dst=192.168.123.1", true}, Case{"ip,nw_dst=192.168.123.2", false},
        Case{"tcp,tp_src=54392", true}, Case{"tcp,tp_src=5201", false},
        Case{"tcp,tp_dst=5201", true}, Case{"tcp,tp_dst=54392", false}, Case{"udp", false},
        Case{"dl_type=0x86dd", false}, Case{"dl_type=0x0800", true},
        Case{"tcp,nw_src=192.168.123.2,nw_dst=192.168.123.1,tp_src=54392,tp_dst=5201", true}}) {
    EXPECT_EQ(MatchOf(c.match).Matches(g, md), c.matches) << c.match;
  }
  const FlowKey v6 = KeyOf(kSctp6);
  for (const Case& c :
       {Case{"ipv6,ipv6_src=2001:cafe::88", true}, Case{"ipv6,ipv6_src=2001:cafe::92", false},
        Case{"ipv6,ipv6_dst=2001:cafe::92", true}, Case{"ipv6,ipv6_dst=2001:cafe::88", false},
        Case{"sctp6,tp_src=5000,tp_dst=6000", true}, Case{"sctp6,tp_dst=5000", false},
        Case{"ip", false}}) {
    EXPECT_EQ(MatchOf(c.match).Matches(v6, md), c.matches) << c.match;
  }
}

TEST(FlowMatchFields, CtZoneMatchesTheZoneTheConnectionWasTrackedIn) {
  const FlowKey g = KeyOf(testing::kFrameG);
  PacketMetadata md;
  md.ct_zone = 5;
  EXPECT_TRUE(MatchOf("ct_zone=5").Matches(g, md));
  EXPECT_FALSE(MatchOf("ct_zone=6").Matches(g, md));
  md.ct_zone = 0;
  EXPECT_FALSE(MatchOf("ct_zone=5").Matches(g, md));
  EXPECT_TRUE(MatchOf("ct_zone=0").Matches(g, md));
}

TEST(FlowMatchFields, OnlyInPortAndDlTypeKeepTheSimpleMatchPath) {
  EXPECT_TRUE(MatchOf("in_port=1").simple());
  EXPECT_TRUE(MatchOf("in_port=1,ip").simple());
  EXPECT_TRUE(MatchOf("in_port=1,dl_type=0x86dd").simple());
  for (const char* m :
       {"in_port=1,nw_proto=47", "in_port=1,tcp", "in_port=1,ip,nw_src=10.0.0.1",
        "in_port=1,ip,nw_dst=10.0.0.1", "in_port=1,tcp,tp_src=1", "in_port=1,tcp,tp_dst=1",
        "in_port=1,tun_id=5", "in_port=1,tun_src=1.1.2.92", "in_port=1,tun_dst=1.1.2.88",
        "in_port=1,ct_state=+trk", "in_port=1,ct_zone=1"}) {
    EXPECT_FALSE(MatchOf(m).simple()) << m;
  }
}

}  // namespace
}  // namespace offlab
