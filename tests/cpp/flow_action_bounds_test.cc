// SPDX-License-Identifier: Apache-2.0
//
// The numeric bounds of action arguments, as ovs-ofctl 3.1.0 on the
// development machine takes them (`ovs-ofctl parse-flow "ip,actions=..."`):
// ct(zone=65535,table=254) parses, ct(zone=65536) ("unknown field") and
// ct(table=255) ("invalid table 0xff") do not; resubmit(,254) parses,
// resubmit(,255) does not. offlab must take and refuse the same.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/error.h"
#include "offlab/ovs/flow.h"

namespace offlab {
namespace {

// The rule's text parsed with every port name meaning port 1; the error text
// when it is refused, "" when it parses.
std::string Refusal(const std::string& text, Rule* out = nullptr) {
  try {
    Rule r = ParseRule(text, [](const std::string&) -> uint32_t { return 1; });
    if (out) *out = r;
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(FlowActionBounds, CtZoneAndTableAsOvsOfctlTakesThem) {
  Rule r;
  ASSERT_EQ(Refusal("ip,actions=ct(zone=65535,table=254)", &r), "");
  ASSERT_EQ(r.actions.size(), 1u);
  EXPECT_EQ(r.actions[0].ct.zone, 65535);
  EXPECT_EQ(r.actions[0].ct.table, 254);
  EXPECT_NE(Refusal("ip,actions=ct(zone=65536)").find("ct zone"), std::string::npos);
  EXPECT_NE(Refusal("ip,actions=ct(table=255)").find("ct table"), std::string::npos);
}

TEST(FlowActionBounds, ResubmitTableAsOvsOfctlTakesIt) {
  EXPECT_EQ(Refusal("ip,actions=resubmit(,254)"), "");
  EXPECT_NE(Refusal("ip,actions=resubmit(,255)").find("resubmit table"), std::string::npos);
}

}  // namespace
}  // namespace offlab
