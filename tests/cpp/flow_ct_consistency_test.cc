// SPDX-License-Identifier: Apache-2.0
//
// ct() against its flow's match, as ovs-ofctl 3.1.0 on the development machine
// takes or refuses it (`ovs-ofctl parse-flow`; refused ones end in "actions are
// invalid with specified match (OFPBAC_MATCH_INCONSISTENT)", check_CT in
// lib/ofp-actions.c): it needs an IP match, cannot commit a flow matching +inv,
// and alg=ftp needs TCP.
#include <gtest/gtest.h>

#include <string>

#include "flow_test_util.h"

namespace offlab {
namespace {

using testing::FlowRefusal;

TEST(FlowCtConsistency, WhatOvsOfctlTakes) {
  for (const char* f :
       {"ip,actions=ct(commit)", "ipv6,actions=ct(commit)", "tcp,actions=ct(commit)",
        "dl_type=0x0800,actions=ct(commit)", "ct_state=-inv,ip,actions=ct(commit)",
        "ct_state=+inv,ip,actions=ct(table=1)", "tcp,actions=ct(alg=ftp)",
        "tcp6,actions=ct(commit,alg=ftp)"}) {
    EXPECT_EQ(FlowRefusal(f), "") << f;
  }
}

TEST(FlowCtConsistency, WhatOvsOfctlRefuses) {
  const auto refused = [](const std::string& f, const std::string& why) {
    const std::string e = FlowRefusal(f);
    EXPECT_NE(e.find(why), std::string::npos) << f << ": " << e;
    EXPECT_NE(e.find("ct()"), std::string::npos) << f << ": " << e;
  };
  refused("actions=ct(commit)", "needs an ip or ipv6 match");
  refused("in_port=p1,actions=ct(zone=5,commit),p2", "needs an ip or ipv6 match");
  refused("dl_type=0x0806,actions=ct(table=1)", "needs an ip or ipv6 match");
  refused("ct_state=+inv,ip,actions=ct(commit)", "+inv");
  refused("ct_state=+inv+trk,ip,actions=ct(commit)", "+inv");
  refused("ct_state=inv|trk,ip,actions=ct(commit)", "+inv");
  refused("udp,actions=ct(alg=ftp)", "alg=ftp needs a tcp match");
  refused("ip,actions=ct(alg=ftp)", "alg=ftp needs a tcp match");
}

TEST(FlowCtConsistency, AnUnclosedCtIsNoCtAction) {
  // offlab takes ct(...) only closed; ovs-ofctl 3.1.0 takes "ct(commit" as
  // ct(commit) (a difference left as it is), but no prefix of an
  // argument: "ct(commit)x" is refused by both ("unknown action x").
  for (const char* f : {"ip,actions=ct(commit", "ip,actions=ct(commit)x", "ip,actions=ct(nat)y"}) {
    EXPECT_NE(FlowRefusal(f).find("unknown action"), std::string::npos)
        << f << ": " << FlowRefusal(f);
  }
}

}  // namespace
}  // namespace offlab
