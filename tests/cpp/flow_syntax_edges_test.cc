// SPDX-License-Identifier: Apache-2.0
//
// Flow syntax edges (models/src/ovs/flow.cc, flow_ct_state.cc) against
// ovs-ofctl 3.1.0 (openvswitch/ovs v3.1.0 lib/ofp-flow.c parse_ofp_str__,
// lib/ofp-actions.c, lib/flow.c parse_flags):
//  - a flow without "actions=" or with an empty action list is refused;
//  - spaces and tabs between fields are ignored; a field without a value is
//    "missing";
//  - ct_state VALUE/MASK numbers are read as %i reads them, whole: a number
//    too big for 64 bits or followed by other characters is no number, so the
//    flag set is unknown;
//  - str_to_nat_range (lib/ofp-actions.c:7160-7227): "[v6]" may be followed
//    by ":port" and by nothing else ("garbage (...) after nat range");
//  - set_field to the IPv4 address fields and to a UDP port;
//  - resubmit(,T) and nat(...) need their closing parenthesis; a bare word
//    is an output port only if it names one;
//  - Match::simple(): a rule matching any L3/L4, tunnel or conntrack field,
//    or in another table, makes the datapath flow match more than the fields
//    the dpif-netdev simple match allows (lib/dpif-netdev.c
//    dp_netdev_flow_is_simple_match: recirc_id, in_port, packet_type,
//    dl_type, vlan_tci, nw_frag).
#include <gtest/gtest.h>

#include <string>

#include "flow_test_util.h"
#include "offlab/net/error.h"
#include "offlab/ovs/flow.h"

