// SPDX-License-Identifier: Apache-2.0
//
// An action is recognised by its leading word alone: ovs-ofctl's
// ofpacts_parse__ splits "KEY:VALUE" at the first ':' (openvswitch/ovs
// v3.1.0 lib/ofp-parse.c ofputil_parse_key_value: the key ends at the first
// of ":=(", the value is the rest), so "output:output:1" is the output action
// whose port argument is "output:1", whatever that name resolves to. The
// resolver here records the names it is asked for.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "offlab/ovs/flow.h"

namespace offlab {
namespace {

TEST(FlowActionPrefix, ThePortArgumentIsEverythingAfterTheFirstPrefix) {
  struct Case {
    const char* action;
    ActionType type;
    const char* name;  // what the port resolver must be asked
  };
  for (const Case& c : {Case{"output:output:1", ActionType::kOutput, "output:1"},
                        Case{"tnl_push:tnl_push:1", ActionType::kTnlPush, "tnl_push:1"},
                        Case{"tnl_pop:tnl_pop:1", ActionType::kTnlPop, "tnl_pop:1"}}) {
    SCOPED_TRACE(c.action);
    std::vector<std::string> asked;
    const Rule r =
        ParseRule(std::string("actions=") + c.action, [&asked](const std::string& n) -> uint32_t {
          asked.push_back(n);
          return 7;
        });
    ASSERT_EQ(r.actions.size(), 1u);
    EXPECT_EQ(r.actions[0].type, c.type);
    EXPECT_EQ(r.actions[0].port, 7u);
    EXPECT_EQ(asked, std::vector<std::string>{c.name});
  }
}

}  // namespace
}  // namespace offlab
