// SPDX-License-Identifier: Apache-2.0
//
// Words of the flow syntax as ovs-ofctl 3.1.0 on the development machine
// reads them (`ovs-ofctl parse-flow`, its answer quoted by each case):
// every ct_state flag, the reserved ports ALL and CONTROLLER as actions,
// set_field to an address of the other family, and the NAT argument's
// direction and port. The ct_state bits are lib/packets.h CS_STATES: new 0,
// est 1, rel 2, rpl 3, inv 4, trk 5.
#include <gtest/gtest.h>

#include <string>

#include "flow_test_util.h"
#include "offlab/net/addr.h"
#include "offlab/net/error.h"
#include "offlab/ovs/flow.h"

namespace offlab {
namespace {

Rule Parse(const std::string& text) { return testing::ParseFlow(text); }

std::string Refusal(const std::string& text) { return testing::FlowRefusal(text); }

TEST(FlowActionWords, EveryCtStateFlagHasItsBit) {
  // "ADD ct_state=+new+est+rel+rpl+inv+trk actions=drop"
  const Match all = Parse("ct_state=+new+est+rel+rpl+inv+trk,actions=drop").match;
  EXPECT_EQ(all.ct_state_mask, 0x3fu);
  EXPECT_EQ(all.ct_state_value, 0x3fu);
  struct Case {
    const char* flag;
    uint32_t bit;
  };
  for (const Case& c : {Case{"new", 1u << 0}, Case{"est", 1u << 1}, Case{"rel", 1u << 2},
                        Case{"rpl", 1u << 3}, Case{"inv", 1u << 4}, Case{"trk", 1u << 5}}) {
    SCOPED_TRACE(c.flag);
    const Match plus = Parse(std::string("ct_state=+") + c.flag + ",actions=drop").match;
    EXPECT_EQ(plus.ct_state_mask, c.bit);
    EXPECT_EQ(plus.ct_state_value, c.bit);
    const Match minus = Parse(std::string("ct_state=-") + c.flag + ",actions=drop").match;
    EXPECT_EQ(minus.ct_state_mask, c.bit);
    EXPECT_EQ(minus.ct_state_value, 0u);
  }
  // "foo: unknown ct_state flag(s)"
  EXPECT_NE(Refusal("ct_state=+foo,actions=drop").find("'foo'"), std::string::npos);
}

TEST(FlowActionWords, AllAndControllerAreReservedPorts) {
  // "ADD actions=ALL" for both spellings; "actions=CONTROLLER:65535" and, with
  // a length, "actions=CONTROLLER:100".
  EXPECT_EQ(Parse("actions=ALL").actions.at(0).type, ActionType::kFlood);
  EXPECT_EQ(Parse("actions=all").actions.at(0).type, ActionType::kFlood);
  EXPECT_EQ(Parse("actions=CONTROLLER").actions.at(0).type, ActionType::kController);
  EXPECT_EQ(Parse("actions=controller(max_len=100)").actions.at(0).type, ActionType::kController);
}

TEST(FlowActionWords, SetFieldTakesOnlyTheFieldsOwnFamily) {
  // "ADD ip actions=mod_nw_dst:10.0.0.1"
  const Action a = Parse("ip,actions=set_field:10.0.0.1->nw_dst").actions.at(0);
  EXPECT_EQ(a.type, ActionType::kSetIpv4);
  EXPECT_EQ(a.ipv4.dst, (std::array<uint8_t, 4>{10, 0, 0, 1}));
  EXPECT_FALSE(a.ipv4.src);
  bool v6 = false;
  const Action b = Parse("ipv6,actions=set_field:2001:db8::1->ipv6_dst").actions.at(0);
  EXPECT_EQ(b.type, ActionType::kSetIpv6);
  EXPECT_EQ(b.ipv6.dst, ParseIp("2001:db8::1", &v6));
  EXPECT_FALSE(b.ipv6.src);
  // "10.0.0.1: invalid IPv6 address", "2001:db8::1: invalid IP address",
  // "1: missing `->'".
  EXPECT_NE(Refusal("ip,actions=set_field:10.0.0.1->ipv6_src").find("not an IPv6 address"),
            std::string::npos);
  EXPECT_NE(Refusal("ipv6,actions=set_field:2001:db8::1->ip_src").find("not an IPv4 address"),
            std::string::npos);
  EXPECT_NE(Refusal("ip,actions=set_field:1").find("VALUE->FIELD"), std::string::npos);
}

TEST(FlowActionWords, NatNeedsADirectionAndMayTakeAPort) {
  // "ADD ip actions=ct(commit,nat(src=10.0.0.1:80))"
  const Action a = Parse("ip,actions=ct(commit,nat(src=10.0.0.1:80))").actions.at(0);
  bool v6 = true;
  EXPECT_TRUE(a.ct.nat.enabled);
  EXPECT_TRUE(a.ct.nat.snat);
  EXPECT_FALSE(a.ct.nat.ipv6);
  EXPECT_EQ(a.ct.nat.addr, ParseIp("10.0.0.1", &v6));
  EXPECT_EQ(a.ct.nat.port, 80);
  // 'invalid key "foo" in "nat" argument', 'invalid key "any" in "nat" argument'.
  EXPECT_NE(Refusal("ip,actions=ct(commit,nat(foo))").find("nat"), std::string::npos);
  EXPECT_NE(Refusal("ip,actions=ct(commit,nat(any=10.0.0.1))").find("'any'"), std::string::npos);
}

}  // namespace
}  // namespace offlab