namespace offlab {
namespace {

using testing::FlowRefusal;
using testing::ParseFlow;

TEST(FlowSyntaxEdges, ActionsRequiredAndNotEmpty) {
  EXPECT_EQ(FlowRefusal("in_port=1"), "flow 'in_port=1': missing actions=");
  EXPECT_EQ(FlowRefusal("in_port=1,actions="), "flow 'in_port=1,actions=': no actions");
  EXPECT_EQ(FlowRefusal("priority=,actions=drop"), "priority: missing value");
  EXPECT_EQ(FlowRefusal("ct_zone=,actions=drop"), "ct_zone: missing value");
}

TEST(FlowSyntaxEdges, BlanksBetweenFieldsAreIgnored) {
  const Rule r = ParseFlow("priority=5,\ttcp, tp_dst=80,\tactions=drop");
  EXPECT_EQ(r.priority, 5);
  EXPECT_EQ(r.match.nw_proto, 6);
  EXPECT_EQ(r.match.tp_dst, 80);
  ASSERT_EQ(r.actions.size(), 1u);
  EXPECT_EQ(r.actions[0].type, ActionType::kDrop);
}

TEST(FlowSyntaxEdges, CtStateNumbersMustBeWholeNumbers) {
  const std::string big = "99999999999999999999999/0xff";
  EXPECT_EQ(FlowRefusal("ct_state=" + big + ",actions=drop"),
            "ct_state: " + big + ": unknown ct_state flag(s)");
  EXPECT_EQ(FlowRefusal("ct_state=0x1z/0xff,actions=drop"),
            "ct_state: 0x1z/0xff: unknown ct_state flag(s)");
  EXPECT_EQ(FlowRefusal("ct_state=0x21/mask,actions=drop"),
            "ct_state: 0x21/mask: unknown ct_state flag(s)");
  EXPECT_EQ(FlowRefusal("ct_state=0x21/0x100,actions=drop"),
            "ct_state: 0x21/0x100: unknown ct_state flag(s)");
  // Octal and hex as %i: 041 = 0x21 (new|trk) under mask 0xff.
  const Match m = ParseFlow("ct_state=041/0xff,actions=drop").match;
  EXPECT_EQ(m.ct_state_value, 0x21u);
  EXPECT_EQ(m.ct_state_mask, 0xffu);
}

TEST(FlowSyntaxEdges, NatRangeEndsAtThePort) {
  const Action a = ParseFlow("ipv6,actions=ct(commit,nat(src=[2001:db8::5]))").actions.at(0);
  EXPECT_TRUE(a.ct.nat.ipv6);
  EXPECT_FALSE(a.ct.nat.port);
  // ovs-ofctl: 'garbage (x) after nat range "[2001:db8::5]x" (pos: 13)'.
  EXPECT_NE(FlowRefusal("ipv6,actions=ct(commit,nat(src=[2001:db8::5]x))").find("garbage"),
            std::string::npos);
  EXPECT_NE(FlowRefusal("ipv6,actions=ct(commit,nat(src=[2001:db8::5]:))").find("nat port"),
            std::string::npos);
}

TEST(FlowSyntaxEdges, SetFieldIpv4AndUdpFields) {
  struct Case {
    const char* rule;
    bool src;
  };
  for (const Case& c : {Case{"ip,actions=set_field:10.0.0.9->ip_src", true},
                        Case{"ip,actions=set_field:10.0.0.9->ip_dst", false},
                        Case{"ip,actions=set_field:10.0.0.9->nw_src", true},
                        Case{"ip,actions=set_field:10.0.0.9->nw_dst", false}}) {
    SCOPED_TRACE(c.rule);
    const Action a = ParseFlow(c.rule).actions.at(0);
    EXPECT_EQ(a.type, ActionType::kSetIpv4);
    const std::array<uint8_t, 4> want{10, 0, 0, 9};
    EXPECT_EQ(c.src ? a.ipv4.src : a.ipv4.dst, want);
    EXPECT_FALSE(c.src ? a.ipv4.dst : a.ipv4.src);
  }
  for (const char* f : {"tcp_dst", "udp_dst", "sctp_dst"}) {
    const Action a = ParseFlow(std::string("ip,actions=set_field:7->") + f).actions.at(0);
    EXPECT_EQ(a.tp_dst, 7) << f;
    EXPECT_FALSE(a.tp_src) << f;
  }
  const Action u = ParseFlow("ip,actions=set_field:8->udp_src").actions.at(0);
  EXPECT_EQ(u.tp_src, 8);
}

TEST(FlowSyntaxEdges, ParenthesesMustClose) {
  EXPECT_EQ(FlowRefusal("ip,actions=resubmit(,1"), "unknown action 'resubmit(,1'");
  EXPECT_EQ(FlowRefusal("ip,actions=ct(commit,nat(src=10.0.0.1)"),
            "ct: unknown argument 'nat(src=10.0.0.1'");
  EXPECT_EQ(ParseFlow("ip,actions=resubmit(,3)").actions.at(0).table, 3);
}

TEST(FlowSyntaxEdges, ABareWordIsAPortOnlyIfItNamesOne) {
  auto resolve = [](const std::string& name) -> uint32_t {
    if (name == "p7") return 7;
    throw Error("unknown port '" + name + "'");
  };
  const Rule r = ParseRule("actions=p7", resolve);
  EXPECT_EQ(r.actions.at(0).type, ActionType::kOutput);
  EXPECT_EQ(r.actions.at(0).port, 7u);
  try {
    ParseRule("actions=frobnicate", resolve);
    ADD_FAILURE() << "an unknown word was taken";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "unknown action 'frobnicate'");
  }
}

TEST(FlowSyntaxEdges, SimpleMatchIsInPortOnly) {
  EXPECT_TRUE(ParseFlow("in_port=1,actions=drop").match.simple());
  EXPECT_TRUE(ParseFlow("actions=drop").match.simple());
  for (const char* m :
       {"nw_proto=6", "nw_src=10.0.0.1", "nw_dst=10.0.0.1", "tp_src=1", "tp_dst=1", "tun_id=1",
        "tun_src=10.0.0.1", "tun_dst=10.0.0.1", "ct_state=+trk", "ct_zone=1", "table=1"}) {
    EXPECT_FALSE(ParseFlow(std::string("in_port=1,") + m + ",actions=drop").match.simple()) << m;
  }
}

}  // namespace
}  // namespace offlab
